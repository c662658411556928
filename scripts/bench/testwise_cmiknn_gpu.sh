#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CMIknn under --missing testwise: the CPU (all cores) vs one GPU (kernels/cmi_knn_testwise_batch.cu)
# on `cudag simulate nonlinear` data with a share of the cells blanked at random (empty cells):
#   citest --queries  random queries (x, y, a set of 0..MAXSET other variables), every
#                     statistic and p-value compared (byte-identical outputs);
#   pc                a small PC search (--max-level MAXLEVEL), edge lists compared.
# Wall seconds end to end (reading, tests, writing) of each, and whether the outputs are
# identical. One table line per command.
# Usage: scripts/bench/testwise_cmiknn_gpu.sh [build-dir] [out-dir]
#   env: VARS=30 SAMPLES=1000 MISSING=0.1 QUERIES=500 MAXSET=2 PC_VARS=15 MAXLEVEL=2
#        PERMUTATIONS=100 KNN=0.1 SHUFFLE=5 SEED=1 ALPHA=0.01 RUN_TIMEOUT=1800
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
n=${VARS:-30}; m=${SAMPLES:-1000}; miss=${MISSING:-0.1}; q=${QUERIES:-500}; maxset=${MAXSET:-2}
pcn=${PC_VARS:-15}; maxlevel=${MAXLEVEL:-2}; perms=${PERMUTATIONS:-100}; knn=${KNN:-0.1}
shuffle=${SHUFFLE:-5}; seed=${SEED:-1}; alpha=${ALPHA:-0.01}; tmo=${RUN_TIMEOUT:-1800}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
knobs=(--test cmiknn --missing testwise --knn "$knn" --shuffle-neighbors "$shuffle" --permutations "$perms")
# Blank a share `miss` of the data cells (never the header), the same cells for a given seed.
blank() {  # full.csv out.csv
    awk -F, -v OFS=, -v p="$miss" -v seed="$seed" 'BEGIN { srand(seed) } NR == 1 { print; next }
        { for (i = 1; i <= NF; ++i) if (rand() < p) $i = ""; print }' "$1" >"$2"
}
"$cudag" simulate -q nonlinear --vars "$n" --samples "$m" --seed "$seed" --out "$out/full.csv" --overwrite
blank "$out/full.csv" "$out/missing.csv"
"$cudag" simulate -q nonlinear --vars "$pcn" --samples "$m" --seed "$seed" --out "$out/pc-full.csv" --overwrite
blank "$out/pc-full.csv" "$out/pc-missing.csv"
queries=$out/queries.tsv
head -1 "$out/missing.csv" | tr ',' '\n' | awk -v q="$q" -v L="$maxset" -v s="$seed" '
    { name[NR - 1] = $0 } END {
        srand(s); n = NR; print "x\ty\tgiven"
        for (k = 0; k < q; k++) {
            x = int(rand() * n); do y = int(rand() * n); while (y == x)
            l = int(rand() * (L + 1)); delete used; used[x] = 1; used[y] = 1; g = ""
            for (t = 0; t < l; t++) { do z = int(rand() * n); while (z in used); used[z] = 1; g = g (t ? "," : "") name[z] }
            print name[x] "\t" name[y] "\t" g
        } }' >"$queries"
seconds() { date +%s.%N; }
declare -A took=()
timed() {  # key log command... -> took[key] (NA when it failed or ran past the limit)
    local key=$1 log=$2 t0
    shift 2
    t0=$(seconds)
    if ! timeout "$tmo" "$@" 2>"$log"; then
        echo "$key failed or ran past ${tmo}s: $log" >&2
        tail -3 "$log" >&2
        took[$key]=NA
        return 0
    fi
    took[$key]=$(awk -v a="$t0" -v b="$(seconds)" 'BEGIN { printf "%.3f", b - a }')
}
for be in cpu cuda; do
    timed "citest-$be" "$out/citest-$be.log" \
        sh -c '"$@" >"$0"' "$out/citest-$be.tsv" "$cudag" citest -q --data "$out/missing.csv" "${knobs[@]}" \
        --queries "$queries" --backend "$be"
    timed "pc-$be" "$out/pc-$be.log" "$cudag" pc -q --data "$out/pc-missing.csv" "${knobs[@]}" --alpha "$alpha" \
        --max-level "$maxlevel" --backend "$be" --out "$out/pc-$be.h5" --format edges
done
same() { [[ -s $1 ]] && cmp -s "$1" "$2" && echo yes || echo no; }
ratio() { awk -v c="$1" -v g="$2" 'BEGIN { if (c + 0 > 0 && g + 0 > 0) printf "%.1f", c / g; else print "NA" }'; }
edges=NA
[[ -f $out/pc-cpu.edges.tsv ]] && edges=$(($(wc -l <"$out/pc-cpu.edges.tsv") - 1))
echo "cudag --test cmiknn --missing testwise (knn $knn, $shuffle shuffle neighbours, $perms permutations)," \
    "CPU ($(nproc) threads) vs ${gpu:-GPU}; ${miss} of the cells missing"
echo "(seconds end to end; identical = byte-identical statistics and p-values / edge lists)"
printf 'command\tvars\tsamples\twork\tcpu_s\tgpu_s\tcpu/gpu\tidentical\n'
printf 'citest --queries\t%s\t%s\t%s queries, |S| <= %s\t%s\t%s\t%s\t%s\n' "$n" "$m" "$q" "$maxset" \
    "${took[citest-cpu]}" "${took[citest-cuda]}" "$(ratio "${took[citest-cpu]}" "${took[citest-cuda]}")" \
    "$(same "$out/citest-cpu.tsv" "$out/citest-cuda.tsv")"
printf 'pc\t%s\t%s\t%s edges, level <= %s\t%s\t%s\t%s\t%s\n' "$pcn" "$m" "$edges" "$maxlevel" \
    "${took[pc-cpu]}" "${took[pc-cuda]}" "$(ratio "${took[pc-cpu]}" "${took[pc-cuda]}")" \
    "$(same "$out/pc-cpu.edges.tsv" "$out/pc-cuda.edges.tsv")"
