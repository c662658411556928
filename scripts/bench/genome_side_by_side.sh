#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two builds side by side on genome-scale Gaussian sets (issue 35): the same simulated data
# (scale-free and Erdős–Rényi, `cudag simulate gaussian --overwrite --graph`), `mpiexec -n G cudag pc -v`
# with each build in turn, the seconds of every level of each, and whether the two result
# files are equal (scripts/dev/h5_same.py: skeleton, separating sets, pMax, CPDAG; timings
# apart). With CUDAG_TRACE set, each log also holds the host steps of every level.
#
# Usage: scripts/bench/genome_side_by_side.sh OLD_BUILD NEW_BUILD
#   env: OUT=dir (logs and table.tsv), SETS="scale-free:250000:1" (graph:n:GPUs items),
#        SAMPLES=500, DEGREE=2, ALPHA=1e-4, MAX_LEVEL= (no cap), RUN_TIMEOUT=300 (s a run),
#        MPIEXEC=mpiexec (with its options), OLD_ARGS= / NEW_ARGS= (options added to one side's
#        `cudag pc`, e.g. the same build twice with OLD_ARGS="--tune row-blocks=0")
set -euo pipefail
cd "$(dirname "$0")/../.."
old=$(realpath "$1/cudag")
new=$(realpath "$2/cudag")
sets=${SETS:-"scale-free:250000:1"}
read -r -a mpiexec <<<"${MPIEXEC:-mpiexec}"
logs=${OUT:-$(mktemp -d)}/genome_side_by_side
mkdir -p "$logs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NCCL_NVLS_ENABLE=0
table=$logs/table.tsv
printf 'set\tbuild\twall_s\tlevels (s)\tedges\tresults\n' >"$table"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

for item in $sets; do
    IFS=: read -r graph n g <<<"$item"
    tag=$graph.n$n.g$g
    data=$work/$tag.h5
    "$new" simulate gaussian -q --vars "$n" --samples "${SAMPLES:-500}" --graph "$graph" \
        --degree "${DEGREE:-2}" --seed 7 --out "$data"
    for which in old new; do
        bin=$old
        [[ $which == new ]] && bin=$new
        log=$logs/$tag.$which.log
        cmd=("$bin" pc --data "$data" --alpha "${ALPHA:-1e-4}" -v --out "$work/$tag.$which.r.h5")
        [[ -n ${MAX_LEVEL:-} ]] && cmd+=(--max-level "$MAX_LEVEL")
        extra=${OLD_ARGS:-}
        [[ $which == new ]] && extra=${NEW_ARGS:-}
        read -r -a extra_args <<<"$extra"
        cmd+=("${extra_args[@]}")
        echo "${mpiexec[*]} -n $g --bind-to none ${cmd[*]}" >"$log"
        t0=$(now)
        rc=0
        timeout -k 20 "${RUN_TIMEOUT:-300}" "${mpiexec[@]}" -n "$g" --bind-to none "${cmd[@]}" >>"$log" 2>&1 || rc=$?
        wall=$(since "$t0")
        levels=$(sed -n 's/.*level \([0-9]*\): [0-9]* tests.*, \([0-9.]*\) s (.*/\1: \2/p' "$log" | paste -sd' ' -)
        edges=$(sed -n 's/.*fisher-z: \([0-9]*\) edges.*/\1/p' "$log" | tail -1)
        verdict=-
        if [[ $rc != 0 ]]; then
            verdict="rc $rc"
        elif [[ $which == new ]]; then
            verdict=$(python3 scripts/dev/h5_same.py "$work/$tag.old.r.h5" "$work/$tag.new.r.h5" 2>&1 |
                      sed 's/^same .*/same as old/' | cut -c1-90 || true)
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$which" "$wall" "$levels" "${edges:--}" "$verdict" >>"$table"
    done
    rm -f "$data" "$work/$tag".*.r.h5
done
sed 's/\t/  /g' "$table"
