#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""True PAGs of random DAGs with latent nodes, by pcalg's dag2pag and causal-learn's dag2pag,
for the FCI/RFCI tests (tests/data/fci/oracle_pags.txt; format in tests/data/fci/README.md).

Peers (never committed, never built by the project; install them once, in ignored folders):
  bash ../shared/peers/install_r_peers.sh          # R, pcalg 2.7-12, bnlearn 4.9 (as root)
  python3 -m venv .peers/py && .peers/py/bin/pip install causal-learn numpy pandas
Usage (from the repository root):
  .peers/py/bin/python scripts/dev/fci_reference/oracle_pags.py [--out tests/data/fci/oracle_pags.txt]
          [--random 250] [--seed 20240607]

The DAGs come from a seeded numpy generator (deterministic); pcalg runs in one Rscript
(oracle_pcalg.R beside this file), causal-learn in this process. The summary printed at the
end also checks both peers' PAGs against the true MAG (skeleton, and every arrowhead and tail). Only the peers' public
functions are called; nothing of them is copied here.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]

# causal-learn's dag2pag puts the observed nodes in a set; fix the hash seed so that its
# internal order (and so any order-dependent behaviour) is the same on every run.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

import networkx as nx  # noqa: E402  (a causal-learn dependency)
import numpy as np  # noqa: E402
from causallearn.graph.Dag import Dag  # noqa: E402
from causallearn.graph.Endpoint import Endpoint  # noqa: E402
from causallearn.graph.GraphNode import GraphNode  # noqa: E402
from causallearn.utils.DAG2PAG import dag2pag  # noqa: E402

# pcalg's amat.pag coding of the mark at a node: 0 none, 1 circle, 2 arrowhead, 3 tail
CODE = {Endpoint.CIRCLE.value: 1, Endpoint.ARROW.value: 2, Endpoint.TAIL.value: 3}
CODE_BY_VALUE = {2: 1, 1: 2, -1: 3}  # causal-learn's graph.graph values -> amat.pag codes


class Case:
    def __init__(self, ident, edges, latent, kind):
        self.id = ident
        self.edges = edges          # [(from, to)] in the order written
        self.latent = list(latent)  # names
        self.kind = kind
        order = []
        for a, b in edges:
            for v in (a, b):
                if v not in order:
                    order.append(v)
        self.nodes = order          # all nodes, order of first appearance
        self.observed = [v for v in order if v not in self.latent]


def hand_cases():
    """Small textbook cases, checked by hand (README: 'Hand-checked cases')."""
    return [
        ([("X", "Y"), ("Z", "Y")], []),                                   # collider
        ([("L", "A"), ("L", "B")], ["L"]),                                # hidden common cause
        ([("C", "A"), ("L", "A"), ("L", "B"), ("D", "B")], ["L"]),        # C o-> A <-> B <-o D
        ([("X1", "X3"), ("X2", "X3"), ("X3", "X4")], []),                 # Y-structure
        ([("A", "B"), ("L1", "B"), ("L1", "C"), ("L2", "C"), ("L2", "D"), ("C", "E")],
         ["L1", "L2"]),                                                    # chain of confounders
        ([("X1", "X2"), ("L", "X2"), ("L", "X4"), ("X2", "X3"), ("X3", "X4")], ["L"]),
        ([("U1", "A"), ("U1", "Y"), ("U2", "B"), ("U2", "Y"), ("A", "X"), ("B", "X")],
         ["U1", "U2"]),                                                    # M-structure-like
    ]


def random_case(rng, ident):
    n = int(rng.integers(4, 15))              # 4..14 nodes (latents included)
    prob = float(rng.uniform(0.15, 0.5))
    topo = rng.permutation(n)                 # topo[k] = node at position k of a causal order
    names = [f"X{i + 1}" for i in rng.permutation(n)]  # names not in causal order
    adj = set()
    for a in range(n):
        for b in range(a + 1, n):
            if rng.random() < prob:
                adj.add((topo[a], topo[b]))
    pos = {int(v): k for k, v in enumerate(topo)}
    for v in range(n):                        # no isolated node: tie it to a random other one
        if not any(v in e for e in adj):
            u = int(rng.choice([w for w in range(n) if w != v]))
            adj.add((u, v) if pos[u] < pos[v] else (v, u))
    edges = sorted(adj)
    edges = [edges[i] for i in rng.permutation(len(edges))]
    children = {v: sum(1 for a, _ in adj if a == v) for v in range(n)}
    k = int(rng.integers(1, min(5, n - 3) + 1))  # 1..5 latents, at least 3 observed
    confounders = rng.random() < 0.75
    pool = [v for v in range(n) if children[v] >= 2] if confounders else []
    chosen = list(rng.permutation(pool)[:k]) if pool else []
    rest = [v for v in range(n) if v not in chosen]
    chosen += list(rng.permutation(rest)[:k - len(chosen)])
    latent = [names[int(v)] for v in sorted(chosen, key=lambda v: names[int(v)])]
    kind = "confounders" if confounders else "arbitrary"
    return Case(ident, [(names[int(a)], names[int(b)]) for a, b in edges], latent,
                f"random n={n} p={prob:.3f} latents={kind}")


def causal_learn_pag(case):
    nodes = {v: GraphNode(v) for v in case.nodes}
    dag = Dag([nodes[v] for v in case.nodes])
    for a, b in case.edges:
        dag.add_directed_edge(nodes[a], nodes[b])
    with contextlib.redirect_stdout(io.StringIO()):   # dag2pag prints (print(), rule R5)
        pag = dag2pag(dag, [nodes[v] for v in case.latent])
    pnodes = {n.get_name(): n for n in pag.get_nodes()}
    index = pag.get_node_map()
    p = len(case.observed)
    amat = [[0] * p for _ in range(p)]
    for i, a in enumerate(case.observed):
        for j, b in enumerate(case.observed):
            if i == j:
                continue
            edge = pag.get_edge(pnodes[a], pnodes[b])
            if edge is None:
                continue
            mark_b = edge.get_proximal_endpoint(pnodes[b])
            amat[i][j] = CODE[mark_b.value]
            # cross-check with the matrix: graph[b, a] is the mark at b of the edge a - b
            assert CODE_BY_VALUE[int(pag.graph[index[pnodes[b]], index[pnodes[a]]])] == amat[i][j]
    return amat


def pcalg_pags(cases):
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp, "dags.txt")
        dst = pathlib.Path(tmp, "pags.txt")
        with open(src, "w") as f:
            for c in cases:
                f.write(f"dag {c.id}\n")
                f.write("nodes " + " ".join(c.nodes) + "\n")
                f.write("latent " + (" ".join(c.latent) if c.latent else "-") + "\n")
                for a, b in c.edges:
                    f.write(f"edge {a} {b}\n")
                f.write("end\n")
        subprocess.run(["nice", "Rscript", str(HERE / "oracle_pcalg.R"), str(src), str(dst)],
                       check=True)
        out = {}
        for line in open(dst):
            ident, rows = line.rstrip("\n").split(":", 1)
            out[int(ident)] = [[int(x) for x in r.split()] for r in rows.split(";")]
        return out


def true_mag(case):
    """The true MAG over the observed nodes (no selection): a, b adjacent iff not d-separated
    given their observed ancestors; the mark at b is a tail iff b is an ancestor of a."""
    g = nx.DiGraph(case.edges)
    anc = {v: nx.ancestors(g, v) for v in g}
    obs = case.observed
    p = len(obs)
    mag = [[0] * p for _ in range(p)]
    for i in range(p):
        for j in range(i + 1, p):
            a, b = obs[i], obs[j]
            cond = ((anc[a] | anc[b]) & set(obs)) - {a, b}
            if not nx.is_d_separator(g, {a}, {b}, cond):
                mag[i][j] = 3 if b in anc[a] else 2
                mag[j][i] = 3 if a in anc[b] else 2
    return mag


def check_against_mag(amat, mag):
    """(skeleton equal, every arrowhead and tail of the PAG is the MAG's mark)"""
    p = len(mag)
    skel = all((amat[i][j] != 0) == (mag[i][j] != 0) for i in range(p) for j in range(p))
    sound = all(amat[i][j] in (0, 1) or amat[i][j] == mag[i][j] for i in range(p) for j in range(p))
    return skel, sound


def fmt(amat):
    return " ; ".join(" ".join(str(x) for x in row) for row in amat)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "tests" / "data" / "fci" / "oracle_pags.txt"))
    ap.add_argument("--random", type=int, default=250)
    ap.add_argument("--seed", type=int, default=20240607)
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    cases = [Case(i, e, l, "hand") for i, (e, l) in enumerate(hand_cases())]
    for k in range(args.random):
        cases.append(random_case(rng, len(cases)))
    pc = pcalg_pags(cases)
    agree = agree_rand = 0
    bad = {"pcalg": [0, 0], "causal-learn": [0, 0]}  # DAGs with a wrong skeleton, unsound marks
    with open(args.out, "w") as f:
        f.write("# True PAGs over the observed nodes: pcalg 2.7-12 dag2pag (dsepTest, alpha 0.5) and\n"
                "# causal-learn dag2pag; amat.pag coding, row i col j = mark at observed[j] of edge i-j\n"
                "# (0 none, 1 circle, 2 arrowhead, 3 tail). Made by scripts/dev/fci_reference/oracle_pags.py\n")
        for c in cases:
            cl = causal_learn_pag(c)
            same = int(cl == pc[c.id])
            agree += same
            agree_rand += same if c.kind != "hand" else 0
            mag = true_mag(c)
            for peer, amat in (("pcalg", pc[c.id]), ("causal-learn", cl)):
                skel, sound = check_against_mag(amat, mag)
                bad[peer][0] += not skel
                bad[peer][1] += not sound
            f.write(f"dag {c.id} nodes {len(c.nodes)} latent {','.join(c.latent) if c.latent else '-'}\n")
            for a, b in c.edges:
                f.write(f"edge {a} {b}\n")
            f.write("observed " + ",".join(c.observed) + "\n")
            f.write("pcalg " + fmt(pc[c.id]) + "\n")
            f.write("causal-learn " + fmt(cl) + "\n")
            f.write(f"agree {same}\n")
            f.write("end\n")
    n_rand = sum(1 for c in cases if c.kind != "hand")
    print(f"{len(cases)} DAGs ({len(cases) - n_rand} hand, {n_rand} random): peers agree on {agree}"
          f" (random: {agree_rand}/{n_rand})")
    for peer, (skel, sound) in bad.items():
        print(f"{peer}: skeleton differs from the true MAG's in {skel} DAGs; an arrowhead or tail"
              f" differs from the true MAG's mark in {sound} DAGs")


if __name__ == "__main__":
    main()
