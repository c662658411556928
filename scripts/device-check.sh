#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One command for a bare GPU machine (Ubuntu 24.04, CUDA 13, OpenMPI, NCCL, serial HDF5,
# CLI11, GoogleTest; no package registry needed): configure and build with CUDA, run
# the whole test suite (GPU and MPI tests included), then small calls in process
# (scripts/bench/small_gpu_calls.sh, beside cuPC-S when CUPC_DRIVER and CUPC_DATA are set), the Gaussian GPU benchmark
# (scripts/bench/gpu_pc.sh), the discrete one (scripts/bench/discrete_pc.sh, without
# causal-learn unless it is importable) and the CMIknn one against the GPU-CMIknn paper
# (scripts/bench/cmiknn_gpu.sh, with tigramite when importable) and the order-MCMC one
# (scripts/bench/mcmc_gpu.sh) and the Python module's repeated calls
# (scripts/bench/python_repeat.py), then, with 2 or more GPUs visible, every learner's scaling
# over 1 .. G ranks (scripts/bench/multi_scaling.sh), then PC's bootstrap on the CPU, one GPU
# and every GPU (scripts/bench/bootstrap.sh), order MCMC past 125 nodes
# (scripts/bench/mcmc_scale.sh), FCI / RFCI at scale (scripts/bench/fci_gpu.sh, FCI_JOBS) and
# batches of CI tests (scripts/bench/citest_batch.sh, BATCH_JOBS),
# and print their tables last.
# Reads GPU state only; never changes clocks, power or MIG; NCCL_NVLS_ENABLE=0.
#
# Usage: scripts/device-check.sh
#   env: OUT=dir (logs and summary.txt go there when set), BUILD=build-device,
#        STEPS="build tests small gaussian deep discrete cmiknn mcmc python multi bootstrap mcmcscale fci batch mixed pcmci sidebyside" (any subset, in that order; a later call on
#        the same machine can skip the build), SKIP_BENCH=1 (= STEPS="build tests"),
#        OLD_SRC=dir (another source tree, e.g. `git archive` of an earlier commit: its cudag is built
#        beside, in OLD_BUILD=build-old, for the sidebyside step: genome_side_by_side.sh on GENOME_SETS
#        to GENOME_MAX_LEVEL=2, mcmc_scale.sh step 1 and bootstrap.sh (DREAM5-sized set) with OLD,
#        both builds on the same data),
#        WHEEL_CU13=1 (also build and run the cudag-learn-cu13 wheel: scripts/wheel_cuda_check.sh),
#        TEST_LABELS= (a ctest -L regex for the tests step, e.g. 'gpu|mpi'; all tests without),
#        CUDA_ARCH=native (CMAKE_CUDA_ARCHITECTURES), CUDAG_SHARED_DATA=dir holding causal-learn/ (reference-data tests; skipped without),
#        gpu_pc.sh's ALPHA, SETS, CPU_LIMIT, VARIANT, discrete_pc.sh's ALARM.. MUNIN and
#        cmiknn_gpu.sh's TABLES, MAX_T, REPEAT, CPU_SKIP, CPU_MAX_T, ... (its header),
#        MULTI_WORKLOADS (multi_scaling.sh's WORKLOADS; its RANKS, RUN_TIMEOUT, SCALE, ... too),
#        bootstrap.sh's B, CPU_B, NETS, SHARED, ... and mcmc_scale.sh's STEPS as MCMC_STEPS, N, ...,
#        PYTHONPATH=dir holding tigramite 5.2.10.1 for the cmiknn step's tigramite columns:
#        never committed; on a machine with pip, `pip download tigramite==5.2.10.1 --no-deps
#        -d .peers/wheels` and `python3 -m zipfile -e .peers/wheels/tigramite-5.2.10.1-py3-
#        none-any.whl .peers/tigramite-5.2.10.1` (.peers/ is ignored), then run with
#        PYTHONPATH=$PWD/.peers/tigramite-5.2.10.1 (numpy, scipy, numba and six must be there)
# shellcheck disable=SC2016  # bench's sed filters are single-quoted on purpose
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

export NCCL_NVLS_ENABLE=0
steps=${STEPS:-"build tests small gaussian deep discrete cmiknn mcmc python multi bootstrap mcmcscale fci batch mixed pcmci sidebyside"}
[[ -n ${SKIP_BENCH:-} ]] && steps="build tests"
has() { [[ " $steps " == *" $1 "* ]]; }
# The summary grows step by step; with OUT it is $OUT/summary.txt, so that a run cut off by
# a time limit keeps the tables of the steps it finished.
if [[ -n ${OUT:-} ]]; then
    summary=$OUT/summary.txt
    : >"$summary"
    trap 'rm -rf "${unpacked:-}"' EXIT
else
    summary=$(mktemp)
    trap 'rm -f "$summary"; rm -rf "${unpacked:-}"' EXIT
fi
# bench TITLE FILTER command...: a benchmark step; its output is shown, and the lines the
# sed script FILTER prints go into the summary under TITLE with the step's exit status.
bench() {
    local title=$1 filter=$2 log rc=0
    shift 2
    log=$(mktemp)
    "$@" | tee "$log" || rc=$?
    { echo; echo "$title (exit $rc):"; sed -n "$filter" "$log"; } >>"$summary"
    rm -f "$log"
}

echo "== device"
nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version --format=csv || true
nvcc --version | tail -1
# The Python module (and its pytest suite in ctest) when nanobind is importable; on a
# machine without a package index, wheels carried in .peers/wheels (nanobind, and pytest
# with iniconfig, pluggy and packaging when pytest is missing) are unpacked for the run.
wheels=$root/.peers/wheels
if [[ -d $wheels ]]; then
    unpacked=$(mktemp -d)
    for w in nanobind pytest iniconfig pluggy packaging; do
        python3 -c "import $w" 2>/dev/null && continue
        for f in "$wheels/$w"-*.whl; do [[ -f $f ]] && python3 -m zipfile -e "$f" "$unpacked"; done
    done
    export PYTHONPATH=$unpacked${PYTHONPATH:+:$PYTHONPATH}
fi
python_module=OFF
python3 -c "import nanobind" 2>/dev/null && python_module=ON
old_build=${OLD_BUILD:-build-old}
if has build; then
    echo "== configure + build ($jobs jobs; Python module $python_module)"
    if [[ -n ${OLD_SRC:-} ]]; then  # another tree's cudag beside it, for the sidebyside step
        (cmake -S "$OLD_SRC" -B "$old_build" -DCMAKE_BUILD_TYPE=Release -DCUDAG_ENABLE_CUDA=ON \
            -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" -DCUDAG_BUILD_PYTHON=OFF -DCUDAG_BUILD_TESTS=OFF &&
            cmake --build "$old_build" -j"$((jobs / 2 > 0 ? jobs / 2 : 1))" --target cudag) >"${OUT:-/tmp}/build-old.log" 2>&1 &
        old_pid=$!
    fi
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAG_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" -DCUDAG_BUILD_PYTHON=$python_module \
        -DPython_EXECUTABLE="$(command -v python3)"
    cmake --build "$build" -j"$jobs"
    if [[ -n ${old_pid:-} ]]; then
        wait "$old_pid" && echo "old tree $OLD_SRC built in $old_build" || echo "old tree $OLD_SRC: build failed"
    fi
fi
"$build/cudag" info

if has tests; then
    echo "== tests"
    # GPU tests share the device; a few at a time keeps memory and CPU threads sane.
    ctest_log=$(mktemp)
    rc=0
    ctest --test-dir "$build" --output-on-failure -j"$((jobs < 8 ? jobs : 8))" ${TEST_LABELS:+-L "$TEST_LABELS"} 2>&1 |
        tee "$ctest_log" || rc=$?
    {
        echo "tests (exit $rc): $(grep -h 'tests passed' "$ctest_log" || echo 'no summary')"
        grep -h ' - .*(Failed\|Timeout\|Exception)' "$ctest_log" | sed 's/^/  /' || true
    } >>"$summary"
    rm -f "$ctest_log"
fi

if has small; then
    echo "== small calls in process (scripts/bench/small_gpu_calls.sh)"
    bench "Small calls in process, GPU and CPU paths (and cuPC-S with CUPC_DRIVER, CUPC_DATA)" '/^set /,$p' \
        env BUILD="$build" "$root/scripts/bench/small_gpu_calls.sh"
fi

if has gaussian; then
    echo "== Gaussian benchmark"
    bench "Gaussian (scripts/bench/gpu_pc.sh)" '/^alpha=/,$p' "$root/scripts/bench/gpu_pc.sh" "$build"
fi

if has discrete; then
    echo "== discrete benchmark"
    skip_cl=1
    python3 -c "import causallearn" 2>/dev/null && skip_cl=
    bench "Discrete (scripts/bench/discrete_pc.sh)" p env SKIP_CL=$skip_cl "$root/scripts/bench/discrete_pc.sh" "$build"
fi

if has cmiknn; then
    echo "== CMIknn benchmark (PYTHONPATH=${PYTHONPATH:-})"
    bench "CMIknn (scripts/bench/cmiknn_gpu.sh)" '/^== cmiknn tables/,${/^== cmiknn tables/!p}' \
        "$root/scripts/bench/cmiknn_gpu.sh" "$build"
fi

if has deep; then
    echo "== Gaussian deep levels and hubs (scripts/bench/deep_levels.sh)"
    bench "Deep levels (scripts/bench/deep_levels.sh)" p "$root/scripts/bench/deep_levels.sh" "$build"
fi

if has mcmc; then
    echo "== order MCMC benchmark"
    bench "Order MCMC (scripts/bench/mcmc_gpu.sh)" p "$root/scripts/bench/mcmc_gpu.sh" "$build"
fi

if has python; then
    echo "== Python: repeated cudag.pc calls in one process (scripts/bench/python_repeat.py)"
    if [[ -n $(ls "$build"/python/_cudag*.so 2>/dev/null) ]]; then
        bench "Python (scripts/bench/python_repeat.py)" '/^ *call /,$p' \
            python3 "$root/scripts/bench/python_repeat.py" --build "$build"
    else
        echo "no Python module in $build (nanobind not importable at configure time)" | tee -a "$summary"
    fi
fi

if has multi; then
    echo "== multi-GPU scaling (scripts/bench/multi_scaling.sh)"
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
    if ((gpus >= 2)); then
        multi_env=()
        [[ -n ${MULTI_WORKLOADS:-} ]] && multi_env=(WORKLOADS="$MULTI_WORKLOADS")
        bench "Multi-GPU scaling (scripts/bench/multi_scaling.sh)" '/^== multi-GPU scaling table/,${/^== multi-GPU scaling table/!p}' \
            env "${multi_env[@]}" "$root/scripts/bench/multi_scaling.sh" "$build"
    else
        echo "Multi-GPU scaling: skipped ($gpus GPU visible; it needs 2 or more)" | tee -a "$summary"
    fi
fi

if has bootstrap; then
    echo "== PC bootstrap (scripts/bench/bootstrap.sh)"
    bench "Bootstrap (scripts/bench/bootstrap.sh)" p env MPIEXEC="${MPIEXEC:-mpiexec --allow-run-as-root}" \
        "$root/scripts/bench/bootstrap.sh" "$build"
fi

if has mcmcscale; then
    echo "== order MCMC past 125 nodes (scripts/bench/mcmc_scale.sh)"
    bench "Order MCMC at scale (scripts/bench/mcmc_scale.sh)" p env STEPS="${MCMC_STEPS:-1 2 3}" \
        "$root/scripts/bench/mcmc_scale.sh" "$build"
fi

if has fci; then
    echo "== FCI / RFCI at scale, GPU vs CPU (scripts/bench/fci_gpu.sh)"
    bench "FCI / RFCI at scale (scripts/bench/fci_gpu.sh)" '/^cudag fci at scale/,$p' env JOBS="${FCI_JOBS:-rfci:10000 fci:2000:--pdsep-max,10 fci:2000:--max-level,1}" \
        "$root/scripts/bench/fci_gpu.sh" "$build" "${OUT:-/tmp}/fci"
fi

if has batch; then
    echo "== batches of CI tests, GPU vs CPU (scripts/bench/citest_batch.sh)"
    bench "Batches of CI tests, citest --queries (scripts/bench/citest_batch.sh)" '/^cudag citest --queries/,$p' \
        env ${BATCH_JOBS:+JOBS="$BATCH_JOBS"} "$root/scripts/bench/citest_batch.sh" "$build" "${OUT:-/tmp}/batch"
fi

if has mixed; then
    echo "== mixed data (issue 55): cg-lrt batches, PC with cg-lrt, test-wise Fisher-z, GPU vs CPU"
    bench "cg-lrt batches, citest --queries (scripts/bench/cg_lrt_batch.sh)" p \
        "$root/scripts/bench/cg_lrt_batch.sh" "$build" "${OUT:-/tmp}/mixed"
    bench "PC with cg-lrt on mixed data (scripts/bench/mixed_pc_gpu.sh)" '/^cudag pc --test cg-lrt/,$p' \
        env VARS="${MIXED_VARS:-1000}" SAMPLES="${MIXED_SAMPLES:-5000}" MAX_LEVEL="${MIXED_MAX_LEVEL:--1}" \
        "$root/scripts/bench/mixed_pc_gpu.sh" "$build" "${OUT:-/tmp}/mixed"
    if [[ -x $root/scripts/bench/testwise_gpu.sh ]]; then
        bench "PC with --missing testwise, Fisher-z (scripts/bench/testwise_gpu.sh)" p \
            "$root/scripts/bench/testwise_gpu.sh" "$build" "${OUT:-/tmp}/mixed"
    fi
    if [[ -x $root/scripts/bench/testwise_gpu_more.sh ]]; then
        bench "PC with --missing testwise, cg-lrt and g-square (scripts/bench/testwise_gpu_more.sh)" p \
            "$root/scripts/bench/testwise_gpu_more.sh" "$build" "${OUT:-/tmp}/mixed"
    fi
    if [[ -x $root/scripts/bench/regression_gpu.sh ]]; then
        bench "regression batches and PC, GPU vs CPU (scripts/bench/regression_gpu.sh)" p \
            "$root/scripts/bench/regression_gpu.sh" "$build"
        bench "regression with --missing testwise, GPU vs CPU (scripts/bench/regression_gpu.sh)" p \
            env MISSING=0.1 "$root/scripts/bench/regression_gpu.sh" "$build"
    fi
    if [[ -x $root/scripts/bench/testwise_cmiknn_gpu.sh ]]; then
        bench "citest --queries and PC with --missing testwise, CMIknn (scripts/bench/testwise_cmiknn_gpu.sh)" p \
            "$root/scripts/bench/testwise_cmiknn_gpu.sh" "$build"
    fi
fi

if has pcmci; then
    echo "== PCMCI (issue 56): cudag pcmci on the GPU and the CPU against tigramite"
    # tigramite (and numba, which its CMIknn imports) from wheels carried in .peers/wheels312.
    tg_args=()
    if ! python3 -c "import tigramite, numba" 2>/dev/null; then
        if [[ -d $root/.peers/wheels312 ]]; then
            tgdir=$(mktemp -d)
            python3 -m pip install -q --no-index --no-deps --target "$tgdir" "$root"/.peers/wheels312/*.whl \
                >"${OUT:-/tmp}/pcmci-pip.log" 2>&1 || echo "tigramite wheels did not install (see pcmci-pip.log)"
            export PYTHONPATH=$tgdir${PYTHONPATH:+:$PYTHONPATH}
        fi
        python3 -c "import tigramite, numba" 2>/dev/null || tg_args=(--no-tigramite)
    fi
    bench "PCMCI, cudag GPU/CPU and tigramite (scripts/bench/pcmci_speed.py)" '/^case/,$p' \
        python3 "$root/scripts/bench/pcmci_speed.py" --cudag "$build/cudag" --out "${OUT:-/tmp}/pcmci" \
        --large-vars "${PCMCI_LARGE_VARS:-1000}" ${PCMCI_ARGS:-} "${tg_args[@]}"
fi

if has sidebyside; then
    echo "== two builds side by side ($old_build against $build)"
    if [[ -x $old_build/cudag ]]; then
        bench "Genome-scale sets, old and new builds (scripts/bench/genome_side_by_side.sh)" p env CUDAG_TRACE=1 \
            MPIEXEC="${MPIEXEC:-mpiexec --allow-run-as-root}" SETS="${GENOME_SETS:-scale-free:250000:1 er:400000:1}" \
            MAX_LEVEL="${GENOME_MAX_LEVEL:-2}" "$root/scripts/bench/genome_side_by_side.sh" "$old_build" "$build"
        bench "Order MCMC n = 125, old and new builds (scripts/bench/mcmc_scale.sh step 1)" p env STEPS=1 \
            OLD="$old_build" LOGS="${OUT:-/tmp}" "$root/scripts/bench/mcmc_scale.sh" "$build"
        bench "Bootstrap B = 100 on a DREAM5-sized set, old and new builds (scripts/bench/bootstrap.sh)" p env \
            OLD="$old_build" NETS="" CPU_B=2 MPIEXEC="${MPIEXEC:-mpiexec --allow-run-as-root}" \
            "$root/scripts/bench/bootstrap.sh" "$build"
    else
        echo "no $old_build/cudag (set OLD_SRC=tree for the build step): skipped"
    fi
fi

# Optional: the cudag-learn-cu13 wheel built, installed without its dependencies into a
# fresh venv and run on this GPU (WHEEL_CU13=1; WHEEL=path takes a built one).
if [[ -n ${WHEEL_CU13:-} ]]; then
    echo "== the cudag-learn-cu13 wheel (scripts/wheel_cuda_check.sh)"
    bench "cu13 wheel (scripts/wheel_cuda_check.sh)" '/^wheel_cuda_check:/p' \
        env CUDA_ARCH="${CUDA_ARCH:-90}" bash "$root/scripts/wheel_cuda_check.sh"
fi

echo
echo "== summary"
cat "$summary"
