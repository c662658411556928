#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Order MCMC against the paper's Table 2 (binary data, 600 samples, s = 4, 10,000 iterations,
# n = 25..125; the paper took 77,312 s at n = 125 on its GPU): `cudag mcmc` on the GPU and,
# side by side for the smaller n, on the CPU threads, with the time per phase and whether
# both give the same chains. Then 64 chains at the largest n, and beyond the paper n = 1,000
# with --space pc, 8 chains x 100,000 iterations.
# Usage: scripts/bench/mcmc_gpu.sh [build-dir]
#   env: SIZES="25 50 75 100 125" ITER=10000 CPU_MAX=50 (largest n also run on the CPU)
#        CHAINS64=64 (0: skip) BIG_N=1000 BIG_ITER=100000 BIG_CHAINS=8 (BIG_N=0: skip) SEED=1
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
iter=${ITER:-10000}; cpu_max=${CPU_MAX:-50}; seed=${SEED:-1}

# One run: prints "total table sort chains best" (seconds; best DAG score) from the summary.
run() {
    local out=$1; shift
    local t0 t1 line
    t0=$(date +%s.%N)
    line=$("$build/cudag" mcmc "$@" --out "$out" --format traces,edges,edgeprob -v 2>&1 >/dev/null |
        grep 'best DAG score' || true)
    t1=$(date +%s.%N)
    python3 - "$t0" "$t1" "$line" <<'PY'
import re, sys
t0, t1, line = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
def g(p):
    m = re.search(p, line)
    return m.group(1) if m else "nan"
print(f"{t1 - t0:.3f} {g(r'table ([0-9.]+) s')} {g(r'sort ([0-9.]+) s')} {g(r'chains ([0-9.]+) s')} {g(r'best DAG score (-?[0-9.]+)')}")
PY
}
same() {  # the traces, best DAG and edge posteriors of two runs, byte for byte
    local x y f
    x=${1%.h5}; y=${2%.h5}
    for f in traces.tsv edges.tsv edgeprob.tsv; do
        cmp -s "$x.$f" "$y.$f" || { echo NO; return; }
    done
    echo yes
}

# simulate n samples states density max_parents out: a network whose every column has at
# least two levels (BDeu needs them), trying seeds from $seed on.
simulate() {
    local s=$seed
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        "$build/cudag" simulate discrete --overwrite --vars "$1" --samples "$2" --states "$3" --density "$4" \
            --max-parents "$5" --seed "$s" --out "$6" 2>/dev/null
        python3 - "$6" <<'PY' && return 0
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
sys.exit(0 if all(len({r[c] for r in rows[1:]}) > 1 for c in range(len(rows[0]))) else 1)
PY
        s=$((s + 1))
    done
    return 1
}

echo "Table 2 setting: binary data, 600 samples, s = 4, $iter iterations, 1 chain, max mode (BDeu)"
printf '%-5s %12s %9s %9s %9s %9s %10s %9s %6s\n' n entries gpu_total table sort chains cpu_total cpu/gpu same
for n in ${SIZES:-25 50 75 100 125}; do
    simulate "$n" 600 2 "$(python3 -c "print(min(0.5, 3.0 / $n))")" 4 "$work/d$n.csv"
    entries=$(python3 -c "from math import comb; print($n * sum(comb($n - 1, k) for k in range(5)))")
    opts=(--data "$work/d$n.csv" --score bdeu --max-parents 4 --space all --chains 1 --iterations "$iter" --seed "$seed")
    read -r gt gtab gsort gch gbest < <(run "$work/g$n.h5" "${opts[@]}" --backend cuda)
    ct="-"; ratio="-"; eq="-"
    if (( n <= cpu_max )); then
        read -r ct _ _ _ _ < <(run "$work/c$n.h5" "${opts[@]}" --backend cpu)
        ratio=$(python3 -c "print(f'{$ct / $gt:.1f}')")
        eq=$(same "$work/g$n.h5" "$work/c$n.h5")
    fi
    printf '%-5s %12s %9s %9s %9s %9s %10s %9s %6s\n' "$n" "$entries" "$gt" "$gtab" "$gsort" "$gch" "$ct" "$ratio" "$eq"
    last=$n
done

if (( ${CHAINS64:-64} > 0 )); then
    echo
    echo "${CHAINS64:-64} chains x $iter iterations at n = $last (max mode, BDeu, s = 4)"
    read -r t tab so ch best < <(run "$work/m.h5" --data "$work/d$last.csv" --score bdeu --max-parents 4 --space all \
        --chains "${CHAINS64:-64}" --iterations "$iter" --seed "$seed" --backend cuda)
    printf 'total %s s: table %s s, sort %s s, chains %s s; best DAG score %s\n' "$t" "$tab" "$so" "$ch" "$best"
fi

big=${BIG_N:-1000}
if (( big > 0 )); then
    echo
    echo "n = $big, --space pc, ${BIG_CHAINS:-8} chains x ${BIG_ITER:-100000} iterations (max mode, BDeu, s = 4)"
    simulate "$big" 2000 3 "$(python3 -c "print(2.0 / $big)")" 3 "$work/big.csv"
    read -r t tab so ch best < <(run "$work/big.h5" --data "$work/big.csv" --score bdeu --max-parents 4 --space pc \
        --chains "${BIG_CHAINS:-8}" --iterations "${BIG_ITER:-100000}" --seed "$seed" --backend cuda)
    printf 'total %s s: table %s s, sort %s s, chains %s s; best DAG score %s\n' "$t" "$tab" "$so" "$ch" "$best"
fi
