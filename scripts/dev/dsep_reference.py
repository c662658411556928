#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference outputs of causal-learn's pc and fci with its d-separation "test"
(indep_test=d_separation, true_dag=G) for tests/python/test_oracle.py.

Prints, as a Python literal to paste into the test, for each case: the DAG's edges, its
number of nodes, the data's column count (nodes from that count on are hidden), and
causal-learn's returned G.graph (the endpoint matrix) and node names.

Usage: python3.11 -m venv /tmp/venv-cl && /tmp/venv-cl/bin/pip install causal-learn==0.1.4.8 networkx
       /tmp/venv-cl/bin/python scripts/dev/dsep_reference.py

It only calls causal-learn's public pc and fci; nothing of causal-learn is copied here.
"""
import contextlib
import io
import pprint
from importlib.metadata import version

import networkx as nx
import numpy as np
from causallearn.search.ConstraintBased.FCI import fci
from causallearn.search.ConstraintBased.PC import pc
from causallearn.utils.cit import d_separation

# (name, learner, number of nodes, number of observed columns, edges, extra arguments)
CASES = [
    ("collider", "pc", 5, 5, [(0, 2), (1, 2), (2, 3), (2, 4)], {}),
    ("diamond", "pc", 4, 4, [(0, 1), (0, 2), (1, 3), (2, 3)], {}),
    ("ten", "pc", 10, 10, [(0, 3), (1, 3), (2, 4), (3, 5), (4, 5), (5, 6), (5, 7), (6, 8), (7, 8), (1, 9),
                           (9, 8), (2, 7)], {}),
    ("ten_maxp", "pc", 10, 10, [(0, 3), (1, 3), (2, 4), (3, 5), (4, 5), (5, 6), (5, 7), (6, 8), (7, 8), (1, 9),
                                (9, 8), (2, 7)], {"uc_rule": 1, "uc_priority": -1}),
    ("ten_definite_maxp", "pc", 10, 10, [(0, 3), (1, 3), (2, 4), (3, 5), (4, 5), (5, 6), (5, 7), (6, 8), (7, 8),
                                         (1, 9), (9, 8), (2, 7)], {"uc_rule": 2, "uc_priority": -1}),
    ("pc_latent", "pc", 6, 5, [(5, 0), (5, 1), (0, 2), (1, 3), (2, 4), (3, 4)], {}),
    ("fci_simple", "fci", 4, 4, [(0, 1), (0, 2), (1, 3), (2, 3)], {}),
    ("fci_two_latent", "fci", 9, 7, [(7, 0), (7, 1), (8, 3), (8, 4), (2, 5), (2, 6), (5, 1), (6, 3), (3, 0),
                                     (1, 4)], {}),
    ("fci_fritl", "fci", 10, 7, [(7, 0), (7, 5), (8, 0), (8, 6), (9, 3), (9, 4), (9, 6), (0, 1), (0, 2), (1, 2),
                                 (2, 4), (5, 6)], {}),
    ("fci_collider", "fci", 5, 5, [(0, 2), (1, 2), (2, 3), (2, 4)], {}),
]


def run(learner, n_nodes, n_obs, edges, extra):
    g = nx.DiGraph()
    g.add_nodes_from(range(n_nodes))
    g.add_edges_from(edges)
    data = np.empty((0, n_obs))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        if learner == "pc":
            cg = pc(data, 0.05, d_separation, True, extra.get("uc_rule", 0), extra.get("uc_priority", 2),
                    show_progress=False, true_dag=g)
            G = cg.G
        else:
            G, _ = fci(data, d_separation, 0.05, verbose=False, show_progress=False, true_dag=g)
    return G.graph.astype(int).tolist(), [n.get_name() for n in G.get_nodes()]


def main():
    print(f"# causal-learn {version('causal-learn')}, networkx {version('networkx')}")
    out = []
    for name, learner, n_nodes, n_obs, edges, extra in CASES:
        graph, names = run(learner, n_nodes, n_obs, edges, extra)
        out.append({"name": name, "learner": learner, "nodes": n_nodes, "columns": n_obs, "edges": edges,
                    "extra": extra, "graph": graph, "node_names": names})
    pprint.pprint(out, width=120, sort_dicts=False)


if __name__ == "__main__":
    main()
