#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference values of tigramite's RegressionCI for cudag's `regression` test
(src/ci/regression_ci.hpp, tests/unit/ci/test_regression_ci.cpp).

Writes, under tests/data/regression_ci/ (or the folder given as the first argument):
  data.csv        a small mixed data set (1000 samples, 14 variables, header v0..v13):
                  v0..v6 continuous (8 significant digits), v7..v13 discrete codes
                  (v12: level 3 first at row 150, so the first 100 rows miss it; v13: codes
                  0, 2 and 3 only, level 1 never occurs)
  regression.tsv  RegressionCI().run_test_raw(x, y, z, x_type, y_type, z_type) on the first
                  `rows` rows for 40 cases (continuous–continuous, continuous–discrete both
                  ways, discrete–discrete binary and with 3–4 levels, |Z| = 0..3 mixed):
                  the data types it was called with, the statistic, the p-value, the degrees
                  of freedom (get_dependence_measure_raw's), which of X/Y was the dependent
                  variable by tigramite's rule, the fit that decides (linear/logistic), and
                  the statistic and p-value again with the logistic fits run to tol 1e-12
                  (*_optimum; sklearn's default tol 1e-4 stops short of the optimum; 22 of
                  the 40 cases are logistic)
  README          how the files were made

Usage: /work/main/.peers/py/bin/python scripts/dev/regression_reference.py
  (or python3 -m venv /tmp/venv-ref && /tmp/venv-ref/bin/pip install tigramite==5.2.10.1
   scikit-learn==1.9.1 && /tmp/venv-ref/bin/python scripts/dev/regression_reference.py)

It only calls tigramite's public RegressionCI.run_test_raw and get_dependence_measure_raw
(and reads the degrees of freedom the latter leaves behind; for the *_optimum columns it runs
them with the LogisticRegression name in tigramite's module bound to one with tol=1e-12);
nothing of tigramite is copied.
"""
import contextlib
import os
import sys
import warnings
from importlib.metadata import version

import numpy as np
from reference_io import fmt, require_tigramite, write_data
from scipy.stats import normaltest
import tigramite.independence_tests.regressionCI as regression_ci
from sklearn.linear_model import LogisticRegression
from tigramite.independence_tests.regressionCI import RegressionCI

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "regression_ci")
T = 1000
N_CONTINUOUS = 7
N_VARS = 14
DISCRETE = [0] * N_CONTINUOUS + [1] * (N_VARS - N_CONTINUOUS)


def categorical(rng, logits):
    """One draw per row of softmax(logits) (rows × levels)."""
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    u = rng.uniform(size=(logits.shape[0], 1))
    return (u > np.cumsum(p, axis=1)).sum(axis=1).clip(0, logits.shape[1] - 1)


def make_data(rng):
    """Continuous v0..v6 and discrete v7..v13 with a known dependence structure:
    v0 ~ N(0,1), v1 ~ U(-2,2) (far from normal), v7 = binary(v0), v8 = 3 levels(v1),
    v2 = f(v0, v7) + noise, v3 = g(v1, v8) + skewed noise, v4 independent heavy-tailed noise,
    v5 = v2 + v3 + noise, v9 = 4 levels(v7, v0), v10 binary independent, v11 = 3 levels(v8, v9),
    v12 = 4 levels(v10) with level 3 absent from the first 150 rows, v13 in {0, 2, 3}(v1)."""
    c0 = rng.normal(size=T)
    c1 = rng.uniform(-2, 2, size=T)
    d0 = (rng.uniform(size=T) < 1 / (1 + np.exp(-1.5 * c0))).astype(float)
    d1 = categorical(rng, np.column_stack([np.zeros(T), 1.2 * c1, -1.2 * c1])).astype(float)
    c2 = 0.8 * c0 + 1.0 * d0 + 0.5 * rng.normal(size=T)
    c3 = 0.6 * c1 - 0.9 * (d1 == 2) + rng.exponential(size=T)
    c4 = rng.standard_t(5, size=T)
    c5 = 0.5 * c2 + 0.7 * c3 + 0.6 * rng.normal(size=T)
    d2 = categorical(rng, np.column_stack([np.zeros(T), d0, 0.8 * c0, 0.5 - d0])).astype(float)
    d3 = (rng.uniform(size=T) < 0.35).astype(float)
    d4 = categorical(rng, np.column_stack([np.zeros(T), 1.5 * (d1 == 1) + 0.3 * d2,
                                           1.5 * (d1 == 2) - 0.4 * d2])).astype(float)
    d5 = categorical(rng, np.column_stack([np.zeros(T), 0.5 * d3, -0.3 + 0 * d3, -1.0 + d3])).astype(float)
    d5[:150][d5[:150] == 3] = 2
    d6 = categorical(rng, np.column_stack([np.zeros(T), 0.9 * c1, -0.7 * c1])).astype(float)
    d6[d6 >= 1] += 1  # codes 0, 2, 3
    cont = np.column_stack([c0, 2.0 * c1 + 1.0, c2, c3, c4, c5 - 3.0, 10.0 * c0 - 4.0 * c1])
    return np.column_stack([cont, d0, d1, d2, d3, d4, d5, d6])


# (x, y, Z, rows); v0..v6 continuous, v7..v13 discrete
CASES = [
    # continuous–continuous: linear, the more normal of X, Y is the dependent variable
    (0, 2, [], 1000),
    (0, 4, [], 500),
    (1, 3, [8], 800),
    (2, 3, [0, 7], 600),
    (2, 5, [3, 8, 0], 1000),
    (3, 2, [7, 8, 9], 300),
    (4, 6, [0], 100),
    # continuous X, discrete Y: linear, X on Y's one-hot columns
    (0, 7, [], 1000),
    (4, 8, [], 400),
    (1, 8, [0], 700),
    (2, 9, [7, 0], 900),
    (5, 11, [2, 3, 8], 1000),
    (4, 12, [10], 100),          # v12's level 3 absent in these rows
    # discrete X, continuous Y: linear, Y on X's one-hot columns
    (7, 2, [], 250),
    (8, 3, [1], 1000),
    (9, 0, [7], 500),
    (10, 4, [0, 8], 300),
    (13, 1, [0, 7, 9], 800),     # v13: codes 0, 2, 3
    # discrete–discrete: multinomial/binary logistic, the lower-entropy variable is dependent
    (7, 10, [], 1000),           # binary–binary, independent
    (7, 9, [], 500),
    (8, 11, [], 1000),
    (9, 12, [7, 3], 600),        # v12 (4 levels) the dependent variable
    (9, 7, [0], 800),
    (11, 9, [1, 8], 1000),
    (10, 12, [0, 8, 4], 400),
    (9, 11, [8, 7, 2], 1000),
    (12, 7, [0], 100),           # v12's level 3 absent in these rows
    (13, 8, [1, 10], 700),
    (7, 10, [8, 9, 0], 200),
    (8, 9, [3], 1000),
    (10, 7, [], 300),
    (8, 10, [1], 500),
    (11, 12, [2, 9], 900),
    (13, 9, [], 150),            # v13: codes 0, 2, 3
    (7, 11, [0, 1, 10], 1000),
    (12, 8, [4, 13], 250),
    (9, 10, [8, 11, 5], 700),
    (10, 13, [3], 120),
    (11, 7, [12], 450),
    (8, 12, [0, 7, 3], 1000),
]


def entropy(v):
    _, counts = np.unique(v, return_counts=True)
    p = counts / counts.sum()
    return -(p * np.log(p)).sum()


def dependent(x, y, tx, ty):
    """Which of X, Y tigramite regresses on the rest (its rule, written from its description:
    both continuous: Y unless X is the more normal by normaltest; both discrete: Y unless X
    has the smaller entropy; mixed: the continuous one)."""
    if tx == 0 and ty == 0:
        return "y" if normaltest(x)[0] >= normaltest(y)[0] else "x"
    if tx == 1 and ty == 1:
        return "y" if entropy(x) >= entropy(y) else "x"
    return "y" if ty == 0 else "x"


@contextlib.contextmanager
def tight_logistic_fits():
    """RegressionCI with its LogisticRegression(solver='newton-cholesky') run to tol 1e-12
    (sklearn's default stops at 1e-4): the statistic at the optimum of the same penalised fits,
    what cudag computes with LogisticStop::Optimum (its default stops where sklearn's does, as
    the plain columns). Only the name tigramite's module looks up is replaced, for the call."""
    saved = regression_ci.LogisticRegression
    regression_ci.LogisticRegression = lambda **kw: LogisticRegression(tol=1e-12, max_iter=1000, **kw)
    try:
        yield
    finally:
        regression_ci.LogisticRegression = saved


def main():
    require_tigramite()
    data = write_data(OUT, make_data(np.random.default_rng(20250613)), fmt="%.8g")
    types = np.array(DISCRETE)
    test = RegressionCI()
    with open(os.path.join(OUT, "regression.tsv"), "w") as f:
        f.write("# tigramite 5.2.10.1 RegressionCI().run_test_raw(x, y, z, x_type, y_type, z_type) on the first"
                " `rows` rows of data.csv; the types are 0 continuous, 1 discrete (every row of a column alike)\n")
        f.write("x\ty\tz\trows\tx_type\ty_type\tz_type\tdependent\tfit\tdof\tstatistic\tp_value\t"
                "statistic_optimum\tp_value_optimum\n")
        for (x, y, z, rows) in CASES:
            d = data[:rows]
            xa, ya = d[:, [x]], d[:, [y]]
            za = d[:, z] if z else None
            xt = np.full((rows, 1), types[x])
            yt = np.full((rows, 1), types[y])
            zt = np.tile(types[z], (rows, 1)) if z else None
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # a convergence or constant-array warning stops the script
                val, pval = test.run_test_raw(xa, ya, za, x_type=xt, y_type=yt, z_type=zt)
                test.get_dependence_measure_raw(xa, ya, za, x_type=xt, y_type=yt, z_type=zt)
            dof = test._temp_dof
            with warnings.catch_warnings(), tight_logistic_fits():
                warnings.simplefilter("error")
                val_opt, pval_opt = test.run_test_raw(xa, ya, za, x_type=xt, y_type=yt, z_type=zt)
            dep = dependent(xa, ya, types[x], types[y])
            fit = "logistic" if types[x] == 1 and types[y] == 1 else "linear"
            zs = ";".join(str(v) for v in z) if z else "-"
            zts = ";".join(str(types[v]) for v in z) if z else "-"
            f.write(f"{x}\t{y}\t{zs}\t{rows}\t{types[x]}\t{types[y]}\t{zts}\t{dep}\t{fit}\t{dof}\t"
                    f"{fmt(val)}\t{fmt(pval)}\t{fmt(val_opt)}\t{fmt(pval_opt)}\n")
            print(x, y, z, rows, dep, fit, dof, val, pval, val_opt, pval_opt)
    with open(os.path.join(OUT, "README"), "w") as f:
        f.write("Made by scripts/dev/regression_reference.py with tigramite 5.2.10.1 (pip, scikit-learn "
                f"{version('scikit-learn')}, numpy {np.__version__}, scipy {version('scipy')}): data.csv "
                "(v0..v6 continuous, v7..v13 discrete codes) and tigramite's RegressionCI.run_test_raw "
                "values (regression.tsv; RegressionCI fits its logistic regressions with scikit-learn's "
                "LogisticRegression(solver='newton-cholesky'), C = 1, tol 1e-4; the *_optimum columns "
                "are the same calls with tol 1e-12, at the penalised fits' optimum). Regenerate: "
                "/work/main/.peers/py/bin/python scripts/dev/regression_reference.py, or python3 -m venv "
                "/tmp/venv-ref && /tmp/venv-ref/bin/pip install tigramite==5.2.10.1 scikit-learn==1.9.1 && "
                "/tmp/venv-ref/bin/python scripts/dev/regression_reference.py\n")


if __name__ == "__main__":
    main()
