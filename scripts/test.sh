#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configure, build and run the whole test suite (GPU tests skip without a GPU). The build
# must print no compiler warning: one fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# Tests ON explicitly: the README's run command may have configured this build folder.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUDAG_BUILD_TESTS=ON
cmake --build build -j"$jobs" 2>&1 | tee build/build.log
if grep -n -i -E "warning[: #]" build/build.log; then
    echo "test.sh: the build printed compiler warnings (above); fix them" >&2
    exit 1
fi
ctest --test-dir build --output-on-failure -j"$jobs"
