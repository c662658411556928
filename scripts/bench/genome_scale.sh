#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Genome-scale PC-stable (issue 35): Gaussian data of n variables and ~DEGREE neighbours
# (scale-free and Erdős–Rényi, `cudag simulate gaussian --overwrite --graph`), one un-partitioned
# skeleton on G GPUs (`mpiexec -n G cudag pc -v`), with the time of each level, the peak
# resident memory of each host rank (cudag -v), the peak memory of each GPU (nvidia-smi,
# sampled every 0.5 s) and the skeleton's F1 against the truth (`cudag compare`).
#
# Usage: scripts/bench/genome_scale.sh BUILD
#   env: OUT=dir (logs and table.tsv), RUNS="200000:1 1000000:4" (n:GPUs items),
#        GRAPHS="scale-free er", SAMPLES=500, DEGREE=2, ALPHA=1e-4, MAX_LEVEL= (no cap; MAX_LEVEL_SF
#        for the scale-free graphs alone),
#        RUN_TIMEOUT=420 (s per run), MPIEXEC=mpiexec
set -euo pipefail
cd "$(dirname "$0")/../.."
cudag=$(realpath "$1/cudag")
runs=${RUNS:-"200000:1 1000000:4"}
graphs=${GRAPHS:-"scale-free er"}
samples=${SAMPLES:-500}
degree=${DEGREE:-2}
alpha=${ALPHA:-1e-4}
run_timeout=${RUN_TIMEOUT:-420}
read -r -a mpiexec <<<"${MPIEXEC:-mpiexec}"
logs=${OUT:-$(mktemp -d)}/genome_scale
mkdir -p "$logs"
work=$(mktemp -d)
trap 'rm -rf "$work"; [[ -n ${smi:-} ]] && kill "$smi" 2>/dev/null || true' EXIT
export NCCL_NVLS_ENABLE=0
table=$logs/table.tsv
printf 'graph\tn\tGPUs\tsimulate_s\twall_s\tlevels (s)\tedges\thost_peak_MiB/rank\tgpu_peak_MiB\tskeleton_F1\tstatus\n' >"$table"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

for graph in $graphs; do
    for item in $runs; do
        n=${item%%:*} g=${item##*:}
        tag=$graph.n$n.g$g
        data=$work/$graph.n$n.h5 truth=$work/$graph.n$n.truth.tsv
        t0=$(now)
        "$cudag" simulate gaussian -q --overwrite --vars "$n" --samples "$samples" --graph "$graph" --degree "$degree" \
            --seed 7 --out "$data" --truth "$truth"
        sim_s=$(since "$t0")
        log=$logs/$tag.log
        smi_log=$logs/$tag.smi.csv
        nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 500 >"$smi_log" 2>/dev/null &
        smi=$!
        cmd=("$cudag" pc --data "$data" --alpha "$alpha" -v --out "$work/$tag.r.h5")
        max_level=${MAX_LEVEL:-}
        [[ $graph == scale-free && -n ${MAX_LEVEL_SF:-} ]] && max_level=$MAX_LEVEL_SF
        [[ -n $max_level ]] && cmd+=(--max-level "$max_level")
        echo "${mpiexec[*]} -n $g --bind-to none ${cmd[*]}" >"$log"
        t0=$(now)
        rc=0
        timeout -k 20 "$run_timeout" "${mpiexec[@]}" -n "$g" --bind-to none "${cmd[@]}" >>"$log" 2>&1 || rc=$?
        wall=$(since "$t0")
        kill "$smi" 2>/dev/null || true
        wait "$smi" 2>/dev/null || true
        smi=
        gpu_peak=$(awk -F', ' '{ if ($2 > m[$1]) m[$1] = $2 } END { for (k in m) print k ":" m[k] }' "$smi_log" |
            sort -n | paste -sd' ' -)
        levels=$(grep -E ': level [0-9]+: .* edges left' "$log" |
            sed -E 's/.*: level ([0-9]+): .*, ([0-9.]+) s \(.*/\1:\2/' | paste -sd' ' - || true)
        host_peak=$(grep -m1 -oE 'peak memory per rank: .*' "$log" | sed 's/peak memory per rank: //' || true)
        status=ok f1=- edges=-
        if ((rc == 124 || rc == 137)); then
            status="timeout after ${run_timeout} s"
        elif ((rc != 0)); then
            status="exit $rc: $(grep -m1 -i error "$log" || tail -1 "$log")"
        else
            edges=$(grep -oE '[0-9]+ edges left' "$log" | tail -1 | cut -d' ' -f1 || true)
            f1=$("$cudag" compare --truth "$truth" --estimate "$work/$tag.r.h5" --json - 2>>"$log" |
                python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("f1","-"))' ||
                echo -)
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$graph" "$n" "$g" "$sim_s" "$wall" "${levels:--}" \
            "$edges" "${host_peak:--}" "${gpu_peak:--}" "$f1" "$status" >>"$table"
        rm -f "$data" "$work/$tag.r.h5"
        tr '\t' '|' <"$table"
    done
done
