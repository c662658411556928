#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""causal-learn FCI with background knowledge on a few data sets of tests/data/fci/datasets/,
writing tests/data/fci/causal_learn_bk/ (see tests/data/fci/README.md).

Peers (never committed or built by the project): python3 -m venv .peers/py &&
.peers/py/bin/pip install causal-learn numpy pandas
  .peers/py/bin/python scripts/dev/fci_reference/run_causal_learn_bk.py

For each (data set, test, alpha) below and each knowledge spec (forbid, require, tiers, mix)
the knowledge is drawn with a fixed seed from the adjacencies of causal-learn's PAG without
knowledge (causal_learn_fci/<ds>__<algo>__<alpha>.amat), written in cudag's formats
(<stem>.forbid: `a -> b` / `a -- b` lines, <stem>.require: `a -> b`, <stem>.tiers: one tier a
line, earliest first), then fci() runs in a fresh process with PYTHONHASHSEED=0 on
BackgroundKnowledge built with its public methods only (add_forbidden_by_node, both ways for a
`a -- b` pair; add_required_by_node; add_node_to_tier, tier = line number). Writes
<stem>.amat (pcalg's amat.pag coding, as causal_learn_fci/) and manifest.tsv. A run whose
required edge is not in causal-learn's PAG gets status `required-removed` (cudag keeps
required edges in the skeleton, as for pc); none did.
"""
import contextlib
import io
import os
import random
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DATA = os.path.join(ROOT, "tests", "data", "fci")
OUT = os.path.join(DATA, "causal_learn_bk")
CODE = {-1: 3, 1: 2, 2: 1}  # causal-learn mark at i -> pcalg code (see run_causal_learn.py)
RUNS = [("g01", "fisherz", "0.05"), ("g04", "fisherz", "0.05"), ("g06", "fisherz", "0.01"),
        ("d01", "chisq", "0.05"), ("d03", "gsq", "0.05")]
SPECS = ["forbid", "require", "tiers", "mix"]


def read_amat(path):
    with open(path) as f:
        names = f.readline().split()
        m = [[int(x) for x in line.split()] for line in f if line.strip()]
    return names, m


def draw(ds, algo, alpha, spec):
    """The knowledge of one run: (forbid lines, require lines, tiers) by name."""
    names, m = read_amat(os.path.join(DATA, "causal_learn_fci", f"{ds}__{algo}__{alpha}.amat"))
    rng = random.Random(f"{ds}/{spec}")
    adj = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names)) if m[i][j]]
    rng.shuffle(adj)
    adj = [(a, b) if rng.random() < 0.5 else (b, a) for a, b in adj]
    forbid, require, tiers = [], [], []
    if spec in ("tiers", "mix"):
        order = list(names)
        rng.shuffle(order)
        tiered = order[: max(3, (3 * len(order)) // 4)]
        k = len(tiered)
        tiers = [tiered[: k // 3], tiered[k // 3: 2 * k // 3], tiered[2 * k // 3:]]
    tier = {v: t for t, vs in enumerate(tiers) for v in vs}
    if spec == "forbid":
        forbid = [f"{a} -> {b}" for a, b in adj[:2]] + [f"{adj[2][0]} -- {adj[2][1]}"]
    if spec == "require":
        require = [f"{a} -> {b}" for a, b in adj[:2]]
    if spec == "mix":
        free = [(a, b) for a, b in adj if not (a in tier and b in tier and tier[a] > tier[b])]
        require = [f"{a} -> {b}" for a, b in free[:1]]
        forbid = [f"{b} -> {a}" for a, b in adj if (a, b) not in free[:1]][:1]
    return forbid, require, tiers


def one(csv, test, alpha, kfiles, prefix):
    """One fci() call (a fresh process); prints seconds and whether required edges survived."""
    import numpy as np
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.search.ConstraintBased.FCI import fci
    from causallearn.utils.PCUtils.BackgroundKnowledge import BackgroundKnowledge
    with open(csv) as f:
        names = f.readline().rstrip("\n").split(",")
    data = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
    nodes = [GraphNode(n) for n in names]
    for i, n in enumerate(nodes):
        n.add_attribute("id", i)
    by = {n.get_name(): n for n in nodes}
    bk = BackgroundKnowledge()
    forbid_f, require_f, tiers_f = kfiles
    required = []
    for path, kind in ((forbid_f, "forbid"), (require_f, "require")):
        if not os.path.exists(path):
            continue
        for line in open(path):
            a, arrow, b = line.split()
            if kind == "require":
                bk.add_required_by_node(by[a], by[b])
                required.append((names.index(a), names.index(b)))
            else:
                bk.add_forbidden_by_node(by[a], by[b])
                if arrow == "--":
                    bk.add_forbidden_by_node(by[b], by[a])
    if os.path.exists(tiers_f):
        for t, line in enumerate(open(tiers_f)):
            for v in line.split():
                bk.add_node_to_tier(by[v], t)
    with contextlib.redirect_stdout(io.StringIO()):  # fci prints the knowledge orientations
        t0 = time.perf_counter()
        g, _ = fci(data, test, float(alpha), depth=-1, max_path_length=-1, verbose=False,
                   background_knowledge=bk, show_progress=False, node_names=names)
        secs = time.perf_counter() - t0
    gn = g.get_nodes()
    assert [n.get_name() for n in gn] == names
    p = len(names)
    amat = [[0] * p for _ in range(p)]
    for i in range(p):
        for j in range(p):
            if i != j and g.graph[j, i] != 0:
                amat[i][j] = CODE[int(g.graph[j, i])]
                assert CODE[g.get_edge(gn[i], gn[j]).get_proximal_endpoint(gn[j]).value] == amat[i][j]
    with open(prefix + ".amat", "w") as f:
        f.write(" ".join(names) + "\n")
        for row in amat:
            f.write(" ".join(str(x) for x in row) + "\n")
    ok = all(amat[a][b] for a, b in required)
    print(f"{secs:.3f}\t{'ok' if ok else 'required-removed'}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        one(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:8], sys.argv[8])
        return
    os.makedirs(OUT, exist_ok=True)
    env = dict(os.environ, PYTHONHASHSEED="0")
    lines = ["dataset\tspec\talpha\ttest\tpythonhashseed\tforbid\trequire\ttiers\tseconds\tstatus"]
    for ds, test, alpha in RUNS:
        algo = "fci" if test in ("fisherz", "chisq") else f"fci-{test}"
        for spec in SPECS:
            stem = f"{ds}__{spec}__{alpha}"
            forbid, require, tiers = draw(ds, algo, alpha, spec)
            files = []
            for ext, rows in (("forbid", forbid), ("require", require), ("tiers", [" ".join(t) for t in tiers])):
                path = os.path.join(OUT, f"{stem}.{ext}")
                if rows:
                    with open(path, "w") as f:
                        f.write("\n".join(rows) + "\n")
                elif os.path.exists(path):
                    os.remove(path)
                files.append(path)
            csv = os.path.join(DATA, "datasets", ds + ".csv")
            r = subprocess.run(["nice", sys.executable, __file__, "--one", csv, test, alpha, *files,
                                os.path.join(OUT, stem)], env=env, capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                sys.exit(f"{stem}: {r.stderr}")
            secs, status = r.stdout.split()
            names = [os.path.basename(p) if os.path.exists(p) else "-" for p in files]
            lines.append("\t".join([ds, spec, alpha, test, "0", *names, secs, status]))
            print(lines[-1], flush=True)
    with open(os.path.join(OUT, "manifest.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
