#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cudag pc --missing testwise --test fisher-z on the CPU (all cores) and on one GPU
# (kernels/fisher_testwise_batch.cu): simulated Gaussian data with a share of the cells blanked
# at random (empty cells), wall seconds of each and whether the edge lists are identical. One
# table line.
# Usage: scripts/bench/testwise_gpu.sh [build-dir] [out-dir]
#   env: VARS=500 SAMPLES=2000 DENSITY=0.01 MISSING=0.1 SEED=1 ALPHA=0.01 EXTRA="--max-level 3"
#        RUN_TIMEOUT=1800
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
n=${VARS:-500}; m=${SAMPLES:-2000}; d=${DENSITY:-0.01}; miss=${MISSING:-0.1}
seed=${SEED:-1}; alpha=${ALPHA:-0.01}; tmo=${RUN_TIMEOUT:-1800}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
full=$out/full.csv
data=$out/missing.csv
"$cudag" simulate -q gaussian --vars "$n" --samples "$m" --density "$d" --seed "$seed" --out "$full" --overwrite
# Blank a share `miss` of the data cells (never the header), the same cells for a given seed.
awk -F, -v OFS=, -v p="$miss" -v seed="$seed" 'BEGIN { srand(seed) } NR == 1 { print; next }
    { for (i = 1; i <= NF; ++i) if (rand() < p) $i = ""; print }' "$full" >"$data"
run() {  # backend -> seconds (the edge list in $out/<backend>.edges.tsv)
    local be=$1 t0 t1
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086  # EXTRA: options split at blanks on purpose
    if ! timeout "$tmo" "$cudag" pc -q --data "$data" --missing testwise --test fisher-z --alpha "$alpha" \
        --backend "$be" ${EXTRA:-} --out "$out/$be.h5" --format edges >"$out/$be.log" 2>&1; then
        echo "--backend $be failed or ran past ${tmo}s: $out/$be.log" >&2
        tail -3 "$out/$be.log" >&2
        exit 1
    fi
    t1=$(date +%s.%N)
    python3 -c "print(f'{$t1 - $t0:.2f}')"
}
cpu_s=$(run cpu)
gpu_s=$(run cuda)
edges=$(($(wc -l <"$out/cpu.edges.tsv") - 1))
same=no
cmp -s "$out/cpu.edges.tsv" "$out/cuda.edges.tsv" && same=yes
printf 'vars\tsamples\tmissing\tedges\tcpu_s\tgpu_s\tspeedup\tidentical\tgpu\n'
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$m" "$miss" "$edges" "$cpu_s" "$gpu_s" \
    "$(python3 -c "print(f'{$cpu_s / max($gpu_s, 1e-9):.1f}x')")" "$same" "${gpu:-?}"
