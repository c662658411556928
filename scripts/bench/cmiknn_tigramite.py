#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Times tigramite's CMIknn on the tests that tests/bench/cmiknn_bench.cpp times, with the
same JSON output, for scripts/bench/cmiknn_gpu.sh (the CPU baseline of the GPU-CMIknn paper,
shared/seeds/DIGEST.md §2.6: tigramite's kd-tree CMIknn).

tigramite is not part of cudag and is never committed: bring tigramite 5.2.10.1 in through
PYTHONPATH (its unpacked wheel; it needs numpy, scipy, numba and six), e.g.
    pip download tigramite==5.2.10.1 --no-deps -d .peers/wheels
    python3 -m zipfile -e .peers/wheels/tigramite-5.2.10.1-py3-none-any.whl .peers/tigramite-5.2.10.1
    PYTHONPATH=.peers/tigramite-5.2.10.1 scripts/bench/cmiknn_tigramite.py --data d.csv --tests t.tsv

Usage: cmiknn_tigramite.py --data FILE --tests FILE [--knn K] [--shuffle-neighbors S]
                           [--permutations B] [--transform T] [--seed N] [--repeat R]
                           [--tigramite-defaults]
  --data: CSV with a header row (as `cudag simulate` writes it); --tests: as cmiknn_bench's
  (x, y, comma-separated conditioning columns; 0-based). Each test is one
  CMIknn.run_test_raw(x, y, z) (get_dependence_measure plus get_shuffle_significance: the
  local-permutation null with `permutations` surrogates), with
  significance='shuffle_test', workers=-1 (all cores for the kd-tree queries) and
  sig_blocklength=1 (cudag's full permutation for an empty Z; tigramite's default picks a
  block length from the autocorrelation, which has no meaning for i.i.d. samples).
  --tigramite-defaults: knn, shuffle_neighbors and sig_samples left at tigramite's own
  defaults (0.2, 5, 500) whatever the other options say.
Output: {backend: "tigramite", setup_seconds (CMIknn object and numba's first compile: one
untimed test), seconds (median of the R runs over all tests), runs, run_seconds, batch
(false), seconds_per_test (median over tests of each test's median time), test_seconds, k,
samples, variables, permutations, shuffle_neighbors, threads, version, results [{x, y, z,
statistic, p}]} on stdout.
"""
import argparse
import json
import statistics
import sys
import time


def read_tests(path, n_vars):
    tests = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [s.strip() for s in line.rstrip("\n").split("\t")]
            if len(fields) not in (2, 3):
                raise SystemExit(f"{path}:{number}: expected x<TAB>y[<TAB>z1,z2,...]")
            x, y = int(fields[0]), int(fields[1])
            z = sorted(int(s) for s in fields[2].split(",") if s.strip()) if len(fields) == 3 else []
            cols = [x, y] + z
            if len(set(cols)) != len(cols) or min(cols) < 0 or max(cols) >= n_vars:
                raise SystemExit(f"{path}:{number}: columns must be distinct, in 0..{n_vars - 1}")
            tests.append((x, y, z))
    if not tests:
        raise SystemExit(f"{path}: no tests")
    return tests


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--tests", required=True)
    ap.add_argument("--knn", type=float, default=0.2)
    ap.add_argument("--shuffle-neighbors", type=int, default=5)
    ap.add_argument("--permutations", type=int, default=500)
    ap.add_argument("--transform", default="ranks")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--tigramite-defaults", action="store_true")
    a = ap.parse_args()

    import numpy as np
    try:
        from importlib.metadata import version
        from tigramite.independence_tests.cmiknn import CMIknn
    except ImportError as e:
        print(f"cmiknn_tigramite.py: tigramite is not importable ({e}); put tigramite "
              f"5.2.10.1 on PYTHONPATH", file=sys.stderr)
        return 3
    try:
        tg_version = version("tigramite")
    except Exception:  # an unpacked wheel without its dist-info on the path
        import tigramite
        tg_version = getattr(tigramite, "__version__", "unknown")

    data = np.loadtxt(a.data, delimiter=",", skiprows=1, ndmin=2)
    n_samples, n_vars = data.shape
    tests = read_tests(a.tests, n_vars)

    kwargs = dict(significance="shuffle_test", transform=a.transform, workers=-1,
                  sig_blocklength=1, seed=a.seed)
    if not a.tigramite_defaults:
        kwargs.update(knn=a.knn if a.knn < 1 else int(a.knn),
                      shuffle_neighbors=a.shuffle_neighbors, sig_samples=a.permutations)
    t0 = time.perf_counter()
    ci = CMIknn(**kwargs)
    cols = [(data[:, [x]], data[:, [y]], data[:, z] if z else None) for (x, y, z) in tests]
    ci.run_test_raw(*cols[0])  # numba compiles get_restricted_permutation on first use
    setup = time.perf_counter() - t0

    runs, results, per_test = [], [], [[] for _ in cols]
    for _ in range(max(1, a.repeat)):
        out = []
        t0 = time.perf_counter()
        for i, c in enumerate(cols):
            ti = time.perf_counter()
            out.append(ci.run_test_raw(*c))
            per_test[i].append(time.perf_counter() - ti)
        runs.append(time.perf_counter() - t0)
        results = out
    test_seconds = [statistics.median(t) for t in per_test]

    knn = ci.knn
    k = max(1, int(knn * n_samples)) if knn < 1 else max(1, int(knn))
    g = lambda v: float("%.17g" % v)  # noqa: E731
    print(json.dumps({
        "backend": "tigramite", "setup_seconds": setup, "seconds": statistics.median(runs),
        "runs": len(runs), "run_seconds": runs, "batch": False,
        "seconds_per_test": statistics.median(test_seconds), "test_seconds": test_seconds, "k": k, "samples": n_samples,
        "variables": n_vars, "permutations": ci.sig_samples,
        "shuffle_neighbors": ci.shuffle_neighbors, "threads": -1, "version": tg_version,
        "results": [{"x": x, "y": y, "z": z, "statistic": g(val), "p": g(p)}
                    for (x, y, z), (val, p) in zip(tests, results)],
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
