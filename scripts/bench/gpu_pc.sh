#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end timings of `cudag pc --backend cuda` against `--backend cpu` on data from
# cuPC's synthetic generator (TPDS 2020 §5.6; `cudag simulate gaussian`):
#   cuPC scalability sets  n = 1000, 2000, 4000, d = 0.1, m = 10000
#   DREAM5-Insilico shape  n = 1643, m = 850, about 10 neighbours per variable
#   genome scale           n = 20000, m = 1000, about 5 neighbours per variable
# The generator's variance grows along long dense paths; when `cudag simulate` refuses a
# density the script halves it until it succeeds and reports the density used. Note that
# at d = 0.1 it does not refuse but the data are degenerate: the standard deviation of
# variable i grows roughly geometrically with i (about 1e2 at i = 100, 1e10 at i = 500,
# 1e22 at i = 999 for n = 1000), so later variables are nearly collinear sums of the
# first ones' noise and PC keeps only a few hundred edges among the early variables
# (the same ones for n = 1000, 2000 and 4000, since row i of the DAG depends on i only).
# Those sets time the dense level-1/2 kernels, not a meaningful graph.
# Expected neighbours per variable are d·(n-1) (each pair j < i is an edge with
# probability d), so "about k neighbours" means d = k / (n-1).
# The CPU run is skipped when it would take longer than CPU_LIMIT seconds (it is killed
# at the limit and reported as skipped).
#
# Usage: scripts/bench/gpu_pc.sh [build-dir]
#   env: OUT=dir (logs and table; default: a temporary folder), ALPHA=0.01, SEED=1,
#        CPU_LIMIT=60, SETS="dense1000 dense2000 dense4000 dream n20000" (any subset),
#        VARIANT=s (cuPC-S) or e, EXTRA="" (more `cudag pc` options for both backends)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cudag=$(realpath "$build/cudag")
alpha=${ALPHA:-0.01}
seed=${SEED:-1}
cpu_limit=${CPU_LIMIT:-60}
variant=${VARIANT:-s}
sets=${SETS:-"dense1000 dense2000 dense4000 dream n20000"}
logs=${OUT:-$(mktemp -d)}/gpu_pc
mkdir -p "$logs"
data=$(mktemp -d)  # data files stay out of $OUT (n = 20000 is 160 MB)
trap 'rm -rf "$data"' EXIT
table=$logs/table.tsv
printf 'set\tn\tm\td\tbackend\twall_s\tlevels\ttests\ttests_per_s\tratio\n' >"$table"

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.10g\", $1 }"; }  # no bc on a bare machine

# run_pc <set> <backend> <file> <n> <m> <d> [timeout]: one row of the table.
run_pc() {
    local set=$1 backend=$2 file=$3 n=$4 m=$5 d=$6 limit=${7:-0}
    local log=$logs/$set.$backend.log rc=0 t0 t1
    local cmd=("$cudag" pc --data "$file" --alpha "$alpha" --backend "$backend" -v
               --out "$data/$set.$backend.h5")
    [[ $backend == cuda ]] && cmd+=(--tune "variant=$variant")
    # shellcheck disable=SC2206
    cmd+=(${EXTRA:-})
    echo "+ ${cmd[*]}" >"$log"
    t0=$(now)
    if ((limit > 0)); then
        timeout "$limit" "${cmd[@]}" >/dev/null 2>>"$log" || rc=$?
    else
        "${cmd[@]}" >/dev/null 2>>"$log" || rc=$?
    fi
    t1=$(now)
    local wall levels tests
    wall=$(calc "$t1 - $t0")
    if ((rc == 124)); then
        printf '%s\t%s\t%s\t%s\t%s\tskipped(>%ss)\t-\t-\t-\t-\n' "$set" "$n" "$m" "$d" "$backend" "$limit" >>"$table"
        echo "  $backend: skipped (over ${limit} s)"
        return 0
    elif ((rc != 0)); then
        printf '%s\t%s\t%s\t%s\t%s\tfailed(rc=%s)\t-\t-\t-\t-\n' "$set" "$n" "$m" "$d" "$backend" "$rc" >>"$table"
        echo "  $backend: failed (rc $rc): $(tail -1 "$log")"
        return 0
    fi
    levels=$(grep -c ': level [0-9]*:' "$log" || true)
    tests=$(awk '/: level [0-9]+:/ { for (k = 1; k < NF; ++k) if ($(k+1) == "tests,") s += $k } END { printf "%.0f", s }' "$log")
    printf '%s\t%s\t%s\t%s\t%s\t%.3f\t%s\t%s\t%.4g\t-\n' "$set" "$n" "$m" "$d" "$backend" "$wall" \
        "$levels" "$tests" "$(calc "$tests / $wall")" >>"$table"
    echo "  $backend: $(printf '%.3f' "$wall") s, $levels levels, $tests tests"
}

for set in $sets; do
    case $set in
        dense1000) n=1000 m=10000 d=0.1 ;;
        dense2000) n=2000 m=10000 d=0.1 ;;
        dense4000) n=4000 m=10000 d=0.1 ;;
        dream) n=1643 m=850 d=$(calc "10 / 1642") ;;
        n20000) n=20000 m=1000 d=$(calc "5 / 19999") ;;
        tiny) n=60 m=500 d=0.1 ;;  # smoke test of this script
        *) echo "unknown set '$set'" >&2; exit 2 ;;
    esac
    d=$(printf '%.6g' "$d")
    file=$data/$set.h5
    for try in 1 2 3 4 5 6 7 8; do
        if "$cudag" simulate gaussian --overwrite --vars "$n" --samples "$m" --density "$d" --seed "$seed" \
            --out "$file" 2>"$logs/$set.simulate.log"; then
            break
        fi
        echo "$set: cudag simulate refused d=$d ($(tail -1 "$logs/$set.simulate.log")); halving it"
        d=$(printf '%.6g' "$(calc "$d / 2")")
        [[ $try == 8 ]] && { echo "$set: no density worked" >&2; continue 2; }
    done
    echo "$set: n=$n m=$m d=$d (about $(printf '%.1f' "$(calc "$d * ($n - 1)")") neighbours per variable)"
    run_pc "$set" cuda "$file" "$n" "$m" "$d"
    run_pc "$set" cpu "$file" "$n" "$m" "$d" "$cpu_limit"
    rm -f "$file" "$data/$set".*.h5
done

# Ratio = CPU wall / GPU wall of the same set, on the CPU row.
awk -F'\t' 'NR == 1 { print; next }
    { row[NR] = $0; key = $1; if ($5 == "cuda") gpu[key] = $6 }
    END { for (k = 2; k <= NR; ++k) { split(row[k], f, "\t");
              if (f[5] == "cpu" && f[6] + 0 > 0 && gpu[f[1]] + 0 > 0) f[10] = sprintf("%.1f", f[6] / gpu[f[1]]);
              line = f[1]; for (c = 2; c <= 10; ++c) line = line "\t" f[c]; print line } }' \
    "$table" >"$table.tmp" && mv "$table.tmp" "$table"
echo
echo "alpha=$alpha seed=$seed variant=$variant; logs in $logs"
awk -F'\t' '{ printf "%-10s %6s %6s %-10s %-8s %-14s %6s %14s %12s %6s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$table"
