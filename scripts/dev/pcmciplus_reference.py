#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference results of tigramite's PCMCI+ (run_pcmciplus with ParCorr) for `cudag pcmci
--method pcmciplus` (src/pcmci/pcmciplus.hpp, tests/unit/pcmci/test_pcmciplus.cpp).

Writes, under tests/data/pcmciplus/ (or the folder given as the first argument), for each
case c00, c01, ...:
  cNN.csv    the time series, rows in time order (header v0..v{N-1}, 10 significant digits),
             made by tigramite's own toy generator (structural_causal_process, linear links
             with lags 0..3, many contemporaneous ones so that colliders, the orientation
             rules and their conflicts occur)
  cNN.tsv    PCMCI(dataframe, ParCorr(significance='analytic')).run_pcmciplus(...) on it: a
             line "# settings" then key<TAB>value lines for every argument given, then
             "parents<TAB>j<TAB>i,lag;i,lag;..." lines (the lagged parents of the condition
             selection, all_lagged_parents, in tigramite's order), then one line per
             (i, j, lag) for lag 0..tau_max:
             i<TAB>j<TAB>lag<TAB>val_matrix<TAB>p_matrix<TAB>graph (empty graph as '.')
  sNN.csv, sNN.tsv  the same for tigramite's pc_alpha selection (SELECTION: pc_alpha a list
             or None, run_pcmciplus's _optimize_pcmciplus_alpha; the settings line
             "pc_alpha<TAB>0.01,0.05" or "pc_alpha<TAB>None"), the parents those of a run with
             the optimal pc_alpha alone (tigramite leaves the last value's in
             all_lagged_parents), with an "optimal_pc_alpha<TAB>alpha" line
             (results['optimal_alpha']) and "score<TAB>k<TAB>j<TAB>score<TAB>i,lag;..." lines:
             every call to ParCorr.get_model_selection_criterion (the k-th pc_alpha, variable
             j, the parents of j in the DAG it scored, in tigramite's order), recorded by
             wrapping the method
  m00.csv/.tsv, g00.csv/.tsv
             with tigramite's missing_flag (999, cells at random and a gap) and several series
             (DataFrame(dict, analysis_mode='multiple'); the csv's columns 'series' and 't'
             name each row's series and time), as scripts/dev/pcmci_reference.py's m and s
             cases; the settings add missing_flag, series_column, time_column
  README     how the files were made

Usage: /work/main/.peers/py/bin/python scripts/dev/pcmciplus_reference.py
  (a venv with tigramite==5.2.10.1 and its numpy/scipy). Only tigramite's public PCMCI,
  ParCorr, DataFrame and toymodels are called; nothing of tigramite is copied.
"""
import os
import sys

import numpy as np
from pcmci_reference import FLAG, flag_cells
from reference_io import fmt, record_scores, require_tigramite, score_lines, toy_series, write_pcmci_case, write_pcmci_result
from tigramite import data_processing as pp
from tigramite.independence_tests.parcorr import ParCorr
from tigramite.pcmci import PCMCI
from tigramite.toymodels import structural_causal_processes as toys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "pcmciplus")


def lin(x):
    return x


def random_links(rng, n, max_lag, density, contemp):
    """Each variable: an autodependency at lag 1, cross links from lower-numbered variables
    at lag 0 (acyclic, probability `contemp`) and from any variable at lags >= 1."""
    links = {}
    for j in range(n):
        links[j] = [((j, -1), float(rng.uniform(0.3, 0.7)), lin)]
        for i in range(n):
            for lag in range(0, max_lag + 1):
                if i == j and lag <= 1:
                    continue
                if lag == 0 and i >= j:
                    continue
                if rng.random() < (contemp if lag == 0 else density):
                    c = float(rng.choice([-1, 1]) * rng.uniform(0.2, 0.6))
                    links[j].append(((i, -lag), c, lin))
    return links


# (seed, N, T, tau_max, lagged density, contemporaneous density, run_pcmciplus keywords)
CASES = [
    (1, 4, 300, 1, 0.10, 0.25, {}),
    (2, 5, 400, 2, 0.10, 0.5, {"pc_alpha": 0.05}),
    (3, 6, 300, 1, 0.08, 0.5, {"pc_alpha": 0.1, "contemp_collider_rule": "conservative"}),
    (4, 5, 300, 2, 0.10, 0.6, {"pc_alpha": 0.05, "contemp_collider_rule": "none"}),
    (5, 6, 400, 2, 0.08, 0.25, {"pc_alpha": 0.2, "conflict_resolution": False}),
    (6, 5, 350, 2, 0.10, 0.5, {"pc_alpha": 0.05, "reset_lagged_links": True}),
    (7, 6, 500, 3, 0.06, 0.5, {"pc_alpha": 0.1, "fdr_method": "fdr_bh"}),
    (8, 8, 300, 1, 0.06, 0.2, {"pc_alpha": 0.2, "contemp_collider_rule": "none",
                                 "conflict_resolution": False}),
    (9, 7, 400, 2, 0.06, 0.5, {"pc_alpha": 0.15, "max_conds_py": 2, "max_conds_px": 1,
                                "max_conds_px_lagged": 0}),
    (10, 6, 300, 2, 0.08, 0.5, {"pc_alpha": 0.2, "max_conds_dim": 1, "max_combinations": 2}),
    (11, 5, 250, 1, 0.10, 0.3, {"pc_alpha": 0.01, "tau_min": 1}),
    (12, 8, 450, 2, 0.05, 0.5, {"pc_alpha": 0.2, "contemp_collider_rule": "conservative",
                                 "reset_lagged_links": True, "fdr_method": "fdr_bh"}),
    (13, 7, 300, 1, 0.08, 0.6, {"pc_alpha": 0.2}),
    (14, 8, 500, 2, 0.05, 0.55, {"pc_alpha": 0.1, "contemp_collider_rule": "majority",
                                  "conflict_resolution": True, "max_conds_px_lagged": 2}),
]

# The pc_alpha selection (pc_alpha a list or None), same fields as CASES.
SELECTION = [
    (31, 4, 300, 1, 0.10, 0.4, {"pc_alpha": None}),
    (32, 6, 400, 2, 0.08, 0.5, {"pc_alpha": [0.01, 0.05, 0.2]}),
    (33, 6, 300, 1, 0.08, 0.5, {"pc_alpha": None, "contemp_collider_rule": "conservative",
                                 "reset_lagged_links": True}),
    (34, 7, 350, 2, 0.06, 0.6, {"pc_alpha": [0.3, 0.001, 0.1], "contemp_collider_rule": "none",
                                 "fdr_method": "fdr_bh"}),
]


def series(label, seed, n, t, density, contemp):
    """A case's series (reference_io.toy_series) in OUT/label.csv, and the draws it took."""
    return toy_series(os.path.join(OUT, f"{label}.csv"), seed, t,
                      lambda rng: random_links(rng, n, 3, density, contemp))


def new_pcmci(data):
    return PCMCI(dataframe=pp.DataFrame(data), cond_ind_test=ParCorr(significance="analytic"), verbosity=0)


def selection_cases():
    for c, (seed, n, t, tau_max, density, contemp, kw) in enumerate(SELECTION):
        label = f"s{c:02d}"
        data, _ = series(label, seed, n, t, density, contemp)
        pcmci = new_pcmci(data)
        calls = record_scores(pcmci)
        args = dict(tau_max=tau_max, **kw)
        res = pcmci.run_pcmciplus(**args)
        optimal = res["optimal_alpha"]
        # The chosen run alone, for its lagged parents (and as a check of the result).
        alone = new_pcmci(data)
        one = alone.run_pcmciplus(**dict(args, pc_alpha=optimal))
        # (The same to rounding: tigramite's test cache answers the list's later runs.)
        assert (one["graph"] == res["graph"]).all() and np.allclose(one["p_matrix"], res["p_matrix"], 1e-12, 0)
        sums = {}
        for q, (j, _, score) in enumerate(calls):
            sums[q // n] = sums.get(q // n, 0.0) + score
        ranked = sorted(set(sums.values()))
        print(f"{label}: {n} series x {t}, optimal pc_alpha {optimal}, mean scores "
              f"{[v / n for v in sums.values()]}, gap {(ranked[1] - ranked[0]) / n if len(ranked) > 1 else None}, "
              f"lag 0: {int(np.sum(res['graph'][:, :, 0] == 'o-o'))} o-o")
        extra = [f"optimal_pc_alpha\t{fmt(optimal)}"] + score_lines(calls, lambda q, j: (q // n, j))
        write_pcmci_case(os.path.join(OUT, f"{label}.tsv"), args, alone.all_lagged_parents, res, extra)


def main():
    require_tigramite()
    os.makedirs(OUT, exist_ok=True)
    selection_cases()
    for c, (seed, n, t, tau_max, density, contemp, kw) in enumerate(CASES):
        label = f"c{c:02d}"
        data, draws = series(label, seed, n, t, density, contemp)
        pcmci = new_pcmci(data)
        args = dict(tau_max=tau_max, **kw)
        res = pcmci.run_pcmciplus(**args)
        g = res["graph"]
        kinds = {k: int(np.sum(g[:, :, 0] == k)) for k in ("o-o", "-->", "x-x")}
        print(f"{label}: {n} series x {t}, {draws} draw(s); lag 0: {kinds}, "
              f"ambiguous {len(res['ambiguous_triples'])}, lagged {int(np.sum(g[:, :, 1:] != ''))}")
        write_pcmci_case(os.path.join(OUT, f"{label}.tsv"), args, pcmci.all_lagged_parents, res)
    # Missing values and several series: (seed, N, lengths, tau_max, lagged density,
    # contemporaneous density, run_pcmciplus keywords).
    for stem, (seed, n, lengths, tau_max, density, contemp, kw) in (
            ("m00", (41, 5, [400], 2, 0.10, 0.5, {"pc_alpha": 0.05})),
            ("g00", (42, 4, [160, 5, 220, 120], 2, 0.10, 0.5, {"pc_alpha": 0.1}))):
        rng = np.random.default_rng(seed)
        for attempt in range(100):
            links = random_links(rng, n, 3, density, contemp)
            with np.errstate(over="ignore", invalid="ignore"):
                whole, nonstat = toys.structural_causal_process(links, T=sum(lengths) + 100, seed=seed)
            if not nonstat and np.all(np.isfinite(whole)) and np.abs(whole).max() < 100:
                break
        pieces, at = [], 0
        for t in lengths:
            pieces.append(flag_cells(rng, whole[at:at + t], 0.02))
            at += t + 20
        several = len(lengths) > 1
        header = (["series", "t"] if several else []) + [f"v{i}" for i in range(n)]
        table = np.vstack([np.column_stack(([np.full(len(p), m), np.arange(len(p))] if several else []) + [p])
                           for m, p in enumerate(pieces)])
        path = os.path.join(OUT, f"{stem}.csv")
        np.savetxt(path, table, delimiter=",", fmt="%.10g", header=",".join(header), comments="")
        table = np.loadtxt(path, delimiter=",", skiprows=1)
        if several:
            frame = pp.DataFrame({m: table[table[:, 0] == m, 2:] for m in range(len(lengths))},
                                 analysis_mode="multiple", missing_flag=FLAG)
            given = dict(series_column="series", time_column="t", missing_flag=FLAG)
        else:
            frame, given = pp.DataFrame(table, missing_flag=FLAG), dict(missing_flag=FLAG)
        pcmci = PCMCI(dataframe=frame, cond_ind_test=ParCorr(significance="analytic"), verbosity=0)
        args = dict(tau_max=tau_max, **kw)
        res = pcmci.run_pcmciplus(**args)
        g = res["graph"]
        print(f"{stem}: {n} series, lengths {lengths}, {int((table == FLAG).sum())} cells missing; "
              f"lag 0: {int(np.sum(g[:, :, 0] != ''))} marks, lagged {int(np.sum(g[:, :, 1:] != ''))}")
        write_pcmci_result(os.path.join(OUT, f"{stem}.tsv"), pcmci.all_lagged_parents, res, dict(**given, **args),
                           n, tau_max)
    with open(os.path.join(OUT, "README"), "w") as f:
        f.write(__doc__)


if __name__ == "__main__":
    main()
