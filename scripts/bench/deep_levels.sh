#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Gaussian PC at every depth (issue 22): data from `cudag simulate gaussian --overwrite --graph er|scale-free`
# (weights of both signs, bounded signal-to-noise, shuffled columns), `cudag pc --backend cuda`
# with the default paths (entry scan at every level, the deep scan from level 5) against the
# previous default (`--tune scan-levels=4`: cuPC-S above level 4), side by side in one run:
# skeleton time, tests and time per level, and whether both give the same edges.
#   er2000   n = 2,000, m = 2,000, ~6 neighbours
#   er1000   n = 1,000, m = 5,000, ~16 neighbours
#   sf5000   n = 5,000, m = 800, ~4 neighbours, scale-free; --max-level 4, 5, 6 and uncapped
#   sf20000  n = 20,000, m = 1,500, ~4 neighbours, scale-free
# A run is killed at LIMIT seconds (reported as such).
# Usage: scripts/bench/deep_levels.sh [build-dir]
#   env: OUT=dir, ALPHA=0.01, SEED=1, LIMIT=100, SETS="er2000 er1000 sf5000 sf20000",
#        MODES="new old", LEVELS="4 5 6 -1" (sf5000's --max-level values; -1 uncapped);
#        modes: new (defaults), old (--tune scan-levels=4), template (--tune deep-from=7),
#        spanN (--tune deep-span=N: the deep scan's smallest item)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cudag=$(realpath "$build/cudag")
alpha=${ALPHA:-0.01}
seed=${SEED:-1}
limit=${LIMIT:-100}
sets=${SETS:-"er2000 er1000 sf5000 sf20000"}
modes=${MODES:-"new old"}
levels=${LEVELS:-"4 5 6 -1"}
logs=${OUT:-$(mktemp -d)}/deep_levels
mkdir -p "$logs"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
table=$logs/table.tsv
printf 'set\tmax_level\tmode\tskeleton_s\twall_s\tlevels\ttests\tedges\tsame_as_new\n' >"$table"

gen() {  # name graph vars samples degree
    "$cudag" simulate gaussian --overwrite --graph "$2" --vars "$3" --samples "$4" --degree "$5" --seed "$seed" \
        --out "$data/$1.h5" 2>>"$logs/simulate.log"
}

run() {  # set max_level mode
    local set=$1 ml=$2 mode=$3 extra=""
    [ "$mode" = old ] && extra="--tune scan-levels=4"
    [ "$mode" = template ] && extra="--tune deep-from=7"
    [[ $mode == span* ]] && extra="--tune deep-span=${mode#span}"
    local tag=${set}_L${ml}_$mode
    local t0 t1 rc=0
    t0=$(date +%s.%N)
    timeout "$limit" "$cudag" pc --data "$data/$set.h5" --alpha "$alpha" --backend cuda --max-level "$ml" -v \
        --out "$data/$tag.h5" --format edges $extra >"$logs/$tag.out" 2>"$logs/$tag.log" || rc=$?
    t1=$(date +%s.%N)
    if [ $rc -ne 0 ]; then
        printf '%s\t%s\t%s\t%s\t%s\t\t\t\t\n' "$set" "$ml" "$mode" "killed/failed (rc $rc)" \
            "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" >>"$table"
        return
    fi
    local skel levels_n tests edges same="-"
    skel=$(grep -oP 'skeleton: \K[0-9.]+' "$logs/$tag.log" | head -1)
    levels_n=$(grep -c ': level [0-9]*:' "$logs/$tag.log" || true)
    tests=$(grep -oP 'level [0-9]+: \K[0-9]+' "$logs/$tag.log" | awk '{ s += $1 } END { print s + 0 }')
    edges=$(($(wc -l <"$data/$tag.edges.tsv") - 1))
    if [ "$mode" != new ] && [ -f "$data/${set}_L${ml}_new.edges.tsv" ]; then
        cmp -s "$data/$tag.edges.tsv" "$data/${set}_L${ml}_new.edges.tsv" && same=yes || same=NO
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$set" "$ml" "$mode" "$skel" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" \
        "$levels_n" "$tests" "$edges" "$same" >>"$table"
}

for set in $sets; do
    case $set in
        er2000) gen er2000 er 2000 2000 6; mls="-1" ;;
        er1000) gen er1000 er 1000 5000 16; mls="-1" ;;
        sf5000) gen sf5000 scale-free 5000 800 4; mls=$levels ;;
        sf20000) gen sf20000 scale-free 20000 1500 4; mls="-1" ;;
        *) echo "deep_levels.sh: unknown set $set" >&2; exit 2 ;;
    esac
    for ml in $mls; do
        for mode in $modes; do run "$set" "$ml" "$mode"; done
    done
done
# Per level (the new paths): tests, seconds, tests per second, from the -v lines
# "cudag pc: level L: T tests, ..., S s (... s total)".
{
    printf '\nper level (mode new): run level tests seconds tests_per_s\n'
    for f in "$logs"/*_new.log; do
        awk -v t="$(basename "$f" .log)" '/: level [0-9]+: / {
            l = $4; sub(":", "", l); tests = $5
            for (k = 1; k <= NF; ++k) if ($k == "s" && $(k + 1) ~ /^\(/) secs = $(k - 1)
            rate = secs > 0 ? sprintf("%.3g", tests / secs) : "-"
            print t, l, tests, secs, rate
        }' "$f"
    done
} >"$logs/levels.txt"
cat "$table"
cat "$logs/levels.txt"
