# SPDX-License-Identifier: Apache-2.0
"""cudag.compat.causallearn.fci(background_knowledge=...) against causal-learn 0.1.4.8's fci with
background knowledge on the reference runs of tests/data/fci/causal_learn_bk (read from the
files, PYTHONHASHSEED=0 as they were made: no causal-learn needed)."""
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from cudag.compat import causallearn as cl

REF = Path(__file__).resolve().parents[1] / "data" / "fci"


class Node:
    def __init__(self, name):
        self.name = name

    def get_name(self):
        return self.name


def runs():
    rows = [line.split("\t") for line in (REF / "causal_learn_bk" / "manifest.tsv").read_text().splitlines()[1:]]
    return [tuple(r) for r in rows]


def knowledge(forbid, require, tiers, names):
    """A stand-in of causal-learn's BackgroundKnowledge built from cudag's knowledge files, as the
    reference script builds the real one."""
    nodes = {n: Node(n) for n in names}
    bk = SimpleNamespace(forbidden_rules_specs=set(), required_rules_specs=set(), tier_map={})
    for f, specs in ((forbid, bk.forbidden_rules_specs), (require, bk.required_rules_specs)):
        if f == "-":
            continue
        for line in (REF / "causal_learn_bk" / f).read_text().splitlines():
            a, arrow, b = line.split()
            specs.add((nodes[a], nodes[b]))
            if arrow == "--":
                specs.add((nodes[b], nodes[a]))
    if tiers != "-":
        for t, line in enumerate((REF / "causal_learn_bk" / tiers).read_text().splitlines()):
            bk.tier_map[t] = {nodes[v] for v in line.split()}
    return bk


@pytest.mark.parametrize("ds, spec, alpha, test, seed, forbid, require, tiers, secs, status", runs())
def test_compat_knowledge_equals_causal_learn(monkeypatch, ds, spec, alpha, test, seed, forbid, require, tiers,
                                              secs, status):
    for key in [k for k in sys.modules if k == "causallearn" or k.startswith("causallearn.")] + ["causallearn"]:
        monkeypatch.setitem(sys.modules, key, None)
    monkeypatch.setenv("PYTHONHASHSEED", seed)
    assert status == "ok"
    csv = REF / "datasets" / f"{ds}.csv"
    names = csv.read_text().split("\n", 1)[0].split(",")
    x = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
    g, _ = cl.fci(x, test, float(alpha), node_names=names, show_progress=False,
                  background_knowledge=knowledge(forbid, require, tiers, names))
    lines = (REF / "causal_learn_bk" / f"{ds}__{spec}__{alpha}.amat").read_text().splitlines()
    amat = np.array([[int(v) for v in line.split()] for line in lines[1:] if line.strip()])
    np.testing.assert_array_equal(g.graph, np.vectorize({0: 0, 1: 2, 2: 1, 3: -1}.get)(amat).T)
