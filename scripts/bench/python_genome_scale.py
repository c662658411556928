#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cudag.pc from Python above the matrix limit: a result of n variables costs its edges,
not n x n (issue 35). Simulates n variables (`cudag simulate gaussian --graph er`, about
`--degree` neighbours each), runs cudag.pc on the array, writes and loads the result
file, and prints per step the wall time and the process's peak resident memory, the
result's edge count, and that the n x n accessors are refused in one line.

    python3 scripts/bench/python_genome_scale.py [--build build] [--vars 100000]
        [--samples 200] [--degree 2] [--alpha 1e-4] [--max-level 2] [--backend auto]

Needs numpy and the module in <build>/python (cmake -DCUDAG_BUILD_PYTHON=ON; see
scripts/bench/python_repeat.py for building it on the GPU machine). Peak memory is
ru_maxrss (the whole process: data, engine, result); a dense n x n int8 matrix alone
would be n^2 bytes (10 GB at n = 100,000).
"""

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("CUDAG_BUILD", "build"))
    ap.add_argument("--vars", type=int, default=100_000)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--degree", type=float, default=2.0)
    ap.add_argument("--alpha", type=float, default=1e-4)
    ap.add_argument("--max-level", type=int, default=2)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sys.path[:0] = [str(ROOT / "python"), str((ROOT / args.build / "python").resolve())]
    import cudag

    t = time.perf_counter()
    sim = cudag.simulate("gaussian", vars=args.vars, samples=args.samples, graph="er", degree=args.degree,
                         seed=args.seed)
    print(f"simulate: {args.vars} x {args.samples}, {len(sim.truth)} true edges, "
          f"{time.perf_counter() - t:.2f} s, peak {peak_mib():.0f} MiB")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.h5")
        t = time.perf_counter()
        res = cudag.pc(sim.data, names=sim.names, alpha=args.alpha, max_level=args.max_level,
                       backend=args.backend, out=out)
        print(f"pc: {res}, {time.perf_counter() - t:.2f} s end to end, peak {peak_mib():.0f} MiB")
        t = time.perf_counter()
        back = cudag.load(out)
        same = (back.edge_array == res.edge_array).all() and back.sepsets == res.sepsets
        print(f"load: {time.perf_counter() - t:.2f} s, same edges and separating sets: {same}, "
              f"peak {peak_mib():.0f} MiB")
        print(f"compare with the truth: {cudag.compare(sim, res)}")
    try:
        res.cpdag
        print(f"cpdag: built (n = {args.vars} is within cudag.MATRIX_LIMIT = {cudag.MATRIX_LIMIT})")
    except cudag.Error as e:
        print(f"cpdag refused: {e}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
