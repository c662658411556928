#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cudag pc --missing testwise on the CPU (all cores) and on one GPU for the tests beyond Fisher-z
# (scripts/bench/testwise_gpu.sh): cg-lrt on mixed data (kernels/cg_lrt_batch.cu with presence
# bitmaps) and g-square on discrete data (kernels/discrete_testwise_batch.cu), a share of the
# cells blanked at random (empty cells). Wall seconds of each run and whether the edge lists are
# identical; one table line per test.
#   mixed data: VARS variables, every third discrete (3 labels, from its first parent), the
#     others linear-Gaussian in up to two parents among the 50 before them (a discrete parent by
#     a mean shift per level), as scripts/bench/mixed_pc_gpu.sh generates them;
#   discrete data: `cudag simulate discrete` (2..STATES levels, DENSITY).
# Usage: scripts/bench/testwise_gpu_more.sh [build-dir] [out-dir]
#   env: VARS=500 SAMPLES=2000 MISSING=0.1 SEED=1 ALPHA=0.01 DENSITY=0.005 STATES=3
#        TESTS="cg-lrt g-square" EXTRA="--max-level 3" RUN_TIMEOUT=1800 CPU=1 (0: GPU only)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
n=${VARS:-500}; m=${SAMPLES:-2000}; miss=${MISSING:-0.1}; seed=${SEED:-1}; alpha=${ALPHA:-0.01}
density=${DENSITY:-0.005}; states=${STATES:-3}; tmo=${RUN_TIMEOUT:-1800}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)

# Blank a share `miss` of the data cells of $1 (never the header, delimiter $3) into $2, the
# same cells for a given seed.
blank() {
    awk -F"$3" -v OFS="$3" -v p="$miss" -v seed="$seed" 'BEGIN { srand(seed + 17) } NR == 1 { print; next }
        { for (i = 1; i <= NF; ++i) if (rand() < p) $i = ""; print }' "$1" >"$2"
}

mixed=$out/twmixed-$n-$m-$seed-$miss.csv
if [[ ! -f $mixed ]]; then
    awk -v n="$n" -v m="$m" -v s="$seed" 'BEGIN {
        srand(s); pi = atan2(0, -1)
        for (v = 0; v < n; v++) {
            np[v] = (v == 0) ? 0 : 1 + int(rand() * 2); if (np[v] > v) np[v] = v
            for (k = 0; k < np[v]; k++) { lo = v > 50 ? v - 50 : 0; par[v, k] = lo + int(rand() * (v - lo)); w[v, k] = 0.5 + rand() }
            printf "%sV%d", (v ? "," : ""), v
        }
        print ""
        for (r = 0; r < m; r++) {
            for (v = 0; v < n; v++) {
                g = sqrt(-2 * log(1 - rand())) * cos(2 * pi * rand())
                if (v % 3 == 0) {
                    t = g
                    if (np[v] > 0) t += (v % 2 ? 1 : -1) * val[par[v, 0]]
                    c = t < -0.5 ? 0 : (t < 0.5 ? 1 : 2)
                    val[v] = c; cell = "L" c
                } else {
                    x = g
                    for (k = 0; k < np[v]; k++) x += w[v, k] * (par[v, k] % 3 == 0 ? val[par[v, k]] - 1 : val[par[v, k]] / (1 + k))
                    val[v] = x; cell = sprintf("%.6f", x)
                }
                printf "%s%s", (v ? "," : ""), cell
            }
            print ""
        } }' >"$out/full-mixed.csv"
    blank "$out/full-mixed.csv" "$mixed" ,
fi
discrete=$out/twdiscrete-$n-$m-$seed-$miss.tsv
if [[ ! -f $discrete ]]; then
    "$cudag" simulate -q discrete --vars "$n" --samples "$m" --density "$density" --states "$states" \
        --seed "$seed" --out "$out/full-discrete.tsv" --overwrite
    blank "$out/full-discrete.tsv" "$discrete" $'\t'
fi

run() {  # run TEST DATA BACKEND -> seconds, "timeout" or "fail" (edges in $out/<test>-<backend>.edges.tsv)
    local t0 t1 rc=0 extra=()
    rm -f "$out/$1-$3.edges.tsv"
    [[ $1 == g-square ]] && extra=(--discrete)
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086  # EXTRA: options split at blanks on purpose
    timeout "$tmo" "$cudag" pc -q --data "$2" --missing testwise --test "$1" "${extra[@]}" --alpha "$alpha" \
        --backend "$3" ${EXTRA:-} --out "$out/$1-$3.h5" --format edges >"$out/$1-$3.log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    if [[ $rc -eq 124 ]]; then echo timeout; elif [[ $rc -ne 0 ]]; then echo fail; else
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'; fi
}

echo "cudag pc --missing testwise, cg-lrt and g-square (scripts/bench/testwise_gpu_more.sh)"
printf 'test\tvars\tsamples\tmissing\tedges\tcpu_s(%s threads)\tgpu_s\tspeedup\tidentical\tgpu\n' "$(nproc)"
status=0
for test in ${TESTS:-cg-lrt g-square}; do
    data=$mixed
    [[ $test == g-square || $test == chi-square ]] && data=$discrete
    gpu_s=$(run "$test" "$data" cuda)
    cpu_s=skipped
    [[ ${CPU:-1} == 1 ]] && cpu_s=$(run "$test" "$data" cpu)
    edges=n/a same=n/a speed=n/a
    for be in cpu cuda; do
        [[ -s $out/$test-$be.edges.tsv ]] && edges=$(($(wc -l <"$out/$test-$be.edges.tsv") - 1))
    done
    if [[ $cpu_s =~ ^[0-9.]+$ && $gpu_s =~ ^[0-9.]+$ ]]; then
        same=NO
        cmp -s "$out/$test-cpu.edges.tsv" "$out/$test-cuda.edges.tsv" && same=yes
        speed=$(awk -v c="$cpu_s" -v g="$gpu_s" 'BEGIN { printf "%.1fx", c / g }')
    fi
    [[ $same == NO || $gpu_s == fail ]] && status=1
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$test" "$n" "$m" "$miss" "$edges" "$cpu_s" "$gpu_s" "$speed" \
        "$same" "${gpu:-?}"
    for be in cuda cpu; do
        [[ -s $out/$test-$be.log ]] && { echo "  $test --backend $be:"; head -2 "$out/$test-$be.log"; }
    done
done
exit $status
