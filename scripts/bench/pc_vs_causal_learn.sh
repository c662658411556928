#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cudag pc (one thread) vs causal-learn's pc(fisherz) on the same simulated data,
# in one run: wall time of each, the ratio, and whether the skeletons are equal.
# Usage: scripts/bench/pc_vs_causal_learn.sh [build-dir] [out-dir]
#   env: SIZES="50 100 200"  SAMPLES=2000  DENSITY=0.05  SEED=1  ALPHA=0.01
# causal-learn is installed from PyPI into a virtual environment (.venv-bench).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
[ -x "$cudag" ] || { echo "no $cudag: build first (cmake --build $build)" >&2; exit 1; }
sizes=${SIZES:-"50 100 200"}
m=${SAMPLES:-2000}
d=${DENSITY:-0.05}
seed=${SEED:-1}
alpha=${ALPHA:-0.01}

venv=.venv-bench
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import causallearn" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q causal-learn
fi
py=$venv/bin/python
clver=$("$py" -c "import importlib.metadata as m; print(m.version('causal-learn'))")

cat > "$out/run_cl.py" <<'PY'
import sys, time
import numpy as np
from causallearn.search.ConstraintBased.PC import pc
path, alpha, outp = sys.argv[1], float(sys.argv[2]), sys.argv[3]
data = np.loadtxt(path, delimiter=",", skiprows=1)
t0 = time.perf_counter()
cg = pc(data, alpha, "fisherz", True, 0, -1, show_progress=False)
dt = time.perf_counter() - t0
np.savetxt(outp, cg.G.graph, fmt="%d")
print(f"{dt:.6f}")
PY

printf '%-6s %-7s %12s %14s %10s %10s\n' n m cudag_1thr_s causal_learn_s ratio skeleton | tee "$out/table.txt"
for n in $sizes; do
    csv=$out/gauss_${n}.csv
    "$cudag" simulate gaussian --overwrite --vars "$n" --samples "$m" --density "$d" --seed "$seed" \
        --out "$csv" --truth "$out/gauss_${n}.truth.tsv" 2>/dev/null
    # cudag: best of 3, file read to result written, one thread, causal-learn semantics.
    best=""
    for rep in 1 2 3; do
        t0=$EPOCHREALTIME
        "$cudag" pc --data "$csv" --alpha "$alpha" --threads 1 --compat causal-learn --uc-priority -1 \
            --out "$out/cudag_${n}.h5" --format cl -q
        t1=$EPOCHREALTIME
        best=$("$py" -c "import sys; t=$t1-$t0; b='$best'; print(min(t, float(b)) if b else t)")
    done
    tcl=$("$py" "$out/run_cl.py" "$csv" "$alpha" "$out/cl_${n}.txt")
    same=$("$py" - "$out/cudag_${n}.cl.txt" "$out/cl_${n}.txt" <<'PY'
import sys, numpy as np
a = np.loadtxt(sys.argv[1]) != 0
b = np.loadtxt(sys.argv[2]) != 0
print("equal" if (a == b).all() else f"DIFFER({int((a != b).sum() // 2)})")
PY
)
    ratio=$("$py" -c "print($tcl / $best)")
    printf '%-6s %-7s %12.4f %14.3f %10.1f %10s\n' "$n" "$m" "$best" "$tcl" "$ratio" "$same" | tee -a "$out/table.txt"
done
echo "causal-learn $clver; cudag $("$cudag" --version); $(nproc) cores; $(date -u +%F)" | tee -a "$out/table.txt"
