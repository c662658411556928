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
from reference_io import require_tigramite, write_pcmci_result
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


def main():
    require_tigramite()
    os.makedirs(OUT, exist_ok=True)
    for c, (seed, n, t, tau_max, density, contemp, kw) in enumerate(CASES):
        rng = np.random.default_rng(seed)
        for attempt in range(100):  # redraw the links until the process is stationary
            links = random_links(rng, n, 3, density, contemp)
            with np.errstate(over="ignore", invalid="ignore"):
                data, nonstat = toys.structural_causal_process(links, T=t, seed=seed)
            if not nonstat and np.all(np.isfinite(data)) and np.abs(data).max() < 100:
                break
        else:
            raise SystemExit(f"case {c}: no stationary process in 100 draws")
        path = os.path.join(OUT, f"c{c:02d}.csv")
        np.savetxt(path, data, delimiter=",", fmt="%.10g",
                   header=",".join(f"v{i}" for i in range(n)), comments="")
        data = np.loadtxt(path, delimiter=",", skiprows=1)
        pcmci = PCMCI(dataframe=pp.DataFrame(data), cond_ind_test=ParCorr(significance="analytic"),
                      verbosity=0)
        args = dict(tau_max=tau_max, **kw)
        res = pcmci.run_pcmciplus(**args)
        g = res["graph"]
        kinds = {k: int(np.sum(g[:, :, 0] == k)) for k in ("o-o", "-->", "x-x")}
        print(f"c{c:02d}: {n} series x {t}, {attempt + 1} draw(s); lag 0: {kinds}, "
              f"ambiguous {len(res['ambiguous_triples'])}, lagged {int(np.sum(g[:, :, 1:] != ''))}")
        write_pcmci_result(os.path.join(OUT, f"c{c:02d}.tsv"), pcmci.all_lagged_parents, res, args, n, tau_max)
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
