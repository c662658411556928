#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the cudag library for the R package (build-r/, -DCUDAG_BUILD_R=ON: position-independent
# static libraries and build-r/r/cudag.mk), installs the package (r/) into build-r/Rlib and runs
# its testthat tests (r/tests/testthat; the comparisons with pcalg and bnlearn skip where they are
# absent: /work/shared/peers/install_r_peers.sh or R_PEERS=<that script> installs them).
#   scripts/r-check.sh [--check]     --check: also R CMD check on the built package
# Environment: BUILD (default build-r; an existing build folder is reused), JOBS (default 2),
# CUDA=ON for the CUDA engines (a new build folder), R_PEERS (a script installing pcalg and bnlearn).
# Exits 0 without doing anything when R (Rscript) or Rcpp/testthat are missing, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build-r}
if ! command -v Rscript >/dev/null; then
    echo "r-check: no R (Rscript): skipped (scripts/setup.sh installs it)"
    exit 0
fi
if ! Rscript -e 'quit(status = !all(sapply(c("Rcpp", "testthat"), requireNamespace, quietly = TRUE)))' >/dev/null 2>&1; then
    echo "r-check: R lacks Rcpp or testthat: skipped (scripts/setup.sh installs them)"
    exit 0
fi
if [ -n "${R_PEERS:-}" ]; then bash "$R_PEERS"; fi
t0=$(date +%s)
if [ -f "$build/CMakeCache.txt" ]; then
    # A build folder configured already (scripts/test.sh's `build`, say): its settings kept,
    # the R flags added (no rebuild when its libraries are position-independent already:
    # CUDAG_BUILD_PYTHON=ON or CUDAG_BUILD_R=ON from the start).
    cmake -S . -B "$build" -DCUDAG_BUILD_R=ON >/dev/null
else
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAG_BUILD_TESTS=OFF -DCUDAG_BUILD_R=ON \
        -DCUDAG_ENABLE_CUDA="${CUDA:-OFF}" ${CMAKE_ARGS:-} >/dev/null
fi
cmake --build "$build" --target cudag_r_libs -j"${JOBS:-2}"
t1=$(date +%s)
lib="$build/Rlib"
mkdir -p "$lib"
CUDAG_BUILD_DIR=$PWD/$build R CMD INSTALL --preclean --no-test-load --library="$lib" r
rm -f r/src/*.o r/src/*.so r/src/Makevars
t2=$(date +%s)
R_LIBS="$PWD/$lib${R_LIBS:+:$R_LIBS}" Rscript -e 'library(testthat); library(cudag);
  res <- as.data.frame(test_dir("r/tests/testthat", reporter = "summary", stop_on_failure = TRUE));
  cat("r-check:", sum(res$nb), "expectations,", sum(res$failed), "failed,", sum(res$skipped), "skipped\n")'
t3=$(date +%s)
if [ "${1:-}" = --check ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && R CMD build --no-build-vignettes "$OLDPWD/r" >/dev/null &&
        CUDAG_BUILD_DIR=$OLDPWD/$build R_LIBS="$OLDPWD/$lib" _R_CHECK_FORCE_SUGGESTS_=false \
            R CMD check --no-manual cudag_*.tar.gz) || { rm -rf "$tmp"; exit 1; }
    rm -rf "$tmp"
fi
echo "r-check: library $((t1 - t0)) s, R package $((t2 - t1)) s, tests $((t3 - t2)) s"
