#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CMIknn on the GPU against the GPU-CMIknn paper (Hagedorn et al.; shared/seeds/DIGEST.md
# §2.7): its micro-benchmarks (Tables 1-4: median seconds of 20 CI tests at the paper's
# settings: 15 shuffle neighbours, B = 100 permutations, T = 1000 samples, |S| = 1 unless
# the table scales it) and its PC run on sparse high-dimensional data (Table 10: T = 1000,
# average degree 1.5, N = 100 ... 1000 variables, k_CMI = 7, alpha = 0.01).
#
# Each micro-benchmark cell times the same 20 random tests (x, y | S among VARS variables
# of `cudag simulate nonlinear` data; fixed seeds) with build/cmiknn_bench on the GPU
# (CmiKnnGpu::run of all 20 as one batch; median of REPEAT runs after a warm-up) and on the
# CPU (ci::CmiKnn, one test after another, every core on each test's surrogates), and with
# tigramite's CMIknn (scripts/bench/cmiknn_tigramite.py, workers=-1) where it is importable.
# Printed per cell: cudag GPU seconds; the paper's A40 seconds; paper/cudag; whether the
# goal holds (>= 10x the paper where it took >= 0.1 s, else >= 3x); cudag CPU seconds and
# CPU/GPU; "same" when the CUDA results equal the CPU results (every statistic and p-value
# identical), else "DIFFER"; tigramite seconds with tigramite/GPU and tigramite/CPU (on the
# rows where the paper gives a CPU time, every row with TIG_ALL=1), beside the paper's CPU
# seconds (tigramite 5.0 on one core). Table 10 runs `cudag pc --test cmiknn --backend
# cuda` (and cpu while affordable) and compares the two edge lists. A summary comes last.
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
#        REPEAT=3             GPU timed runs per cell (median reported)
#        MAX_T=10000          largest T of Table 4 (below 1000 it also becomes the T of
#                             Tables 1-3: a smoke test, not the paper's setting)
#        ADAPTIVE_MAX_T=5000  largest T of Table 4's adaptive k = 0.2 T row (the paper's GPU
#                             took 356 s at T = 10000)
#        CPU_SKIP=1           no cudag CPU runs; CPU_MAX_T=2500 (largest T timed on the CPU),
#        CPU_THREADS=0 (all), CPU_LIMIT=120 (s per cell), CPU_TABLES="1 2 3 4"
#        TIG_PYTHON=python3   interpreter for tigramite; TIG_MAX_T=2500, TIG_LIMIT=120,
#        TIG_ALL=1            tigramite on every row of Tables 2-3, not only k = 200
#        PC_VARS="100 250 500 750 1000", PC_LIMIT=240 (s per GPU run),
#        PC_CPU_MAX_N=100, PC_CPU_LIMIT=240 (CPU PC runs: N up to that, killed at the limit)
#        GPU_LIMIT=300 (s per cell), NTESTS=20, VARS=20, DENSITY=0.2, SEED=1
# Default run: about 8 minutes on one H100 with 16 cores when the GPU meets the goals (the
# CPU and tigramite cells take most of it; CPU_SKIP=1 or smaller *_MAX_T shorten it).
# Smoke test without a GPU: MAX_T=200 TABLES="1 4" PC_VARS=20 scripts/bench/cmiknn_gpu.sh
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
"$build/cudag" simulate nonlinear --vars 4 --samples 60 --density 0.5 --seed 1 \
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
