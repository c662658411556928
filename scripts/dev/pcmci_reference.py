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
  mNN.csv / mNN.tsv
             the same with missing values: cells set to 999 at random (and a run of steps in
             one series), DataFrame(data, missing_flag=999.) (remove_missing_upto_maxlag False,
             tigramite's default: each test drops the time steps where one of its lagged
             variables is missing); the settings add missing_flag
  sNN.csv / sNN.tsv
             several independent series (DataFrame(dict of arrays, analysis_mode='multiple')):
             the csv's first column 'series' names each row's series (0, 1, ... in the dict's
             order), its second 't' the row's time step within it; the settings add
             series_column, time_column (and missing_flag where cells are 999)
  README     how the files were made

Usage: /work/main/.peers/py/bin/python scripts/dev/pcmci_reference.py
  (a venv with tigramite==5.2.10.1 and its numpy/scipy). Only tigramite's public PCMCI,
  ParCorr, DataFrame and toymodels are called; nothing of tigramite is copied.
"""
import os
import sys

import numpy as np
from reference_io import fmt, record_scores, require_tigramite, score_lines, toy_series, write_pcmci_case, write_pcmci_result
from tigramite import data_processing as pp
from tigramite.independence_tests.parcorr import ParCorr
from tigramite.pcmci import PCMCI
from tigramite.toymodels import structural_causal_processes as toys

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


# Missing values, tigramite's missing_flag: (seed, N, T, tau_max, density, share of cells
# flagged, run_pcmci keywords beyond tau_max)
MISSING_CASES = [
    (21, 4, 300, 2, 0.15, 0.02, {}),
    (22, 5, 400, 3, 0.10, 0.01, {"pc_alpha": 0.05, "fdr_method": "fdr_bh"}),
    (23, 3, 200, 1, 0.30, 0.05, {"tau_min": 1, "max_combinations": 2}),
    (24, 4, 250, 2, 0.15, 0.03, {"max_conds_px": 1, "max_conds_py": 2, "alpha_level": 0.01}),
]

# Several series (analysis_mode 'multiple'): (seed, N, lengths, tau_max, density, share of
# cells flagged, run_pcmci keywords beyond tau_max). A series of no more than 2 tau_max steps
# gives no sample (tigramite skips it).
MULTIPLE_CASES = [
    (31, 4, [150, 90, 120], 2, 0.15, 0.0, {}),
    (32, 3, [100, 4, 160, 70], 2, 0.25, 0.02, {"pc_alpha": 0.1}),
    (33, 5, [200, 200], 1, 0.10, 0.0, {"tau_min": 1, "fdr_method": "fdr_bh"}),
]

FLAG = 999.0


def stationary(rng, n, t, density, seed, what):
    for attempt in range(100):  # redraw the links until the process is stationary
        links = random_links(rng, n, 3, density)
        with np.errstate(over="ignore", invalid="ignore"):
            data, nonstat = toys.structural_causal_process(links, T=t, seed=seed)
        # tigramite's check looks at the transient; an explosive process can pass it, so the
        # values are bounded too (correlations of an exploding series are ±1 to rounding).
        if not nonstat and np.all(np.isfinite(data)) and np.abs(data).max() < 100:
            return data, attempt
    raise SystemExit(f"{what}: no stationary process in 100 draws")


def flag_cells(rng, data, share):
    """Cells set to FLAG at random, and a run of 5 steps of series 0 (one series' gap)."""
    if share <= 0:
        return data
    data = data.copy()
    data[rng.random(data.shape) < share] = FLAG
    if data.shape[0] > 40:
        start = int(rng.integers(10, data.shape[0] - 20))
        data[start:start + 5, 0] = FLAG
    return data


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

    for c, (seed, n, t, tau_max, density, share, kw) in enumerate(MISSING_CASES):
        rng = np.random.default_rng(seed)
        data, attempt = stationary(rng, n, t, density, seed, f"missing case {c}")
        data = flag_cells(rng, data, share)
        print(f"m{c:02d}: {n} series x {t}, {int((data == FLAG).sum())} cells missing")
        path = os.path.join(OUT, f"m{c:02d}.csv")
        np.savetxt(path, data, delimiter=",", fmt="%.10g",
                   header=",".join(f"v{i}" for i in range(n)), comments="")
        data = np.loadtxt(path, delimiter=",", skiprows=1)
        pcmci = PCMCI(dataframe=pp.DataFrame(data, missing_flag=FLAG),
                      cond_ind_test=ParCorr(significance="analytic"), verbosity=0)
        args = dict(tau_max=tau_max, **kw)
        res = pcmci.run_pcmci(**args)
        write_pcmci_result(os.path.join(OUT, f"m{c:02d}.tsv"), pcmci.all_parents, res,
                           dict(missing_flag=FLAG, **args), n, tau_max)

    for c, (seed, n, lengths, tau_max, density, share, kw) in enumerate(MULTIPLE_CASES):
        rng = np.random.default_rng(seed)
        whole, attempt = stationary(rng, n, sum(lengths) + 100, density, seed, f"multiple case {c}")
        # Independent pieces of one process (each a stretch of its own, 20 steps apart).
        pieces, at = [], 0
        for t in lengths:
            pieces.append(flag_cells(rng, whole[at:at + t], share))
            at += t + 20
        rows = [np.column_stack([np.full(len(p), m), np.arange(len(p)), p]) for m, p in enumerate(pieces)]
        table = np.vstack(rows)
        print(f"g{c:02d}: {n} series, lengths {lengths}, {int((table[:, 2:] == FLAG).sum())} cells missing")
        path = os.path.join(OUT, f"g{c:02d}.csv")
        np.savetxt(path, table, delimiter=",", fmt="%.10g",
                   header=",".join(["series", "t"] + [f"v{i}" for i in range(n)]), comments="")
        table = np.loadtxt(path, delimiter=",", skiprows=1)
        data = {m: table[table[:, 0] == m, 2:] for m in range(len(lengths))}
        frame = pp.DataFrame(data, analysis_mode="multiple", missing_flag=FLAG if share > 0 else None)
        pcmci = PCMCI(dataframe=frame, cond_ind_test=ParCorr(significance="analytic"), verbosity=0)
        args = dict(tau_max=tau_max, **kw)
        res = pcmci.run_pcmci(**args)
        given = dict(series_column="series", time_column="t")
        if share > 0:
            given["missing_flag"] = FLAG
        write_pcmci_result(os.path.join(OUT, f"g{c:02d}.tsv"), pcmci.all_parents, res, dict(**given, **args),
                           n, tau_max)

    with open(os.path.join(OUT, "README"), "w") as f:
        f.write(__doc__)


if __name__ == "__main__":
    main()
