#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Repeated cudag.pc calls in one process against the file-to-file command line, on a
DREAM5-sized problem (n = 1,643 variables, m = 850 samples, about 10 neighbours per
variable; simulated with `cudag simulate gaussian` unless --data is given).

    python3 scripts/bench/python_repeat.py [--build build] [--backend auto] [--repeats 5]

Needs numpy and a built module: either installed (pip install .) or in the build folder
(cmake -DCUDAG_BUILD_PYTHON=ON ...; the script puts python/ and <build>/python on sys.path).
On a machine without a package index (the GPU machine), carry nanobind's wheel (pip
download nanobind --no-deps -d .whl here) and build there:
    python3 -m zipfile -e .whl/nanobind-*.whl /tmp/nb && export PYTHONPATH=/tmp/nb
    cmake -S . -B build-device -DCUDAG_ENABLE_CUDA=ON -DCUDAG_BUILD_PYTHON=ON -DCUDAG_BUILD_TESTS=OFF
    cmake --build build-device -j --target cudag _cudag
    python3 scripts/bench/python_repeat.py --build build-device
(Python's headers, python3-dev, are needed for the module.)
Prints, per call, the end-to-end wall time (numpy array in, result object out) and the
search's own time, then the command line's wall time (`cudag pc --data F --out r.h5`,
process start to exit, CUDA start-up included), and checks that all give the same graph.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("CUDAG_BUILD", "build"),
                    help="build folder holding cudag and python/_cudag*.so (default: build)")
    ap.add_argument("--data", help="a CSV (header row) to use instead of the simulated problem")
    ap.add_argument("--backend", default="auto", help="auto, cpu or cuda (default auto)")
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--repeats", type=int, default=5, help="cudag.pc calls in this process (default 5)")
    ap.add_argument("--cli-repeats", type=int, default=3, help="command-line runs (default 3)")
    ap.add_argument("--vars", type=int, default=1643)
    ap.add_argument("--samples", type=int, default=850)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    build = Path(a.build) if Path(a.build).is_absolute() else ROOT / a.build
    sys.path[:0] = [str(ROOT / "python"), str(build / "python")]
    import numpy as np

    t0 = time.perf_counter()
    import cudag
    t_import = time.perf_counter() - t0
    binary = os.environ.get("CUDAG_BINARY", str(build / "cudag"))
    print(f"cudag {cudag.__version__} from {Path(cudag.__file__).parent}; CUDA compiled: {cudag.cuda_compiled()}, "
          f"visible GPUs: {cudag.visible_gpus()}; import {t_import:.3f} s")

    with tempfile.TemporaryDirectory(prefix="cudag-bench-") as tmp:
        csv = Path(a.data) if a.data else Path(tmp) / "dream.csv"
        if not a.data:
            density = 10.0 / (a.vars - 1)
            subprocess.run([binary, "simulate", "gaussian", "--overwrite", "--vars", str(a.vars), "--samples", str(a.samples),
                            "--density", f"{density:.6g}", "--seed", str(a.seed), "--out", str(csv)], check=True)
        with open(csv) as f:
            names = f.readline().rstrip("\n").split(",")
        x = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
        print(f"data: {x.shape[0]} samples x {x.shape[1]} variables ({csv})")

        print(f"\n{'call':>6} {'end-to-end s':>13} {'search s':>9} {'edges':>6}")
        results = []
        walls = []
        for k in range(a.repeats):
            t0 = time.perf_counter()
            r = cudag.pc(x, names=names, alpha=a.alpha, backend=a.backend)
            wall = time.perf_counter() - t0
            walls.append(wall)
            results.append(r)
            print(f"{k + 1:>6} {wall:>13.4f} {r.seconds:>9.4f} {int(r.skeleton.sum()) // 2:>6}")

        print(f"\n{'cli run':>7} {'wall s':>9}   ({binary} pc --data {csv.name} --out r.h5 --format cl -q)")
        out = Path(tmp) / "r.h5"
        cli_walls = []
        for k in range(a.cli_repeats):
            t0 = time.perf_counter()
            subprocess.run([binary, "pc", "--data", str(csv), "--out", str(out), "--format", "cl", "-q",
                            "--alpha", repr(a.alpha), "--backend", a.backend], check=True)
            cli_walls.append(time.perf_counter() - t0)
            print(f"{k + 1:>7} {cli_walls[-1]:>9.4f}")
        cli = np.loadtxt(Path(tmp) / "r.cl.txt", dtype=int)
        same = all(np.array_equal(r.cl_matrix, cli) for r in results)
        print(f"\nsame CPDAG in every call and the command line: {'yes' if same else 'NO'}")
        if len(walls) > 1 and cli_walls:
            later = float(np.median(walls[1:]))
            print(f"calls 2..{len(walls)}: median {later:.4f} s end to end (best {min(walls[1:]):.4f} s); "
                  f"command line median {float(np.median(cli_walls)):.4f} s: "
                  f"{float(np.median(cli_walls)) / later:.1f}x")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
