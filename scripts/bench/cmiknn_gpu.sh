#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CMIknn on the GPU against the GPU-CMIknn paper (Hagedorn et al.; shared/seeds/DIGEST.md
# §2.7): its micro-benchmarks (Tables 1-4, 15 shuffle neighbours, B = 100 permutations,
# T = 1000 samples, |S| = 1 unless the table scales it) and its PC run on sparse
# high-dimensional data (Table 10: T = 1000, average degree 1.5, N = 100 ... 1000
# variables, k_CMI = 7, alpha = 0.01).
#
# The paper's "median runtime of 20 CI tests" is the median time of ONE test over 20 tests
# (tigramite takes about 1.5 s per test at T = 1000, B = 100: the paper's 1.76 s), so every
# micro-benchmark number here is seconds per test. Each cell runs the same NTESTS random
# tests (x, y | S among VARS variables of `cudag simulate nonlinear` data; fixed seeds):
#   GPU single  build/cmiknn_bench --backend cuda --single: one CmiKnnGpu::run per test, the
#               median over tests of each test's median over REPEAT runs (after a warm-up);
#               like for like with the paper's GPU-CMIknn(-Single) numbers;
#   GPU batch   all tests in one CmiKnnGpu::run (as cudag's PC engine calls it), the median
#               batch time / NTESTS;
#   CPU         cmiknn_bench --backend cpu: ci::CmiKnn, every core on each test's surrogates;
#   tigramite   scripts/bench/cmiknn_tigramite.py (workers=-1) on the first TIG_TESTS tests,
#               where importable, on the rows where the paper gives a CPU time.
# Printed per cell: both GPU numbers, the paper's A40 number, paper/GPU, whether the goal
# holds (>= 10x the paper where it took >= 0.1 s, else >= 3x; for single/batch), CPU and
# CPU/GPU, "same" when the CUDA results equal the CPU results (every statistic and p-value
# identical) else "DIFFER", tigramite with tigramite/GPU and tigramite/CPU beside the
# paper's CPU number (tigramite 5.0 on one core). Table 10 times `cudag pc --test cmiknn
# --backend cuda` (and cpu for small N) and compares the two edge lists. A summary is last.
# Without a GPU or a CUDA build the GPU columns read n/a and the rest still runs.
#
# tigramite (never committed; bring it at run time): put tigramite 5.2.10.1's unpacked
# wheel in an ignored folder and pass it on PYTHONPATH (it needs numpy, scipy, numba, six):
#   pip download tigramite==5.2.10.1 --no-deps -d .peers/wheels
#   python3 -m zipfile -e .peers/wheels/tigramite-5.2.10.1-py3-none-any.whl .peers/tigramite-5.2.10.1
#   PYTHONPATH=$PWD/.peers/tigramite-5.2.10.1 scripts/bench/cmiknn_gpu.sh build
#
# Usage: scripts/bench/cmiknn_gpu.sh [build-dir]   (needs build/cudag and build/cmiknn_bench)
#   env: OUT=dir (logs, data and JSON kept there; default a temporary folder, removed)
#        TABLES="1 2 3 4 10"  which tables to run
#        REPEAT=3             GPU timed runs per cell; GPU_SINGLE=0 skips the single runs;
#        GPU_LIMIT=300        seconds per GPU call
#        MAX_T=10000          largest T of Table 4 (below 1000 it also becomes the T of
#                             Tables 1-3: a smoke test, not the paper's setting)
#        ADAPTIVE_MAX_T=5000  largest T of Table 4's adaptive k = 0.2 T row (the paper's GPU
#                             took 356 s per test at T = 10000)
#        CPU_SKIP=1           no cudag CPU runs; CPU_MAX_T=2500 (largest T on the CPU),
#        CPU_THREADS=0 (all), CPU_LIMIT=120 (s per cell), CPU_TABLES="1 2 3 4"
#        TIG_PYTHON=python3   interpreter for tigramite; TIG_TESTS=3, TIG_MAX_T=2500,
#        TIG_MAX_B=250, TIG_LIMIT=120 (s per cell), TIG_ALL=1 (every row of Tables 2-3)
#        PC_VARS="100 250 500 750 1000", PC_LIMIT=240 (s per GPU run),
#        PC_CPU_MAX_N=100, PC_CPU_LIMIT=150 (CPU PC runs: N up to that, killed at the limit)
#        NTESTS=20, VARS=20, DENSITY=0.2, SEED=1
# Default run: about 8 minutes on one H100 with 16 cores if the GPU meets the goals (an
# estimate: the CPU, tigramite and CPU PC runs take most of it; CPU_SKIP=1, smaller *_MAX_T
# or PC_CPU_MAX_N=0 shorten it).
# Smoke test without a GPU: MAX_T=200 TABLES="1 4" PC_VARS=15 scripts/bench/cmiknn_gpu.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
build=$(realpath "${1:-build}")
for exe in cudag cmiknn_bench; do
    [[ -x $build/$exe ]] || { echo "cmiknn_gpu.sh: $build/$exe is missing (build first)" >&2; exit 2; }
done
if [[ -n ${OUT:-} ]]; then
    work=$OUT/cmiknn; mkdir -p "$work"
else
    work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
export CMI_WORK=$work

# GPU: one tiny test on the CUDA backend (exit 3: no CUDA build, device or kernel).
"$build/cudag" simulate nonlinear --overwrite --vars 4 --samples 60 --density 0.5 --seed 1 \
    --out "$work/probe.csv" 2>/dev/null
printf '0\t1\t2\n' >"$work/probe.tsv"
rc=0
"$build/cmiknn_bench" --data "$work/probe.csv" --tests "$work/probe.tsv" --knn 3 \
    --shuffle-neighbors 5 --permutations 5 --backend cuda >/dev/null 2>"$work/probe.err" || rc=$?
if ((rc == 0)); then
    export CMI_HAVE_GPU=1
    echo "GPU: $("$build/cudag" info 2>/dev/null | grep -i -m1 'GPU 0' || echo 'CUDA backend works')"
else
    export CMI_HAVE_GPU=0
    echo "GPU: none, GPU columns skipped ($(tail -1 "$work/probe.err"))"
fi

# tigramite: importable with TIG_PYTHON and the caller's PYTHONPATH?
if "${TIG_PYTHON:-python3}" -c 'import tigramite.independence_tests.cmiknn' 2>"$work/tig.err"; then
    export CMI_HAVE_TIG=1
    echo "tigramite: $("${TIG_PYTHON:-python3}" -c 'import tigramite, os; print(os.path.dirname(tigramite.__file__))')"
else
    export CMI_HAVE_TIG=0
    echo "tigramite: not importable, its columns skipped ($(tail -1 "$work/tig.err"))"
fi
echo "CPU: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

python3 "$root/scripts/bench/cmiknn_gpu.py" "$build"
