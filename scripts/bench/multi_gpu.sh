#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Multi-GPU scaling of `cudag pc --backend cuda` under mpiexec, one rank per GPU:
#   n20000     genome-like: n = 20,000, m = 1,000, about 5 neighbours per variable
#   dense4000  cuPC's scalability set n = 4000, d = 0.1, m = 10,000
#   n100000    n = 100,000, m = 500, about 5 neighbours (BIG=1 or in SETS; its 80 GB
#              correlation matrix fits one H200, not one H100: there the 1-rank run fails
#              with the memory message and the table says so)
#   n150000    n = 150,000, m = 500, about 5 neighbours: its 180 GB correlation matrix fits
#              no single GPU, so the engine holds rows of it and sums other entries again
#              from the data (the startup line says so; run it with RANKS="2" or more)
# For every set and rank count: wall time end to end, skeleton time (sum of level times),
# time per level with its merge time and imbalance (from `-v`), peak GPU memory per GPU
# (nvidia-smi sampled every 100 ms, minus what was in use before), speedup and parallel
# efficiency of the skeleton against 1 rank, and whether the edge list and causal-learn
# matrix are byte-identical to the 1-rank run.
#
# Usage: scripts/bench/multi_gpu.sh [build-dir]
#   env: OUT=dir (logs and table), RANKS="1 2" (1 first), SETS="n20000 dense4000",
#        BIG=1 (add n100000), ALPHA=0.01, MPIEXEC=mpiexec, BACKEND=cuda (cpu: a smoke
#        test of the script on a machine without GPUs, with SETS=small), PC_ARGS (more
#        `cudag pc` options, e.g. "--tune corr-limit=1"), KEEP_EDGES=1 (copy each run's edge
#        list into the log folder, to compare runs of different options)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cudag=$(realpath "$build/cudag")
alpha=${ALPHA:-0.01}
ranks=${RANKS:-"1 2"}
sets=${SETS:-"n20000 dense4000"}
[[ -n ${BIG:-} ]] && sets="$sets n100000"
mpiexec=${MPIEXEC:-mpiexec}
logs=${OUT:-$(mktemp -d)}/multi_gpu
mkdir -p "$logs"
data=$(mktemp -d)
trap 'rm -rf "$data"; [[ -n ${smi:-} ]] && kill "$smi" 2>/dev/null || true' EXIT
export NCCL_NVLS_ENABLE=0
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_btl_vader_single_copy_mechanism=none
table=$logs/table.tsv
printf 'set\tranks\tcomm\twall_s\tskeleton_s\tspeedup\tefficiency\tsearch_s\tsearch_eff\tidentical\tpeak_gib_per_gpu\tlevels (s, merge s, imbalance est/run)\n' >"$table"

now() { date +%s.%N; }
sample_memory() {
    if command -v nvidia-smi >/dev/null; then
        exec nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 100
    fi
    exec sleep 100000
}
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

for set in $sets; do
    case $set in
        n20000) n=20000 m=1000 d=$(awk 'BEGIN { printf "%.6g", 5 / 19999 }') ;;
        dense4000) n=4000 m=10000 d=0.1 ;;
        small) n=1500 m=1000 d=$(awk 'BEGIN { printf "%.6g", 5 / 1499 }') ;;  # smoke test
        n100000) n=100000 m=500 d=$(awk 'BEGIN { printf "%.6g", 5 / 99999 }') ;;
        n150000) n=150000 m=500 d=$(awk 'BEGIN { printf "%.6g", 5 / 149999 }') ;;
        *) echo "unknown set '$set'" >&2; exit 2 ;;
    esac
    f=$data/$set.h5
    t0=$(now)
    "$cudag" simulate gaussian --overwrite --vars "$n" --samples "$m" --density "$d" --seed 1 --out "$f" \
        >"$logs/$set.simulate.log" 2>&1
    echo "$set: n=$n m=$m d=$d simulated in $(since "$t0") s"
    base_skel=""
    list=$ranks
    formats=edges,cl
    # n = 100,000: no n×n causal-learn text matrix (2e10 bytes).
    [[ $set == n100000 || $set == n150000 ]] && formats=edges
    for r in $list; do
        log=$logs/$set.np$r.log
        out=$data/$set.np$r.h5
        sample_memory >"$logs/$set.np$r.mem" 2>/dev/null &
        smi=$!
        sleep 0.3
        t0=$(now)
        rc=0
        "$mpiexec" -n "$r" --bind-to none "$cudag" pc --data "$f" --alpha "$alpha" --backend "${BACKEND:-cuda}" \
            -v --out "$out" --format "$formats" ${PC_ARGS:-} >"$log" 2>&1 || rc=$?
        wall=$(since "$t0")
        kill "$smi" 2>/dev/null || true
        wait "$smi" 2>/dev/null || true
        smi=""
        if [[ $rc != 0 ]]; then
            printf '%s\t%s\t-\tfailed(rc=%s)\t-\t-\t-\t-\t-\t-\t-\t%s\n' "$set" "$r" "$rc" "$(tail -1 "$log")" >>"$table"
            echo "  $r ranks: failed (rc $rc): $(tail -1 "$log")"
            continue
        fi
        [[ -n ${KEEP_EDGES:-} ]] && cp "$data/$set.np$r.edges.tsv" "$logs/$set.np$r.edges.tsv"
        # Peak per GPU above the first sample (what other processes held).
        peak=$(awk -F', *' '!($1 in base) { base[$1] = $2 } { u = $2 - base[$1]; if (u > p[$1]) p[$1] = u }
                END { s = ""; for (g in p) s = s sprintf("%sgpu%s:%.1f", s == "" ? "" : " ", g, p[g] / 1024); print s }' \
            "$logs/$set.np$r.mem")
        skel=$(awk '/: level [0-9]+:/ { for (k = 1; k < NF; ++k) if ($(k+1) == "s" && $k ~ /^[0-9.]+$/) { s += $k; break } }
                    END { printf "%.3f", s }' "$log")
        levels=$(awk '/: level [0-9]+:/ {
                    l = $0; sub(/.*: level /, "", l); sub(/:.*/, "", l)
                    t = ""; for (k = 1; k < NF; ++k) if ($(k+1) == "s" && $k ~ /^[0-9.]+$/) { t = $k; break }
                    mg = "-"; if (match($0, /merge [0-9.]+ s/)) { mg = substr($0, RSTART + 6, RLENGTH - 8) }
                    im = ""; if (match($0, /imbalance [0-9.]+ est. [0-9.]+ run/)) { im = substr($0, RSTART + 10, RLENGTH - 14); gsub(/ est. /, "/", im) }
                    printf "%sL%s:%s", (n++ ? " " : ""), l, t; if (mg != "-") printf "(m%s,%s)", mg, im }' "$log")
        # The whole search: the levels plus gathering pMax and separating sets at the end.
        search=$( (grep -o 'skeleton: [0-9.]* s' "$log" || echo 'x -') | head -1 | awk '{ print $2 }')
        comm=$( (grep -o 'ranks ([a-z]*)' "$log" || true) | head -1 | tr -d '()' | awk '{ print $2 }')
        [[ -z $comm ]] && comm=serial
        if [[ -z $base_skel ]]; then
            base_skel=$skel
            base_search=$search
            base_out=$data/$set.np$r
            ident=base
        else
            ident=yes
            for s in .edges.tsv $([[ $formats == *cl* ]] && echo .cl.txt); do
                cmp -s "$base_out$s" "$data/$set.np$r$s" || ident=NO
            done
        fi
        speed=$(awk -v a="$base_skel" -v b="$skel" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
        eff=$(awk -v s="$speed" -v r="$r" 'BEGIN { if (s != "-") printf "%.0f%%", 100 * s / r; else print "-" }')
        seff=$(awk -v a="$base_search" -v b="$search" -v r="$r" 'BEGIN { if (b + 0 > 0 && a + 0 > 0) printf "%.0f%%", 100 * a / b / r; else print "-" }')
        [[ $ident == base ]] && { speed=1.00; eff=-; seff=-; }
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$set" "$r" "$comm" "$wall" "$skel" "$speed" "$eff" \
            "$search" "$seff" "$ident" "$peak" "$levels" >>"$table"
        echo "  $r ranks ($comm): wall $wall s, skeleton $skel s, identical $ident, peak GiB $peak"
    done
done
echo
echo "alpha=$alpha; speedup and efficiency of the skeleton time (sum of level times) against"
echo "the first rank count; search_s: the whole search (levels and the final gather of pMax and"
echo "separating sets, the 'skeleton:' line) and its efficiency; identical: edge list and"
echo "causal-learn matrix equal to it; logs in $logs"
awk -F'\t' '{ printf "%-9s %5s %-6s %8s %10s %7s %10s %8s %10s %9s  %-22s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }' "$table"
