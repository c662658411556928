# SPDX-License-Identifier: Apache-2.0
"""Single CI tests, side by side in one process: causal-learn's CIT(X, "fisherz") against
cudag.compat.causallearn.CIT (a cudag.tester): set-up, the first 3,000 random tests
(|S| = 3; cudag's session moves to the correlation matrix among them), 3,000 more new
ones, then 3,000 repeated; p-values compared. Needs causal-learn and cudag importable:
PYTHONPATH=python:build/python CUDAG_BINARY=build/cudag python scripts/bench/tester_vs_causal_learn.py
"""
import time, numpy as np
from cudag.compat.causallearn import CIT as CudagCIT
from causallearn.utils.cit import CIT as ClCIT
rng = np.random.default_rng(0)
n, m = 500, 5000
x = rng.normal(size=(m, n))
for j in range(1, n): x[:, j] += 0.3 * x[:, j - 1]
calls = [(int(a), int(b), [int(v) for v in s]) for a, b, *s in (rng.choice(n, 5, replace=False) for _ in range(6000))]
res = {}
for name, make in [("causal-learn", lambda: ClCIT(x, "fisherz")), ("cudag", lambda: CudagCIT(x, "fisherz"))]:
    t0 = time.perf_counter(); t = make(); t1 = time.perf_counter()
    ps = [t(a, b, s) for a, b, s in calls[:3000]]; t2 = time.perf_counter()
    ps += [t(a, b, s) for a, b, s in calls[3000:]]; t3 = time.perf_counter()
    [t(a, b, s) for a, b, s in calls[:3000]]; t4 = time.perf_counter()
    res[name] = ps
    print(f"{name}: init {t1-t0:.3f} s; first 3,000 tests {t2-t1:.3f} s; next 3,000 new {1e3*(t3-t2)/3000:.4f} ms a test; "
          f"3,000 repeated {1e3*(t4-t3)/3000:.4f} ms a test")
print("max |p diff|:", max(abs(p - q) for p, q in zip(res["cudag"], res["causal-learn"])))
