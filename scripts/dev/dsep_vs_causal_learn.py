#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cudag.compat.causallearn's pc and fci against causal-learn's own with its d-separation
test (indep_test=d_separation, true_dag=G) on random DAGs: 60 DAGs of 4 to 14 nodes (edges
of a random networkx Erdos-Renyi digraph kept from lower to higher node, nodes relabelled at
random), up to 3 of them hidden (data columns: the rest); pc with uc_rule 0, 1 (priority -1)
and 2 (priority -1), and fci. Prints the runs and the mismatching G.graph matrices per kind.

Usage (causal-learn 0.1.4.8 and networkx in the venv; the module built):
  PYTHONPATH=python:build-cpu/python /tmp/venv-cl/bin/python scripts/dev/dsep_vs_causal_learn.py
"""
import contextlib
import io
import random

import networkx as nx
import numpy as np
from causallearn.search.ConstraintBased.FCI import fci
from causallearn.search.ConstraintBased.PC import pc
from causallearn.utils.cit import d_separation

from cudag.compat import causallearn as cl


def main():
    random.seed(1)
    np.random.seed(1)
    runs, bad = {}, {}
    for t in range(60):
        n = random.randint(4, 14)
        p = random.choice([0.15, 0.25, 0.35])
        g = nx.erdos_renyi_graph(n, p, directed=True, seed=t)
        g = nx.DiGraph([(a, b) for a, b in g.edges if a < b])
        g.add_nodes_from(range(n))
        perm = list(range(n))
        random.shuffle(perm)
        g = nx.relabel_nodes(g, dict(enumerate(perm)))
        x = np.empty((0, n - random.randint(0, min(3, n - 3))))
        for kind in ("pc0", "pc1", "pc2", "fci"):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                if kind == "fci":
                    want, _ = fci(x, d_separation, 0.05, verbose=False, show_progress=False, true_dag=g)
                    got, _ = cl.fci(x, d_separation, 0.05, show_progress=False, true_dag=g)
                else:
                    rule = int(kind[2])
                    args = (x, 0.05, d_separation, True, rule, -1 if rule else 2)
                    want = pc(*args, show_progress=False, true_dag=g).G
                    got = cl.pc(*args, show_progress=False, true_dag=g).G
            runs[kind] = runs.get(kind, 0) + 1
            if not (np.asarray(want.graph) == np.asarray(got.graph)).all():
                bad[kind] = bad.get(kind, 0) + 1
    print("runs", runs, "mismatches", bad)


if __name__ == "__main__":
    main()
