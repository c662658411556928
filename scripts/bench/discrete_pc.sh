#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Discrete PC-stable wall times: cudag CPU engine vs cudag CUDA engine vs causal-learn's
# pc(chisq, stable) on (1) a simulated network like gpuPC's synthetic default (N = 1000
# variables, 10,000 samples, up to 4 states) and (2) samples of the bnlearn networks ALARM,
# ANDES, LINK and MUNIN (200,000 / 20,000 / 20,000 / 20,000 samples as in gpuPC Table 3).
# Give the BIF files by path (download them from the bnlearn repository yourself):
#   ALARM=alarm.bif ANDES=andes.bif LINK=link.bif MUNIN=munin.bif scripts/bench/discrete_pc.sh [build]
# A network without a path is replaced by `cudag simulate discrete` with the same number of
# variables, maximum state count, arc density and largest in-degree.
# Timings are end to end (file read to result written); with VERBOSE=1 the CUDA run's
# phase and level times go to stderr.
# env: ALPHA=0.01 SKIP_CL=1 (no causal-learn) CL_TIMEOUT=3600 (seconds per causal-learn run)
#      SKIP_GPU=1 (no CUDA run) THREADS=0 CASES="synthetic alarm ..." (a subset) VERBOSE=1
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cudag=$build/cudag
alpha=${ALPHA:-0.01}
threads=${THREADS:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

py=""
if [ -z "${SKIP_CL:-}" ]; then
    venv=.venv-bench
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import causallearn" 2>/dev/null; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q causal-learn
    fi
    py=$venv/bin/python
fi

vflag=-q
[ -n "${VERBOSE:-}" ] && vflag=-v
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

# name vars samples max_states density max_parents bif_path (max_parents as the real
# network's largest in-degree; 0: unbounded)
cases=(
    "synthetic 1000 10000 4 0.003 0 -"
    "alarm 37 200000 4 0.034 4 ${ALARM:--}"
    "andes 223 20000 2 0.015 6 ${ANDES:--}"
    "link 724 20000 4 0.0032 3 ${LINK:--}"
    "munin 1041 20000 21 0.0019 3 ${MUNIN:--}"
)

printf '%-10s %5s %7s %-9s %9s %9s %9s %8s %8s\n' net vars samples source cpu_s cuda_s cl_s cl/cpu cpu/cuda
for c in "${cases[@]}"; do
    read -r name n m k d mp bif <<<"$c"
    [[ -n ${CASES:-} && " $CASES " != *" $name "* ]] && continue
    data=$tmp/$name.csv
    if [ "$bif" != "-" ]; then
        "$cudag" simulate bif --overwrite --bif "$bif" --samples "$m" --seed 1 --out "$data" 2>/dev/null
        src=bif
    else
        "$cudag" simulate discrete --overwrite --vars "$n" --samples "$m" --states "$k" --density "$d" \
            --max-parents "$mp" --seed 1 --out "$data" 2>"$tmp/sim.log" ||
            { echo "$name: simulate failed: $(tail -1 "$tmp/sim.log")"; continue; }
        src=simulated
    fi
    nv=$(head -1 "$data" | tr ',' '\n' | wc -l)
    t0=$(now)
    "$cudag" pc --data "$data" --test chi-square --dof causal-learn --alpha "$alpha" \
        --backend cpu --threads "$threads" --out "$tmp/cpu.h5" --format edges -q
    cpu=$(since "$t0")
    cuda=NA
    if [ -z "${SKIP_GPU:-}" ] && "$cudag" info | grep -q "backends: cpu, cuda" &&
        ! "$cudag" info | grep -q "GPUs: none"; then
        t0=$(now)
        "$cudag" pc --data "$data" --test chi-square --dof causal-learn --alpha "$alpha" \
            --backend cuda --out "$tmp/gpu.h5" --format edges "$vflag" 2>&1 >/dev/null |
            sed "s/^/  [$name] /" >&2
        cuda=$(since "$t0")
        cmp -s "$tmp/cpu.edges.tsv" "$tmp/gpu.edges.tsv" || cuda="$cuda(DIFFERS)"
    fi
    cl=NA
    if [ -n "$py" ]; then
        t0=$(now)
        if timeout "${CL_TIMEOUT:-3600}" "$py" - "$data" "$alpha" <<'PY' >/dev/null 2>&1; then
import sys
import numpy as np
import pandas as pd
from causallearn.search.ConstraintBased.PC import pc
df = pd.read_csv(sys.argv[1], dtype=str)
data = np.column_stack([pd.factorize(df[c], sort=True)[0] for c in df.columns])
pc(data, float(sys.argv[2]), "chisq", stable=True, uc_rule=0, uc_priority=-1, show_progress=False)
PY
            cl=$(since "$t0")
        else
            cl=">${CL_TIMEOUT:-3600}"
        fi
    fi
    ratio() { if [[ "$1" =~ ^[0-9.]+$ && "$2" =~ ^[0-9.]+$ ]]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; else echo NA; fi; }
    printf '%-10s %5s %7s %-9s %9.2f %9s %9s %8s %8s\n' "$name" "$nv" "$m" "$src" "$cpu" "$cuda" "$cl" \
        "$(ratio "$cl" "$cpu")" "$(ratio "$cpu" "$cuda")"
done
echo "alpha=$alpha; cudag: chi-square, causal-learn dof rule, pcalg-style first separating set;"
echo "causal-learn: chisq, stable=True (exhaustive sepsets), so it runs more tests than cudag."
