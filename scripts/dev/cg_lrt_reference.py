#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An independent reference for cudag's conditional-Gaussian likelihood-ratio test (cg-lrt,
src/ci/cg_lrt.hpp), written from the formulas of Andrews, Ramsey & Cooper (2018), "Scoring
Bayesian networks of mixed variables", §3, with numpy only (no scipy: CI's .venv has numpy).

For x ⟂ y | S and each set J in {x y S, x S, y S, S}, over the rows used (N of them):
  L(J) = Σ_s n_s log(n_s / N) − Σ_s (n_s / 2) (log det Σ_s + p_J (1 + log 2π)),
s over the configurations of J's discrete variables that occur, Σ_s the maximum-likelihood
covariance (numpy.cov(bias=True)) of J's p_J continuous variables in stratum s, log det by
numpy.linalg.slogdet. Statistic G = 2 (L(xyS) − L(xS) − L(yS) + L(S)) (every term, constants
included, here). dof(J) = F_J (p_J + p_J (p_J + 1) / 2) + F_J − 1, F_J the product over J's
discrete variables of their numbers of levels seen among the rows used; dof = dof(xyS) −
dof(xS) − dof(yS) + dof(S); p = P(χ²_dof > G) from the closed forms of the χ² survival
function for integer dof (erfc and a finite Poisson-type sum), 1 where dof <= 0 or no row is
left. Rows whose configuration of all the test's discrete variables occurs in at most k rows
(k: the test's continuous variables) are left out first. A singular stratum covariance
(slogdet's sign <= 0, a zero variance, or a correlation matrix whose smallest eigenvalue is
at most 1e-10) is reported as the word `singular` in place of the numbers.

Usage:
  cg_lrt_reference.py DATA.csv QUERIES.tsv [--discrete NAME,NAME...]
      DATA.csv: a header row, comma-separated. A column is discrete when it is named in
      --discrete or when any of its cells is not a number (labels such as L0, L1); others
      are continuous. QUERIES.tsv: a header row `x<TAB>y<TAB>given`, a test per row, given's
      names comma-separated (empty: none), as `cudag citest --queries` reads. Prints
      `x y given statistic dof p_value rows` as TSV, numbers with %.17g.
  cg_lrt_reference.py --generate DIR [--seed S] [--rows N]
      Writes DIR/data.csv (a seeded random mixed data set: continuous c0..c4, discrete
      d0..d3 written as labels L<code>, d3 with a rare level so that some strata are left
      out), DIR/queries.tsv (30 queries: every pairing of continuous and discrete x, y with
      S empty, continuous, discrete and mixed) and DIR/reference.tsv (this script's answers).
"""
import argparse
import csv
import math
import os
import sys

import numpy as np

LOG2PI = math.log(2.0 * math.pi)


class Singular(Exception):
    pass


def chi2_sf(x, dof):
    """P(χ²_dof > x) for a positive integer dof: even dof = 2m, e^{-x/2} Σ_{i<m} (x/2)^i / i!;
    odd dof = 2m + 1, erfc(√(x/2)) + e^{-x/2} Σ_{i<m} (x/2)^{i+1/2} / Γ(i + 3/2)."""
    dof = int(round(dof))
    if x <= 0.0:
        return 1.0
    h = 0.5 * x
    lh = math.log(h)
    if dof % 2 == 0:
        return math.fsum(math.exp(-h + i * lh - math.lgamma(i + 1.0)) for i in range(dof // 2))
    terms = [math.erfc(math.sqrt(h))]
    terms += [math.exp(-h + (i + 0.5) * lh - math.lgamma(i + 1.5)) for i in range(dof // 2)]
    return min(1.0, math.fsum(terms))


def read_data(path, discrete_names):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    cols = {}
    discrete = set()
    for j, name in enumerate(header):
        cells = [r[j] for r in body]
        numeric = True
        try:
            values = np.array([float(c) for c in cells])
        except ValueError:
            numeric = False
        if name in discrete_names or not numeric:
            _, codes = np.unique(np.array(cells), return_inverse=True)
            cols[name] = codes.astype(np.int64)
            discrete.add(name)
        else:
            cols[name] = values
    return header, cols, discrete


def config_codes(cols, names, rows):
    """Integer id per row of the configuration of the discrete `names` (0 for none)."""
    if not names:
        return np.zeros(len(rows), dtype=np.int64)
    m = np.column_stack([cols[v][rows] for v in names])
    _, inv = np.unique(m, axis=0, return_inverse=True)
    return inv.reshape(-1)


def loglik(cols, cont, disc, rows):
    n_total = len(rows)
    ids = config_codes(cols, disc, rows)
    p = len(cont)
    lik = 0.0
    for s in np.unique(ids):
        members = rows[ids == s]
        n = len(members)
        lik += n * math.log(n / n_total)
        if p == 0:
            continue
        x = np.column_stack([cols[v][members] for v in cont])
        cov = np.atleast_2d(np.cov(x, rowvar=False, bias=True))
        sd = np.sqrt(np.diag(cov))
        if np.any(sd == 0.0):
            raise Singular()
        corr = cov / np.outer(sd, sd)
        sign, logdet = np.linalg.slogdet(cov)
        if sign <= 0 or np.linalg.eigvalsh(corr).min() <= 1e-10:
            raise Singular()
        lik -= 0.5 * n * (logdet + p * (1.0 + LOG2PI))
    return lik


def cg_lrt(cols, discrete, x, y, given):
    all_vars = list(given) + [x, y]
    disc_all = [v for v in all_vars if v in discrete]
    k_all = sum(1 for v in all_vars if v not in discrete)
    every = np.arange(len(next(iter(cols.values()))))
    ids = config_codes(cols, disc_all, every)
    counts = np.bincount(ids)
    rows = every[counts[ids] > k_all]
    if len(rows) == 0:
        return 0.0, 0.0, 1.0, 0

    def parts(vs):
        return [v for v in vs if v not in discrete], [v for v in vs if v in discrete]

    def dof(vs):
        cont, disc = parts(vs)
        f = 1
        for v in disc:
            f *= len(np.unique(cols[v][rows]))
        q = len(cont)
        return f * (q + q * (q + 1) // 2) + f - 1

    sets = [list(given) + [x, y], list(given) + [x], list(given) + [y], list(given)]
    liks = [loglik(cols, *parts(vs), rows) for vs in sets]
    stat = 2.0 * (liks[0] - liks[1] - liks[2] + liks[3])
    d = dof(sets[0]) - dof(sets[1]) - dof(sets[2]) + dof(sets[3])
    p = chi2_sf(stat, d) if d > 0 else 1.0
    return stat, float(d), p, len(rows)


def read_queries(path):
    with open(path, newline="") as f:
        lines = [ln.rstrip("\n") for ln in f if ln.strip()]
    out = []
    for ln in lines[1:]:
        parts = ln.split("\t")
        given = parts[2].split(",") if len(parts) > 2 and parts[2] else []
        out.append((parts[0], parts[1], given))
    return out


def answer(cols, discrete, queries, stream):
    stream.write("x\ty\tgiven\tstatistic\tdof\tp_value\trows\n")
    for x, y, given in queries:
        try:
            stat, d, p, n = cg_lrt(cols, discrete, x, y, given)
            nums = "%.17g\t%.17g\t%.17g\t%d" % (stat, d, p, n)
        except Singular:
            nums = "singular\tsingular\tsingular\tsingular"
        stream.write("%s\t%s\t%s\t%s\n" % (x, y, ",".join(given), nums))


def generate(out, seed, n):
    rng = np.random.default_rng(seed)
    d0 = rng.integers(0, 3, size=n)
    c0 = np.array([-1.0, 0.5, 2.0])[d0] + rng.normal(size=n)
    c1 = 0.8 * c0 + rng.normal(scale=0.7, size=n) + 10.0
    d1 = (c1 - 10.0 + rng.normal(scale=0.8, size=n) > 0).astype(int) + (c0 > 1.5).astype(int)
    c2 = np.where(d1 == 0, 1.0, 3.0) * rng.normal(size=n) + 0.5 * c1 - 2.0 * d1
    c3 = 1e3 * rng.normal(size=n) + 5e3                     # independent, large scale
    d2 = rng.integers(0, 4, size=n)                           # independent, 4 levels
    c4 = 0.3 * c2 - 0.5 * (d2 == 1) + rng.normal(scale=0.5, size=n)
    d3 = np.where(rng.random(n) < 0.02, 2, rng.integers(0, 2, size=n))  # level 2 is rare
    cont = {"c0": c0, "c1": c1, "c2": c2, "c3": c3, "c4": c4}
    disc = {"d0": d0, "d1": d1, "d2": d2, "d3": d3}
    names = ["c0", "d0", "c1", "d1", "c2", "c3", "d2", "c4", "d3"]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "data.csv"), "w") as f:
        f.write(",".join(names) + "\n")
        for i in range(n):
            f.write(",".join("%.17g" % cont[v][i] if v in cont else "L%d" % disc[v][i] for v in names) + "\n")
    fixed = [
        ("c0", "c1", []), ("c0", "d0", []), ("d0", "d1", []), ("c1", "c2", ["d1"]),
        ("c0", "c2", ["c1"]), ("d0", "c2", ["c1", "d1"]), ("d0", "d1", ["c0"]), ("d0", "d1", ["c0", "c1"]),
        ("c2", "c4", ["d2"]), ("c4", "d2", ["c2"]), ("d2", "d3", []), ("c3", "d3", ["d0", "d1"]),
        ("c0", "c1", ["d0", "d3", "c3"]), ("d1", "d3", ["c0", "c1", "d0"]), ("c2", "d0", ["c0", "c1", "d1", "d3"]),
    ]
    queries = list(fixed)
    while len(queries) < 30:
        k = int(rng.integers(0, 4))
        pick = [names[i] for i in rng.choice(len(names), size=k + 2, replace=False)]
        queries.append((pick[0], pick[1], pick[2:]))
    with open(os.path.join(out, "queries.tsv"), "w") as f:
        f.write("x\ty\tgiven\n")
        for x, y, g in queries:
            f.write("%s\t%s\t%s\n" % (x, y, ",".join(g)))
    _, cols, discrete = read_data(os.path.join(out, "data.csv"), set())
    with open(os.path.join(out, "reference.tsv"), "w") as f:
        answer(cols, discrete, queries, f)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="?")
    ap.add_argument("queries", nargs="?")
    ap.add_argument("--discrete", default="", help="names of discrete columns, comma-separated")
    ap.add_argument("--generate", metavar="DIR")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rows", type=int, default=400)
    a = ap.parse_args(argv)
    if a.generate:
        generate(a.generate, a.seed, a.rows)
        return 0
    if not a.data or not a.queries:
        ap.error("give DATA.csv QUERIES.tsv, or --generate DIR")
    _, cols, discrete = read_data(a.data, set(filter(None, a.discrete.split(","))))
    answer(cols, discrete, read_queries(a.queries), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
