#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference values of pgmpy's conditional-Gaussian score for cudag's `cg-bic` score
(src/bn/cg_bic.hpp, tests/unit/bn/test_bn_cg_bic_pgmpy.cpp).

Writes, under tests/data/cg_bic/ (or the folder given as the first argument):
  data.csv    24 mixed data sets stacked (column `set`): d0 (2-3 levels), d1 (2), c2, c3,
              d4 (2-3), c5; discrete cells are labels L0, L1, ..., continuous ones have 6
              decimals (the values both sides read); 150-380 rows each
  scores.tsv  for 11 families a set (empty parents, continuous child | discrete parents,
              discrete child | continuous parents, both kinds, all discrete): pgmpy's
              LogLikelihoodCondGauss and BICCondGauss local scores, pgmpy's parameter count,
              the count of Andrews et al. (2018), the correction from pgmpy's covariance to
              the maximum-likelihood one (below), and `expected`, cudag's cg-bic
  README      how the files were made

pgmpy 1.1.2's BICCondGauss is the score of Andrews, Ramsey & Cooper (2018) with two
differences, both undone here so that `expected` is the paper's score:
  1. its Gaussian densities use the unbiased covariance S = n/(n-1) Σ_ML of each stratum
     (DataFrame.cov), not the maximum-likelihood Σ_ML. Over a stratum of n rows and p
     continuous variables, Σ_rows log N(x; mean, S) = Σ_rows log N(x; mean, Σ_ML)
     + (p/2)(1 - n log(n/(n-1))) exactly (the quadratic forms sum to (n-1)p instead of np,
     log det S = log det Σ_ML + p log(n/(n-1))). `correction` is Σ over the family's strata
     minus Σ over the parents' strata of that term; expected = ll_pgmpy - correction - ...
  2. its parameter count for a discrete child with p >= 1 continuous parents is
     F (r-1)(p+2), the paper's (the difference of the joint counts k(A) = F_A (p_A +
     p_A(p_A+1)/2) + F_A - 1) is F (r-1)(1 + p(p+3)/2): equal for p = 1, not for p >= 2.
     expected = ll_pgmpy - correction - (log N / 2) k_paper.
Where both agree (every family but a discrete child with >= 2 continuous parents),
expected = bic_pgmpy - correction as well; the test checks that too. pgmpy's other
adjustments (identity covariance for strata of fewer rows than variables, +1e-6 for a
near-singular one, densities floored at 1e-8) must not act: the script asserts every stratum
of every family has more rows than continuous variables plus one (cudag then leaves no row
out) and skips nothing silently.

Usage: /work/main/.peers/py/bin/python scripts/dev/cg_bic_reference.py
  (or python3 -m venv /tmp/venv-ref && /tmp/venv-ref/bin/pip install pgmpy==1.1.2 &&
   /tmp/venv-ref/bin/python scripts/dev/cg_bic_reference.py)

It only calls pgmpy's public LogLikelihoodCondGauss/BICCondGauss.local_score and
_get_num_parameters; nothing of pgmpy is copied.
"""
import io
import math
import os
import sys
import warnings
from importlib.metadata import version

import numpy as np
import pandas as pd
from pgmpy.estimators import BICCondGauss, LogLikelihoodCondGauss

SETS = 24
FAMILIES = [
    ("c2", []), ("d0", []),                                   # empty parents
    ("c2", ["d0"]), ("c3", ["d0", "d1"]),                     # continuous child, discrete parents
    ("d4", ["c3"]), ("d4", ["c2", "c3"]),                     # discrete child, continuous parents
    ("c5", ["c3", "d4"]), ("d4", ["d1", "c3"]),               # both kinds
    ("c5", ["c2", "c3", "d0"]), ("d0", ["d1", "c2", "c5"]),
    ("d1", ["d0"]),                                           # all discrete
]


def make_set(k: int) -> pd.DataFrame:
    rng = np.random.default_rng(1000 + k)
    n = 150 + 10 * k
    r0 = 2 + k % 2
    r4 = 3 - (k // 2) % 2
    d0 = rng.integers(0, r0, n)
    d1 = (rng.random(n) < 0.45).astype(int)
    b = rng.normal(0, 1, 6)
    c2 = 3.0 + b[0] * d0 + rng.normal(0, 1 + 0.1 * k, n)
    c3 = b[1] * c2 - 1.5 * d1 + rng.normal(0, 1, n)
    t = c3 - c3.mean() + 0.8 * rng.normal(0, 1, n)
    cuts = np.quantile(t, np.linspace(0, 1, r4 + 1)[1:-1])
    d4 = np.searchsorted(cuts, t)
    c5 = 50.0 + b[2] * c3 + b[3] * d4 + 0.5 * c2 + rng.normal(0, 2, n)
    lab = lambda codes: np.array([f"L{c}" for c in codes], dtype=object)
    return pd.DataFrame({"d0": lab(d0), "d1": lab(d1), "c2": np.round(c2, 6), "c3": np.round(c3, 6),
                         "d4": lab(d4), "c5": np.round(c5, 6)})


def paper_params(df: pd.DataFrame, child: str, parents: list[str]) -> float:
    def k(vars_):
        f = 1.0
        p = 0
        for v in vars_:
            if v.startswith("d"):
                f *= df[v].nunique()
            else:
                p += 1
        return f * (p + p * (p + 1) / 2) + f - 1
    return k(parents + [child]) - k(parents)


def strata_correction(df: pd.DataFrame, vars_: list[str]) -> float:
    """Σ over the strata of vars_'s discrete variables of (p/2)(1 - n log(n/(n-1)))."""
    disc = [v for v in vars_ if v.startswith("d")]
    p = len(vars_) - len(disc)
    if p == 0:
        return 0.0
    sizes = df.groupby(disc, observed=True).size().to_numpy() if disc else np.array([len(df)])
    assert (sizes > p + 1).all(), f"a stratum of {vars_} has at most {p + 1} rows"
    return float(sum(p / 2 * (1 - s * math.log(s / (s - 1))) for s in sizes))


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../tests/data/cg_bic")
    os.makedirs(out, exist_ok=True)
    frames, rows = [], []
    for k in range(SETS):
        # What both sides read: the values as written and read back (round-trip parsing).
        text = make_set(k).to_csv(index=False, float_format="%.6f")
        with warnings.catch_warnings():  # pandas 3 deprecates the option; round_trip is still exact
            warnings.simplefilter("ignore")
            df = pd.read_csv(io.StringIO(text), float_precision="round_trip")
        ll = LogLikelihoodCondGauss(df)
        bic = BICCondGauss(df)
        n = len(df)
        for child, parents in FAMILIES:
            family = parents + [child]
            # Every stratum larger than its variables + 1 in both sets (no pgmpy adjustment, no
            # row left out by cudag).
            corr = strata_correction(df, family) - strata_correction(df, parents)
            ll_pg = float(ll.local_score(child, parents))
            bic_pg = float(bic.local_score(child, parents))
            k_pg = float(bic._get_num_parameters(child, parents))
            k_paper = paper_params(df, child, parents)
            expected = ll_pg - corr - 0.5 * math.log(n) * k_paper
            if k_pg == k_paper:
                assert abs((bic_pg - corr) - expected) <= 1e-12 * abs(expected)
            rows.append((k, child, ",".join(parents) or "-", n, ll_pg, bic_pg, k_pg, k_paper, corr, expected))
        frames.append(df.assign(set=k))
    data = pd.concat(frames)[["set", "d0", "d1", "c2", "c3", "d4", "c5"]]
    data.to_csv(os.path.join(out, "data.csv"), index=False, float_format="%.6f")
    with open(os.path.join(out, "scores.tsv"), "w") as f:
        f.write("# pgmpy " + version("pgmpy") + " LogLikelihoodCondGauss / BICCondGauss local_score on set `set` of "
                "data.csv; expected = ll_pgmpy - correction - (log rows / 2) k_paper (scripts/dev/cg_bic_reference.py)\n")
        f.write("set\tchild\tparents\trows\tll_pgmpy\tbic_pgmpy\tk_pgmpy\tk_paper\tcorrection\texpected\n")
        for r in rows:
            f.write("\t".join([str(r[0]), r[1], r[2], str(r[3])] + [repr(float(x)) for x in r[4:]]) + "\n")
    with open(os.path.join(out, "README"), "w") as f:
        f.write(f"Made by scripts/dev/cg_bic_reference.py with pgmpy {version('pgmpy')} (numpy {np.__version__}, "
                f"pandas {pd.__version__}): data.csv ({SETS} mixed data sets stacked, column `set`) and pgmpy's "
                "conditional-Gaussian local scores with the corrections to the score of Andrews et al. (2018) "
                "(scores.tsv; the script's docstring says what they are). Regenerate: "
                "/work/main/.peers/py/bin/python scripts/dev/cg_bic_reference.py\n")
    print(f"{len(rows)} families on {SETS} data sets written to {out}")


if __name__ == "__main__":
    main()
