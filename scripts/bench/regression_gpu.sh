#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tigramite's RegressionCI (`--test regression`) on one GPU (kernels/regression_batch.cu)
# against the CPU's threads, end to end, checking that both print the same bytes:
#  1. `cudag citest --test regression --queries`: QUERIES random queries (x, y, a set of 0..MAXSET
#     others) on generated mixed data (every third column discrete, 2..5 labels, the others
#     continuous, each depending on the columns before it), at each sample size of SAMPLES;
#  2. `cudag pc --test regression` on PC_VARS mixed variables (every third discrete, 3 labels from
#     its first parent; the others linear-Gaussian in up to two parents among the 50 before),
#     PC_SAMPLES rows.
# With MISSING=0.1 (a share), that share of the cells is left empty and both run with
# --missing testwise. Prints one table line per run.
# Usage: scripts/bench/regression_gpu.sh [build-dir] [out-dir]
#   env: VARS=200 SAMPLES="1000 5000" QUERIES=20000 MAXSET=2 PC_VARS=100 PC_SAMPLES=2000
#        MISSING=0 SEED=1 RUN_TIMEOUT=900
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
n=${VARS:-200}
q=${QUERIES:-20000}
maxset=${MAXSET:-2}
pcn=${PC_VARS:-100}
pcm=${PC_SAMPLES:-2000}
hole=${MISSING:-0}
seed=${SEED:-1}
tmo=${RUN_TIMEOUT:-900}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
missing=()
[[ $hole != 0 ]] && missing=(--missing testwise)

# holes FILE: leaves a share $hole of FILE's cells (not the header's) empty, in place.
holes() {
    [[ $hole == 0 ]] && return
    awk -F, -v OFS=, -v h="$hole" -v s="$seed" 'BEGIN { srand(s + 17) }
        NR == 1 { print; next } { for (i = 1; i <= NF; i++) if (NR > 2 && rand() < h) $i = ""; print }' "$1" >"$1.tmp"
    mv "$1.tmp" "$1"
}

seconds() { date +%s.%N; }
# timed NAME ARGS...: runs cudag ARGS > $out/NAME.out; prints seconds, or NA.
timed() {
    local name=$1 t0 rc=0
    shift
    t0=$(seconds)
    timeout "$tmo" "$cudag" "$@" >"$out/$name.out" 2>"$out/$name.log" || rc=$?
    if [[ $rc -ne 0 ]]; then
        echo "cudag $* failed (rc $rc, 124: past ${tmo}s)" >&2
        tail -3 "$out/$name.log" >&2
        echo NA
        return
    fi
    awk -v a="$t0" -v b="$(seconds)" 'BEGIN { printf "%.3f", b - a }'
}
ratio() { awk -v c="$1" -v g="$2" 'BEGIN { if (c + 0 > 0 && g + 0 > 0) printf "%.1f", c / g; else print "NA" }'; }

echo "cudag --test regression, CPU ($(nproc) threads) vs ${gpu:-GPU}; missing cells: $hole"
echo "(seconds end to end: reading the data, the tests, writing; identical = byte-identical outputs)"
printf 'run\tvars\tsamples\tqueries\tcpu_s\tgpu_s\tcpu/gpu\tidentical\n'
for m in ${SAMPLES:-1000 5000}; do
    data=$out/mixed-$n-$m-$seed-$hole.csv
    if [[ ! -f $data ]]; then
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
        holes "$data"
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
    c=$(timed "citest-$m-cpu" citest -q --data "$data" --test regression --queries "$queries" "${missing[@]}" --backend cpu)
    g=$(timed "citest-$m-cuda" citest -q --data "$data" --test regression --queries "$queries" "${missing[@]}" --backend cuda)
    same=no
    cmp -s "$out/citest-$m-cpu.out" "$out/citest-$m-cuda.out" && same=yes
    printf 'citest\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$m" "$q" "$c" "$g" "$(ratio "$c" "$g")" "$same"
done

data=$out/pc-$pcn-$pcm-$seed-$hole.csv
if [[ ! -f $data ]]; then
    awk -v n="$pcn" -v m="$pcm" -v s="$seed" 'BEGIN {
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
    holes "$data"
fi
c=$(timed pc-cpu pc -q --data "$data" --test regression "${missing[@]}" --backend cpu)
g=$(timed pc-cuda pc -q --data "$data" --test regression "${missing[@]}" --backend cuda)
same=no
cmp -s "$out/pc-cpu.out" "$out/pc-cuda.out" && same=yes
printf 'pc\t%s\t%s\t-\t%s\t%s\t%s\t%s\n' "$pcn" "$pcm" "$c" "$g" "$(ratio "$c" "$g")" "$same"
