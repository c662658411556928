#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One command for a bare GPU machine (Ubuntu 24.04, CUDA 13, OpenMPI, serial HDF5,
# CLI11, GoogleTest; no package registry needed): configure and build with CUDA, run
# the whole test suite (GPU tests included), then the GPU benchmark
# (scripts/bench/gpu_pc.sh). Reads GPU state only; never changes clocks, power or MIG.
#
# Usage: scripts/device-check.sh
#   env: OUT=dir (logs go there when set), BUILD=build-device, SKIP_BENCH=1,
#        and gpu_pc.sh's ALPHA, SETS, CPU_LIMIT, VARIANT
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${BUILD:-build-device}
jobs=$(nproc)
if [[ -n ${OUT:-} ]]; then
    mkdir -p "$OUT"
    exec > >(tee "$OUT/device-check.log") 2>&1
fi
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
    export PATH=/usr/local/cuda/bin:$PATH
fi

echo "== device"
nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version --format=csv || true
nvcc --version | tail -1
echo "== configure + build ($jobs jobs)"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAG_ENABLE_CUDA=ON
cmake --build "$build" -j"$jobs"
"$build/cudag" info

echo "== tests"
# GPU tests share the device; a few at a time keeps memory and CPU threads sane.
ctest --test-dir "$build" --output-on-failure -j"$((jobs < 8 ? jobs : 8))"

if [[ -z ${SKIP_BENCH:-} ]]; then
    echo "== benchmark"
    "$root/scripts/bench/gpu_pc.sh" "$build"
fi
