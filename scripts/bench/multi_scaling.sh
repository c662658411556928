#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Multi-GPU scaling of every learner: each workload under `mpiexec -n R --bind-to none cudag
# ... --backend cuda -v` for R = 1 .. G ranks (G = GPUs visible to nvidia-smi; a rank per GPU),
# on data that `cudag simulate` did not make where that is possible:
#   sf10000     Gaussian PC, scale-free (preferential attachment, hubs; scripts/bench/
#               gen_dag_data.py) n = 10,000, m = 1,000, mean degree 6, --max-level 7
#   sf20000     Gaussian PC, scale-free n = 20,000, m = 1,500, mean degree 4, --max-level 6
#   er2000      Gaussian PC, Erdos-Renyi (gen_dag_data.py) n = 2,000, m = 5,000, mean degree
#               20, no level cap
#   munin       discrete PC (chi-square, causal-learn's degrees of freedom, as
#               scripts/bench/discrete_pc.sh), 200,000 samples of bnlearn's MUNIN (1,041
#               variables) by `cudag simulate bif`; the BIF is MUNIN=path (.bif or .bif.gz), else
#               munin.bif.gz from shared/data/bnlearn (CUDAG_SHARED_DATA, the checkout's
#               shared/, ../shared, /work/shared; read there, never copied into the project),
#               else `cudag simulate discrete` with MUNIN's size (the row says munin(sim));
#               SCALE=small takes MUNIN1 (186 variables), 500 samples
#   cmiknn1000  CMIknn PC as scripts/bench/cmiknn_gpu.sh's Table 10 (`cudag simulate
#   cmiknn2000  nonlinear`, T = 1,000, mean degree 1.5, k 7, 15 shuffle neighbours, B = 100)
#               on N = 1,000 and 2,000 variables
#   mcmc125     order MCMC as scripts/bench/mcmc_gpu.sh (binary data, 600 samples, BDeu,
#   mcmc150     s = 4, 10,000 iterations) at n = 125 and 150, 64 and 256 chains (a row each)
#   mcmc1000pc  order MCMC, n = 1,000 (3 states, 2,000 samples), --space pc, 8 chains x
#               100,000 iterations (mcmc_gpu.sh's BIG_N run)
# Columns of the table ($OUT/multi/table.tsv, printed row by row as the runs finish, then
# whole): wall_s end to end (mpiexec's start to its exit); search_s: PC the sum of the level
#   times of -v, MCMC table + sort + chains seconds; merge_s: the levels' merge seconds
#   (the removal-map exchange); imbalance: the largest estimated/run work imbalance over the
#   levels with >= HEAVY_TESTS tests (over all levels, marked "~", when none has as many);
#   speedup and efficiency of search_s and wall_s against the first rank count; identical:
#   the outputs byte-compared with the first rank count's (PC: edge list, causal-learn matrix
#   (n <= CL_MAX_N) and the result HDF5 (separating sets, pMax, CPDAG, ...: scripts/dev/h5_same.py
#   with h5py; else through h5dump the separating sets, skeleton, CPDAG edges, levels' removals
#   and pMax (n <= 2000); else not compared: "(h5 n/a)");
#   MCMC: best DAG edge list, edge probabilities and traces); detail: levels and tests (PC),
#   phase seconds and the chains' own speedup (MCMC). A run past RUN_TIMEOUT reads "timeout".
#
# Usage: scripts/bench/multi_scaling.sh [build-dir]
#   env: OUT=dir (table.tsv and runs.log under OUT/multi; default a temporary folder),
#        LOGS=dir (each run's own log; default a temporary folder)
#        WORKLOADS="sf10000 sf20000 er2000 munin cmiknn1000 cmiknn2000 mcmc125 mcmc150 mcmc1000pc"
#        RANKS="1 2 ..." (default 1 .. G; 1 first: it is the reference), RUN_TIMEOUT=300 (s per run)
#        SCALE=small (every size shrunk, chains / 16: a smoke test of the script), BACKEND=cuda (cpu: CPU ranks,
#        for a machine without GPUs, RANKS default "1 2"), ALPHA=0.01, SEED=1, CHAINS="64 256",
#        MCMC_ITER=10000, BIG_ITER=100000, BIG_CHAINS=8, HEAVY_TESTS=1e9, CL_MAX_N=10000,
#        MUNIN=munin.bif[.gz], MPIEXEC=mpiexec, PYTHON=python3 (needs numpy)
#   At full size each workload takes minutes (its data made, every rank count run): a caller
#   limited to 10 minutes a command splits them with WORKLOADS (device-check: MULTI_WORKLOADS);
#   finished rows stay in OUT/multi/table.tsv when a call is cut off.
#   Smoke test on a machine without GPUs (a minute or two):
#     BACKEND=cpu SCALE=small RANKS="1 2 3" scripts/bench/multi_scaling.sh build
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
build=$(realpath "${1:-build}")
cudag=$build/cudag
[[ -x $cudag ]] || { echo "multi_scaling.sh: $cudag is missing (build first)" >&2; exit 2; }
backend=${BACKEND:-cuda}
alpha=${ALPHA:-0.01}
seed=${SEED:-1}
run_timeout=${RUN_TIMEOUT:-300}
heavy=${HEAVY_TESTS:-1e9}
cl_max_n=${CL_MAX_N:-10000}
python=${PYTHON:-python3}
mpiexec=${MPIEXEC:-mpiexec}
small=
[[ ${SCALE:-} == small ]] && small=1
workloads=${WORKLOADS:-"sf10000 sf20000 er2000 munin cmiknn1000 cmiknn2000 mcmc125 mcmc150 mcmc1000pc"}
gpus=0
if command -v nvidia-smi >/dev/null; then gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); fi
if [[ -n ${RANKS:-} ]]; then
    ranks=$RANKS
elif [[ $backend == cpu ]]; then
    ranks="1 2"
else
    ranks=$(seq -s ' ' 1 $((gpus > 0 ? gpus : 1)))
fi
# Two files under OUT/multi (the device tool brings back a few files only): the table and
# every run's log one after another (runs.log); the logs themselves in LOGS (a temporary
# folder unless given).
outdir=${OUT:-$(mktemp -d)}/multi
logs=${LOGS:-$(mktemp -d)}
mkdir -p "$outdir" "$logs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NCCL_NVLS_ENABLE=0
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_btl_vader_single_copy_mechanism=none
table=$outdir/table.tsv
cols='workload\tranks\tcomm\twall_s\tsearch_s\tmerge_s\timbalance\tspeedup\tefficiency\twall_speedup\twall_eff\tidentical\tdetail'
printf '%b\n' "$cols" >"$table"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
fmt_row() {  # a table row (tab-separated on stdin) in columns
    awk -F'\t' '{ printf "%-18s %5s %-6s %9s %9s %8s %-11s %7s %10s %12s %8s %-14s %s\n",
                  $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }'
}
row() {  # add a row to the table and print it
    local line
    line=$(printf '%s\t' "$@")
    line=${line%$'\t'}
    printf '%s\n' "$line" >>"$table"
    printf '%s\n' "$line" | fmt_row
}

# How the result HDF5 files are compared (separating sets, pMax, CPDAG).
h5cmp=none
if "$python" -c 'import h5py, numpy' 2>/dev/null; then
    h5cmp=h5py
elif command -v h5dump >/dev/null; then
    h5cmp=h5dump
fi
h5_same() {  # A.h5 B.h5 n_vars: exit 0 when their results agree
    local d=(-d /sepsets/pairs -d /sepsets/offsets -d /sepsets/nodes -d /skeleton/edges -d /cpdag/edges
             -d /levels/removed -d /levels/edges_after)
    (($3 <= 2000)) && d+=(-d /pmax/pairs -d /pmax/values)  # the text of larger ones takes long
    case $h5cmp in
        h5py) "$python" "$root/scripts/dev/h5_same.py" "$1" "$2" >/dev/null ;;
        h5dump) cmp -s <(h5dump "${d[@]}" "$1" 2>&1 | tail -n +2) <(h5dump "${d[@]}" "$2" 2>&1 | tail -n +2) ;;
    esac
}

# The BIF of MUNIN, gunzipped into the work folder when needed; "" when none is found.
find_bif() {
    local name=$1 given=${2:-} d
    if [[ -z $given ]]; then
        for d in ${CUDAG_SHARED_DATA:+"$CUDAG_SHARED_DATA/bnlearn"} "$root/shared/data/bnlearn" \
            "$root/../shared/data/bnlearn" /work/shared/data/bnlearn; do
            for given in "$d/$name.bif" "$d/$name.bif.gz"; do [[ -f $given ]] && break 2; done
            given=
        done
    fi
    [[ -n $given && -f $given ]] || return 0
    if [[ $given == *.gz ]]; then
        gunzip -c "$given" >"$work/$name.bif"
        echo "$work/$name.bif"
    else
        echo "$given"
    fi
}

# mcmc_gpu.sh's simulate: a discrete network whose every column has two levels or more.
simulate_discrete() {  # vars samples states density max_parents out
    local s=$seed
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        "$cudag" simulate discrete --overwrite --vars "$1" --samples "$2" --states "$3" --density "$4" \
            --max-parents "$5" --seed "$s" --out "$6" 2>/dev/null
        "$python" - "$6" <<'PY' && return 0
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
sys.exit(0 if all(len({r[c] for r in rows[1:]}) > 1 for c in range(len(rows[0]))) else 1)
PY
        s=$((s + 1))
    done
    return 1
}

# Workload -> data file ($data), command ($kind: pc or mcmc, $args)
# and the number of variables ($nv). Sizes in SCALE=small are for a few CPU seconds.
prepare() {
    local wl=$1 n m deg lvl bif
    data=$work/$wl.csv
    kind=pc
    case $wl in
        sf10000 | sf20000 | er2000)
            case $wl in
                sf10000) g=sf n=10000 m=1000 deg=6 lvl=7 ;;
                sf20000) g=sf n=20000 m=1500 deg=4 lvl=6 ;;
                er2000) g=er n=2000 m=5000 deg=20 lvl=-1 ;;
            esac
            if [[ -n $small ]]; then
                case $wl in
                    sf10000) n=300 m=200 lvl=3 ;;
                    sf20000) n=400 m=200 lvl=3 ;;
                    er2000) n=150 m=300 deg=8 ;;
                esac
            fi
            "$python" "$root/scripts/bench/gen_dag_data.py" --graph "$g" --vars "$n" --samples "$m" \
                --degree "$deg" --seed "$seed" --out "$data" 2>&1 | tail -1
            args=(--alpha "$alpha" --max-level "$lvl")
            nv=$n
            ;;
        munin)
            # SCALE=small: MUNIN1 (186 variables, MUNIN's first part), 500 samples.
            local net=munin vars=1041 dens=0.0019
            m=200000
            [[ -n $small ]] && { net=munin1 vars=186 dens=0.0159 m=500; }
            bif=$(find_bif "$net" "${MUNIN:-}")
            data=$work/$wl.h5
            if [[ -n $bif ]]; then
                "$cudag" simulate bif --overwrite --bif "$bif" --samples "$m" --seed "$seed" --out "$data" 2>/dev/null
                echo "munin: $m samples of $bif"
            else
                wl_label=munin\(sim\)
                "$cudag" simulate discrete --overwrite --vars "$vars" --samples "$m" --states 21 --density "$dens" \
                    --max-parents 3 --seed "$seed" --out "$data" 2>/dev/null
                echo "munin: no $net.bif found (MUNIN=path): cudag simulate discrete, $vars variables, $m samples"
            fi
            args=(--alpha "$alpha" --test chi-square --dof causal-learn)
            nv=$vars
            ;;
        cmiknn1000 | cmiknn2000)
            n=${wl#cmiknn} m=1000
            [[ -n $small ]] && { n=$((n / 100)) m=100; }
            "$cudag" simulate nonlinear --overwrite --vars "$n" --samples "$m" --seed "$seed" --out "$data" \
                --density "$(awk -v n="$n" 'BEGIN { printf "%.6g", 1.5 / (n - 1) }')" 2>/dev/null
            echo "$wl: cudag simulate nonlinear, $n variables x $m samples, mean degree 1.5"
            args=(--alpha "$alpha" --test cmiknn --knn 7 --shuffle-neighbors 15 --permutations 100)
            nv=$n
            ;;
        mcmc125-c* | mcmc150-c*)
            kind=mcmc
            n=${wl%-c*}; n=${n#mcmc}
            local chains=${wl#*-c} iter=${MCMC_ITER:-10000}
            [[ -n $small ]] && { n=$((n / 10)); iter=1000; }
            data=$work/mcmc$n.csv
            [[ -f $data ]] || simulate_discrete "$n" 600 2 "$(awk -v n="$n" 'BEGIN { v = 3 / n; printf "%.6g", v < 0.5 ? v : 0.5 }')" 4 "$data"
            echo "$wl: binary data, $n variables x 600 samples; $chains chains x $iter iterations"
            args=(--score bdeu --max-parents 4 --space all --chains "$chains" --iterations "$iter" --seed "$seed")
            nv=$n
            ;;
        mcmc1000pc)
            kind=mcmc
            n=1000 m=2000
            local chains=${BIG_CHAINS:-8} iter=${BIG_ITER:-100000}
            [[ -n $small ]] && { n=60; m=500; iter=2000; }
            simulate_discrete "$n" "$m" 3 "$(awk -v n="$n" 'BEGIN { printf "%.6g", 2 / n }')" 3 "$data"
            echo "$wl: 3-state data, $n variables x $m samples; --space pc, $chains chains x $iter iterations"
            args=(--score bdeu --max-parents 4 --space pc --alpha "$alpha" --chains "$chains" --iterations "$iter" --seed "$seed")
            nv=$n
            ;;
        *) echo "unknown workload '$wl'" >&2; return 1 ;;
    esac
}

# Sums and maxima of a PC -v log: "search merge imbalance levels tests".
pc_times() {
    awk -v heavy="$heavy" '/: level [0-9]+:/ {
            t = ""; for (k = 1; k < NF; ++k) if ($(k+1) == "s" && $k ~ /^[0-9.]+$/) { t = $k; break }
            s += t; ++levels
            n = $0; sub(/.*: level [0-9]+: /, "", n); sub(/ tests.*/, "", n); tests += n
            if (match($0, /merge [0-9.]+ s/)) mg += substr($0, RSTART + 6, RLENGTH - 8)
            est = 1; run = 1
            if (match($0, /imbalance [0-9.]+ est\. [0-9.]+ run/)) {
                split(substr($0, RSTART + 10, RLENGTH - 14), p, / est\. /); est = p[1]; run = p[2]
            }
            if (est > ae) ae = est; if (run > ar) ar = run
            if (n + 0 >= heavy + 0) { ++nh; if (est > he) he = est; if (run > hr) hr = run }
        }
        END {
            imb = nh ? sprintf("%.2f/%.2f", he, hr) : sprintf("~%.2f/%.2f", ae, ar)
            printf "%.3f %.3f %s %d %.4g\n", s, mg, imb, levels, tests
        }' "$1"
}

# Phase seconds of an MCMC -v log: "table sort chains".
mcmc_times() {
    local line
    line=$(grep -h 'best DAG score' "$1" | tail -1)
    for p in table sort chains; do
        [[ $line =~ $p\ ([0-9.]+)\ s ]] && printf '%s ' "${BASH_REMATCH[1]}" || printf 'nan '
    done
    echo
}

ratio() {  # base value ranks -> "speedup efficiency"
    awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN {
        if (a + 0 > 0 && b + 0 > 0) printf "%.2f %.0f%%\n", a / b, 100 * a / b / r; else print "- -" }'
}

echo "multi_scaling: backend $backend, $gpus GPUs visible, ranks: $ranks, workloads: $workloads" \
    "${small:+(SCALE=small)}, run timeout ${run_timeout} s, results compared by $h5cmp; logs in $logs"
printf '%b\n' "$cols" | fmt_row
expanded=""
for wl in $workloads; do
    case $wl in
        mcmc125 | mcmc150) for c in ${CHAINS:-64 256}; do
                [[ -n $small ]] && c=$((c / 16 > 0 ? c / 16 : 1))
                expanded+=" $wl-c$c"
            done ;;
        *) expanded+=" $wl" ;;
    esac
done
for wl in $expanded; do
    wl_label=$wl
    t0=$(now)
    if ! prepare "$wl" >"$logs/$wl.prepare.log" 2>&1; then
        row "$wl_label" - - "data failed" - - - - - - - - "$(tail -1 "$logs/$wl.prepare.log")"
        continue
    fi
    echo "# $(tail -1 "$logs/$wl.prepare.log") (data in $(since "$t0") s)"
    base="" first=1
    base_search="" base_wall="" base_chains=""
    for r in $ranks; do
        was_first=$first
        first=
        out=$work/$wl.np$r.h5
        log=$logs/$wl.np$r.log
        over=()
        (( r > $(nproc) )) && over=(--oversubscribe)
        if [[ $kind == pc ]]; then
            formats=edges
            (( nv <= cl_max_n )) && formats=edges,cl
            cmd=("$cudag" pc --data "$data" "${args[@]}" --backend "$backend" -v --out "$out" --format "$formats")
        else
            formats=edges,edgeprob,traces
            cmd=("$cudag" mcmc --data "$data" "${args[@]}" --backend "$backend" -v --out "$out" --format "$formats")
        fi
        echo "${cmd[*]}" >"$log"
        t0=$(now)
        rc=0
        timeout -k 20 "$run_timeout" "$mpiexec" -n "$r" --bind-to none "${over[@]}" "${cmd[@]}" >>"$log" 2>&1 || rc=$?
        wall=$(since "$t0")
        { echo "==== $wl_label, $r ranks (exit $rc, $wall s)"; cat "$log"; } >>"$outdir/runs.log"
        if ((rc == 124 || rc == 137)); then
            row "$wl_label" "$r" - "timeout(${run_timeout}s)" - - - - - - - - "killed after $wall s"
            continue
        elif ((rc != 0)); then
            why=$(grep -m1 -i 'error' "$log" || grep -v -e '^\s*$' -e '^---' "$log" | tail -1)
            row "$wl_label" "$r" - "failed(rc=$rc)" - - - - - - - - "$(cut -c1-160 <<<"$why")"
            continue
        fi
        comm=$( (grep -o 'ranks ([a-z]*)' "$log" || true) | head -1 | tr -d '()' | awk '{ print $2 }')
        [[ -z $comm ]] && comm=$([[ $r == 1 ]] && echo serial || echo mpi)
        if [[ $kind == pc ]]; then
            read -r search merge imb levels tests < <(pc_times "$log")
            detail="$levels levels, $tests tests"
        else
            read -r tt ts tc < <(mcmc_times "$log")
            search=$(awk -v a="$tt" -v b="$ts" -v c="$tc" 'BEGIN { printf "%.3f", a + b + c }')
            merge=- imb=-
            detail="table $tt sort $ts chains $tc"
        fi
        # Identical to the first rank count's outputs?
        files=()
        for f in ${formats//,/ }; do files+=(".$f.tsv"); done
        files=("${files[@]/.cl.tsv/.cl.txt}")
        if [[ -n $was_first ]]; then
            base=$work/$wl.np$r
            base_search=$search base_wall=$wall base_chains=${tc:-}
            ident=base
            speed=1.00 eff=- wspeed=1.00 weff=-
        elif [[ -z $base ]]; then
            ident="- (no base)" speed=- eff=- wspeed=- weff=-
        else
            bad=()
            for s in "${files[@]}"; do cmp -s "$base$s" "$work/$wl.np$r$s" || bad+=("${s#.}"); done
            if [[ $kind == pc && $h5cmp != none ]]; then
                h5_same "$base.h5" "$out" "$nv" || bad+=(h5)
            fi
            if ((${#bad[@]} == 0)); then ident=yes; else ident="NO:$(IFS=,; echo "${bad[*]}")"; fi
            [[ $kind == pc && $h5cmp == none ]] && ident+=" (h5 n/a)"
            read -r speed eff < <(ratio "$base_search" "$search" "$r")
            read -r wspeed weff < <(ratio "$base_wall" "$wall" "$r")
            [[ $kind == mcmc ]] && detail+=", chains speedup $(ratio "$base_chains" "$tc" "$r" | cut -d' ' -f1)"
            rm -f "$work/$wl.np$r".*
        fi
        row "$wl_label" "$r" "$comm" "$wall" "$search" "$merge" "$imb" "$speed" "$eff" "$wspeed" "$weff" "$ident" "$detail"
    done
    rm -f "$work/$wl".*
done

echo
echo "== multi-GPU scaling table (backend $backend, $gpus GPUs, alpha $alpha${small:+, SCALE=small})"
fmt_row <"$table"
echo "search_s: PC the sum of level times, MCMC table + sort + chains; merge_s: levels' merge"
echo "seconds; imbalance: largest est./run work imbalance over levels with >= $heavy tests (~: over"
echo "all levels); speedup/efficiency of search_s and wall_s (end to end) against the first rank"
echo "count; identical: outputs byte-equal to its (PC: edges, cl matrix up to n = $cl_max_n, result"
echo "HDF5 by $h5cmp; MCMC: best DAG edges, edge probabilities, traces); logs in $logs"
