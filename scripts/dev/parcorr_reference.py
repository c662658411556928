#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference values of tigramite's ParCorr for cudag.compat.tigramite.ParCorr
(tests/python/test_compat_tigramite.py).

Writes, under tests/data/parcorr/ (or the folder given as the first argument):
  data.csv      a small continuous data set (T = 250 samples, 8 variables, header v0..v7;
                v6 = v2 - 2 v3 (collinear with them), v7 constant)
  parcorr.tsv   ParCorr(significance='analytic').run_test_raw(x, y, z) on the first `rows`
                rows: value and p-value, for 18 cases (|Z| = 0..5, small and large
                dependence, df from 0 to 248, collinear and constant conditioning columns)
  README        how the files were made

Usage: python3 -m venv /tmp/venv-ref && /tmp/venv-ref/bin/pip install tigramite==5.2.10.1
       /tmp/venv-ref/bin/python scripts/dev/parcorr_reference.py

It only calls tigramite's public ParCorr.run_test_raw; nothing of tigramite is copied here.
"""
import os
import sys
from importlib.metadata import version

import numpy as np
from reference_io import fmt, require_tigramite, write_data
from tigramite.independence_tests.parcorr import ParCorr

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "parcorr")
T = 250


def make_data(rng):
    """v0 = f(v2, v3) + noise and v1 = g(v2, v4) + noise are linear in Z: v0 ⟂ v1 | {v2, v3, v4}
    but dependent marginally; v5 depends strongly on v0. Columns get different scales and
    offsets (the standardisation matters)."""
    z2 = rng.normal(size=T)
    z3 = rng.uniform(-2, 2, size=T)
    z4 = rng.normal(size=T)
    x0 = 0.8 * z2 + 0.5 * z3 + 0.3 * rng.normal(size=T)
    x1 = -0.6 * z2 + 0.7 * z4 + 0.4 * rng.normal(size=T)
    x5 = 0.95 * x0 + 0.05 * rng.normal(size=T)
    v6 = z2 - 2.0 * (10.0 * z3)
    return np.column_stack([3.0 * x0 + 1.0, 0.5 * x1, z2, 10.0 * z3, z4 - 7.0, x5 + 4.0, v6, np.full(T, 2.5)])


# (x, y, Z, rows)
CASES = [
    (0, 1, [], T),
    (0, 1, [2], T),
    (0, 1, [2, 3], T),
    (0, 1, [2, 3, 4], T),          # conditionally independent
    (1, 0, [4, 3, 2], T),          # the same, arguments swapped
    (0, 5, [], T),                 # strong dependence, p ~ 1e-200
    (0, 5, [1, 2], T),
    (2, 4, [], T),                 # independent
    (3, 4, [0, 1, 2], T),
    (0, 1, [2, 3, 4, 5], T),
    (0, 1, [2, 3, 6], T),          # v6 collinear with v2, v3: lstsq's minimum-norm solution
    (0, 1, [2, 7], T),             # constant column in Z
    (0, 1, [2, 3, 4, 5, 6], T),
    (0, 1, [2, 3], 30),
    (0, 1, [2, 3, 4], 10),         # df = 5
    (0, 5, [2, 3, 4], 6),          # df = 1
    (0, 1, [2, 3, 4], 5),          # df = 0: p NaN
    (0, 1, [], 3),                 # df = 1
]


def main():
    require_tigramite()
    data = write_data(OUT, make_data(np.random.default_rng(20250612)))
    test = ParCorr(significance="analytic")
    with open(os.path.join(OUT, "parcorr.tsv"), "w") as f:
        f.write("# tigramite 5.2.10.1 ParCorr(significance='analytic').run_test_raw(x, y, z) on the first"
                " `rows` rows of data.csv\n")
        f.write("x\ty\tz\trows\tvalue\tp_value\n")
        for (x, y, z, rows) in CASES:
            d = data[:rows]
            val, pval = test.run_test_raw(d[:, [x]], d[:, [y]], d[:, z] if z else None)
            zs = ";".join(str(v) for v in z) if z else "-"
            f.write(f"{x}\t{y}\t{zs}\t{rows}\t{fmt(val)}\t{fmt(pval)}\n")
            print(x, y, z, rows, val, pval)
    with open(os.path.join(OUT, "README"), "w") as f:
        f.write("Made by scripts/dev/parcorr_reference.py with tigramite 5.2.10.1 (pip, numpy "
                f"{np.__version__}, scipy {version('scipy')}): data.csv and tigramite's "
                "ParCorr.run_test_raw values (parcorr.tsv). Regenerate: python3 -m venv /tmp/venv-ref && "
                "/tmp/venv-ref/bin/pip install tigramite==5.2.10.1 && /tmp/venv-ref/bin/python "
                "scripts/dev/parcorr_reference.py\n")


if __name__ == "__main__":
    main()
