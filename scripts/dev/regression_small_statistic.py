#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The regression test's largest difference from tigramite in docs/performance.md (n = 5,000,
seed 1, 200 queries of scripts/bench/mixed_tests_speed.py): finds the query whose statistic
differs most, then solves its two least-squares problems exactly (normal equations in
rationals, the logarithm in 60-digit decimals) and prints how far cudag, tigramite and
n log(RSS_Z / RSS_ZX) from sklearn's residuals are from the exact statistic
(src/ci/regression_ci.hpp explains the case). Needs tigramite and scikit-learn (the peers'
venv) and a built cudag.

Usage: regression_small_statistic.py [--cudag build-cpu/cudag] [--samples 5000] [--queries 200]
"""
import argparse
import os
import sys
import tempfile
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import mixed_tests_speed as bench  # noqa: E402


def exact_rss(x, dep, cols):
    """Σ (y − Xb)² at the least-squares b, X = [1, x[:, cols]], exactly (rationals)."""
    n = x.shape[0]
    y = [Fraction(float(v)) for v in x[:, dep]]
    X = [[Fraction(1)] * n] + [[Fraction(float(v)) for v in x[:, c]] for c in cols]
    k = len(X)
    m = [[sum(a * b for a, b in zip(X[i], X[j])) for j in range(k)] + [sum(a * b for a, b in zip(X[i], y))]
         for i in range(k)]
    rhs = [row[k] for row in m]
    for i in range(k):
        for j in range(i + 1, k):
            f = m[j][i] / m[i][i]
            m[j] = [a - f * c for a, c in zip(m[j], m[i])]
    w = [Fraction(0)] * k
    for i in reversed(range(k)):
        w[i] = (m[i][k] - sum(m[i][j] * w[j] for j in range(i + 1, k))) / m[i][i]
    return sum(v * v for v in y) - sum(a * b for a, b in zip(w, rhs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cudag", default="build-cpu/cudag")
    ap.add_argument("--samples", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=200)
    a = ap.parse_args()
    a.backend = "cpu"
    getcontext().prec = 60
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "mixed.csv")
        x, discrete, names = bench.make_data(30, a.samples, 0.4, 2.5, 1, data)
        queries = bench.make_queries(30, a.queries, 2, 1)
        qfile = os.path.join(work, "q.tsv")
        bench.write_queries(qfile, names, queries)
        _, ours = bench.citest(a, data, qfile, "regression", 2)
    _, theirs = bench.tigramite(x, discrete, queries)
    k = max(range(len(queries)), key=lambda t: bench.rel(ours[t][0], theirs[t][0]))
    i, j, s = queries[k]
    print(f"query {k}: V{i} _||_ V{j} | {['V%d' % v for v in s]}, discrete {bool(discrete[i])}, "
          f"{bool(discrete[j])}, {[bool(discrete[v]) for v in s]}")
    if discrete[i] and discrete[j]:
        print("a logistic fit: no exact reference here")
        return
    from scipy.stats import normaltest
    from sklearn.linear_model import LinearRegression
    if discrete[i] or discrete[j]:
        dep, other = (j, i) if discrete[i] else (i, j)
    else:  # Y unless X is the more normal (tigramite's rule)
        dep, other = (i, j) if normaltest(x[:, i]).statistic < normaltest(x[:, j]).statistic else (j, i)
    n = x.shape[0]
    if discrete[other] or any(discrete[v] for v in s):
        print("discrete regressors: not handled by this script")
        return
    r1, r2 = exact_rss(x, dep, s), exact_rss(x, dep, s + [other])
    exact = n * ((Decimal(r1.numerator) / Decimal(r1.denominator)) / (Decimal(r2.numerator) / Decimal(r2.denominator))).ln()

    def rss(cols):
        X = x[:, cols] if cols else np.ones((n, 1))
        fit = LinearRegression().fit(X, x[:, dep])
        return np.sum((x[:, dep] - fit.predict(X)) ** 2)

    sk = n * np.log(rss(s) / rss(s + [other]))
    print(f"exact statistic {exact:.15e}")
    for name, v in [("cudag", ours[k][0]), ("tigramite", float(theirs[k][0])), ("sklearn residuals", sk)]:
        print(f"{name:18s} {v:.15e}  relative to exact {float(abs(Decimal(v) - exact) / exact):.2e}")


if __name__ == "__main__":
    main()
