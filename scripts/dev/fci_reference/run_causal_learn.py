#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One causal-learn FCI run on one data set of tests/data/fci/datasets/ (called by run_all.py,
each run in a fresh process: causal-learn's CI tests cache p-values by variable index).

Peers (never committed or built by the project): python3 -m venv .peers/py &&
.peers/py/bin/pip install causal-learn numpy pandas
  run_causal_learn.py CSV fisherz|chisq|gsq ALPHA OUT_PREFIX

Calls causallearn.search.ConstraintBased.FCI.fci(data, test, alpha, depth=-1,
max_path_length=-1, verbose=False, show_progress=False, node_names=<CSV header>) (default
options; show_progress and node_names change nothing but the output) on the CSV's values
(numpy.loadtxt; discrete columns as read, causal-learn re-codes them itself). Writes
OUT_PREFIX.amat (names, then the graph in pcalg's amat.pag coding), OUT_PREFIX.edges
(str(edge) of each edge fci returns) and prints one manifest line (dataset, algo, options,
alpha, test, seconds of the fci() call).
"""
import contextlib
import io
import os
import sys
import time

import numpy as np
from causallearn.search.ConstraintBased.FCI import fci

# causal-learn's graph.graph[i, j] is the mark at node i of the edge i - j (Endpoint values:
# TAIL -1, ARROW 1, CIRCLE 2); pcalg's amat[i, j] is the mark at node j: 3 tail, 2 arrow, 1 circle.
CODE = {-1: 3, 1: 2, 2: 1}


def main():
    csv, test, alpha, prefix = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    with open(csv) as f:
        names = f.readline().rstrip("\n").split(",")
    data = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
    with contextlib.redirect_stdout(io.StringIO()):  # fci prints some orientations
        t0 = time.perf_counter()
        g, edges = fci(data, test, alpha, depth=-1, max_path_length=-1, verbose=False,
                       show_progress=False, node_names=names)
        secs = time.perf_counter() - t0
    nodes = g.get_nodes()
    assert [n.get_name() for n in nodes] == names
    p = len(names)
    amat = [[0] * p for _ in range(p)]
    for i in range(p):
        for j in range(p):
            if i != j and g.graph[j, i] != 0:
                amat[i][j] = CODE[int(g.graph[j, i])]
                # the same mark from the Edge object
                e = g.get_edge(nodes[i], nodes[j])
                assert CODE[e.get_proximal_endpoint(nodes[j]).value] == amat[i][j]
    with open(prefix + ".amat", "w") as f:
        f.write(" ".join(names) + "\n")
        for row in amat:
            f.write(" ".join(str(x) for x in row) + "\n")
    with open(prefix + ".edges", "w") as f:
        for e in edges:
            f.write(str(e) + "\n")
    algo = "fci" if test in ("fisherz", "chisq") else f"fci-{test}"
    ds = os.path.basename(csv)[:-4]
    print(f"{ds}\t{algo}\tdefaults(depth=-1,max_path_length=-1)\t{alpha:g}\t{test}\t{secs:.3f}")


if __name__ == "__main__":
    main()
