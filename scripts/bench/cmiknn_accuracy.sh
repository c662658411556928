#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nonlinear PC accuracy: skeleton F1 and CPDAG SHD of --test cmiknn and of the Gaussian PC
# (fisher-z) on the same `cudag simulate nonlinear` data (MANM-CS-style: linear, quadratic,
# tanh and sine edges), per variable count and seed, with each run's wall time.
# Usage: scripts/bench/cmiknn_accuracy.sh [build-dir]
#   env: VARS="20 50" SAMPLES=1000 SEEDS="1 2 3 4 5" ALPHA=0.01 THREADS=2
#        DENSITY_<N>: edge probability for N variables (default 3/(N-1): expected degree 3)
#        CMI="--knn 7 --shuffle-neighbors 15 --permutations 100" (the GPU paper's settings;
#        cudag's defaults are tigramite's: knn 0.2, 5 shuffle neighbours, 500 permutations)
#        MAX_LEVEL_50=2 caps the level of the N = 50 runs (MAX_LEVEL_<N>; default none)
#        KEEP=dir keeps the data, truths and results there
#        BACKEND=cpu|cuda: `cudag pc --backend` of every run (default: none given, i.e. auto)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cudag=$build/cudag
m=${SAMPLES:-1000}; alpha=${ALPHA:-0.01}; threads=${THREADS:-2}
seeds=${SEEDS:-"1 2 3 4 5"}
cmi=${CMI:-"--knn 7 --shuffle-neighbors 15 --permutations 100"}
backend=${BACKEND:-}
case $backend in
    "") backend_opt="" ;;
    cpu | cuda) backend_opt="--backend $backend" ;;
    *) echo "cmiknn_accuracy.sh: BACKEND must be cpu or cuda, not '$backend'" >&2; exit 2 ;;
esac
if [[ -n "${KEEP:-}" ]]; then tmp=$KEEP; mkdir -p "$tmp"; else tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; fi
printf '%-4s %-5s %-9s %5s %5s %7s %7s %7s %5s %9s %9s\n' N seed test true est prec recall F1 SHD seconds cpu_s
TIMEFORMAT='%R %U %S' 
for n in ${VARS:-20 50}; do
    dvar=DENSITY_$n; d=${!dvar:-$(python3 -c "print(round(3 / ($n - 1), 3))")}
    lvar=MAX_LEVEL_$n; level=${!lvar:--1}
    for s in $seeds; do
        base=$tmp/n${n}_s$s
        "$cudag" simulate nonlinear --overwrite --vars "$n" --samples "$m" --density "$d" --seed "$s" \
            --out "$base.csv" --truth "$base.truth.tsv" 2>/dev/null
        for test in fisher-z cmiknn; do
            opts="--test $test --alpha $alpha --threads $threads --max-level $level $backend_opt"
            [[ $test == cmiknn ]] && opts="$opts $cmi"
            # wall, user and system seconds of the pc run (bash's time keyword)
            { time "$cudag" pc --data "$base.csv" $opts --out "$base.$test.h5" --format edges -q; } \
                2> "$base.$test.time"
            "$cudag" compare --truth "$base.truth.tsv" --estimate "$base.$test.h5" \
                --json "$base.$test.json" >/dev/null
            python3 - "$base.$test.json" "$n" "$s" "$test" "$base.$test.time" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
n, s, test, tf = sys.argv[2:6]
wall, user, sys_s = (float(x) for x in open(tf).read().split()[-3:])
print(f"{n:<4} {s:<5} {test:<9} {c['n_true_edges']:>5} {c['n_est_edges']:>5} {c['precision']:>7.3f} "
      f"{c['recall']:>7.3f} {c['f1']:>7.3f} {c['shd']:>5} {wall:>9.1f} {user + sys_s:>9.1f}", flush=True)
PY
        done
    done
done | tee "$tmp/rows.txt"
echo "mean per N and test:"
awk '{k=$1" "$3; f[k]+=$8; h[k]+=$9; t[k]+=$10; u[k]+=$11; c[k]++}
     END {for (k in c) printf "  %-14s F1 %.3f  SHD %.1f  seconds %.1f  cpu_s %.1f  (%d seeds)\n", k, f[k]/c[k], h[k]/c[k], t[k]/c[k], u[k]/c[k], c[k]}' \
    "$tmp/rows.txt" | sort
echo "T=$m alpha=$alpha threads=$threads backend=${backend:-auto} cmiknn: $cmi; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
