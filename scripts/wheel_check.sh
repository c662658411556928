#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python wheel as a user gets it: built CPU-only from a clean clone of the committed
# tree (no build folder, no ccache), installed into a fresh venv, then `cudag --help`, one
# `cudag pc` run through the console script and one cudag.pc call. Prints the wheel's
# build time. Run by scripts/test.sh when .venv has scikit-build-core and nanobind;
# by hand: bash scripts/wheel_check.sh [python] (default .venv/bin/python); with
# CUDAG_WHEEL_DIR set, the wheel is kept there.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:-.venv/bin/python}
work=$(mktemp -d "${TMPDIR:-/tmp}/cudag-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone -q --no-local "$PWD" "$work/src"
start=$(date +%s)
# --no-build-isolation: the build tools of $py (CI may be offline); CCACHE_DISABLE: a
# first build reuses nothing.
CCACHE_DISABLE=1 "$py" -m pip wheel -q --no-build-isolation --no-deps -w "$work/dist" \
    -Ccmake.define.CUDAG_ENABLE_CUDA=OFF -Cbuild-dir="$work/build" "$work/src"
echo "wheel_check: built $(basename "$work"/dist/*.whl) in $(( $(date +%s) - start )) s"
if [ -n "${CUDAG_WHEEL_DIR:-}" ]; then mkdir -p "$CUDAG_WHEEL_DIR" && cp "$work"/dist/*.whl "$CUDAG_WHEEL_DIR"/; fi
"$py" -m venv "$work/venv"
if ! "$work/venv/bin/pip" install -q "$work"/dist/*.whl 2>/dev/null; then
    # Offline: the wheel without its dependency, numpy taken from $py's site-packages.
    "$work/venv/bin/pip" install -q --no-deps "$work"/dist/*.whl
    "$py" -c "import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))" \
        > "$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/numpy-path.pth"
fi
cd "$work"
venv/bin/cudag --help > help.txt
grep -q "simulate" help.txt
venv/bin/python -m cudag --version
venv/bin/cudag pc --data "$OLDPWD/data/gaussian_20.csv" --out r.h5 --format edges -q
test -s r.edges.tsv
venv/bin/python - <<'PY'
import numpy as np, cudag
x = np.loadtxt("src/data/gaussian_20.csv", delimiter=",", skiprows=1)
res = cudag.pc(x, alpha=0.01)
back = cudag.load("r.h5")
assert np.array_equal(res.edge_array, back.edge_array), "the wheel's cudag.pc differs from its command line"
print(f"wheel_check: cudag {cudag.__version__} from the wheel: {res}")
PY
echo "wheel_check: ok"
