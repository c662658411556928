#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 53 item 7: how long a cudag run takes to end after SIGINT in each long phase (mcmc's
# score table, its chains; pc's CMIknn level 0), and the first progress line's delay in the
# table phase. Each phase is entered as its -v line shows, then the signal is sent; prints a
# Markdown table (phase | runs | exit codes | latency min / median / max | files left).
# Issue 57: with PYTHON set (an interpreter that imports cudag), also the in-process case:
# cudag.pc on PATHFINDER's χ² (bnlearn's network, 20,000 forward samples; BIF=path overrides
# /work/shared/data/bnlearn/pathfinder.bif.gz) gets SIGINT 0.3 s into level 1 (seconds long),
# and the time to its KeyboardInterrupt is printed (exit code 7: raised inside the level).
# Tests check the exit status only (tests/regression/test_cli_memory.cpp,
# tests/python/test_pc_interrupt.py); the times are measured here:
#   [PYTHON=python3] scripts/dev/interrupt_latency.sh path/to/cudag [runs]
set -uo pipefail
B=$(readlink -f "${1:?usage: interrupt_latency.sh CUDAG_BINARY [RUNS]}")
RUNS=${2:-5}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
"$B" simulate gaussian -q --vars 55 --samples 500 --seed 3 --out t.csv
"$B" simulate gaussian -q --vars 30 --samples 300 --seed 3 --out c.csv
"$B" simulate nonlinear -q --vars 12 --samples 600 --density 0.3 --seed 1 --out n.csv

now_ms() { date +%s%3N; }

# phase NAME MARKER_REGEX ARGS...: RUNS times, start `cudag ARGS`, wait for a stderr line
# matching MARKER_REGEX, send SIGINT, time the exit.
phase() {
    local name=$1 marker=$2; shift 2
    local codes="" lat=() first=() left=""
    for ((k = 0; k < RUNS; k++)); do
        rm -rf out && mkdir out
        : >err.txt  # not the last run's marker
        local t0; t0=$(now_ms)
        "$B" "$@" >/dev/null 2>err.txt &
        local pid=$! seen=""
        for ((w = 0; w < 6000; w++)); do
            if grep -Eq "$marker" err.txt; then seen=1; break; fi
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.01
        done
        if [ -z "$seen" ]; then codes+="(no marker) "; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; continue; fi
        first+=($(( $(now_ms) - t0 )))
        local s; s=$(now_ms)
        kill -INT "$pid"
        wait "$pid"
        codes+="$? "
        lat+=($(( $(now_ms) - s )))
        left+=$(ls -A out | tr '\n' ' ')
    done
    stats() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END{if(NR) printf "%d / %d / %d ms", v[1], v[int((NR+1)/2)], v[NR]; else printf "-"}'; }
    printf '| %s | %d | %s| %s | %s | %s |\n' "$name" "$RUNS" "$codes" "$(stats "${lat[@]}")" \
        "$(stats "${first[@]}")" "${left:-none}"
}

echo "| phase | runs | exit codes | SIGINT to exit (min / median / max) | start to the marker | files left |"
echo "| --- | --- | --- | --- | --- | --- |"
phase "mcmc score table (progress line)" "local-score table: .* of .* left" \
    mcmc -v --score bge --max-parents 4 --space all --chains 1 --iterations 10 --threads 1 --data t.csv \
    --out out/r.h5 --format edges --checkpoint out/ck.h5
phase "mcmc chains" "iteration [0-9]+ of" \
    mcmc -v --score bge --max-parents 2 --space all --chains 2 --iterations 100000000 --data c.csv --out out/r.h5
phase "pc cmiknn level 0" "level 0: up to" \
    pc -v --test cmiknn --permutations 200 --backend cpu --threads 1 --data n.csv --out out/r.h5

# In-process (issue 57): Python's KeyboardInterrupt inside a χ² skeleton level.
if [ -n "${PYTHON:-}" ]; then
    bif=${BIF:-/work/shared/data/bnlearn/pathfinder.bif.gz}
    case "$bif" in *.gz) zcat "$bif" >pf.bif ;; *) cp "$bif" pf.bif ;; esac
    "$B" simulate bif -q --bif pf.bif --samples 20000 --seed 1 --out pf.csv
    codes="" lat=()
    for ((k = 0; k < RUNS; k++)); do
        out=$("$PYTHON" - pf.csv <<'PY'
import os, signal, sys, threading, time
import numpy as np
import cudag
raw = np.genfromtxt(sys.argv[1], delimiter=",", dtype=str, skip_header=1)
codes = np.stack([np.unique(c, return_inverse=True)[1] for c in raw.T], axis=1)
sent = []
def progress(d):
    if d["level"] == 0:
        def fire():
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
        threading.Timer(0.3, fire).start()
try:
    cudag.pc(codes, "chi-square", threads=2, progress=progress)
except KeyboardInterrupt:
    print(int(1000 * (time.monotonic() - sent[0])))
    sys.exit(7)
sys.exit(0)
PY
)
        codes+="$? "
        [ -n "$out" ] && lat+=("$out")
    done
    stats() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END{if(NR) printf "%d / %d / %d ms", v[1], v[int((NR+1)/2)], v[NR]; else printf "-"}'; }
    printf '| %s | %d | %s| %s | %s | %s |\n' "python cudag.pc pathfinder chi-square level 1 (in-process)" "$RUNS" "$codes" \
        "$(stats "${lat[@]}")" "-" "-"
fi
