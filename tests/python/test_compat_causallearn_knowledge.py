# SPDX-License-Identifier: Apache-2.0
"""cudag.compat.causallearn with causal-learn's BackgroundKnowledge as its pc and
skeleton_discovery read it: pattern rules (regular expressions on node names), edges
forbidden within a tier, and required edges that the data separate (causal-learn's skeleton
search removes them; cudag.pc keeps them, so the face drops them first). Checked on values
that follow from the data's construction, and against causal-learn itself when installed."""

from types import SimpleNamespace

import numpy as np
import pytest

import cudag
from cudag.compat import causallearn as cl

NAMES = ["X1", "X2", "X3", "X4"]


def collider_chain(seed=3, n=500):
    """X1 -> X3 <- X2, X3 -> X4 (unit weights, standard normal noise)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    x[:, 2] += x[:, 0] + x[:, 1]
    x[:, 3] += x[:, 2]
    return x


class Node:
    """A stand-in for causal-learn's GraphNode (hashable, get_name())."""

    def __init__(self, name):
        self.name = name

    def get_name(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, Node) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


def knowledge(forbid=(), require=(), forbid_patterns=(), require_patterns=(), tiers=None, within=()):
    """An object with causal-learn's BackgroundKnowledge attributes."""
    return SimpleNamespace(forbidden_rules_specs={(Node(a), Node(b)) for a, b in forbid},
                           required_rules_specs={(Node(a), Node(b)) for a, b in require},
                           forbidden_pattern_rules_specs=set(forbid_patterns),
                           required_pattern_rules_specs=set(require_patterns),
                           tier_map={t: {Node(v) for v in vs} for t, vs in (tiers or {}).items()},
                           forbidden_within_tiers=set(within))


def test_pattern_rules_resolve_on_the_names():
    x = collider_chain()
    # "X[12]" -> "X3" forbidden: X3 --> X1 and X3 --> X2 (causal-learn's re.match on the names)
    bk = knowledge(forbid_patterns={("X[12]", "X3")})
    got = cl.pc(x, 0.05, "fisherz", background_knowledge=bk, show_progress=False).G.graph
    want = cudag.pc(x, test="fisher-z", compat="causal-learn", uc_priority=2, forbid=[("X1", "X3"), ("X2", "X3")])
    np.testing.assert_array_equal(got, want.cl_matrix)
    assert got[2, 0] == -1 and got[0, 2] == 1 and got[2, 1] == -1 and got[1, 2] == 1  # X3 --> X1, X3 --> X2
    # a required pattern: "X3" -> "X4$" (X3 --> X4, already the collider's Meek direction)
    bk = knowledge(require_patterns={("X3", "X4$")})
    got = cl.pc(x, 0.05, "fisherz", background_knowledge=bk, show_progress=False).G.graph
    assert got[2, 3] == -1 and got[3, 2] == 1
    with pytest.raises(ValueError, match="regular expression"):
        cl.pc(x, background_knowledge=knowledge(forbid_patterns={("X[", "X3")}), show_progress=False)


def test_forbid_within_tier_removes_the_tier_pairs():
    x = collider_chain()
    bk = knowledge(tiers={0: ["X1", "X2"], 1: ["X3", "X4"]}, within={1})
    cg = cl.pc(x, 0.05, "fisherz", background_knowledge=bk, show_progress=False)
    assert cg.G.graph[2, 3] == 0 and cg.G.graph[3, 2] == 0  # X3 - X4 in tier 1, forbidden both ways
    assert cg.sepset[2, 3] == [(), ()]  # removed at level 0, as causal-learn's search records it
    want = cudag.pc(x, test="fisher-z", compat="causal-learn", uc_priority=2, tiers=[["X1", "X2"], ["X3", "X4"]],
                    forbid=[("X3", "X4"), ("X4", "X3")])
    np.testing.assert_array_equal(cg.G.graph, want.cl_matrix)


def test_required_edge_the_data_separate_is_removed():
    # X1 _||_ X4 | X3: causal-learn's skeleton search removes X1 - X4 at level 1 even when
    # X1 --> X4 is required; cudag.pc keeps required pairs (pcalg's fixedEdges).
    x = collider_chain()
    bk = knowledge(require={("X1", "X4")})
    got = cl.pc(x, 0.05, "fisherz", background_knowledge=bk, show_progress=False).G.graph
    plain = cudag.pc(x, test="fisher-z", compat="causal-learn", uc_priority=2)
    np.testing.assert_array_equal(got, plain.cl_matrix)
    assert got[0, 3] == 0 and got[3, 0] == 0
    kept = cudag.pc(x, test="fisher-z", compat="causal-learn", uc_priority=2, require=[("X1", "X4")])
    assert kept.cl_matrix[0, 3] == -1 and kept.cl_matrix[3, 0] == 1
    # a required edge the data keep is oriented: X4 --> X3 against the data's X3 --> X4
    got = cl.pc(x, 0.05, "fisherz", background_knowledge=knowledge(require={("X4", "X3")}), show_progress=False)
    assert got.G.graph[3, 2] == -1 and got.G.graph[2, 3] == 1


def test_skeleton_discovery():
    x = collider_chain()
    cg = cl.skeleton_discovery(x, 0.05, "fisherz", True, show_progress=False)
    full = cudag.pc(x, test="fisher-z", compat="causal-learn")
    np.testing.assert_array_equal(cg.G.graph, np.where(full.skeleton, -1, 0))
    assert sorted(map(tuple, np.argwhere(np.triu(cg.G.graph != 0)))) == [(0, 2), (1, 2), (2, 3)]
    assert cg.sepset[0, 1] == [(), ()] and cg.sepset[0, 3] is not None
    # knowledge: only pairs forbidden both ways leave the search; a required edge is tested
    bk = knowledge(forbid={("X3", "X4"), ("X4", "X3"), ("X1", "X3")}, require={("X1", "X4")})
    cg = cl.skeleton_discovery(x, 0.05, "fisherz", True, background_knowledge=bk, show_progress=False)
    assert sorted(map(tuple, np.argwhere(np.triu(cg.G.graph != 0)))) == [(0, 2), (1, 2)]


def test_against_causal_learn_itself():
    pytest.importorskip("causallearn")
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.search.ConstraintBased.PC import pc as cl_pc
    from causallearn.utils.PCUtils.BackgroundKnowledge import BackgroundKnowledge
    from causallearn.utils.PCUtils.SkeletonDiscovery import skeleton_discovery as cl_skeleton
    from causallearn.utils.cit import CIT as ClCIT

    x = collider_chain()
    node = {v: GraphNode(v) for v in NAMES}
    cases = [
        BackgroundKnowledge().add_forbidden_by_pattern("X[12]", "X3").add_required_by_node(node["X1"], node["X4"]),
        BackgroundKnowledge().add_node_to_tier(node["X1"], 0).add_node_to_tier(node["X2"], 0)
        .add_node_to_tier(node["X3"], 1).add_node_to_tier(node["X4"], 1).forbid_within_tier(1),
        BackgroundKnowledge().add_required_by_pattern("X4", "X3").add_forbidden_by_node(node["X2"], node["X1"]),
    ]
    for bk in cases:
        for rule in (0, 1, 2):
            theirs = cl_pc(x, 0.05, "fisherz", True, rule, -1, background_knowledge=bk, show_progress=False)
            ours = cl.pc(x, 0.05, "fisherz", True, rule, -1, background_knowledge=bk, show_progress=False)
            np.testing.assert_array_equal(ours.G.graph, theirs.G.graph)
        theirs = cl_skeleton(x, 0.05, ClCIT(x, "fisherz"), True, background_knowledge=bk, show_progress=False)
        ours = cl.skeleton_discovery(x, 0.05, cl.CIT(x, "fisherz"), True, background_knowledge=bk,
                                     show_progress=False)
        np.testing.assert_array_equal(ours.G.graph, theirs.G.graph)
        assert all(repr(theirs.sepset[i, j]) == repr(ours.sepset[i, j]) for i in range(4) for j in range(4))


def test_fci_reads_pattern_rules_as_the_node_rules_they_match():
    x = collider_chain()
    by_pattern = knowledge(forbid_patterns={("X[12]", "X3")}, require_patterns={("X3$", "X4")})
    by_node = knowledge(forbid={("X1", "X3"), ("X2", "X3")}, require={("X3", "X4")})
    a, _ = cl.fci(x, "fisherz", 0.05, background_knowledge=by_pattern, show_progress=False)
    b, _ = cl.fci(x, "fisherz", 0.05, background_knowledge=by_node, show_progress=False)
    np.testing.assert_array_equal(a.graph, b.graph)
    assert a.graph[3, 2] == 1 and a.graph[2, 3] == -1  # X3 --> X4 required
