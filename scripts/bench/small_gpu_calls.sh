#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Small Gaussian PC calls on one GPU, in process (tests/bench/pc_corr_bench on a CSV: the GPU's
# correlation, skeleton, orientation and result, REPS calls a process, PROCS processes), beside
# the CPU path on the same data, and beside an outside cuPC-S driver when CUPC_DRIVER names one
# (never part of the project: a program of the user's that calls cuPC's public Skeleton() and
# prints key=value lines first_ms, median_ms, min_ms, corr_ms, edges; usage DRIVER CSV ALPHA
# MAX_LEVEL REPS EDGES_OUT). The sets: cuPC's own example when CUPC_DATA names its
# data/dataset.csv (a header row is added when it has none), a 60-variable set of cudag's
# generator with its shape, and a DREAM5-sized one (1,643 variables, 805 samples, ER degree 3).
# The skeletons are compared pair by pair where a driver ran.
#
# Usage: BUILD=build-device [REPS=21] [PROCS=3] [ALPHA=0.05] [MAX_LEVEL=14] [CUPC_DATA=f.csv]
#        [CUPC_DRIVER=prog] scripts/bench/small_gpu_calls.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
reps=${REPS:-21}
procs=${PROCS:-3}
alpha=${ALPHA:-0.05}
max_level=${MAX_LEVEL:-14}
bench=$build/pc_corr_bench
[[ -x $bench && -x $build/cudag ]] || {
    echo "small_gpu_calls.sh: $bench or $build/cudag is not built (cmake --build $build --target cudag pc_corr_bench)" >&2
    exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sets=()
if [[ -n ${CUPC_DATA:-} ]]; then
    if head -1 "$CUPC_DATA" | grep -q '[A-Za-z"]'; then
        cp "$CUPC_DATA" "$work/cupc.csv"
    else  # no header row: V1..Vp
        p=$(head -1 "$CUPC_DATA" | awk -F, '{print NF}')
        { seq -f 'V%g' -s, 1 "$p"; cat "$CUPC_DATA"; } >"$work/cupc.csv"
    fi
    sets+=(cupc)
fi
"$build/cudag" simulate -q gaussian --vars 60 --samples 1000 --density 0.1 --seed 11 --out "$work/small60.csv"
sets+=(small60)
"$build/cudag" simulate -q gaussian --graph er --degree 3 --vars 1643 --samples 805 --seed 5 --out "$work/dream.csv"
sets+=(dream)

field() { sed -n "s/.*$1 \\([0-9.]*\\).*/\\1/p"; }
kv() { sed -n "s/^$1=\\([-0-9.]*\\).*/\\1/p" | head -1; }
printf '\n%-8s %-5s %12s %12s %12s %12s %12s %12s %8s\n' set proc "cudag first" "cudag call" "cudag levels" \
    "cuPC first" "cuPC Skel." "cuPC cor" "edges"
for s in "${sets[@]}"; do
    csv=$work/$s.csv
    cpu=$("$bench" "$csv" 5 0 cpu "$alpha" "$max_level" | tail -1)
    for ((k = 1; k <= procs; ++k)); do
        g=$("$bench" "$csv" "$reps" 0 cuda "$alpha" "$max_level" "$work/$s.cudag.edges" | tail -1)
        first=$(field "first call" <<<"$g")
        call=$(field "run_pc median" <<<"$g")
        lv=$(field "levels median" <<<"$g")
        edges=$(sed -n 's/.*, \([0-9]*\) edges$/\1/p' <<<"$g")
        cf=- cm=- cc=- same=
        if [[ -n ${CUPC_DRIVER:-} ]]; then
            d=$("$CUPC_DRIVER" "$csv" "$alpha" "$max_level" "$reps" "$work/$s.cupc.edges" 2>&1) || {
                echo "$d" >&2
                echo "small_gpu_calls.sh: the cuPC driver failed on $s" >&2
                exit 1
            }
            cf=$(kv first_ms <<<"$d")
            cm=$(kv median_ms <<<"$d")
            cc=$(kv corr_ms <<<"$d")
            if cmp -s <(sort "$work/$s.cudag.edges") <(sort "$work/$s.cupc.edges"); then
                same=" (=cuPC)"
            else
                same=" (cuPC $(kv edges <<<"$d"), $(comm -3 <(sort "$work/$s.cudag.edges") <(sort "$work/$s.cupc.edges") | wc -l) differ)"
            fi
        fi
        printf '%-8s %-5s %12s %12s %12s %12s %12s %12s %8s%s\n' "$s" "$k" "$first" "$call" "$lv" "$cf" "$cm" "$cc" \
            "$edges" "$same"
    done
    printf '%-8s %-5s %12s %12s %12s   (the CPU path, %s threads)\n' "$s" cpu "$(field "first call" <<<"$cpu")" \
        "$(field "run_pc median" <<<"$cpu")" "$(field "levels median" <<<"$cpu")" "$(nproc)"
done
echo "(ms; cudag: pc_corr_bench's first call and the medians of the other $((reps - 1)) in the process, the call from" \
    "the data to the CPDAG and its levels' sum; cuPC: the driver's first Skeleton() and the median of the others," \
    "and its host correlation as R's cor() computes it)"
