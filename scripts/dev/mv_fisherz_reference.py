#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference p-values of causal-learn's test-wise deletion Fisher-z (mv_fisherz) for
`--missing testwise --test fisher-z --compat causal-learn` (tests/python/test_missing.py).

Writes, under tests/data/mv_fisherz/ (or the folder given as the first argument):
  case<k>.csv   20 continuous data sets (k = 0..19): a linear Gaussian chain-and-fork
                structure over 6 variables, 120-300 rows, 5-30 % of the cells missing
                completely at random (empty cells), columns v0..v5
  mv_fisherz.tsv  case, x, y, given (comma-separated indices, '-' for none), rows used,
                causal-learn's p-value (CIT(data, "mv_fisherz")(x, y, given)), 4 tests a case
  README        how the files were made

Usage: python3 -m venv /tmp/venv-ref && /tmp/venv-ref/bin/pip install causal-learn==0.1.4.8
       /tmp/venv-ref/bin/python scripts/dev/mv_fisherz_reference.py

It only calls causal-learn's public CIT; nothing of causal-learn is copied here.
"""
import os
import sys
from importlib.metadata import version

import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "mv_fisherz")


def make_case(rng, k):
    n = int(rng.integers(120, 301))
    e = rng.normal(size=(n, 6))
    x = np.empty((n, 6))
    x[:, 0] = e[:, 0]
    x[:, 1] = 0.8 * x[:, 0] + e[:, 1]
    x[:, 2] = -0.6 * x[:, 1] + 0.5 * e[:, 2]
    x[:, 3] = 0.7 * x[:, 0] + e[:, 3]
    x[:, 4] = 0.5 * x[:, 2] + 0.5 * x[:, 3] + e[:, 4]
    x[:, 5] = e[:, 5] * 2.0 + 3.0
    x *= rng.uniform(0.5, 4.0, size=6)
    rate = 0.05 + 0.25 * k / 19
    x[rng.random(x.shape) < rate] = np.nan
    return x


def write_csv(path, x):
    with open(path, "w") as f:
        f.write(",".join(f"v{i}" for i in range(x.shape[1])) + "\n")
        for row in x:
            f.write(",".join("" if np.isnan(v) else f"{v:.7g}" for v in row) + "\n")


def read_csv(path):
    rows = []
    with open(path) as f:
        next(f)
        for line in f:
            rows.append([float(c) if c else np.nan for c in line.rstrip("\n").split(",")])
    return np.array(rows)


def main():
    from causallearn.utils.cit import CIT
    if version("causal-learn") != "0.1.4.8":
        raise SystemExit(f"causal-learn {version('causal-learn')} found; the reference is 0.1.4.8")
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(55)
    queries = [(0, 2, (1,)), (0, 4, ()), (1, 4, (2, 3)), (2, 3, (0, 1, 5))]
    with open(os.path.join(OUT, "mv_fisherz.tsv"), "w") as f:
        f.write("case\tx\ty\tgiven\trows\tp_value\n")
        for k in range(20):
            path = os.path.join(OUT, f"case{k}.csv")
            write_csv(path, make_case(rng, k))
            data = read_csv(path)  # exactly the values the test reads
            cit = CIT(data, "mv_fisherz")
            for x, y, s in queries:
                used = int(np.sum(np.all(~np.isnan(data[:, [x, y, *s]]), axis=1)))
                p = cit(x, y, list(s))
                given = ",".join(map(str, s)) if s else "-"
                f.write(f"{k}\t{x}\t{y}\t{given}\t{used}\t{float(p)!r}\n")
    with open(os.path.join(OUT, "README"), "w") as f:
        f.write(f"Made by scripts/dev/mv_fisherz_reference.py with causal-learn 0.1.4.8 (pip, numpy "
                f"{version('numpy')}, scipy {version('scipy')}): 20 data sets with 5-30 % of the cells "
                "missing and causal-learn's CIT(data, 'mv_fisherz') p-values (mv_fisherz.tsv). Regenerate: "
                "python3 -m venv /tmp/venv-ref && /tmp/venv-ref/bin/pip install causal-learn==0.1.4.8 && "
                "/tmp/venv-ref/bin/python scripts/dev/mv_fisherz_reference.py\n")


if __name__ == "__main__":
    main()
