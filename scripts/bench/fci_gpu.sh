#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cudag fci at scale, side by side in one run: RFCI and FCI (with Possible-D-SEP) on sparse
# Gaussian data with ~5 % of the generating nodes hidden, the skeleton on one GPU vs the
# CPU path (all cores), wall seconds and the stages' split, and whether the PAGs are equal.
# Usage: scripts/bench/fci_gpu.sh [build-dir] [out-dir]
#   env: JOBS="rfci:10000 fci:2000" (variant:variables[:extra options, commas for blanks, e.g.
#        fci:2000:--pdsep-max,10]), SAMPLES=1000, DEGREE=3, HIDE=0.05,
#        SEED=1, ALPHA=0.01, CPU=1 (also run the CPU path; 0: GPU only), RUN_TIMEOUT=900
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
jobs=${JOBS:-"rfci:10000 fci:2000"}
m=${SAMPLES:-1000}
deg=${DEGREE:-3}
hide=${HIDE:-0.05}
seed=${SEED:-1}
alpha=${ALPHA:-0.01}
cpu=${CPU:-1}
tmo=${RUN_TIMEOUT:-900}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
table=$out/fci_gpu.tsv
printf 'variant\toptions\tvars\tobserved\tbackend\tseconds\tskeleton_s\tafter_skeleton_s\tpag_edges\tsame_pag\n' >"$table"
run() {  # variant data backend stem extra -> "total skeleton edges"
    local v=$1 data=$2 be=$3 stem=$4 extra=$5 log
    log=$out/$stem.log
    # shellcheck disable=SC2086  # extra: options split at blanks on purpose
    if ! timeout "$tmo" "$cudag" fci -v --variant "$v" --data "$data" --alpha "$alpha" --backend "$be" $extra \
        --out "$out/$stem.h5" --format edges >"$log" 2>&1; then
        echo "failed or past ${tmo}s: $log" >&2
        tail -3 "$log" >&2
        return 1
    fi
    local total skel after edges
    total=$(sed -n 's/^cudag fci: .* \([0-9.e-]*\) s; wrote.*/\1/p' "$log" | tail -1)
    skel=$(sed -n 's/.*skeleton: \([0-9.]*\) s.*/\1/p' "$log" | tail -1)
    after=$(sed -n 's/.*orientation \([0-9.e-]*\) s.*/\1/p' "$log" | tail -1)
    edges=$(($(wc -l <"$out/$stem.edges.tsv") - 1))
    echo "$total $skel $edges"
}
for job in $jobs; do
    IFS=: read -r v n extra <<<"$job"
    extra=${extra//,/ }
    full=$out/full_$n.csv
    [ -f "$full" ] || "$cudag" simulate -q gaussian --graph er --degree "$deg" --vars "$n" --samples "$m" --seed "$seed" \
        --out "$full" --overwrite
    k=$(python3 -c "print(max(1, round($n * $hide)))")
    data=$out/data_$n.csv
    if [ ! -f "$data" ]; then
        # The hidden columns (1-based), one a line; awk keeps the others (cut's -f list
        # overflows the argument list at 100,000 columns).
        python3 -c "
import random; random.seed($seed + $n)
print('\n'.join(str(c) for c in sorted(random.sample(range(1, $n + 1), $k))))" >"$out/hidden_$n.txt"
        awk -F, 'NR == FNR { drop[$1] = 1; next }
            { k = 0; for (i = 1; i <= NF; i++) if (!(i in drop)) printf "%s%s", (k++ ? "," : ""), $i; printf "\n" }' \
            "$out/hidden_$n.txt" "$full" >"$data"
    fi
    obs=$((n - k))
    for be in cuda cpu; do
        [ "$be" = cpu ] && [ "$cpu" != 1 ] && continue
        tag=${extra// /}
        stem=${v}${tag}_${n}_$be
        if r=$(run "$v" "$data" "$be" "$stem" "$extra"); then
            read -r total skel edges <<<"$r"
            after=$(python3 -c "print('%.3f' % (float('$total') - float('${skel:-0}')))" 2>/dev/null || echo -)
            same=-
            if [ "$be" = cpu ] && [ -f "$out/${v}${tag}_${n}_cuda.edges.tsv" ]; then
                cmp -s "$out/${v}${tag}_${n}_cuda.edges.tsv" "$out/$stem.edges.tsv" && same=same || same=differ
            fi
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "${extra:--}" "$n" "$obs" "$be" "$total" "$skel" "$after" "$edges" "$same" >>"$table"
        else
            printf '%s\t%s\t%s\t%s\t%s\tfailed\t-\t-\t-\t-\n' "$v" "${extra:--}" "$n" "$obs" "$be" >>"$table"
        fi
    done
done
echo "cudag fci at scale on ${gpu:-no GPU} ($(nproc) CPU threads): $m samples, ER mean degree $deg, $hide hidden, alpha $alpha"
if command -v column >/dev/null; then column -t -s $'\t' "$table"; else cat "$table"; fi
