#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configure, build and run the whole test suite (GPU tests skip without a GPU). The build
# must print no compiler warning: one fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# The Python module and tests/python when scripts/setup.sh's .venv has what they need (one
# build: the extension links the same libraries as the command line).
python_args=(-DCUDAG_BUILD_PYTHON=OFF)
if [ -x .venv/bin/python ] && .venv/bin/python -c "
import nanobind, numpy, pytest, sysconfig, os
assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" 2>/dev/null; then
    python_args=(-DCUDAG_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$PWD/.venv/bin/python")
else
    echo "test.sh: no .venv with nanobind, numpy, pytest and Python's headers (scripts/setup.sh makes it): the Python package is not built or tested" >&2
fi
# Tests ON explicitly: the README's run command may have configured this build folder.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUDAG_BUILD_TESTS=ON "${python_args[@]}"
cmake --build build -j"$jobs" 2>&1 | tee build/build.log
if grep -n -i -E "warning[: #]" build/build.log; then
    echo "test.sh: the build printed compiler warnings (above); fix them" >&2
    exit 1
fi
ctest --test-dir build --output-on-failure -j"$jobs"
# The R package (r/) and its testthat tests where scripts/setup.sh installed R (skipped with a
# line otherwise); the comparisons with pcalg 2.7-12 and bnlearn 4.9 where the peers' install script lies beside
# the project (../shared/peers, never part of it).
peers=$PWD/../shared/peers/install_r_peers.sh
[ -f "$peers" ] || peers=
BUILD=build JOBS="$jobs" R_PEERS="$peers" bash scripts/r-check.sh
# The wheel a user installs: built CPU-only from a clean clone, installed into a fresh
# venv, its `cudag` console script and cudag.pc run (README "Python" gives its build time).
if [ "${python_args[0]}" = "-DCUDAG_BUILD_PYTHON=ON" ] && .venv/bin/python -c "import scikit_build_core" 2>/dev/null; then
    bash scripts/wheel_check.sh "$PWD/.venv/bin/python"
fi
