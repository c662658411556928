#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cg-lrt batches (`cudag citest --test cg-lrt --queries`): the CPU's threads vs one GPU
# (kernels/cg_lrt_batch.cu) on generated mixed data (every third column discrete, 2..5 labels,
# the others continuous, each depending on the columns before it), random queries (x, y, a set
# of 0..MAXSET other variables); wall seconds end to end and whether both outputs are
# byte-identical (statistic and p-value of every test). Prints one table line.
# Usage: scripts/bench/cg_lrt_batch.sh [build-dir] [out-dir]
#   env: VARS=200 SAMPLES=5000 QUERIES=20000 MAXSET=2 SEED=1 RUN_TIMEOUT=900
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
n=${VARS:-200}
m=${SAMPLES:-5000}
q=${QUERIES:-20000}
maxset=${MAXSET:-2}
seed=${SEED:-1}
tmo=${RUN_TIMEOUT:-900}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
data=$out/mixed-$n-$m-$seed.csv
if [[ ! -f $data ]]; then
    # Column v: discrete when v % 3 == 0 (levels l0..l{k-1}, k = 2 + v % 4, drawn from the
    # previous column's value two times in three), else continuous (the two columns before,
    # a discrete one by its code, plus Gaussian noise; Box-Muller on awk's srand(seed) stream).
    awk -v n="$n" -v m="$m" -v s="$seed" 'BEGIN {
        srand(s); pi = atan2(0, -1)
        for (v = 0; v < n; v++) printf "%sV%d", (v ? "," : ""), v; print ""
        for (r = 0; r < m; r++) {
            for (v = 0; v < n; v++) {
                if (v % 3 == 0) {
                    k = 2 + v % 4
                    c = int(rand() * k)
                    if (v > 0 && rand() < 2 / 3) { t = val[v - 1]; c = int((t < 0 ? -t : t) * 2) % k }
                    val[v] = c; cell = "l" c
                } else {
                    g = sqrt(-2 * log(1 - rand())) * cos(2 * pi * rand())
                    x = g * (1 + v % 4) + 10 * (v % 7)
                    if (v >= 1) x += (0.3 + 0.1 * (v % 5)) * val[v - 1]
                    if (v >= 2) x -= 0.2 * val[v - 2]
                    val[v] = x; cell = sprintf("%.6f", x)
                }
                printf "%s%s", (v ? "," : ""), cell
            }
            print ""
        } }' >"$data"
fi
queries=$out/queries-$n-$q-$maxset-$seed.tsv
head -1 "$data" | tr ',' '\n' | awk -v q="$q" -v L="$maxset" -v s="$seed" '
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
for be in cpu cuda; do
    t0=$(seconds)
    if ! timeout "$tmo" "$cudag" citest -q --data "$data" --test cg-lrt --queries "$queries" --backend "$be" \
        >"$out/cg-lrt-$be.tsv" 2>"$out/cg-lrt-$be.log"; then
        echo "citest cg-lrt --backend $be failed or past ${tmo}s" >&2
        tail -3 "$out/cg-lrt-$be.log" >&2
        took[$be]=NA
        continue
    fi
    took[$be]=$(awk -v a="$t0" -v b="$(seconds)" 'BEGIN { printf "%.3f", b - a }')
done
same=no
cmp -s "$out/cg-lrt-cpu.tsv" "$out/cg-lrt-cuda.tsv" && same=yes
ratio=$(awk -v c="${took[cpu]}" -v g="${took[cuda]}" 'BEGIN { if (c + 0 > 0 && g + 0 > 0) printf "%.1f", c / g; else print "NA" }')
echo "cudag citest --test cg-lrt --queries, CPU ($(nproc) threads) vs ${gpu:-GPU}"
echo "(seconds end to end: reading the data, the tests, writing; identical = byte-identical outputs)"
printf 'test\tvars\tsamples\tqueries\tmaxset\tcpu_s\tgpu_s\tcpu/gpu\tidentical\ncg-lrt\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$n" "$m" "$q" "$maxset" "${took[cpu]}" "${took[cuda]}" "$ratio" "$same"
