#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference values of tigramite's CMIknn for cudag's unit test (tests/unit/ci/test_cmi_knn.cpp).

Writes, under tests/data/cmiknn/ (or the folder given as the first argument):
  data.csv        a small continuous data set (T = 200 samples, 6 variables, header v0..v5)
  statistic.tsv   CMIknn.get_dependence_measure for 16 cases (x, y, Z, knn, transform)
  pvalue.tsv      CMIknn.get_shuffle_significance p-values with their B (sig_samples)
  ties.csv / ties.tsv
                  a data set with heavy ties and the mean and sd of tigramite's statistic
                  over 40 seeds of its tie-breaking noise (cudag's tie rule is checked
                  against this distribution; see docs/cmiknn.md)
  ties_wide.csv / ties_wide.tsv
                  the same for T = 1,000 integer columns and large k, where many samples
                  sit within 1e-9 of ε after the noise: tigramite's counting rule
                  (d ≤ ε·0.999999999) against strict `d < ε` moves the statistic by many sd

Usage: python3 -m venv /tmp/tgvenv && /tmp/tgvenv/bin/pip install tigramite==5.2.10.1
       /tmp/tgvenv/bin/python scripts/dev/cmiknn_reference.py

It only calls tigramite's public CMIknn methods; nothing of tigramite is copied here.
tigramite adds 1e-6*std*U[0,1) noise to every column before its transform; the statistic
cases are kept only when five different tigramite seeds give the bitwise-same value, i.e.
when that noise cannot move any count, so cudag must reproduce them to rounding.
"""
import os
import sys

import numpy as np
from reference_io import fmt, require_tigramite, write_data
from tigramite.independence_tests.cmiknn import CMIknn

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "cmiknn")
T = 200


def make_data(rng):
    """v0 = f(v2, v3) + noise, v1 = g(v2, v4) + noise: v0 ⟂ v1 | {v2, v3, v4} but
    dependent marginally; v5 depends on v0 directly. Columns get different scales so
    that transform 'none' differs from 'standardize'."""
    z2 = rng.normal(size=T)
    z3 = rng.uniform(-2, 2, size=T)
    z4 = rng.normal(size=T)
    x0 = np.sin(1.5 * z2) + 0.5 * z3 + 0.3 * rng.normal(size=T)
    x1 = z2 ** 2 - 0.5 * z4 + 0.3 * rng.normal(size=T)
    x5 = np.tanh(x0) + 0.4 * rng.normal(size=T)
    return np.column_stack([3.0 * x0, 0.5 * x1, z2, 10.0 * z3, z4, x5 + 4.0])


def array_xyz(data, x, y, z):
    cols = [x, y] + list(z)
    xyz = np.array([0, 1] + [2] * len(z))
    return data[:, cols].T.copy(), xyz


def statistic(data, x, y, z, knn, transform, seed):
    t = CMIknn(knn=knn, transform=transform, seed=seed, workers=1)
    arr, xyz = array_xyz(data, x, y, z)
    return t.get_dependence_measure(arr, xyz)


def pvalue(data, x, y, z, knn, transform, permute, b, seed):
    t = CMIknn(knn=knn, transform=transform, seed=seed, workers=1, sig_samples=b,
               sig_blocklength=1, shuffle_neighbors=5, permute=permute)
    arr, xyz = array_xyz(data, x, y, z)
    val = t.get_dependence_measure(arr, xyz)
    return val, t.get_shuffle_significance(arr, xyz, val)


# (x, y, Z, knn, transform): |Z| = 0..3, knn as a fraction and as an integer, every transform.
CASES = [
    (0, 1, [], 0.2, "ranks"),
    (0, 1, [2], 0.1, "ranks"),
    (0, 1, [2, 3], 10, "ranks"),
    (0, 1, [2, 3, 4], 0.2, "ranks"),
    (0, 5, [], 0.33, "ranks"),
    (0, 1, [], 7, "standardize"),
    (0, 1, [2], 0.2, "standardize"),
    (0, 1, [2, 3], 0.05, "standardize"),
    (1, 0, [2, 3, 4], 15, "standardize"),
    (0, 1, [], 0.1, "uniform"),
    (0, 5, [2], 20, "uniform"),
    (0, 1, [2, 3, 4], 0.2, "uniform"),
    (0, 1, [], 0.2, "none"),
    (0, 1, [2], 5, "none"),
    (5, 0, [1, 4], 0.15, "none"),
    (0, 1, [2, 3, 4], 1, "none"),
]

# (x, y, Z, knn, transform, permute, B): p-value cases for the sampling-error check.
PCASES = [
    (0, 1, [2, 3, 4], 0.2, "ranks", "Y", 1000),   # v0 ⟂ v1 | v2, v3, v4
    (0, 1, [2, 3, 4], 0.2, "ranks", "X", 1000),
    (0, 1, [2], 0.1, "ranks", "Y", 1000),         # v0 ⟂ v1 | v2 too (v3, v4 are own noise)
    (0, 5, [2], 0.2, "ranks", "Y", 1000),         # dependent: v5 = tanh(v0) + noise
    (2, 3, [], 0.2, "ranks", "Y", 1000),          # independent, Z empty (plain permutation)
    (0, 1, [2, 3, 4], 10, "standardize", "Y", 1000),
    (0, 1, [3], 0.2, "ranks", "Y", 1000),         # linked only through v2 (odd vs even: weak)
]


def main():
    require_tigramite()
    data = write_data(OUT, make_data(np.random.default_rng(20250611)))

    with open(os.path.join(OUT, "statistic.tsv"), "w") as f:
        f.write(f"# tigramite 5.2.10.1 CMIknn.get_dependence_measure on data.csv (T = {T}),"
                f" identical for noise seeds 0..4\n")
        f.write("x\ty\tz\tknn\ttransform\tstatistic\n")
        for (x, y, z, knn, tr) in CASES:
            vals = [statistic(data, x, y, z, knn, tr, s) for s in range(5)]
            if len(set(vals)) != 1:
                raise SystemExit(f"case {(x, y, z, knn, tr)}: tigramite's tie noise moves the "
                                 f"statistic ({vals}); pick other data")
            zs = ";".join(str(v) for v in z) if z else "-"
            f.write(f"{x}\t{y}\t{zs}\t{knn}\t{tr}\t{fmt(vals[0])}\n")
            print("statistic", x, y, z, knn, tr, vals[0])

    with open(os.path.join(OUT, "pvalue.tsv"), "w") as f:
        f.write("# tigramite 5.2.10.1 CMIknn.get_shuffle_significance, shuffle_neighbors = 5,"
                " sig_blocklength = 1, seed = 7\n")
        f.write("x\ty\tz\tknn\ttransform\tpermute\tB\tstatistic\tp\n")
        for (x, y, z, knn, tr, perm, b) in PCASES:
            val, p = pvalue(data, x, y, z, knn, tr, perm, b, seed=7)
            zs = ";".join(str(v) for v in z) if z else "-"
            f.write(f"{x}\t{y}\t{zs}\t{knn}\t{tr}\t{perm}\t{b}\t{fmt(val)}\t{fmt(p)}\n")
            print("pvalue", x, y, z, knn, tr, perm, b, val, p)

    # Tied data: three variables with few distinct values (ties everywhere), so the
    # statistic depends on how ties are broken. tigramite breaks them with random noise:
    # record the mean and sd of its statistic over 40 noise seeds.
    trng = np.random.default_rng(99)
    a = trng.integers(0, 4, size=T).astype(float)
    b_ = np.clip(a + trng.integers(-1, 2, size=T), 0, 4).astype(float)
    c = np.round(0.5 * a + trng.normal(size=T)).astype(float)
    tied = np.column_stack([a, b_, c])
    np.savetxt(os.path.join(OUT, "ties.csv"), tied, delimiter=",", fmt="%.17g",
               header="t0,t1,t2", comments="")
    with open(os.path.join(OUT, "ties.tsv"), "w") as f:
        f.write("# tigramite 5.2.10.1 statistic on ties.csv over noise seeds 0..39\n")
        f.write("x\ty\tz\tknn\ttransform\tmean\tsd\tseeds\n")
        for (x, y, z, knn, tr) in [(0, 1, [], 0.1, "ranks"), (0, 2, [1], 0.1, "ranks"),
                                   (0, 1, [2], 10, "standardize"), (1, 2, [], 10, "none")]:
            vals = np.array([statistic(tied, x, y, z, knn, tr, s) for s in range(40)])
            zs = ";".join(str(v) for v in z) if z else "-"
            f.write(f"{x}\t{y}\t{zs}\t{knn}\t{tr}\t{fmt(vals.mean())}\t{fmt(vals.std(ddof=1))}"
                    f"\t{len(vals)}\n")
            print("ties", x, y, z, knn, tr, vals.mean(), vals.std(ddof=1))

    # Wide tied data: x and y depend on z1 (and z2), every column a few integers, T = 1,000.
    wrng = np.random.default_rng(2024)
    tw = 1000
    z1 = wrng.integers(0, 5, size=tw).astype(float)
    z2 = wrng.integers(0, 4, size=tw).astype(float)
    wx = np.clip(np.round(0.6 * z1 + wrng.normal(size=tw)), -2, 6)
    wy = np.clip(np.round(0.5 * z1 - 0.4 * z2 + wrng.normal(size=tw)), -3, 5)
    wide = np.column_stack([wx, wy, z1, z2])
    np.savetxt(os.path.join(OUT, "ties_wide.csv"), wide, delimiter=",", fmt="%.17g",
               header="w0,w1,w2,w3", comments="")
    with open(os.path.join(OUT, "ties_wide.tsv"), "w") as f:
        f.write("# tigramite 5.2.10.1 statistic on ties_wide.csv over noise seeds 0..39\n")
        f.write("x\ty\tz\tknn\ttransform\tmean\tsd\tseeds\n")
        for (x, y, z, knn, tr) in [(0, 1, [2, 3], 0.9, "standardize"), (0, 1, [2], 0.5, "none"),
                                   (0, 1, [2, 3], 20, "standardize"), (0, 1, [], 0.2, "none")]:
            vals = np.array([statistic(wide, x, y, z, knn, tr, s) for s in range(40)])
            zs = ";".join(str(v) for v in z) if z else "-"
            f.write(f"{x}\t{y}\t{zs}\t{knn}\t{tr}\t{fmt(vals.mean())}\t{fmt(vals.std(ddof=1))}"
                    f"\t{len(vals)}\n")
            print("ties_wide", x, y, z, knn, tr, vals.mean(), vals.std(ddof=1))


if __name__ == "__main__":
    main()
