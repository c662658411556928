#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The CUDA wheel (cudag-learn-cu13) on a GPU machine: built from this tree with
# -Ccudag.variant=cu13 (python/pep517/cudag_build.py; CUDA_ARCH, default 90, its
# CMAKE_CUDA_ARCHITECTURES), or taken as it is when WHEEL=path/to/cudag_learn_cu13-*.whl;
# installed without its dependencies into a fresh venv that sees the system's numpy, so
# that the CUDA runtime is the machine's own (or, when .peers/wheels holds an
# nvidia_cuda_runtime-13.*.whl, NVIDIA's wheel's, installed beside it); then `cudag info`
# and cudag.pc(backend="cuda") on data/gaussian_20.csv and a 60-variable simulated set,
# whose edges must equal backend="cpu"'s. Prints the wheel's name, size, the libraries it
# carries, and where ldd finds libcudart.
# Needs nvcc, a GPU, python3 with pip and numpy, and scikit-build-core and nanobind
# importable (pip install, or their wheels in .peers/wheels: scikit_build_core, pathspec,
# packaging, nanobind; unpacked for the build), unless WHEEL is given.
# Usage: [WHEEL=...] [CUDA_ARCH=90] [OUT=dir] bash scripts/wheel_cuda_check.sh
# (scripts/device-check.sh runs it when WHEEL_CU13=1.)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/cudag-cu13.XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
    export PATH=/usr/local/cuda/bin:$PATH
fi
wheels=$root/.peers/wheels
wheel=${WHEEL:-}
if [[ -z $wheel ]]; then
    if ! python3 -c "import scikit_build_core, nanobind" 2>/dev/null && [[ -d $wheels ]]; then
        for w in "$wheels"/{scikit_build_core,pathspec,packaging,nanobind}-*.whl; do
            [[ -f $w ]] && python3 -m zipfile -e "$w" "$work/tools"
        done
        export PYTHONPATH=$work/tools${PYTHONPATH:+:$PYTHONPATH}
    fi
    start=$(date +%s)
    CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) python3 -m pip wheel -q --no-build-isolation --no-deps -w "$work/dist" \
        -Ccudag.variant=cu13 -Ccmake.define.CMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
        -Cbuild-dir="$work/build" "$root"
    wheel=$(ls "$work"/dist/*.whl)
    echo "wheel_cuda_check: built $(basename "$wheel") in $(( $(date +%s) - start )) s"
fi
case "$(basename "$wheel")" in
    cudag_learn_cu13-*-manylinux_2_*.whl) ;;
    *) echo "wheel_cuda_check: $(basename "$wheel") is not a manylinux cudag_learn_cu13 wheel"; exit 1;;
esac
if [[ -n ${OUT:-} ]]; then mkdir -p "$OUT" && cp "$wheel" "$OUT"/; fi
echo "wheel_cuda_check: $(basename "$wheel"), $(( $(stat -c %s "$wheel") / 1024 )) KiB, carries:" \
     "$(python3 -m zipfile -l "$wheel" | awk '$1 ~ /\.libs\// {n = split($1, a, "/"); print a[n]}' | tr '\n' ' ')"
if python3 -m zipfile -l "$wheel" | grep -q "libcudart"; then
    echo "wheel_cuda_check: the wheel carries libcudart (it should come from nvidia-cuda-runtime)"; exit 1
fi
# A venv without pip of its own (python3-venv's ensurepip may be missing): the system's pip
# and numpy through --system-site-packages, the wheel installed into the venv.
python3 -m venv --without-pip --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-deps --no-index "$wheel"
runtime=("$wheels"/nvidia_cuda_runtime-13.*.whl)
if [[ -f ${runtime[0]} ]]; then
    "$work/venv/bin/python" -m pip install -q --no-deps --no-index "${runtime[0]}"
    echo "wheel_cuda_check: $(basename "${runtime[0]}") installed beside it"
fi
# numpy installed in the user's site (~/.local), which no venv sees: its folder on PYTHONPATH.
if ! "$work/venv/bin/python" -c "import numpy" 2>/dev/null; then
    numpy_dir=$(python3 -c "import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))")
    export PYTHONPATH=$numpy_dir${PYTHONPATH:+:$PYTHONPATH}
    echo "wheel_cuda_check: numpy from $numpy_dir"
fi
cd "$work"
module=$(ls venv/lib/python3*/site-packages/cudag/_cudag*.so)
for f in "$module" venv/bin/cudag; do
    echo "wheel_cuda_check: ldd $(basename "$f"): $(ldd "$f" | grep -E 'libcudart|not found' | tr -s ' \t' ' ' || true)"
done
venv/bin/cudag info
venv/bin/python - "$root/data/gaussian_20.csv" <<'PY'
import sys
import numpy as np
import cudag

x = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
sim = cudag.simulate("gaussian", vars=60, samples=4000, density=0.05, seed=7)
for label, data in (("gaussian_20.csv", x), ("simulated 60 x 4000", sim.data)):
    gpu = cudag.pc(data, alpha=0.01, backend="cuda")
    cpu = cudag.pc(data, alpha=0.01, backend="cpu")
    assert np.array_equal(gpu.edge_array, cpu.edge_array), f"{label}: backend='cuda' and 'cpu' differ"
    print(f"wheel_cuda_check: {label}: backend='cuda' {gpu} equals backend='cpu'")
print("wheel_cuda_check: ok")
PY
