#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Expected CPDAGs of causal-learn's pc(..., background_knowledge=...) for
tests/regression/test_knowledge_parity.cpp (issue 23).

Runs causal-learn (when installed: pip install causal-learn; it is never a dependency
of cudag) on its own test data, ../shared/data/causal-learn/data_linear_10.txt (fisherz)
and data_discrete_10.txt (gsq), alpha 0.05, stable=True, uc_rule 0, uc_priority 2 (pc()'s
defaults; two cases take uc_rule 1 and 2), with the knowledge cases below, and prints each case's CPDAG as the C++
initialiser the test carries: edges "Xa-->Xb" (Xa -> Xb) and "Xa---Xb" (undirected),
a < b for undirected edges, sorted.

The knowledge is written exactly as the cudag files of the test write it: a forbidden
pair forbids both directions, a tier list puts each variable in its line's tier.

    python3 scripts/peers/knowledge_causal_learn.py ../shared/data/causal-learn
"""
import sys

import numpy as np
from causallearn.graph.GraphNode import GraphNode
from causallearn.search.ConstraintBased.PC import pc
from causallearn.utils.PCUtils.BackgroundKnowledge import BackgroundKnowledge

# case name -> (data file, test, forbidden directions, forbidden pairs, required directions, tiers
#               [, uc_rule, uc_priority])
CASES = {
    "linear_forbid": ("data_linear_10.txt", "fisherz", [("X9", "X8"), ("X20", "X16")], [("X1", "X9")], [], []),
    "linear_require": ("data_linear_10.txt", "fisherz", [], [], [("X9", "X1"), ("X18", "X8"), ("X13", "X2")], []),
    "linear_tiers": ("data_linear_10.txt", "fisherz", [], [], [],
                     [[f"X{i}" for i in range(1, 8)], [f"X{i}" for i in range(8, 15)],
                      [f"X{i}" for i in range(15, 21)]]),
    "linear_all": ("data_linear_10.txt", "fisherz", [("X5", "X4")], [("X6", "X7")], [("X8", "X9")],
                   [["X3", "X10"], ["X12", "X16"]]),
    "linear_all_maxp": ("data_linear_10.txt", "fisherz", [("X5", "X4")], [("X6", "X7")], [("X8", "X9")],
                        [["X3", "X10"], ["X12", "X16"]], 1, 3),
    "linear_all_definite_maxp": ("data_linear_10.txt", "fisherz", [("X5", "X4")], [("X6", "X7")], [("X8", "X9")],
                                 [["X3", "X10"], ["X12", "X16"]], 2, 4),
    "discrete_tiers": ("data_discrete_10.txt", "gsq", [("X2", "X1")], [], [],
                       [[f"X{i}" for i in range(1, 11)], [f"X{i}" for i in range(11, 21)]]),
}


def edges(cg, names):
    g = cg.G.graph
    out = []
    n = g.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if g[i, j] == -1 and g[j, i] == 1:
                out.append(f"{names[i]}-->{names[j]}")
            elif g[i, j] == 1 and g[j, i] == -1:
                out.append(f"{names[j]}-->{names[i]}")
            elif g[i, j] == -1 and g[j, i] == -1:
                out.append(f"{names[i]}---{names[j]}")
            elif g[i, j] != 0:
                out.append(f"{names[i]}<->{names[j]}")
    return sorted(out)


def main(folder):
    for name, spec in CASES.items():
        data_file, test, forbid_dir, forbid_pairs, require_dir, tiers = spec[:6]
        uc_rule, uc_priority = spec[6:] if len(spec) > 6 else (0, 2)
        path = f"{folder}/{data_file}"
        with open(path) as f:
            names = f.readline().split()
        data = np.loadtxt(path, skiprows=1)
        nodes = {v: GraphNode(v) for v in names}
        bk = BackgroundKnowledge()
        for a, b in forbid_dir:
            bk.add_forbidden_by_node(nodes[a], nodes[b])
        for a, b in forbid_pairs:
            bk.add_forbidden_by_node(nodes[a], nodes[b])
            bk.add_forbidden_by_node(nodes[b], nodes[a])
        for a, b in require_dir:
            bk.add_required_by_node(nodes[a], nodes[b])
        for t, tier in enumerate(tiers):
            for v in tier:
                bk.add_node_to_tier(nodes[v], t)
        cg = pc(data, 0.05, test, True, uc_rule, uc_priority, background_knowledge=bk, show_progress=False,
                node_names=names)
        print(f"// {name} (uc_rule {uc_rule}, uc_priority {uc_priority})")
        print("{" + ", ".join(f'"{e}"' for e in edges(cg, names)) + "}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/causal-learn")
