#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference results of tigramite's PCMCI (run_pcmci with ParCorr) for `cudag pcmci`
(src/pcmci/pcmci.hpp, tests/unit/pcmci/test_pcmci.cpp).

Writes, under tests/data/pcmci/ (or the folder given as the first argument), for each case
c00, c01, ...:
  cNN.csv    the time series, rows in time order (header v0..v{N-1}, 10 significant digits),
             made by tigramite's own toy generator (tigramite.toymodels.structural_causal_processes.structural_causal_process,
             linear links with lags 0..3, some contemporaneous)
  cNN.tsv    PCMCI(dataframe, ParCorr(significance='analytic')).run_pcmci(...) on it: a line
             "# settings" then key<TAB>value lines for every argument given, then
             "parents<TAB>j<TAB>i,lag;i,lag;..." lines (all_parents of run_pc_stable, in
             tigramite's order) and one line per (i, j, lag) for lag 0..tau_max:
             i<TAB>j<TAB>lag<TAB>val_matrix<TAB>p_matrix<TAB>graph (empty graph as '.')
  sNN.csv, sNN.tsv  the same for tigramite's pc_alpha selection (SELECTION: pc_alpha a list
             or None; the settings line "pc_alpha<TAB>0.05,0.1,0.2" or "pc_alpha<TAB>None"),
             with "optimal_pc_alpha<TAB>j<TAB>alpha" lines (iterations[j]['optimal_pc_alpha'])
             and "score<TAB>j<TAB>k<TAB>score<TAB>i,lag;..." lines: every call run_pc_stable
             made to ParCorr.get_model_selection_criterion (variable j, the k-th pc_alpha, the
             parents it scored, in tigramite's order), recorded by wrapping the method
  README     how the files were made

Usage: /work/main/.peers/py/bin/python scripts/dev/pcmci_reference.py
  (a venv with tigramite==5.2.10.1 and its numpy/scipy). Only tigramite's public PCMCI,
  ParCorr, DataFrame and toymodels are called; nothing of tigramite is copied.
"""
import os
import sys

import numpy as np
from reference_io import fmt, record_scores, require_tigramite, score_lines, toy_series, write_pcmci_case
from tigramite import data_processing as pp
from tigramite.independence_tests.parcorr import ParCorr
from tigramite.pcmci import PCMCI

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "pcmci")


def lin(x):
    return x


def random_links(rng, n, max_lag, density):
    """Each variable: an autodependency at lag 1, and cross links (lag 0..max_lag) from
    lower-numbered variables at lag 0 (acyclic) or from any variable at lags >= 1."""
    links = {}
    for j in range(n):
        links[j] = [((j, -1), float(rng.uniform(0.3, 0.7)), lin)]
        for i in range(n):
            for lag in range(0, max_lag + 1):
                if i == j and lag <= 1:
                    continue
                if lag == 0 and i >= j:
                    continue
                if rng.random() < density:
                    c = float(rng.choice([-1, 1]) * rng.uniform(0.2, 0.6))
                    links[j].append(((i, -lag), c, lin))
    return links


# (seed, N, T, tau_max, density, run_pcmci keywords beyond tau_max)
CASES = [
    (1, 4, 300, 2, 0.15, {}),
    (2, 5, 400, 3, 0.10, {"pc_alpha": 0.05}),
    (3, 6, 250, 2, 0.12, {"pc_alpha": 0.1, "alpha_level": 0.01}),
    (4, 3, 200, 1, 0.30, {"tau_min": 1}),
    (5, 5, 500, 2, 0.10, {"fdr_method": "fdr_bh"}),
    (6, 4, 300, 3, 0.15, {"max_conds_dim": 2, "max_combinations": 3}),
    (7, 5, 300, 2, 0.12, {"max_conds_px": 1, "max_conds_py": 2}),
    (8, 6, 350, 2, 0.10, {"pc_alpha": 0.3, "max_combinations": 2, "fdr_method": "fdr_bh"}),
    (9, 3, 120, 3, 0.25, {"pc_alpha": 0.2, "tau_min": 2}),
    (10, 8, 400, 1, 0.08, {}),
    (11, 4, 600, 4, 0.10, {"pc_alpha": 0.01}),
    (12, 5, 150, 2, 0.20, {"max_conds_dim": 0}),
]

# The pc_alpha selection (run_pc_stable's pc_alpha list or None), same fields as CASES.
SELECTION = [
    (21, 4, 300, 2, 0.15, {"pc_alpha": [0.05, 0.1, 0.2]}),
    (22, 5, 400, 3, 0.12, {"pc_alpha": None}),
    (23, 6, 250, 2, 0.12, {"pc_alpha": None, "max_combinations": 2, "fdr_method": "fdr_bh", "tau_min": 1}),
    (24, 5, 300, 2, 0.15, {"pc_alpha": [0.5, 0.01, 0.3], "max_conds_dim": 1, "alpha_level": 0.01}),
    (25, 7, 200, 1, 0.12, {"pc_alpha": [0.001, 0.4]}),
]


def series(label, seed, n, t, density):
    """A case's series (reference_io.toy_series) in OUT/label.csv."""
    data, draws = toy_series(os.path.join(OUT, f"{label}.csv"), seed, t,
                             lambda rng: random_links(rng, n, 3, density))
    print(f"{label}: {n} series x {t}, |x| <= {np.abs(data).max():.3g}, {draws} draw(s)")
    return data


def selection_cases():
    for c, (seed, n, t, tau_max, density, kw) in enumerate(SELECTION):
        label = f"s{c:02d}"
        data = series(label, seed, n, t, density)
        pcmci = PCMCI(dataframe=pp.DataFrame(data), cond_ind_test=ParCorr(significance="analytic"),
                      verbosity=0)
        calls = record_scores(pcmci)
        args = dict(tau_max=tau_max, **kw)
        res = pcmci.run_pcmci(**args)
        alphas = len(calls) // n
        optimal = [pcmci.iterations[j]["optimal_pc_alpha"] for j in range(n)]
        # The gap between each variable's best score and the next different one.
        gaps = []
        for j in range(n):
            sc = sorted(set(s for jj, _, s in calls if jj == j))
            if len(sc) > 1:
                gaps.append(sc[1] - sc[0])
        print(f"  optimal pc_alpha {optimal}, smallest score gap {min(gaps) if gaps else None}")
        extra = [f"optimal_pc_alpha\t{j}\t{fmt(optimal[j])}" for j in range(n)]
        extra += score_lines(calls, lambda q, j: (j, q % alphas))
        write_pcmci_case(os.path.join(OUT, f"{label}.tsv"), args, pcmci.all_parents, res, extra)


def main():
    require_tigramite()
    os.makedirs(OUT, exist_ok=True)
    selection_cases()
    for c, (seed, n, t, tau_max, density, kw) in enumerate(CASES):
        label = f"c{c:02d}"
        data = series(label, seed, n, t, density)
        pcmci = PCMCI(dataframe=pp.DataFrame(data), cond_ind_test=ParCorr(significance="analytic"),
                      verbosity=0)
        args = dict(tau_max=tau_max, **kw)
        res = pcmci.run_pcmci(**args)
        write_pcmci_case(os.path.join(OUT, f"{label}.tsv"), args, pcmci.all_parents, res)
    with open(os.path.join(OUT, "README"), "w") as f:
        f.write(__doc__)


if __name__ == "__main__":
    main()
