#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install cudag's build and test dependencies from Debian/Ubuntu packages.
# CUDA is used when nvcc is already installed; it is never required.
set -euo pipefail

pkgs=(build-essential cmake pkg-config libcli11-dev libgtest-dev
      libopenmpi-dev openmpi-bin hdf5-tools graphviz python3-venv python3-dev)
# The serial flavour of HDF5 (libhdf5-dev: the Python wheel's, built without MPI, so that
# it carries no Open MPI libraries: pyproject.toml, scripts/wheel_check.sh) and the openmpi
# flavour where the distribution has it (the command line's MPI-IO; CMakeLists.txt takes it
# when MPI is on, the serial one when MPI is off). Both install side by side.
pkgs+=(libhdf5-dev)
if apt-cache show libhdf5-openmpi-dev >/dev/null 2>&1; then
    pkgs+=(libhdf5-openmpi-dev)
fi

# R for the R package (r/: scripts/r-check.sh) and what pcalg 2.7-12 needs to build beside it
# (/work/shared/peers/install_r_peers.sh, never part of the project; r-base-dev: the compilers,
# BLAS and LAPACK that R CMD INSTALL links), where the distribution
# has them (Debian 12, Ubuntu 24.04); SKIP_R=1 leaves R out.
if [ -z "${SKIP_R:-}" ] && apt-cache show r-base-core >/dev/null 2>&1; then
    for p in r-base-core r-base-dev r-cran-rcpp r-cran-testthat r-bioc-graph r-bioc-rbgl r-cran-igraph r-cran-abind \
             r-cran-corpcor r-cran-robustbase r-cran-vcd r-cran-rcpparmadillo r-cran-bh r-cran-sfsmisc \
             r-cran-fastica r-cran-clue r-cran-bdsmatrix r-cran-ggm r-cran-mass r-cran-mvtnorm; do
        apt-cache show "$p" >/dev/null 2>&1 && pkgs+=("$p")
    done
fi

missing=()
for p in "${pkgs[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all packages present"
else
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
        sudo=sudo
    fi
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# The Python package's build tools and test runner, in the project's .venv (git-ignored):
# scripts/test.sh then builds the extension module and runs tests/python. Not fatal
# offline: the Python tests are left out.
venv=.venv
cd "$(dirname "$0")/.."
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" || echo "setup: cannot create $venv: the Python package will not be built" >&2
fi
if [ -x "$venv/bin/python" ]; then
    if "$venv/bin/python" -c "import nanobind, scikit_build_core, numpy, pytest" 2>/dev/null; then
        echo "setup: $venv has nanobind, scikit-build-core, numpy, pytest"
    elif "$venv/bin/python" -m pip install -q nanobind scikit-build-core numpy pytest; then
        echo "setup: installed nanobind, scikit-build-core, numpy, pytest into $venv"
    else
        echo "setup: pip could not install the Python build tools: the Python package will not be built" >&2
    fi
fi
if command -v nvcc >/dev/null; then
    echo "setup: nvcc found ($(nvcc --version | tail -1)): the CUDA sources will be compiled"
else
    echo "setup: no nvcc: CPU-only build"
fi
