#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Batches of CI tests (`cudag citest --queries`, the path FCI's stages after the skeleton
# take), side by side in one run: the CPU's threads vs one GPU, for Fisher-z, chi-square,
# G-square and CMIknn, on random queries (x, y, a set of 0..MAXSET other variables), wall
# seconds and whether both outputs are byte-identical (statistic and p-value of every test).
# Usage: scripts/bench/citest_batch.sh [build-dir] [out-dir]
#   env: JOBS="fisher-z:1000:2000:200000 chi-square:200:5000:50000 g-square:200:5000:50000 cmiknn:50:1000:400"
#        (test:variables:samples:queries), MAXSET=4, SEED=1, RUN_TIMEOUT=900
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
jobs=${JOBS:-"fisher-z:1000:2000:200000 chi-square:200:5000:50000 g-square:200:5000:50000 cmiknn:50:1000:400"}
maxset=${MAXSET:-4}
seed=${SEED:-1}
tmo=${RUN_TIMEOUT:-900}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
table=$out/citest_batch.tsv
printf 'test\tvars\tsamples\tqueries\tcpu_s\tgpu_s\tcpu/gpu\tidentical\n' >"$table"
seconds() { date +%s.%N; }
for job in $jobs; do
    IFS=: read -r test n m q <<<"$job"
    kind=gaussian
    [[ $test == chi-square || $test == g-square ]] && kind=discrete
    [[ $test == cmiknn ]] && kind=nonlinear
    data=$out/$kind-$n-$m.csv
    if [[ ! -f $data ]]; then
        if [[ $kind == discrete ]]; then
            "$cudag" simulate -q discrete --vars "$n" --samples "$m" --density 0.02 --states 3 --seed "$seed" \
                --out "$data" >/dev/null
        else
            "$cudag" simulate -q "$kind" --vars "$n" --samples "$m" --density 0.01 --seed "$seed" --out "$data" >/dev/null
        fi
    fi
    queries=$out/queries-$n-$q.tsv
    # q random queries over the header's names: x != y, a set of 0..maxset others (awk's
    # srand(seed) stream: the same file for the same settings).
    head -1 "$data" | tr ',' '\n' | awk -v q="$q" -v L="$maxset" -v s="$seed" '
        { name[NR - 1] = $0 } END {
            srand(s); n = NR; print "x\ty\tgiven"
            for (k = 0; k < q; k++) {
                x = int(rand() * n); do y = int(rand() * n); while (y == x)
                l = int(rand() * (L + 1)); delete used; used[x] = 1; used[y] = 1; g = ""
                for (t = 0; t < l; t++) { do z = int(rand() * n); while (z in used); used[z] = 1; g = g (t ? "," : "") name[z] }
                print name[x] "\t" name[y] "\t" g
            } }' >"$queries"
    declare -A took=()
    for be in cpu cuda; do
        t0=$(seconds)
        if ! timeout "$tmo" "$cudag" citest -q --data "$data" --test "$test" --queries "$queries" --backend "$be" \
            >"$out/$test-$be.tsv" 2>"$out/$test-$be.log"; then
            echo "citest $test --backend $be failed or past ${tmo}s" >&2
            tail -3 "$out/$test-$be.log" >&2
            took[$be]=NA
            continue
        fi
        took[$be]=$(awk -v a="$t0" -v b="$(seconds)" 'BEGIN { printf "%.3f", b - a }')
    done
    same=no
    cmp -s "$out/$test-cpu.tsv" "$out/$test-cuda.tsv" && same=yes
    ratio=$(awk -v c="${took[cpu]}" -v g="${took[cuda]}" 'BEGIN { if (c + 0 > 0 && g + 0 > 0) printf "%.1f", c / g; else print "NA" }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$test" "$n" "$m" "$q" "${took[cpu]}" "${took[cuda]}" "$ratio" "$same" >>"$table"
done
echo "cudag citest --queries, CPU ($(nproc) threads) vs ${gpu:-GPU}, commit $(git rev-parse --short HEAD 2>/dev/null || echo ?)"
echo "(seconds end to end: reading the data, the tests, writing; identical = byte-identical outputs)"
column -t -s $'\t' "$table"
