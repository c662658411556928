# SPDX-License-Identifier: Apache-2.0
"""cg.sepset (and definite_UC / definite_non_UC) of cudag.compat.causallearn.pc against
causal-learn's own pc, pair by pair, on
causal-learn's test data (../shared/data/causal-learn; see its README): every uc_rule /
test combination its TestPC.py runs, plus the d-separation oracle on the bnlearn truth
graphs. Prints the pairs that differ (none expected) and a summary line per run. Needs
causal-learn and cudag importable (the peers venv):
PYTHONPATH=python:build/python CUDAG_BINARY=build/cudag python scripts/dev/sepset_vs_causal_learn.py [DATA_DIR]
"""
import os
import sys
import time

import numpy as np
from causallearn.search.ConstraintBased.PC import pc as cl_pc

from cudag.compat.causallearn import pc as cd_pc

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/data/causal-learn")


def same(a, b):
    n = a.shape[0]
    bad = [(i, j, a[i, j], b[i, j]) for i in range(n) for j in range(n)
           if (a[i, j] is None) != (b[i, j] is None) or (a[i, j] is not None and
                                                        [tuple(map(int, t)) for t in a[i, j]] !=
                                                        [tuple(map(int, t)) for t in b[i, j]])]
    return bad


def compare(label, data, *args, **kw):
    t0 = time.perf_counter()
    cl = cl_pc(data, *args, show_progress=False, **kw)
    t1 = time.perf_counter()
    cd = cd_pc(data, *args, show_progress=False, **kw)
    s = cd.sepset
    t2 = time.perf_counter()
    bad = same(cl.sepset, s)
    # the exact Python objects: the tuples' order and their numpy integers
    exact = all(repr(cl.sepset[i, j]) == repr(s[i, j]) for i in range(s.shape[0]) for j in range(s.shape[0]))
    graph = bool(np.array_equal(cl.G.graph, cd.G.graph))
    # definiteMaxP's triples (uc_rule 2; empty lists otherwise), the same Python objects
    exact &= repr(cl.definite_UC) == repr(cd.definite_UC) and repr(cl.definite_non_UC) == repr(cd.definite_non_UC)
    pairs = sum(1 for i in range(s.shape[0]) for j in range(i + 1, s.shape[0]) if s[i, j] is not None)
    print(f"{label}: {pairs} separated pairs, {len(bad)} differ, repr identical {exact}, graph equal {graph}; "
          f"causal-learn {t1 - t0:.2f} s, cudag with sepset {t2 - t1:.2f} s")
    for i, j, x, y in bad[:10]:
        print(f"   [{i},{j}] causal-learn {x} cudag {y}")
    return not bad and exact and graph


ok = True
lin = np.loadtxt(os.path.join(root, "data_linear_10.txt"), skiprows=1)
dis = np.loadtxt(os.path.join(root, "data_discrete_10.txt"), skiprows=1)
for rule, prio in [(0, 2), (0, 0), (0, 1), (0, 3), (0, 4), (1, -1), (2, -1)]:
    ok &= compare(f"linear_10 fisherz uc_rule {rule} uc_priority {prio}", lin, 0.05, "fisherz", True, rule, prio)
ok &= compare("linear_10 first 300 rows fisherz alpha 0.1 uc_rule 2 uc_priority 3", lin[:300], 0.1, "fisherz",
              True, 2, 3)
ok &= compare("linear_10 fisherz max_k 1", lin, 0.05, "fisherz", max_k=1)
ok &= compare("linear_10 first 300 rows fisherz alpha 0.2", lin[:300], 0.2, "fisherz")
try:  # background knowledge: a pair forbidden both ways is removed at level 0
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.utils.PCUtils.BackgroundKnowledge import BackgroundKnowledge
    nodes = [GraphNode(f"X{k + 1}") for k in range(lin.shape[1])]
    bk = BackgroundKnowledge()
    bk.add_forbidden_by_node(nodes[0], nodes[2])
    bk.add_forbidden_by_node(nodes[2], nodes[0])
    ok &= compare("linear_10 fisherz, X1-X3 forbidden both ways", lin, 0.05, "fisherz", background_knowledge=bk)
except ImportError as e:
    print("background knowledge run skipped:", e)
for test in ("gsq", "chisq"):
    ok &= compare(f"discrete_10 {test}", dis, 0.05, test, True, 0, -1)
    ok &= compare(f"discrete_10 {test} uc_rule 2", dis, 0.05, test, True, 2, -1)
bn = os.path.join(root, "bnlearn_discrete_10000")
for name in ("asia", "sachs", "child", "insurance", "alarm"):
    d = np.loadtxt(os.path.join(bn, "data", f"{name}.txt"), skiprows=1)
    ok &= compare(f"bnlearn {name} chisq", d, 0.05, "chisq", True, 0, -1)
try:
    import networkx as nx
    from causallearn.utils.TXT2GeneralGraph import txt2generalgraph
    for name in ("asia", "sachs", "child", "insurance", "alarm"):
        g = txt2generalgraph(os.path.join(bn, "truth_dag_graph", f"{name}.graph.txt"))
        dag = nx.DiGraph()
        dag.add_nodes_from(range(len(g.nodes)))
        dag.add_edges_from(set(map(tuple, np.argwhere(g.graph.T > 0))))
        ok &= compare(f"bnlearn {name} d_separation", np.zeros((100, len(g.nodes))), 0.05, "d_separation", True,
                      0, -1, true_dag=dag)
except ImportError as e:
    print("d-separation runs skipped:", e)
print("ALL EQUAL" if ok else "DIFFERENCES")
sys.exit(0 if ok else 1)
