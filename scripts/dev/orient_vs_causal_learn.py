# SPDX-License-Identifier: Apache-2.0
"""Dev-only check of cudag's orientation phase (src/pc/orient.cpp) against the peers.

Writes random cases (skeleton, separating sets, a p-value table and the peers'
oriented graphs) to a folder, then runs the test_orient binary on them
(OrientPeerCases.MatchCellForCell compares cell for cell).

Two kinds of cases:
  data       random linear-Gaussian DAG data; causal-learn's own skeleton_discovery
             (stable, Fisher-z) gives skeleton, separating sets and p-values.
  synthetic  random skeletons with random separating sets (many unshielded
             colliders, so many conflicts) and a random p-value table with ties
             and values on alpha; causal-learn runs on a CausalGraph built by hand.

Every case is oriented by causal-learn with uc_rule 0 and 1 at uc_priority -1..4
and uc_rule 2 at -1, 2, 3, 4, the last with both causal-learn's `p > alpha` and
cudag's non-strict `p >= alpha` (run in causal-learn as p > nextafter(alpha, 0)).
With --pcalg-r (pcalg's R/pcalg.R; needs Rscript and the Bioconductor `graph`
package) pcalg's own udag2pdagRelaxed orients every case as well.

Usage:
  python3 -m venv /tmp/clvenv && /tmp/clvenv/bin/pip install causal-learn numpy
  /tmp/clvenv/bin/python scripts/dev/orient_vs_causal_learn.py \
      --binary build-orient/tests/test_orient --cases 300 [--pcalg-r /path/to/pcalg.R]
"""
from __future__ import annotations

import argparse
import itertools
import math
import os
import pathlib
import random
import subprocess
import sys
import tempfile
from copy import deepcopy

import numpy as np
from causallearn.graph.GraphClass import CausalGraph
from causallearn.utils.cit import CIT
from causallearn.utils.PCUtils import Meek, SkeletonDiscovery, UCSepset

CL_OPTIONS = ([(0, p, True) for p in range(-1, 5)] + [(1, p, True) for p in range(-1, 5)] +
              [(2, p, s) for p in (-1, 2, 3, 4) for s in (True, False)])


class TableTest:
    """A stand-in for causal-learn's CIT: p-values from a table keyed like its cache."""
    method = "table"

    def __init__(self, table):
        self.table = table

    def __call__(self, x, y, s):
        key = (min(int(x), int(y)), max(int(x), int(y)), tuple(sorted(int(v) for v in s)))
        return self.table[key]


def cl_orient(cg, rule, priority, alpha):
    """causal-learn's pc_alg dispatch after the skeleton (no background knowledge)."""
    if rule == 0:
        cg2 = UCSepset.uc_sepset(cg, priority) if priority != -1 else UCSepset.uc_sepset(cg)
        return Meek.meek(cg2)
    if rule == 1:
        cg2 = UCSepset.maxp(cg, priority) if priority != -1 else UCSepset.maxp(cg)
        return Meek.meek(cg2)
    cg2 = (UCSepset.definite_maxp(cg, alpha, priority) if priority != -1
           else UCSepset.definite_maxp(cg, alpha))
    return Meek.meek(Meek.definite_meek(cg2))


def needed_queries(cg):
    """Every (x, z, S) the maxP rules may ask: x < z of an unshielded triple, S in
    find_cond_sets(x, z) on the skeleton."""
    pairs = sorted({(x, z) for (x, y, z) in cg.find_unshielded_triples() if x < z})
    for x, z in pairs:
        for s in cg.find_cond_sets(x, z):
            yield int(x), int(z), tuple(sorted(int(v) for v in s))


def union_sepsets(cg, n):
    out = {}
    for i in range(n):
        for j in range(i + 1, n):
            lst = cg.sepset[i, j]
            if lst is not None:
                out[(i, j)] = sorted({int(v) for t in lst for v in t})
    return out


def random_dag_data(rng, n, p_edge, m):
    order = rng.permutation(n)
    w = np.zeros((n, n))
    for a in range(n):
        for b in range(a + 1, n):
            if rng.random() < p_edge:
                w[order[a], order[b]] = rng.uniform(0.3, 1.5) * rng.choice([-1, 1])
    x = np.zeros((m, n))
    for k in range(n):
        v = order[k]
        x[:, v] = x @ w[:, v] + rng.normal(size=m)
    return x


def data_case(rng):
    n = int(rng.integers(5, 16))
    alpha = float(rng.choice([0.01, 0.05, 0.1, 0.2, 0.3]))
    data = random_dag_data(rng, n, float(rng.uniform(0.15, 0.45)), int(rng.integers(60, 800)))
    test = CIT(data, "fisherz")
    cg = SkeletonDiscovery.skeleton_discovery(data, alpha, test, True, show_progress=False)
    if max((len(cg.neighbors(i)) for i in range(n)), default=0) > 9:
        return None
    table = {q: float(cg.ci_test(q[0], q[1], q[2])) for q in needed_queries(cg)}
    return cg, n, alpha, table


def synthetic_case(pyrng):
    n = pyrng.randint(4, 13)
    alpha = pyrng.choice([0.01, 0.05, 0.1])
    cg = CausalGraph(n)
    p_edge = pyrng.uniform(0.2, 0.5)
    for i in range(n):
        for j in range(i + 1, n):
            if pyrng.random() >= p_edge:
                cg.G.remove_edge(cg.G.get_edge(cg.G.nodes[i], cg.G.nodes[j]))
    if max((len(cg.neighbors(i)) for i in range(n)), default=0) > 8:
        return None
    keep = pyrng.choice([0.1, 0.3, 0.6])  # chance a common neighbour is in a sepset
    for i in range(n):
        for j in range(i + 1, n):
            if cg.G.graph[i, j] != 0:
                continue
            common = [k for k in range(n) if cg.G.graph[i, k] != 0 and cg.G.graph[j, k] != 0]
            others = [k for k in range(n) if k not in (i, j) and k not in common]
            s = [k for k in common if pyrng.random() < keep]
            s += [k for k in others if pyrng.random() < 0.15]
            # causal-learn keeps a list of tuples; split the set over two to mimic it
            cut = pyrng.randint(0, len(s))
            cg.sepset[i, j] = cg.sepset[j, i] = [tuple(sorted(s[:cut])), tuple(sorted(s[cut:]))]
    specials = [0.0, 0.0, 0.01, alpha, alpha, 0.2, 0.5, 1.0]
    table = {}
    for q in needed_queries(cg):
        table[q] = (pyrng.choice(specials) if pyrng.random() < 0.35 else pyrng.random())
    cg.set_ind_test(TableTest(table))
    return cg, n, alpha, table


def write_case(path, n, cg, table, results):
    lines = [f"n {n}"]
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if cg.G.graph[i, j] != 0]
    lines.append(f"edges {len(edges)}")
    lines += [f"{i} {j}" for i, j in edges]
    seps = union_sepsets(cg, n)
    lines.append(f"sepsets {len(seps)}")
    lines += [" ".join(map(str, [i, j, len(s), *s])) for (i, j), s in seps.items()]
    lines.append(f"pvalues {len(table)}")
    lines += [" ".join(map(str, [x, z, len(s), *s, float(p).hex()]))
              for (x, z, s), p in table.items()]
    for (rule, prio, alpha, strict), m in results:
        lines.append(f"expect {rule} {prio} {float(alpha).hex()} {int(strict)}")
        lines += [" ".join(str(int(v)) for v in row) for row in m]
    lines.append("end")
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


R_SCRIPT = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressMessages(library(graph))
for (e in parse(args[1]))
  if (is.call(e) && identical(e[[1]], as.name("<-")) &&
      identical(e[[2]], as.name("udag2pdagRelaxed"))) eval(e, globalenv())
setClass("SkelStub", representation(graph = "graphNEL", sepset = "list"))
for (f in list.files(args[2], pattern = "\\.rin$", full.names = TRUE)) {
  lines <- readLines(f)
  n <- as.integer(lines[1])
  g <- matrix(0, n, n, dimnames = list(as.character(1:n), as.character(1:n)))
  sepset <- lapply(1:n, function(i) vector("list", n))
  for (l in lines[-1]) {
    v <- as.integer(strsplit(l, " ")[[1]][-1]) + 1L
    if (substr(l, 1, 1) == "e") { g[v[1], v[2]] <- 1; g[v[2], v[1]] <- 1 }
    else { s <- v[-(1:2)]; sepset[[v[1]]][[v[2]]] <- s; sepset[[v[2]]][[v[1]]] <- s }
  }
  res <- udag2pdagRelaxed(new("SkelStub", graph = as(g, "graphNEL"), sepset = sepset),
                          verbose = FALSE, solve.confl = FALSE)
  write.table(as(res@graph, "matrix"), sub("\\.rin$", ".rout", f),
              row.names = FALSE, col.names = FALSE)
}
"""


def run_pcalg(pcalg_r, cases, workdir):
    """pcalg's udag2pdagRelaxed on every case; returns causal-learn-encoded matrices."""
    rdir = pathlib.Path(workdir) / "r"
    rdir.mkdir(exist_ok=True)
    for k, (n, cg) in enumerate(cases):
        lines = [str(n)]
        lines += [f"e {i} {j}" for i in range(n) for j in range(i + 1, n) if cg.G.graph[i, j] != 0]
        # pcalg reads y %in% sepset[[x]][[z]]; give it the union set like cudag gets.
        lines += ["s " + " ".join(map(str, [i, j, *s]))
                  for (i, j), s in union_sepsets(cg, n).items()]
        (rdir / f"{k:05d}.rin").write_text("\n".join(lines) + "\n")
    script = rdir / "run.R"
    script.write_text(R_SCRIPT)
    subprocess.run(["Rscript", str(script), pcalg_r, str(rdir)], check=True)
    out = []
    for k, (n, _) in enumerate(cases):
        pm = np.loadtxt(rdir / f"{k:05d}.rout", ndmin=2).astype(int).reshape(n, n)
        cl = np.zeros((n, n), dtype=int)
        for i in range(n):
            for j in range(i + 1, n):
                a, b = pm[i, j], pm[j, i]
                if (a, b) == (1, 1):
                    cl[i, j] = cl[j, i] = -1
                elif (a, b) == (1, 0):
                    cl[i, j], cl[j, i] = -1, 1
                elif (a, b) == (0, 1):
                    cl[i, j], cl[j, i] = 1, -1
                elif (a, b) != (0, 0):
                    raise RuntimeError(f"pcalg case {k}: unexpected cells {a}/{b}")
        out.append(cl)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help="test_orient executable")
    ap.add_argument("--cases", type=int, default=200, help="cases of each kind")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="folder for the case files (default: a temporary one)")
    ap.add_argument("--pcalg-r", help="pcalg's R/pcalg.R, to check UcRule::Pcalg too")
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    pyrng = random.Random(args.seed)
    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="orient_cases_"))
    out.mkdir(parents=True, exist_ok=True)
    made = []
    kinds = ["data"] * args.cases + ["synthetic"] * args.cases
    for kind in kinds:
        case = None
        while case is None:
            case = data_case(rng) if kind == "data" else synthetic_case(pyrng)
        cg, n, alpha, table = case
        results = []
        for rule, prio, strict in CL_OPTIONS:
            run_alpha = alpha if strict else math.nextafter(alpha, 0.0)
            g = cl_orient(cg, rule, prio, run_alpha).G.graph
            results.append(((rule, prio, alpha, strict), g.copy()))
        made.append((kind, n, cg, table, results))
    if args.pcalg_r:
        pcalg = run_pcalg(args.pcalg_r, [(n, cg) for _, n, cg, _, _ in made], out)
        for entry, m in zip(made, pcalg):
            entry[4].append(((-1, -1, 0.0, False), m))
    for k, (kind, n, cg, table, results) in enumerate(made):
        write_case(out / f"{k:05d}_{kind}.case", n, cg, table, results)

    # How often the options disagree with each other: a measure of conflicts.
    differ = sum(1 for *_, res in made if len({r[1].tobytes() for r in res}) > 1)
    print(f"{len(made)} cases in {out}; options disagree on {differ} of them")
    env = dict(os.environ, CUDAG_ORIENT_CASES=str(out))
    proc = subprocess.run([args.binary, "--gtest_filter=OrientPeerCases.*"], env=env,
                          capture_output=True, text=True)
    sys.stdout.write(proc.stdout[-6000:])
    sys.stderr.write(proc.stderr[-3000:])
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
