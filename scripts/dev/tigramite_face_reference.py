#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference values of tigramite's ParCorr (CondIndTest methods on a DataFrame) and PCMCI's
pc_alpha choices for cudag.compat.tigramite (tests/python/test_compat_tigramite_condindtest.py).

Reads tests/data/pcmci/c00.csv (300 x 4, made by scripts/dev/pcmci_reference.py) and writes
tests/data/tigramite_face/reference.json (or the file given as the first argument) with what
tigramite 5.2.10.1 returns on it:
  run_test        ParCorr(significance='analytic').run_test(X, Y, Z, tau_max, cut_off) for a
                  few node sets: [X, Y, Z, tau_max, cut_off, value, p_value]
  criterion       ParCorr.get_model_selection_criterion(j, parents, tau_max, criterion)
  confidence      ParCorr.get_analytic_confidence(value, df, conf_lev) (scipy's Student t)
  t_isf           scipy.stats.t.isf(p, df)
  fdr             PCMCI.get_corrected_pvalues on a fixed p_matrix (tau_max 2)
  pc_stable_none  PCMCI.run_pc_stable(tau_max=2, pc_alpha=None): all_parents
  pcmci_none      PCMCI.run_pcmci(tau_max=2, pc_alpha=None): graph, val_matrix, p_matrix
  mci             PCMCI.run_mci(tau_min=0, tau_max=2, parents=<run_pc_stable at 0.2>)
  pcmciplus_none  PCMCI.run_pcmciplus(tau_max=2, pc_alpha=None): graph, val_matrix,
                  p_matrix, optimal_alpha

Usage: /work/main/.peers/py/bin/python scripts/dev/tigramite_face_reference.py
  (a venv with tigramite==5.2.10.1 and scipy). Only tigramite's public classes and scipy
  are called; nothing of tigramite is copied.
"""
import json
import os
import sys

import numpy as np
from reference_io import require_tigramite
from scipy import stats
from tigramite import data_processing as pp
from tigramite.independence_tests.parcorr import ParCorr
from tigramite.pcmci import PCMCI

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "tests", "data", "pcmci", "c00.csv")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "tests", "data", "tigramite_face",
                                                         "reference.json")


def matrices(res):
    return {"graph": res["graph"].tolist(), "val_matrix": res["val_matrix"].tolist(),
            "p_matrix": res["p_matrix"].tolist()}


def parents_of(d):
    return {str(j): [[int(i), int(lag)] for i, lag in p] for j, p in d.items()}


def main():
    require_tigramite()
    data = np.loadtxt(DATA, delimiter=",", skiprows=1)
    out = {"data": "tests/data/pcmci/c00.csv", "tigramite": "5.2.10.1"}

    test = ParCorr(significance="analytic")
    test.set_dataframe(pp.DataFrame(data))
    cases = [([(0, -1)], [(1, 0)], [], 2, "2xtau_max"),
             ([(0, -1)], [(1, 0)], [(1, -1), (2, -2)], 2, "2xtau_max"),
             ([(2, 0)], [(3, 0)], [(2, -2), (3, -1), (0, -1)], 3, "max_lag"),
             ([(3, -2)], [(2, 0)], [(2, -1)], 2, "max_lag_or_tau_max"),
             ([(1, -3)], [(0, 0)], [(0, -1), (0, -1), (1, 0)], 3, "tau_max")]
    out["run_test"] = []
    for X, Y, Z, tau_max, cut_off in cases:
        val, pval = test.run_test(X, Y, Z, tau_max=tau_max, cut_off=cut_off)
        out["run_test"].append([X, Y, Z, tau_max, cut_off, float(val), float(pval)])
    out["criterion"] = []
    for j, parents, tau_max in [(0, [(0, -1), (2, -2)], 2), (3, [], 2), (2, [(2, -1), (1, -1), (0, -1)], 3)]:
        for crit in ("aic", "bic", "corrected_aic"):
            out["criterion"].append([j, parents, tau_max, crit,
                                     float(test.get_model_selection_criterion(j, parents, tau_max, crit))])
    out["confidence"] = [[v, df, lev, *map(float, test.get_analytic_confidence(v, df, lev))]
                         for v, df, lev in [(0.3, 100, 0.9), (-0.62, 17, 0.95), (0.0, 3, 0.5), (0.97, 996, 0.99)]]
    out["t_isf"] = [[p, df, float(stats.t.isf(p, df))]
                    for p, df in [(0.05, 10), (0.025, 3), (1e-8, 1), (0.3, 1e5), (0.999, 7), (0.5, 2)]]

    pcmci = PCMCI(pp.DataFrame(data), ParCorr(significance="analytic"), verbosity=0)
    p_matrix = np.linspace(0.0, 1.0, 4 * 4 * 3).reshape(4, 4, 3)
    out["fdr"] = {"p_matrix": p_matrix.tolist(),
                  "q_matrix": pcmci.get_corrected_pvalues(p_matrix, fdr_method="fdr_bh", tau_max=2).tolist(),
                  "q_matrix_with_lag0": pcmci.get_corrected_pvalues(p_matrix, fdr_method="fdr_bh", tau_max=2,
                                                                    exclude_contemporaneous=False).tolist()}
    out["pc_stable_none"] = parents_of(pcmci.run_pc_stable(tau_max=2, pc_alpha=None))
    pcmci = PCMCI(pp.DataFrame(data), ParCorr(significance="analytic"), verbosity=0)
    out["pcmci_none"] = matrices(pcmci.run_pcmci(tau_max=2, pc_alpha=None))
    pcmci = PCMCI(pp.DataFrame(data), ParCorr(significance="analytic"), verbosity=0)
    parents = pcmci.run_pc_stable(tau_max=2, pc_alpha=0.2)
    out["mci"] = {"parents": parents_of(parents),
                  **matrices(pcmci.run_mci(tau_min=0, tau_max=2, parents=parents, alpha_level=0.05))}
    pcmci = PCMCI(pp.DataFrame(data), ParCorr(significance="analytic"), verbosity=0)
    res = pcmci.run_pcmciplus(tau_max=2, pc_alpha=None)
    out["pcmciplus_none"] = {**matrices(res), "optimal_alpha": float(res["optimal_alpha"])}

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=4)
        f.write("\n")


if __name__ == "__main__":
    main()
