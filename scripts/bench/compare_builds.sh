#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two builds side by side on the same data: every result file compared (scripts/dev/h5_same.py:
# every dataset and attribute but timings and provenance) and the wall time of each run.
# For a refactoring that must not change results or speed (issues 19, 34): PC with Fisher-z
# (Gaussian sets), chi-square (disc*), CMIknn (nl*) and order MCMC (mcmc*: BDeu, 8 chains).
#
# Usage: scripts/bench/compare_builds.sh OLD_BUILD NEW_BUILD
#   env: OUT=dir (logs and table), BACKENDS="cuda cpu", SKIP="" (set names to leave out),
#        REPEAT=3 (timed runs per build; the
#        fastest is reported), CL_DATA=dir holding causal-learn/ (its data sets too)
set -euo pipefail
cd "$(dirname "$0")/../.."
old=$(realpath "$1/cudag")
new=$(realpath "$2/cudag")
backends=${BACKENDS:-"cuda cpu"}
repeat=${REPEAT:-3}
logs=${OUT:-$(mktemp -d)}/compare_builds
mkdir -p "$logs"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
table=$logs/table.tsv
printf 'set\tbackend\told_s\tnew_s\tnew/old\tresults\n' >"$table"

sim() { "$new" simulate "$@" >/dev/null 2>&1; }
sim gaussian --vars 1643 --samples 850 --density 0.0061 --seed 1 --out "$data/dream.h5"
sim gaussian --vars 2000 --samples 2000 --density 0.003 --seed 2 --out "$data/er2000.h5"
sim gaussian --vars 20000 --samples 1000 --density 0.00025 --seed 3 --out "$data/n20000.h5"
sim gaussian --vars 500 --samples 400 --density 0.02 --seed 4 --out "$data/deep500.h5"
sim discrete --vars 200 --samples 5000 --density 0.01 --states 4 --max-parents 3 --seed 5 \
    --out "$data/disc200.csv"
sim nonlinear --vars 30 --samples 400 --density 0.08 --seed 6 --out "$data/nl30.csv"
sim discrete --vars 40 --samples 1000 --density 0.06 --states 3 --max-parents 3 --seed 7 \
    --out "$data/mcmc40.csv"
if [[ -n ${CL_DATA:-} && -d $CL_DATA/causal-learn ]]; then
    for f in "$CL_DATA"/causal-learn/*.txt; do
        [[ -f $f ]] || continue
        case $(basename "$f") in data_linear_*|data_discrete_*) cp "$f" "$data/" ;; esac
    done
fi

best_time() {  # best_time <binary> <out.h5> <args...>: fastest of $repeat runs, in s
    local bin=$1 out=$2 best="" t0 t1 t
    shift 2
    for ((r = 0; r < repeat; r++)); do
        t0=$(date +%s.%N)
        "$bin" $cmd "$@" --out "$out" -q || return 1
        t1=$(date +%s.%N)
        t=$(awk "BEGIN { printf \"%.4f\", $t1 - $t0 }")
        if [[ -z $best ]] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
    done
    echo "$best"
}

for f in "$data"/*; do
    name=$(basename "$f"); name=${name%.*}
    [[ " ${SKIP:-} " == *" $name "* ]] && continue
    cmd=pc
    case $name in
        disc*|data_discrete*) opts="--discrete --alpha 0.05" ;;
        nl*) opts="--test cmiknn --alpha 0.05 --permutations 199 --seed 3" ;;
        mcmc*) cmd=mcmc opts="--score bdeu --space all --chains 8 --iterations 20000 --seed 3" ;;
        *) opts="--alpha 0.01" ;;
    esac
    for be in $backends; do
        if ! to=$(best_time "$old" "$data/$name.$be.old.h5" --data "$f" --backend "$be" $opts \
                  2>>"$logs/$name.$be.log"); then
            printf '%s\t%s\t-\t-\t-\told failed\n' "$name" "$be" >>"$table"; continue
        fi
        if ! tn=$(best_time "$new" "$data/$name.$be.new.h5" --data "$f" --backend "$be" $opts \
                  2>>"$logs/$name.$be.log"); then
            printf '%s\t%s\t%s\t-\t-\tnew failed\n' "$name" "$be" "$to" >>"$table"; continue
        fi
        verdict=$(python3 scripts/dev/h5_same.py "$data/$name.$be.old.h5" "$data/$name.$be.new.h5" |
                  sed 's/^DIFFER [^ ]* [^:]*: /DIFFER: /; s/^same .*/same/' | cut -c1-90 || true)
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$be" "$to" "$tn" \
            "$(awk "BEGIN { printf \"%.3f\", $tn / $to }")" "$verdict" >>"$table"
    done
done
sed 's/\t/  /g' "$table"
