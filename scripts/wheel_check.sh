#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python wheel as a user gets it: built CPU-only from a clean clone of the committed
# tree (no build folder, no ccache), installed into a fresh venv, then `cudag --help`, one
# `cudag pc` run through the console script and one cudag.pc call. Prints the wheel's
# build time, name (its manylinux tag, given by pip wheel itself) and size and the shared
# libraries it bundles (python/bundle_libs.cmake), checks that none is Open MPI's, and
# checks with ldd that the module and the executable find every library outside the
# manylinux allow-list, libhdf5 first, inside the wheel (cudag_learn.libs/), not in /usr.
# Where it may (root, unshare), it then hides the system's copies of the bundled libraries
# in a private mount namespace and runs the executable and the module again.
# Run by scripts/test.sh when .venv has scikit-build-core and nanobind;
# by hand: bash scripts/wheel_check.sh [python] (default .venv/bin/python); with
# CUDAG_WHEEL_DIR set, the wheel is kept there.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:-.venv/bin/python}
work=$(mktemp -d "${TMPDIR:-/tmp}/cudag-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone -q --no-local "$PWD" "$work/src"
start=$(date +%s)
# --no-build-isolation: the build tools of $py (CI may be offline); CCACHE_DISABLE: a
# first build reuses nothing.
CCACHE_DISABLE=1 "$py" -m pip wheel -q --no-build-isolation --no-deps -w "$work/dist" \
    -Ccmake.define.CUDAG_ENABLE_CUDA=OFF -Cbuild-dir="$work/build" "$work/src"
echo "wheel_check: built $(basename "$work"/dist/*.whl) in $(( $(date +%s) - start )) s," \
     "$(( $(stat -c %s "$work"/dist/*.whl) / 1024 )) KiB"
# pip wheel itself gives the manylinux tag the wheel has earned (the build backend,
# python/pep517/cudag_build.py: its ELF files' needs, glibc alone or bundled).
tagged=$(ls "$work"/dist/*.whl)
case "$tagged" in *-manylinux_2_*.whl) ;; *) echo "wheel_check: $(basename "$tagged") has no manylinux tag"; exit 1;; esac
if [ -n "${CUDAG_WHEEL_DIR:-}" ]; then mkdir -p "$CUDAG_WHEEL_DIR" && cp "$work"/dist/*.whl "$CUDAG_WHEEL_DIR"/; fi
"$py" -m venv "$work/venv"
if ! "$work/venv/bin/pip" install -q "$work"/dist/*.whl 2>/dev/null; then
    # Offline: the wheel without its dependency, numpy taken from $py's site-packages.
    "$work/venv/bin/pip" install -q --no-deps "$work"/dist/*.whl
    "$py" -c "import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))" \
        > "$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/numpy-path.pth"
fi
cd "$work"
# The bundled libraries, and where the module and the executable find theirs: every
# library ldd resolves must be one of the manylinux allow-list (glibc's, libstdc++,
# libgcc_s) or a file of cudag_learn.libs/.
platlib=$(venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
libs=$(readlink -f "$platlib/cudag_learn.libs")
module=$(ls "$platlib"/cudag/_cudag*.so)
system='^(linux-vdso\.so|ld-linux|lib(c|m|dl|rt|pthread|util|nsl|resolv|gcc_s|stdc\+\+)\.so)'
if [ -d "$libs" ]; then
    echo "wheel_check: the wheel bundles $(ls "$libs" | wc -l) libraries ($(du -sk "$libs" | cut -f1) KiB):" \
         $(ls "$libs")
    # Built without MPI (pyproject.toml) against serial HDF5 (scripts/setup.sh installs it).
    for lib in "$libs"/lib{mpi,open-rte,open-pal,hdf5_openmpi}*; do
        if [ -e "$lib" ]; then
            echo "wheel_check: the wheel carries Open MPI's $(basename "$lib") (parallel HDF5: is libhdf5-dev installed?)"
            exit 1
        fi
    done
    for f in "$module" venv/bin/cudag; do
        ldd "$f" > ldd.txt
        if grep -q "not found" ldd.txt; then cat ldd.txt; echo "wheel_check: $f misses libraries"; exit 1; fi
        # "name path" per library, the path without ../ (ldd prints $ORIGIN/.. as it is).
        awk '$2 == "=>" {print $1, $3} $2 != "=>" {n = split($1, a, "/"); print a[n], $1}' ldd.txt |
            while read -r name path; do echo "$name $(readlink -f "$path" 2>/dev/null || echo "$path")"; done > resolved.txt
        outside=$(grep -Ev "$system" resolved.txt | grep -v " $libs/" || true)
        if [ -n "$outside" ]; then
            echo "wheel_check: $f takes libraries from outside the wheel:"; echo "$outside"; exit 1
        fi
        hdf5=$(awk '$1 ~ /^libhdf5/ {print $2}' resolved.txt)
        case "$hdf5" in "$libs"/*) ;; *) echo "wheel_check: $f takes libhdf5 from '$hdf5'"; exit 1;; esac
        echo "wheel_check: ldd $(basename "$f"): $(grep -c " $libs/" resolved.txt) libraries from the wheel" \
             "(libhdf5: ${hdf5#"$(dirname "$libs")"/}), the system's: $(grep -E "$system" resolved.txt | cut -d' ' -f1 | tr '\n' ' ')"
    done
else
    echo "wheel_check: the wheel bundles no libraries (CUDAG_WHEEL_BUNDLE=OFF, or not Linux)"
fi
venv/bin/cudag --help > help.txt
grep -q "simulate" help.txt
venv/bin/python -m cudag --version
venv/bin/cudag pc --data "$OLDPWD/data/gaussian_20.csv" --out r.h5 --format edges -q
test -s r.edges.tsv
venv/bin/python - <<'PY'
import numpy as np, cudag
x = np.loadtxt("src/data/gaussian_20.csv", delimiter=",", skiprows=1)
res = cudag.pc(x, alpha=0.01)
back = cudag.load("r.h5")
assert np.array_equal(res.edge_array, back.edge_array), "the wheel's cudag.pc differs from its command line"
print(f"wheel_check: cudag {cudag.__version__} from the wheel: {res}")
PY
# "Elsewhere": the system's copies of the bundled libraries replaced by empty files in a
# private mount namespace (root only; nothing outside this process sees it). Python itself
# may load some of them before cudag (libz, libcrypto, libffi ...): those stay for the
# module's run, all are hidden for the executable's.
if [ -d "$libs" ] && [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
    venv/bin/python -c 'import numpy, ssl, zlib, ctypes, re
print("\n".join(sorted({l.split()[-1] for l in open("/proc/self/maps") if ".so" in l})))' > python_libs.txt
    cat > hide.sh <<'SH'
set -eu
libs=$1; keep=$2; shift 2
n=0
for name in $(ls "$libs"); do
    for p in $(ldconfig -p | awk -v n="$name" '$1 == n {print $NF}' | xargs -r readlink -f | sort -u); do
        if [ -n "$keep" ] && grep -qxF "$p" "$keep"; then continue; fi
        mount --bind /dev/null "$p" && n=$((n + 1))
    done
done
echo "wheel_check: $n system copies of bundled libraries hidden${keep:+ (not those Python loads itself)}"
"$@"
SH
    unshare -m --propagation private bash hide.sh "$libs" "" \
        venv/bin/cudag pc --data "$OLDPWD/data/gaussian_20.csv" --out hidden.h5 --format edges -q
    cmp r.edges.tsv hidden.edges.tsv
    unshare -m --propagation private bash hide.sh "$libs" python_libs.txt \
        venv/bin/python -c 'import cudag; print("wheel_check: with them hidden:", cudag.load("hidden.h5"))'
else
    echo "wheel_check: system copies not hidden (needs root and unshare)"
fi
echo "wheel_check: ok"
