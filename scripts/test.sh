#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configure, build and run the whole test suite (GPU tests skip without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
