# SPDX-License-Identifier: Apache-2.0
"""Single CI tests, side by side in one process: causal-learn's CIT(X, "fisherz") against
cudag.compat.causallearn.CIT (cudag's tester by column index behind a native table keyed as
causal-learn's result cache), on three shapes (samples x variables): set-up, the first 3,000
random tests (|S| = 3; cudag's session moves to the correlation matrix among them, which
causal-learn computes in its set-up), 3,000 more new ones, then the 6,000 repeated, and
set-up plus the 6,000 new ones per test; p-values compared. Times are CPU times of this process (time.process_time: the
machine may be shared), single-threaded but the set-up. Needs causal-learn and cudag importable:
PYTHONPATH=python:build/python CUDAG_BINARY=build/cudag python scripts/bench/tester_vs_causal_learn.py
"""
import time

import numpy as np
from causallearn.utils.cit import CIT as ClCIT

from cudag.compat.causallearn import CIT as CudagCIT

print("| shape (m x n) | library | set-up s | first 3,000 ms/test | next 3,000 new ms/test | repeated ms/test | "
      "set-up + 6,000 new ms/test |")
print("|---|---|---|---|---|---|---|")
for m, n in [(1000, 50), (5000, 500), (20000, 200)]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(m, n))
    for j in range(1, n):
        x[:, j] += 0.3 * x[:, j - 1]
    calls = [(int(a), int(b), [int(v) for v in s]) for a, b, *s in (rng.choice(n, 5, replace=False)
                                                                     for _ in range(6000))]
    res, rows = {}, {}
    for name, make in [("causal-learn", lambda: ClCIT(x, "fisherz")), ("cudag", lambda: CudagCIT(x, "fisherz"))]:
        t0 = time.process_time()
        t = make()
        t1 = time.process_time()
        ps = [t(a, b, s) for a, b, s in calls[:3000]]
        t2 = time.process_time()
        ps += [t(a, b, s) for a, b, s in calls[3000:]]
        t3 = time.process_time()
        for a, b, s in calls:
            t(a, b, s)
        t4 = time.process_time()
        res[name] = ps
        rows[name] = (t1 - t0, 1e3 * (t2 - t1) / 3000, 1e3 * (t3 - t2) / 3000, 1e3 * (t4 - t3) / 6000,
                      1e3 * (t3 - t0) / 6000)
        print(f"| {m} x {n} | {name} | {rows[name][0]:.3f} | {rows[name][1]:.4f} | {rows[name][2]:.4f} | "
              f"{rows[name][3]:.5f} | {rows[name][4]:.4f} |")
    c, d = rows["causal-learn"], rows["cudag"]
    print(f"| {m} x {n} | causal-learn / cudag | | {c[1] / d[1]:.1f}x | {c[2] / d[2]:.1f}x | {c[3] / d[3]:.1f}x | "
          f"{c[4] / d[4]:.1f}x |")
    print(f"|   max abs p difference {max(abs(p - q) for p, q in zip(res['cudag'], res['causal-learn'])):.2e} |")
