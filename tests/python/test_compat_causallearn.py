# SPDX-License-Identifier: Apache-2.0
"""cudag.compat.causallearn: causal-learn's pc with its positional order and defaults gives
causal-learn's own reference matrices (cg.G.graph) on its test data; its refusals; its
background knowledge object read by node name."""

from types import SimpleNamespace

import numpy as np
import pytest

import cudag
from cudag.compat import causallearn as cl
from conftest import gaussian_chain, shared_data
from test_causal_learn import cases, load

SHARED = shared_data()


@pytest.mark.skipif(SHARED is None, reason="../shared/data/causal-learn is absent")
@pytest.mark.parametrize("data, ref, m", cases())
def test_face_matches_causal_learn(data, ref, m):
    x, names = load(data)
    # causal-learn's call: pc(data, alpha, indep_test, stable, uc_rule, uc_priority, ...)
    cg = cl.pc(x, float(m[3]), m[2], True, int(m[4]), int(m[5]), node_names=names, show_progress=False,
               threads=2)
    np.testing.assert_array_equal(cg.G.graph, np.loadtxt(ref, dtype=int, ndmin=2))
    assert cg.node_names == names


def gaussian(seed=4, n=400, k=6):
    return gaussian_chain(seed, n, k, 0.8)


def test_defaults_are_causal_learns():
    x = gaussian()
    cg = cl.pc(x, show_progress=False)
    want = cudag.pc(x, test="fisher-z", alpha=0.05, compat="causal-learn", uc_rule=0, uc_priority=2)
    np.testing.assert_array_equal(cg.G.graph, want.cl_matrix)
    assert cg.node_names == [f"X{k + 1}" for k in range(6)]
    # Separating sets both ways, as causal-learn's cg.sepset (one tuple per end of the pair
    # that found sets: test_compat_causallearn_graph checks their content); every node of
    # them in cudag's union of the pair's sets.
    for (i, j), s in want.sepsets.items():
        assert cg.sepset[i, j] == cg.sepset[j, i] and cg.sepset[i, j]
        assert set().union(*map(set, cg.sepset[i, j])) == set(s)
    assert cg.sepset[0, 1] is None  # adjacent: never separated


@pytest.mark.parametrize("kwargs, match", [({"stable": False}, "PC-stable only"), ({"mvpc": True}, "no MVPC correction"),
                                           ({"indep_test": "kci"}, "fisherz, chisq, gsq")])
def test_refusals(kwargs, match):
    with pytest.raises(ValueError, match=match):
        cl.pc(gaussian(), show_progress=False, **kwargs)


class Node:
    """A stand-in for causal-learn's GraphNode (hashable, get_name())."""

    def __init__(self, name):
        self.name = name

    def get_name(self):
        return self.name


def test_background_knowledge_by_node_name():
    x = gaussian()
    names = [f"X{k + 1}" for k in range(6)]
    n = {s: Node(s) for s in names}
    bk = SimpleNamespace(forbidden_rules_specs={(n["X2"], n["X3"])}, required_rules_specs={(n["X1"], n["X5"])},
                         tier_map={})
    cg = cl.pc(x, background_knowledge=bk, show_progress=False)
    # X1 --> X5 is required, but the chain separates X1 and X5: causal-learn's skeleton search
    # removes the pair (it orients required edges after the search), cudag.pc would keep it
    want = cudag.pc(x, test="fisher-z", alpha=0.05, compat="causal-learn", uc_rule=0, uc_priority=2,
                    forbid=[("X2", "X3")])
    np.testing.assert_array_equal(cg.G.graph, want.cl_matrix)
    assert not (cg.G.graph[1, 2] == -1 and cg.G.graph[2, 1] == 1)  # X2 --> X3 forbidden (a direction)
    assert cg.G.graph[0, 4] == 0 and cg.G.graph[4, 0] == 0
    # a required edge the search keeps is oriented: X3 --> X2 against the forbidden X2 --> X3
    bk.required_rules_specs = {(n["X3"], n["X2"])}
    cg = cl.pc(x, background_knowledge=bk, show_progress=False)
    assert cg.G.graph[2, 1] == -1 and cg.G.graph[1, 2] == 1
    with pytest.raises(ValueError, match="not in node_names"):
        cl.pc(x, background_knowledge=SimpleNamespace(forbidden_rules_specs={(n["X1"], Node("Q"))}),
              show_progress=False)


def test_fci_drops_a_required_edge_the_data_separate_as_causal_learn():
    """causal-learn's fas tests required edges as any other pair (fci orients them after):
    X1 --> X2 required, X1 independent of X2 and X3, X2 - X3 dependent: no X1 - X2 edge, and
    the PAG of the run without the requirement; a required edge that stays keeps its tail."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, (500, 3))
    x[:, 2] = (x[:, 1] + (rng.random(500) < 0.2)) % 2
    n = {s: Node(s) for s in ("X1", "X2", "X3")}
    bk = SimpleNamespace(forbidden_rules_specs=set(), required_rules_specs={(n["X1"], n["X2"])}, tier_map={})
    g, _ = cl.fci(x, "chisq", 0.05, background_knowledge=bk, show_progress=False)
    free, _ = cl.fci(x, "chisq", 0.05, show_progress=False)
    np.testing.assert_array_equal(g.graph, free.graph)
    assert g.graph[0, 1] == 0 and g.graph[1, 2] != 0
    bk.required_rules_specs = {(n["X2"], n["X3"])}
    g, _ = cl.fci(x, "chisq", 0.05, background_knowledge=bk, show_progress=False)
    assert g.graph[1, 2] == -1 and g.graph[2, 1] == 1  # X2 --> X3 as required


def test_sepset_of_a_level_zero_removal_is_causal_learns():
    # X1, X2 independent, X3 their collider, X4 independent of all: X1-X2 and every pair with
    # X4 are removed at level 0, where causal-learn's cg.sepset holds [(), ()] (causal-learn
    # 0.1.4.8 on these data: the empty set once from each end of the pair).
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2000, 4))
    x[:, 2] += x[:, 0] + x[:, 1]
    cg = cl.pc(x, 0.01, "fisherz", show_progress=False)
    for i, j in [(0, 1), (0, 3), (1, 3), (2, 3)]:
        assert cg.sepset[i, j] == [(), ()] and cg.sepset[j, i] == [(), ()], (i, j)
    assert cg.sepset[0, 2] is None and cg.sepset[1, 2] is None  # adjacent
    assert all(cg.sepset[k, k] is None for k in range(4))


def test_discrete_values_of_any_number_are_levels_as_in_causal_learn():
    """chisq / gsq read each column's distinct values as its levels (causal-learn's np.unique),
    whatever numbers code them: pc and fci on codes 0.25, 1.75, 3.25 as on 0, 1, 2."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 500)
    b = (a + rng.integers(0, 2, 500)) % 3
    c = (b + rng.integers(0, 2, 500)) % 3
    codes = np.column_stack([a, b, c])
    odd = codes * 1.5 + 0.25
    for test in ("chisq", "gsq"):
        want = cl.pc(codes, 0.05, test, show_progress=False).G.graph
        np.testing.assert_array_equal(cl.pc(odd, 0.05, test, show_progress=False).G.graph, want)
        assert (want != 0).sum() == 4  # a - b - c
        g_want = cl.fci(codes, test, 0.05, show_progress=False)[0].graph
        np.testing.assert_array_equal(cl.fci(odd, test, 0.05, show_progress=False)[0].graph, g_want)
        assert cl.CIT(odd, test)(0, 2, [1]) == cl.CIT(codes, test)(0, 2, [1])
