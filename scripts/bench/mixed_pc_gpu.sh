#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# PC with cg-lrt on mixed data (issue 55): one GPU (skeleton::BatchTestEngine over the cg-lrt
# GPU batch) against the CPU's threads, on generated data: VARS variables, every third
# discrete (3 labels, from its first parent), the others linear-Gaussian in up to two parents
# among the 50 before them (a discrete parent by a mean shift per level). Wall seconds of
# each `cudag pc` and whether both edge lists are identical. Prints one table line.
# Usage: scripts/bench/mixed_pc_gpu.sh [build-dir] [out-dir]
#   env: VARS=1000 SAMPLES=5000 SEED=1 MAX_LEVEL=-1 RUN_TIMEOUT=900 CPU=1 (0: GPU only)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
n=${VARS:-1000}
m=${SAMPLES:-5000}
seed=${SEED:-1}
level=${MAX_LEVEL:--1}
tmo=${RUN_TIMEOUT:-900}
data=$out/mixedpc-$n-$m-$seed.csv
if [[ ! -f $data ]]; then
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
        } }' >"$data"
fi
run() {  # run BACKEND: seconds, or "timeout"/"fail"
    local t0 t1 rc=0
    t0=$(date +%s.%N)
    timeout "$tmo" "$cudag" pc -q --data "$data" --test cg-lrt --max-level "$level" --backend "$1" \
        >"$out/edges-$1.tsv" 2>"$out/err-$1.txt" || rc=$?
    t1=$(date +%s.%N)
    if [[ $rc -eq 124 ]]; then echo timeout; elif [[ $rc -ne 0 ]]; then echo "fail"; else
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'; fi
}
gpu=$(run cuda)
cpu=skipped
[[ ${CPU:-1} == 1 ]] && cpu=$(run cpu)
same=n/a
[[ $cpu != skipped && -s $out/edges-cpu.tsv ]] && { cmp -s "$out/edges-cpu.tsv" "$out/edges-cuda.tsv" && same=yes || same=NO; }
edges=$(($(wc -l <"$out/edges-cuda.tsv") - 1))
echo "cudag pc --test cg-lrt on mixed data (scripts/bench/mixed_pc_gpu.sh)"
echo "vars samples max-level edges gpu_s cpu_s($(nproc) threads) speedup same_edges"
speed=n/a
[[ $cpu =~ ^[0-9.]+$ && $gpu =~ ^[0-9.]+$ ]] && speed=$(awk -v c="$cpu" -v g="$gpu" 'BEGIN { printf "%.1fx", c / g }')
echo "$n $m $level $edges $gpu $cpu $speed $same"
[[ -s $out/err-cuda.txt ]] && head -2 "$out/err-cuda.txt"
true
