# SPDX-License-Identifier: Apache-2.0
"""causal-learn's face of cudag: ``pc(data, alpha, indep_test, stable, uc_rule, uc_priority,
...)`` with causal-learn's positional order and defaults, returning an object shaped as
causal-learn's ``CausalGraph`` (``.G.graph`` is causal-learn's endpoint matrix, ``.G`` a
causal-learn ``GeneralGraph`` when causal-learn is installed), computed by cudag with
``compat="causal-learn"`` (causal-learn's p-value arithmetic, strict decisions, its
orientation rules): the same matrices as causal-learn's own ``pc`` (tests/python). causal-learn
is not a dependency; without it ``.G`` is a small stand-in with the same ``graph`` matrix.
The ``CausalGraph`` has every public member of causal-learn 0.1.4.8's (``sepset`` exactly
causal-learn's lists, definiteMaxP's triples, the queries of the matrix, networkx and pydot
views); ``CIT`` is causal-learn's test object (its cache and JSON cache file, its errors).
``fci(dataset, independence_test_method, alpha, depth, ...)`` returns causal-learn's
``(graph, edges)``, the PAG computed by cudag as pcalg's fci (see :func:`fci`).

    from cudag.compat.causallearn import pc
    cg = pc(data, 0.05, "fisherz", node_names=names)
    cg.G.graph          # [i, j] = -1 tail, 1 arrowhead at i's end of i - j, 0 no edge
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import os
import re
import time

import numpy as np

import cudag

__all__ = ["pc", "skeleton_discovery", "fci", "CausalGraph", "CIT", "D_SEPARATION"]

#: causal-learn's test names (and its CIT constants' values) and cudag's.
TESTS = {"fisherz": "fisher-z", "chisq": "chi-square", "gsq": "g-square"}
#: causal-learn's tests with test-wise deletion of missing values (NaN), and cudag's test run
#: with ``missing="testwise"``.
MISSING_TESTS = {"mv_fisherz": "fisher-z"}


#: causal-learn's d-separation "test" (its constant ``causallearn.utils.cit.d_separation``).
D_SEPARATION = "d_separation"


def _method_name(indep_test) -> str:
    """causal-learn's name of a test given as its name, a function of that name (older
    causal-learn) or a test object (its ``method``, as skeleton_discovery takes a CIT)."""
    if isinstance(indep_test, str):
        return indep_test
    method = getattr(indep_test, "method", None)
    return method if isinstance(method, str) else getattr(indep_test, "__name__", str(indep_test))


def _missing(indep_test) -> dict:
    """``missing="testwise"`` for causal-learn's test-wise deletion tests (mv_fisherz), else {}."""
    name = _method_name(indep_test)
    return {"missing": "testwise"} if name in MISSING_TESTS else {}


def _test_name(indep_test) -> str:
    name = _method_name(indep_test)
    if name in TESTS:
        return TESTS[name]
    if name in MISSING_TESTS:
        return MISSING_TESTS[name]
    if name in TESTS.values() or name == D_SEPARATION:
        return name
    raise ValueError(f"indep_test={name!r}: cudag runs {', '.join([*TESTS, *MISSING_TESTS])} in causal-learn's "
                     "arithmetic, and "
                     f"{D_SEPARATION} with true_dag= (and cmiknn through cudag.pc(test='cmiknn'))")


def _oracle(x: np.ndarray, names: list[str], true_dag) -> dict:
    """causal-learn's d_separation test on ``true_dag`` as cudag.pc/fci's oracle= and latent=.
    causal-learn asks networkx whether nodes X and Y of true_dag are d-separated given the nodes
    S, where X, Y and S are column indices of the data (which are otherwise unused): column k is
    the node ``k`` of true_dag, and its other nodes (any label) are hidden. Here the DAG is
    handed over with the columns first, named ``names``, then the hidden nodes. ``true_dag``: a
    networkx DiGraph as causal-learn takes it, or an N x N 0/1 adjacency (``[i, j] = 1`` for
    i --> j; nodes 0..N-1, those from the column count on hidden)."""
    if true_dag is None:
        raise ValueError("indep_test='d_separation' needs true_dag= (the DAG whose d-separations answer "
                         "the tests)")
    n = x.shape[1] if x.ndim == 2 else -1
    if n < 0:
        raise ValueError(f"the data must be 2-D (samples x variables; with d_separation only its column count "
                         f"is used), not {x.ndim}-D")
    if hasattr(true_dag, "nodes") and hasattr(true_dag, "edges"):
        if hasattr(true_dag, "is_directed") and not true_dag.is_directed():
            raise ValueError("true_dag is an undirected graph; d_separation needs a DAG (a networkx DiGraph)")
        nodes = list(true_dag.nodes)
        edges = list(true_dag.edges())
    else:
        a = np.asarray(true_dag)
        if a.ndim != 2 or a.shape[0] != a.shape[1] or a.dtype.kind not in "biuf" or not np.isin(a, (0, 1)).all():
            raise ValueError("true_dag= takes a networkx DiGraph or a square 0/1 adjacency matrix "
                             "([i, j] = 1 for i --> j)")
        nodes = list(range(a.shape[0]))
        edges = [tuple(e) for e in np.argwhere(a != 0).tolist()]
    present = set(nodes)
    missing = [k for k in range(n) if k not in present]
    if missing:
        raise ValueError(f"true_dag has no node {missing[0]} for column {missing[0]} of the data (column k is "
                         f"node k; {len(missing)} of the {n} columns have no node)")
    columns = set(range(n))
    hidden = [v for v in nodes if v not in columns]
    taken = set(names)
    labels = {}
    for v in hidden:  # a name for each hidden node, unlike every column's
        label = f"latent[{v!r}]"
        while label in taken:
            label = "_" + label
        taken.add(label)
        labels[v] = label
    index = {k: k for k in range(n)}
    index.update({v: n + j for j, v in enumerate(hidden)})
    adjacency = np.zeros((n + len(hidden),) * 2, dtype=np.int8)
    for a, b in edges:
        adjacency[index[a], index[b]] = 1
    out = {"oracle": adjacency, "names": list(names) + [labels[v] for v in hidden]}
    if hidden:
        out["latent"] = [labels[v] for v in hidden]
    return out


def _knowledge_rules(bk, names: list[str]) -> tuple:
    """causal-learn's BackgroundKnowledge as (forbidden directions, required directions, tiers)
    between the names: its node rules, its pattern rules resolved on the names as its
    is_forbidden/is_required match them (``re.match`` of the first pattern on the tail's name
    and of the second on the head's), the pairs of each tier with edges forbidden within it
    (``forbid_within_tier``) both ways, and its tiers in increasing tier number."""
    def name(node) -> str:
        return node.get_name() if hasattr(node, "get_name") else str(node)

    forbid = [(name(a), name(b)) for a, b in getattr(bk, "forbidden_rules_specs", ())]
    require = [(name(a), name(b)) for a, b in getattr(bk, "required_rules_specs", ())]
    unknown = {a for pair in forbid + require for a in pair} - set(names)
    if unknown:
        raise ValueError(f"background_knowledge names nodes that are not in node_names: {sorted(unknown)}")
    for rules, out in ((getattr(bk, "forbidden_pattern_rules_specs", None) or (), forbid),
                       (getattr(bk, "required_pattern_rules_specs", None) or (), require)):
        for first, second in rules:
            try:
                tails = [a for a in names if re.match(first, a) is not None]
                heads = [b for b in names if re.match(second, b) is not None]
            except (re.error, TypeError) as e:
                raise ValueError(f"background_knowledge: pattern rule ({first!r}, {second!r}) is not a regular "
                                 f"expression ({e})") from None
            out.extend((a, b) for a in tails for b in heads if a != b)
    tier_map = getattr(bk, "tier_map", None) or {}
    tiers = [sorted(name(node) for node in tier_map[t]) for t in sorted(tier_map)]
    unknown = {a for tier in tiers for a in tier} - set(names)
    if unknown:
        raise ValueError(f"background_knowledge puts nodes in tiers that are not in node_names: {sorted(unknown)}")
    for t in sorted(getattr(bk, "forbidden_within_tiers", None) or ()):
        members = sorted(name(node) for node in tier_map.get(t, ()))
        forbid.extend((a, b) for a in members for b in members if a != b)
    return list(dict.fromkeys(forbid)), list(dict.fromkeys(require)), [t for t in tiers if t]


def _knowledge(bk, names: list[str]) -> dict:
    """causal-learn's BackgroundKnowledge (forbidden and required rules between nodes or name
    patterns, tiers, edges forbidden within tiers) as cudag.pc's forbid=/require=/tiers=
    values, by node name (see :func:`_knowledge_rules`)."""
    if bk is None:
        return {}
    forbid, require, tiers = _knowledge_rules(bk, names)
    out = {}
    if tiers:
        out["tiers"] = tiers
    if forbid:
        out["forbid"] = forbid
    if require:
        out["require"] = require
    return out


def _banned_pairs(bk, names: list[str]) -> list:
    """The pairs causal-learn's skeleton search removes by background knowledge (both
    directions forbidden, by rules, patterns or tiers), each as both directions."""
    if bk is None:
        return []
    forbid, _, tiers = _knowledge_rules(bk, names)
    rank = {a: k for k, tier in enumerate(tiers) for a in tier}
    banned = set(forbid)
    banned |= {(a, b) for a in rank for b in rank if rank[a] > rank[b]}
    return sorted((a, b) for a, b in banned if (b, a) in banned)


class _Node:
    """The stand-in for causal-learn's GraphNode when causal-learn is not installed."""

    def __init__(self, name: str):
        self._name = str(name)

    def get_name(self) -> str:
        return self._name

    def __str__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return self._name

    def __eq__(self, other) -> bool:
        return isinstance(other, _Node) and other._name == self._name

    def __hash__(self) -> int:
        return hash(self._name)


class _Graph:
    """The stand-in for causal-learn's GeneralGraph when causal-learn is not installed: its
    endpoint matrix ``graph`` ([i, j] the mark at i's end of i - j: -1 tail, 1 arrowhead, 2
    circle, 0 no edge), ``nodes`` and its queries of them by node."""

    def __init__(self, graph: np.ndarray, names: list[str]):
        self.graph = graph
        self.nodes = [_Node(n) for n in names]
        self.node_map = {node: k for k, node in enumerate(self.nodes)}

    def get_nodes(self) -> list:
        return list(self.nodes)

    def get_node(self, name: str):
        return next((node for node in self.nodes if node.get_name() == name), None)

    def get_node_names(self) -> list[str]:
        return [node.get_name() for node in self.nodes]

    def get_num_nodes(self) -> int:
        return len(self.nodes)

    def get_num_edges(self) -> int:
        return int(np.count_nonzero(np.triu((self.graph != 0) | (self.graph.T != 0))))

    def _index(self, node) -> int:
        return self.node_map[node]

    def is_adjacent_to(self, a, b) -> bool:
        return bool(self.graph[self._index(a), self._index(b)] != 0)

    def get_adjacent_nodes(self, node) -> list:
        i = self._index(node)
        return [self.nodes[j] for j in np.flatnonzero(self.graph[i, :] != 0)]

    def is_parent_of(self, a, b) -> bool:
        """a --> b."""
        i, j = self._index(a), self._index(b)
        return bool(self.graph[i, j] == -1 and self.graph[j, i] == 1)

    def is_child_of(self, a, b) -> bool:
        return self.is_parent_of(b, a)

    def get_parents(self, node) -> list:
        return [v for v in self.get_adjacent_nodes(node) if self.is_parent_of(v, node)]

    def get_children(self, node) -> list:
        return [v for v in self.get_adjacent_nodes(node) if self.is_parent_of(node, v)]

    def __repr__(self) -> str:
        return f"cudag GeneralGraph stand-in ({len(self.nodes)} nodes, {self.get_num_edges()} edges)"


def _general_graph(graph: np.ndarray, names: list[str]):
    try:
        from causallearn.graph.GeneralGraph import GeneralGraph
        from causallearn.graph.GraphNode import GraphNode
    except ImportError:
        return _Graph(graph, names)
    g = GeneralGraph([GraphNode(n) for n in names])
    g.graph = graph.copy()
    g.reconstitute_dpath(g.get_graph_edges())  # its directed-path matrix (is_ancestor_of, ...)
    return g


def _networkx(what: str):
    try:
        import networkx
    except ImportError:
        raise ImportError(f"CausalGraph.{what} needs networkx (pip install networkx), as causal-learn's does") from None
    return networkx


def _insertion_ordered(sets) -> tuple:
    """The nodes of ``sets`` as causal-learn's skeleton search lists one side's separating
    sets of a pair: a Python set filled node by node, set by set, read back as a tuple (so
    CPython's set order, which for these integers depends on the order they came in)."""
    seen = set()
    for s in sets:
        for v in s:
            seen.add(np.int64(v))
    return tuple(seen)


def _sepsets(n: int, adjacency_at, removed_at, test_all, alpha: float) -> np.ndarray:
    """causal-learn's ``cg.sepset`` of its stable skeleton search: an n x n object array
    holding, for each pair removed at level l, the list its search appends to both [i, j]
    and [j, i] and None elsewhere. Its level l tests each adjacent pair from each end a
    (smaller index first), with every l-subset S of the other neighbours of a (increasing
    order of a's neighbours, as itertools.combinations walks them), and appends, at the end
    of that end's tests, the nodes of the sets with p > alpha (a union of that end's sets;
    () at level 0) when one was found there or when the other end, tested before, found
    one. An end whose node has fewer than l - 1 neighbours is skipped at level l.

    ``adjacency_at(l)``: the n x n adjacency at the start of level l; ``removed_at``: {l:
    pairs (i, j), i < j, removed at level l}; ``test_all(queries)``: p of each (a, b, S)."""
    out = np.empty((n, n), dtype=object)
    for level in sorted(removed_at):
        pairs = sorted(removed_at[level])
        if level == 0:
            for i, j in pairs:
                out[i, j] = [(), ()]
                out[j, i] = [(), ()]
            continue
        adj = adjacency_at(level)
        neighbours = [np.flatnonzero(adj[v]) for v in range(n)]
        queries, slots = [], []
        for i, j in pairs:
            for a, b in ((i, j), (j, i)):
                others = [int(v) for v in neighbours[a] if v != b]
                for s in itertools.combinations(others, level):
                    slots.append((i, j, a))
                    queries.append((a, b, s))
        ps = test_all(queries) if queries else []
        found: dict = {}
        for (i, j, a), (_, _, s), p in zip(slots, queries, ps):
            if p > alpha:
                found.setdefault((i, j, a), []).append(s)
        for i, j in pairs:
            entry = []
            first, second = found.get((i, j, i)), found.get((i, j, j))
            if first is not None:
                entry.append(_insertion_ordered(first))
            if second is not None:
                entry.append(_insertion_ordered(second))
            elif first is not None and len(neighbours[j]) >= level - 1:
                entry.append(())
            if entry:
                out[i, j] = entry
                out[j, i] = list(entry)
    return out


class CausalGraph:
    """What causal-learn's ``pc`` returns (its ``CausalGraph``, every public member), computed
    by cudag: ``G`` (causal-learn's ``GeneralGraph`` when causal-learn is installed, else a
    stand-in with the same ``graph`` matrix, ``nodes`` and node queries), ``sepset`` (an
    n x n object array: for a pair removed by the skeleton search, the list of what
    causal-learn's stable search appends, one tuple per end that found separating sets, the
    nodes of that end's sets in causal-learn's order, ``[(), ()]`` at level 0; None for
    adjacent pairs; built on first use by re-running the removed pairs' tests of their
    level, see :func:`_sepsets`), ``test`` (the :class:`CIT`), ``PC_elapsed`` (seconds),
    ``definite_UC``/``definite_non_UC`` (uc_rule=2: definiteMaxP's triples, built on first
    use by its tests through ``test``; empty for other rules and with background knowledge),
    ``redundant_nodes``, ``prt_m``, ``labels``, ``nx_graph``/``nx_skel`` (networkx graphs,
    filled by ``to_nx_graph()``/``to_nx_skeleton()``), the queries of the matrix
    (``find_fully_directed()``, ``find_undirected()``, ``find_unshielded_triples()``,
    ``find_kites()``, ``find_cond_sets(i, j)``, ...), ``ci_test(i, j, S)``,
    ``draw_nx_graph()``, ``draw_pydot_graph()`` (pydot and matplotlib), and ``result``, the
    full :class:`cudag.PcResult`. Node pairs and indices are numpy integers, as
    causal-learn's."""

    def __init__(self, result: cudag.PcResult, test=None, sepsets=None, definite=None):
        self.result = result
        self.node_names = list(result.names)
        self.G = _general_graph(np.asarray(result.cl_matrix, dtype=int), self.node_names)
        self._test = test  # a CIT, or a callable making it on first use
        self._sepset = None
        self._sepset_maker = sepsets
        self._definite = None
        self._definite_maker = definite
        self.PC_elapsed = result.seconds  # causal-learn's run time attribute
        self.redundant_nodes: list = []
        self.labels: dict = {}
        self.prt_m: dict = {}

    # ---- sepset, built on first use ---------------------------------------------------
    @property
    def sepset(self) -> np.ndarray:
        if self._sepset is None:
            n = len(self.node_names)
            self._sepset = self._sepset_maker() if self._sepset_maker is not None else np.empty((n, n), dtype=object)
            self._sepset_maker = None
        return self._sepset

    @sepset.setter
    def sepset(self, value) -> None:
        self._sepset = value
        self._sepset_maker = None

    # ---- definiteMaxP's triples (uc_rule=2), built on first use -------------------------
    def _definite_triples(self) -> tuple:
        if self._definite is None:
            self._definite = self._definite_maker() if self._definite_maker is not None else ([], [])
            self._definite_maker = None
        return self._definite

    @property
    def definite_UC(self) -> list:
        """uc_rule=2 (definiteMaxP): the unshielded colliders it oriented, (x, y, z) for
        x --> y <-- z, in its order; else []."""
        return self._definite_triples()[0]

    @definite_UC.setter
    def definite_UC(self, value) -> None:
        self._definite = (value, self._definite_triples()[1])

    @property
    def definite_non_UC(self) -> list:
        """uc_rule=2 (definiteMaxP): the unshielded triples it found definite non-colliders,
        (x, y, z) with x < z, in its order; else []."""
        return self._definite_triples()[1]

    @definite_non_UC.setter
    def definite_non_UC(self, value) -> None:
        self._definite = (self._definite_triples()[0], value)

    # ---- networkx views (causal-learn's attributes; built by to_nx_graph/to_nx_skeleton) --
    def __getattr__(self, name):
        # nx_graph and nx_skel: networkx graphs made on first use (networkx is optional); an
        # empty nx_graph is filled here as causal-learn's get_adjacancy_matrix expects it.
        if name == "nx_graph":
            self.__dict__["nx_graph"] = _networkx("nx_graph").DiGraph()
            self.to_nx_graph()
            return self.__dict__["nx_graph"]
        if name == "nx_skel":
            self.__dict__["nx_skel"] = _networkx("nx_skel").Graph()
            return self.__dict__["nx_skel"]
        raise AttributeError(f"'CausalGraph' object has no attribute '{name}'")

    # ---- the test ---------------------------------------------------------------------
    @property
    def test(self):
        """The :class:`CIT` of the run (made on first use: its set-up reads the data again)."""
        if self._test is not None and not isinstance(self._test, CIT) and getattr(self._test, "_cit_maker", False):
            self._test = self._test()
        return self._test

    @test.setter
    def test(self, value) -> None:
        self._test = value

    def set_ind_test(self, indep_test) -> None:
        """The conditional-independence test ``ci_test`` runs (a :class:`CIT`)."""
        self.test = indep_test

    def ci_test(self, i: int, j: int, S) -> float:
        """The p-value of i _||_ j given S, by ``test``."""
        if self.test is None:
            raise ValueError("CausalGraph.ci_test: no test set (set_ind_test(CIT(data, 'fisherz')))")
        return self.test(i, j, S)

    # ---- causal-learn's queries of the endpoint matrix G.graph ------------------------
    def _g(self) -> np.ndarray:
        return np.asarray(self.G.graph)

    def _marks(self, mark: int) -> list:
        """(j, i) for every [i, j] == mark, in row-major order of the matrix."""
        rows, cols = np.nonzero(self._g() == mark)
        return list(zip(cols, rows))

    def neighbors(self, i: int):
        """The nodes adjacent to node i (increasing)."""
        return np.flatnonzero(self._g()[i, :] != 0)

    def max_degree(self):
        """The largest number of edges at one node."""
        return max(np.sum(self._g() != 0, axis=1))

    def find_arrow_heads(self) -> list:
        """(i, j) for each arrowhead at j's end of i - j (i o-> j, i --> j, i <-> j)."""
        return self._marks(1)

    def find_tails(self) -> list:
        """(i, j) for each tail at j's end of i - j."""
        return self._marks(-1)

    def find_undirected(self) -> list:
        """(i, j) for each i --- j, both ways."""
        g = self._g()
        return [(a, b) for a, b in self.find_tails() if g[a, b] == -1]

    def find_fully_directed(self) -> list:
        """(i, j) for each i --> j."""
        g = self._g()
        return [(a, b) for a, b in self.find_arrow_heads() if g[a, b] == -1]

    def find_bi_directed(self) -> list:
        """(i, j) for each i <-> j, both ways."""
        g = self._g()
        return [(b, a) for a, b in self.find_arrow_heads() if g[b, a] == 1 and g[a, b] == 1]

    def find_adj(self) -> list:
        """(i, j) for each end of each edge: the tails' pairs, then the arrowheads'."""
        return self.find_tails() + self.find_arrow_heads()

    def is_undirected(self, i: int, j: int):
        """Whether i --- j."""
        g = self._g()
        return g[i, j] == -1 and g[j, i] == -1

    def is_fully_directed(self, i: int, j: int):
        """Whether i --> j."""
        g = self._g()
        return g[i, j] == -1 and g[j, i] == 1

    def _paths2(self, pairs: list) -> list:
        """(a, b, c) for every two entries (a, b), (b, c) of ``pairs`` at different positions
        with a != c, in the order itertools.permutations(pairs, 2) meets them."""
        by_first: dict = {}
        for k, (a, _) in enumerate(pairs):
            by_first.setdefault(int(a), []).append(k)
        out = []
        for k, (a, b) in enumerate(pairs):
            for m in by_first.get(int(b), ()):
                c = pairs[m][1]
                if m != k and a != c:
                    out.append((a, b, c))
        return out

    def find_unshielded_triples(self) -> list:
        """(i, j, k) for each i - j - k with i and k not adjacent (both ways)."""
        g = self._g()
        return [(a, b, c) for a, b, c in self._paths2(self.find_adj()) if g[a, c] == 0]

    def find_triangles(self) -> list:
        """(i, j, k) for each triangle i - j - k - i (every rotation and direction)."""
        adj = self.find_adj()
        present = {(int(a), int(b)) for a, b in adj}
        return [(a, b, c) for a, b, c in self._paths2(adj) if (int(a), int(c)) in present]

    def find_kites(self) -> list:
        """(i, j, k, l) for each kite i - j - l - k - i with i - l, j and k not adjacent, j < k."""
        g = self._g()
        tri = self.find_triangles()
        out = []
        for p in tri:
            for q in tri:
                if p is not q and p[0] == q[0] and p[2] == q[2] and p[1] < q[1] and g[p[1], q[1]] == 0:
                    out.append((p[0], p[1], q[1], p[2]))
        return out

    def find_cond_sets(self, i: int, j: int) -> list:
        """Every subset (a tuple) of i's neighbours and every subset of j's, each once (in the
        order of a Python set of them, as causal-learn lists them)."""
        def subsets(nodes):
            nodes = list(nodes)
            return [s for r in range(len(nodes) + 1) for s in itertools.combinations(nodes, r)]

        return list(set(subsets(self.neighbors(i)) + subsets(self.neighbors(j))))

    def find_cond_sets_with_mid(self, i: int, j: int, k: int) -> list:
        """find_cond_sets(i, j)'s sets holding k."""
        return [s for s in self.find_cond_sets(i, j) if k in s]

    def find_cond_sets_without_mid(self, i: int, j: int, k: int) -> list:
        """find_cond_sets(i, j)'s sets without k."""
        return [s for s in self.find_cond_sets(i, j) if k not in s]

    def rearrange(self, PATH):
        """causal-learn's: reorders ``adjmat`` (an attribute its CausalGraph no longer sets)
        by the ``X<k>`` column names of the tab-separated file PATH."""
        with open(PATH) as f:
            header = f.readline().rstrip("\n").split("\t")
        order = [int(name.split("X")[1]) - 1 for name in header]
        index = np.zeros(len(order), dtype=int)
        for k in range(1, len(order)):
            index[order[k]] = k
        adjmat = self.adjmat  # AttributeError, as in causal-learn, unless set by the caller
        self.adjmat = adjmat[np.ix_(index, index)]

    # ---- networkx and drawing ---------------------------------------------------------
    def to_nx_graph(self) -> None:
        """Fills ``nx_graph`` (a networkx DiGraph of the nodes 0..n-1 with an edge per
        undirected edge, both ways, color 'g', per directed edge, 'b', and per bidirected
        edge, both ways, 'r') and ``labels`` {index: name}. Needs networkx."""
        graph = self.__dict__.get("nx_graph")
        if graph is None:
            graph = self.__dict__["nx_graph"] = _networkx("to_nx_graph").DiGraph()
        nodes = range(len(self.node_names))
        self.labels = {i: self.node_names[i] for i in nodes}
        graph.add_nodes_from(nodes)
        for color, pairs in (("g", self.find_undirected()), ("b", self.find_fully_directed()),
                             ("r", self.find_bi_directed())):
            for i, j in pairs:
                graph.add_edge(i, j, color=color)

    def to_nx_skeleton(self) -> None:
        """Fills ``nx_skel`` (a networkx Graph: an edge per adjacency, color 'g'). Needs
        networkx."""
        skel = self.nx_skel
        skel.add_nodes_from(range(len(self.node_names)))
        for i, j in self.find_adj():
            if i < j:
                skel.add_edge(i, j, color="g")

    def draw_nx_graph(self, skel: bool = False) -> None:
        """Draws ``nx_graph`` (or ``nx_skel`` with skel=True) with networkx and matplotlib."""
        nx = _networkx("draw_nx_graph")
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("CausalGraph.draw_nx_graph needs matplotlib (pip install matplotlib)") from None
        if not skel:
            print("Green: undirected; Blue: directed; Red: bi-directed\n")
        g = self.nx_skel if skel else self.nx_graph
        colors = [g[u][v]["color"] for u, v in g.edges()]
        nx.draw(g, pos=nx.circular_layout(g), with_labels=True, labels=self.labels, edge_color=colors)
        plt.draw()
        plt.show()

    def to_pydot(self, labels: list[str] | None = None):
        """``G`` as a pydot graph (nodes labelled ``labels`` or their names; each edge with
        its two endpoint marks). Needs pydot."""
        try:
            import pydot
        except ImportError:
            raise ImportError("CausalGraph.draw_pydot_graph needs pydot (pip install pydot) and Graphviz, as "
                              "causal-learn's does") from None
        names = self.node_names if labels is None else [str(v) for v in labels]
        if len(names) != len(self.node_names):
            raise ValueError(f"labels: {len(names)} labels for {len(self.node_names)} nodes")
        g = self._g()
        dot = pydot.Dot("", graph_type="digraph", fontsize=18)
        dot.obj_dict["attributes"]["dpi"] = 200
        for k, name in enumerate(names):
            dot.add_node(pydot.Node(k, label=name))
        style = {-1: "none", 1: "normal", 2: "odot"}
        for i, j in zip(*np.nonzero(np.triu((g != 0) | (g.T != 0)))):
            # the mark at j's end of i - j is G.graph[j, i]
            dot.add_edge(pydot.Edge(int(i), int(j), dir="both", arrowtail=style.get(int(g[i, j]), "none"),
                                    arrowhead=style.get(int(g[j, i]), "none")))
        return dot

    def draw_pydot_graph(self, labels: list[str] | None = None) -> None:
        """Draws ``G`` through pydot (Graphviz) and matplotlib, as causal-learn's does."""
        dot = self.to_pydot(labels)
        try:
            import matplotlib.image as mpimg
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("CausalGraph.draw_pydot_graph needs matplotlib (pip install matplotlib)") from None
        img = mpimg.imread(io.BytesIO(dot.create_png(f="png")), format="png")
        plt.rcParams["figure.figsize"] = [20, 12]
        plt.rcParams["figure.autolayout"] = True
        plt.axis("off")
        plt.imshow(img)
        plt.show()

    def __repr__(self) -> str:
        return f"CausalGraph({self.G!r}) from cudag"


def _definite_maxp(skeleton: np.ndarray, names: list[str], test, alpha: float, priority: int) -> tuple:
    """causal-learn's definiteMaxP triples (uc_rule=2, no background knowledge) on the
    skeleton: each unshielded triple x - y - z (x < z, in find_unshielded_triples' order) is
    tested given the subsets of x's or z's neighbours (find_cond_sets' order) with y, until
    one separates (p > alpha: not a collider), and without y (one separating: not a
    non-collider; stopping once both are known false), keeping the largest p of each kind.
    Definite non-colliders are listed as found; the colliders, by p (priority 2, 3: the
    largest p with y; 4: without y; 3 ascending, 4 descending), are oriented x --> y <-- z
    in turn unless y --> x or y --> z already, and listed as oriented."""
    g = np.where(skeleton, -1, 0).astype(int)
    view = CausalGraph.__new__(CausalGraph)
    view.__dict__["G"] = _Graph(g, names)
    non_uc, scores = [], {}
    for x, y, z in view.find_unshielded_triples():
        if not x < z:
            continue
        best_with = best_without = 0
        collider = non_collider = True
        for s in view.find_cond_sets_with_mid(x, z, y):
            p = test(x, z, s)
            if p > alpha:
                collider = False
                break
            best_with = max(best_with, p)
        for s in view.find_cond_sets_without_mid(x, z, y):
            p = test(x, z, s)
            if p > alpha:
                non_collider = False
                if not collider:
                    break
            best_without = max(best_without, p)
        score = best_without if priority == 4 else best_with
        if collider and not (non_collider and best_without <= best_with):
            scores[(x, y, z)] = score
        elif non_collider:
            non_uc.append((x, y, z))
    order = list(scores)
    if priority in (3, 4):
        order = sorted(order, key=scores.__getitem__, reverse=priority == 4)
    uc = []
    for x, y, z in order:
        if not (g[y, x] == -1 and g[x, y] == 1) and not (g[y, z] == -1 and g[z, y] == 1):
            g[x, y], g[y, x] = -1, 1
            g[z, y], g[y, z] = -1, 1
            uc.append((x, y, z))
    return uc, non_uc


def _collinear_pair(x: np.ndarray):
    """Two columns of x that are exact linear functions of each other (|r| = 1 to 1e-12),
    or None: found by hashing the standardized columns (sign fixed) rounded to 8 digits."""
    if x.ndim != 2 or x.shape[0] < 2 or x.dtype.kind not in "fiu":
        return None
    z = x - x.mean(axis=0)
    norms = np.linalg.norm(z, axis=0)
    seen = {}
    for k in range(x.shape[1]):
        if not norms[k] > 0 or not np.isfinite(norms[k]):
            continue  # constant or not finite: cudag's own checks name it
        c = z[:, k] / norms[k]
        first = c[np.flatnonzero(np.abs(c) > 1e-6)[:1]]
        if len(first) and first[0] < 0:
            c = -c
        key = np.round(c, 8).tobytes()
        j = seen.setdefault(key, k)
        if j != k and abs(float(np.dot(z[:, j], z[:, k])) / (norms[j] * norms[k])) > 1 - 1e-12:
            return j, k
    return None


def _level_adjacency(run, result: cudag.PcResult):
    """The adjacency at the start of each level of ``result``'s search that removed pairs
    (from runs stopped at the level before, ``run(max_level)``; one run per such level but
    the deepest), and {level: pairs removed there}."""
    n = len(result.names)
    full = ~np.eye(n, dtype=bool)
    # level 0 always (pairs forbidden by background knowledge go there, tested or not)
    levels = [0] + [int(v["level"]) for v in result.levels if v["level"] > 0 and v.get("removed", 1) > 0]
    after = {levels[-1]: np.asarray(result.skeleton, dtype=bool)}
    for level in levels[:-1]:
        after[level] = np.asarray(run(level).skeleton, dtype=bool)
    start, removed = {}, {}
    before = full
    for level in levels:
        start[level] = before
        gone = np.argwhere(np.triu(before & ~after[level]))
        if len(gone):
            removed[level] = [(int(i), int(j)) for i, j in gone]
        before = after[level]
    return start.__getitem__, removed


def pc(data, alpha: float = 0.05, indep_test="fisherz", stable: bool = True, uc_rule: int = 0,
       uc_priority: int = 2, mvpc: bool = False, correction_name: str = "MV_Crtn_Fisher_Z",
       background_knowledge=None, verbose: bool = False, show_progress: bool = True, node_names=None,
       max_k: int | None = None, *, depth: int = -1, backend: str | None = None, threads: int | None = None,
       true_dag=None, cache_path: str | None = None, **kwargs) -> CausalGraph:
    """causal-learn's ``pc`` (same parameters, order and defaults), run by cudag.

    ``indep_test``: "fisherz", "chisq" or "gsq" (or causal-learn's constants of those names),
    or "d_separation" with ``true_dag=`` (a networkx DiGraph, or a 0/1 adjacency): as in
    causal-learn, each test of columns X, Y given S is d-separation of the nodes X, Y and S of
    true_dag (column k is its node ``k``; its other nodes are hidden), and only the data's
    column count is used (``np.empty((0, n))`` will do); cudag's oracle answers them.
    "mv_fisherz": Fisher-z with test-wise deletion of missing values (NaN), as causal-learn's.
    ``stable=False`` and ``mvpc=True`` are refused (cudag runs PC-stable; MVPC's correction
    is not implemented).
    ``max_k`` (causal-learn's) or ``depth``: the largest conditioning set (None / -1: no
    cap). ``backend``/``threads``: cudag's. ``show_progress`` draws a progress bar when tqdm
    is installed. fisherz on data with two exactly collinear columns raises causal-learn's
    ValueError (its level-0 test of them raises); a singular block deeper in the search is
    answered (cudag's search uses the pseudo-inverse there), where causal-learn may raise. ``cache_path``: causal-learn's p-value cache file (JSON) for the returned
    graph's ``test`` (:class:`CIT`): an existing one is checked against the data and test as
    causal-learn checks it; the file is written when the run ends (cudag's search does not
    need the cached p-values). ``background_knowledge``: causal-learn's BackgroundKnowledge
    (node rules, pattern rules resolved on the node names with ``re.match``, tiers,
    ``forbid_within_tier``), as causal-learn's pc uses it: a pair forbidden both ways leaves
    the skeleton at level 0, required edges are tested as any other pair and oriented if
    they stay (cudag.pc's require= keeps them: the search runs once without them first), the
    collider and Meek rules respect it. Other keywords go to the test, as causal-learn passes
    them."""
    if not stable:
        raise ValueError("stable=False: cudag runs PC-stable only (causal-learn's default, stable=True)")
    if mvpc:
        raise ValueError("mvpc=True: cudag has no MVPC correction; indep_test='mv_fisherz' runs PC with test-wise "
                         "deletion (causal-learn's mvpc=False)")
    del correction_name  # only used by mvpc
    x = np.asarray(data)
    if node_names is None:
        node_names = [f"X{k + 1}" for k in range(x.shape[1])]  # causal-learn's names
    names = list(node_names)
    test = _test_name(indep_test)
    opts = dict(alpha=alpha, compat="causal-learn", uc_rule=uc_rule, uc_priority=uc_priority, verbose=verbose,
                progress=True if show_progress else None)
    if max_k is not None:
        if isinstance(max_k, bool) or not isinstance(max_k, (int, np.integer)):
            raise TypeError(f"max_k must be an integer or None, not {type(max_k).__name__}")
        depth = int(max_k)
    if depth is not None and depth >= 0:
        opts["max_level"] = depth
    if backend is not None:
        opts["backend"] = backend
    if threads is not None:
        opts["threads"] = threads
    opts.update(_knowledge(background_knowledge, names))
    if test == "fisher-z" and not _missing(indep_test) and _collinear_pair(x) is not None:
        # causal-learn's fisherz raises at its level 0 test of the pair
        raise ValueError(_SINGULAR)
    if test == D_SEPARATION:
        source = _oracle(x, names, true_dag)

        def run(**extra):
            return cudag.pc(**{**opts, **extra}, **source)
    else:
        missing = _missing(indep_test)

        codes = _level_codes(x, test)

        def run(**extra):
            return cudag.pc(codes, test=test, names=names, **{**opts, **extra}, **missing)
    if opts.get("require"):
        # causal-learn's skeleton search tests required edges as any other (orienting them
        # after it), cudag's keeps them: the search without them first (the same tests on
        # every other pair while a required pair survives), then only the survivors required.
        free = np.asarray(run(require=[], progress=None, uc_rule=0, uc_priority=2).skeleton, dtype=bool)
        at = {v: k for k, v in enumerate(names)}
        opts["require"] = [(a, b) for a, b in opts["require"] if free[at[a], at[b]]]
        if not opts["require"]:
            del opts["require"]
    result = run()

    made = []

    def own_cit():  # the run's CIT, made once (cg.test until set_ind_test replaces it)
        if not made:
            made.append(CIT(x, indep_test, cache_path=cache_path, true_dag=true_dag, **kwargs))
        return made[0]

    own_cit._cit_maker = True
    cg = CausalGraph(result, own_cit)
    if cache_path is not None:  # read and checked now, as causal-learn does; written at once
        cg.test.save_to_local_cache(force=True)

    def sepsets():
        # the skeleton only: uc_rule 0's orientation is cheap where maxP's tests on a dense
        # early graph are not
        quiet = dict(progress=None, verbose=False, uc_rule=0, uc_priority=2)
        adjacency_at, removed = _level_adjacency(lambda level: run(max_level=level, **quiet), result)
        return _sepsets(len(names), adjacency_at, removed, own_cit()._test_all, alpha)

    cg._sepset_maker = sepsets
    if uc_rule == 2 and background_knowledge is None:
        def definite():
            return _definite_maxp(np.asarray(result.skeleton, dtype=bool), names, own_cit(), alpha,
                                  4 if uc_priority == -1 else uc_priority)

        cg._definite_maker = definite
    return cg


def skeleton_discovery(data, alpha: float, indep_test, stable: bool = True, background_knowledge=None,
                       verbose: bool = False, show_progress: bool = True, node_names=None, max_k: int | None = None,
                       **kwargs) -> CausalGraph:
    """causal-learn's ``SkeletonDiscovery.skeleton_discovery`` (same parameters, order and
    defaults), run by cudag: the :class:`CausalGraph` of PC-stable's skeleton search, ``G``
    with an undirected edge (``[i, j] = [j, i] = -1``) per adjacent pair, ``sepset`` and
    ``test`` as :func:`pc` makes them. ``background_knowledge`` removes, as causal-learn's
    skeleton search does, only the pairs whose both directions it forbids (by node rules,
    patterns or tiers); required edges are tested as any other (causal-learn orients them
    after the search). ``indep_test``: a test's name, as :func:`pc` takes it, or a test
    object (a :class:`CIT`, kept as ``test``, or causal-learn's: its ``method``). Other
    keywords as :func:`pc` takes them."""
    x = np.asarray(data)
    names = list(node_names) if node_names is not None else [f"X{k + 1}" for k in range(x.shape[1])]
    banned = _banned_pairs(background_knowledge, names)
    bk = _PairKnowledge(banned) if banned else None
    cg = pc(x, alpha, indep_test, stable, 0, 2, background_knowledge=bk, verbose=verbose,
            show_progress=show_progress, node_names=names, max_k=max_k, **kwargs)
    cg.G = _general_graph(np.where(np.asarray(cg.result.skeleton, dtype=bool), -1, 0).astype(int), names)
    if isinstance(indep_test, CIT):  # causal-learn's search keeps the test it was given
        cg.test = indep_test
    return cg


class _PairKnowledge:
    """Forbidden directions by name, read as a causal-learn BackgroundKnowledge by _knowledge."""

    def __init__(self, forbidden):
        self.forbidden_rules_specs = list(forbidden)
        self.required_rules_specs: list = []
        self.tier_map: dict = {}


def _fci_knowledge(bk, names: list[str]) -> dict:
    """causal-learn's BackgroundKnowledge for cudag.fci(compat="causal-learn"): pc's mapping
    (forbidden and required node pairs as directions, tiers by tier number). Tiers with edges
    forbidden within them (forbid_within_tier) have no cudag counterpart and are refused."""
    if bk is not None and getattr(bk, "forbidden_within_tiers", None):
        raise ValueError("background_knowledge: forbid_within_tier has no cudag counterpart; forbid the "
                         "tier's pairs instead")
    return _knowledge(bk, names)


def fci(dataset, independence_test_method="fisherz", alpha: float = 0.05, depth: int = -1,
        max_path_length: int = -1, verbose: bool = False, background_knowledge=None, show_progress: bool = True,
        node_names=None, **kwargs):
    """causal-learn's ``fci`` (same parameters, order and defaults), run by cudag: returns
    ``(graph, edges)``, with causal-learn installed its ``GeneralGraph`` (nodes named
    ``node_names``, default X1..Xn; ``graph.graph[j, i] = 1, graph.graph[i, j] = 2`` for
    i o-> j, -1 a tail; ``Endpoint.TAIL``/``ARROW``/``CIRCLE`` edges) and the edge list
    causal-learn's ``get_color_edges`` makes of it (properties dd/pd, nl/pl). Without
    causal-learn: a stand-in with the same ``graph`` matrix and the edges as
    :meth:`cudag.FciResult.edges` rows (source, target, mark).

    The PAG is causal-learn 0.1.4.8's fci's (``cudag.fci(..., compat="causal-learn")``,
    ``cudag fci --compat causal-learn``): its fas skeleton (p > alpha, the union of a level's
    separating sets), its per-edge Possible-D-SEP stage and its rules R0-R10 in its order; a
    test checks the 52 causal-learn runs of tests/data/fci. ``independence_test_method``:
    "fisherz", "chisq" or "gsq", or "d_separation" with ``true_dag=`` (as :func:`pc` takes
    them: column k is node ``k`` of true_dag, its other nodes hidden; the PAG is then the
    true PAG as causal-learn's fci finds it). ``depth``: the largest conditioning set of the skeleton
    (-1: no cap; cudag's max_level). ``max_path_length``: causal-learn's (-1: no cap; it
    caps the discriminating paths of rule R4). Two of causal-learn's loops walk Python sets of
    nodes in hash order: with ``PYTHONHASHSEED`` set to a number, cudag walks them as CPython
    does under it (``python_hash_seed``, which may also be given), else in node order (the
    same PAG on all reference runs). ``background_knowledge``: causal-learn's
    BackgroundKnowledge (forbidden and required node pairs, pattern rules resolved on the
    node names, tiers; not forbid_within_tier), used as causal-learn's fci uses it (a pair
    forbidden both ways is absent; rule0 orients the knowledge's edges; R0-R4 leave
    forbidden arrowheads out); a required edge the data separate is removed, as causal-learn's
    fas removes it (cudag.fci keeps required edges: the search runs once without them first,
    as :func:`pc` does).
    ``show_progress`` draws a progress bar when tqdm is installed. ``kwargs`` go to :func:`cudag.fci` (``backend``, ``threads``, ...);
    :class:`cudag.FciResult` holds more (separating sets, pMax, levels)."""
    if max_path_length is None or not isinstance(max_path_length, (int, np.integer)):
        raise TypeError("'max_path_length' must be 'int' type!")  # causal-learn's check
    x = np.asarray(dataset)
    if node_names is None:
        node_names = [f"X{k + 1}" for k in range(x.shape[1])]  # causal-learn's names
    names = list(node_names)
    test = _test_name(independence_test_method)
    true_dag = kwargs.pop("true_dag", None)  # causal-learn hands it to its CIT (other tests ignore it)
    opts = dict(alpha=alpha, verbose=verbose, progress=True if show_progress else None, compat="causal-learn",
                max_path_length=int(max_path_length))
    if depth is not None and depth >= 0:
        opts["max_level"] = depth
    seed = os.environ.get("PYTHONHASHSEED", "")
    if seed.isdigit() and int(seed) <= 4294967295:  # causal-learn's set order in this interpreter
        opts["python_hash_seed"] = int(seed)
    opts.update(_fci_knowledge(background_knowledge, names))
    opts.update(kwargs)
    if test == D_SEPARATION:
        source = _oracle(x, names, true_dag)
    else:
        source = dict(data=_level_codes(x, test), test=test, names=names, **_missing(independence_test_method))

    def run(**extra):
        return cudag.fci(**{**opts, **extra}, **source)

    if opts.get("require"):
        # causal-learn's fas (and Possible-D-SEP) test required edges as any other pair, cudag
        # keeps them: the search without them first (the same tests on every other pair while a
        # required pair survives), then only the survivors required, as pc does.
        free = np.asarray(run(require=[]).cl_matrix) != 0
        at = {v: k for k, v in enumerate(names)}
        opts["require"] = [(a, b) for a, b in opts["require"] if free[at[a], at[b]]]
        if not opts["require"]:
            del opts["require"]
    res = run()
    try:
        from causallearn.search.ConstraintBased.FCI import get_color_edges
    except ImportError:
        return _Graph(res.cl_matrix.astype(int), names), res.edges()
    g = res.to_causallearn()
    # causal-learn's own edge properties; it prints each visible edge as it goes.
    with contextlib.nullcontext() if verbose else contextlib.redirect_stdout(io.StringIO()):
        edges = get_color_edges(g)
    return g, edges


#: What causal-learn's cache holds as a test's parameters when it has none.
_NO_PARAMETERS = "NO SPECIFIED PARAMETERS"
#: causal-learn's fisherz message for a singular correlation block.
_SINGULAR = "Data correlation matrix is singular. Cannot run fisherz test. Please check your data."


def _dag_parents(true_dag, n: int):
    """Parents and children of each node of ``true_dag`` (a networkx DiGraph whose nodes
    0..n-1 are the data's columns, or an N x N 0/1 adjacency), by position: the columns
    first, then the other nodes."""
    if hasattr(true_dag, "nodes") and hasattr(true_dag, "edges"):
        nodes = list(true_dag.nodes)
        edges = list(true_dag.edges())
    else:
        a = np.asarray(true_dag)
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise ValueError("true_dag= takes a networkx DiGraph or a square 0/1 adjacency matrix")
        nodes = list(range(a.shape[0]))
        edges = [(int(i), int(j)) for i, j in np.argwhere(a != 0)]
    missing = [k for k in range(n) if k not in set(nodes)]
    if missing:
        raise ValueError(f"true_dag has no node {missing[0]} for column {missing[0]} of the data")
    order = list(range(n)) + [v for v in nodes if not (isinstance(v, (int, np.integer)) and 0 <= v < n)]
    index = {v: k for k, v in enumerate(order)}
    parents = [[] for _ in order]
    children = [[] for _ in order]
    for a, b in edges:
        parents[index[b]].append(index[a])
        children[index[a]].append(index[b])
    return parents, children


def _d_separated(parents, children, x: int, y: int, given) -> bool:
    """Whether x and y are d-separated by ``given`` in the DAG (reachability of y from x by
    active trails: a trail enters a node from a child, going up, or from a parent, going
    down; a collider passes only when it or a descendant is given)."""
    z = set(given)
    ancestors_of_z, stack = set(), list(z)
    while stack:
        v = stack.pop()
        if v not in ancestors_of_z:
            ancestors_of_z.add(v)
            stack.extend(parents[v])
    seen, stack = set(), [(x, True)]  # (node, arrived going up)
    while stack:
        v, up = stack.pop()
        if (v, up) in seen:
            continue
        seen.add((v, up))
        if v == y:
            return False
        if up:
            if v not in z:
                stack.extend((p, True) for p in parents[v])
                stack.extend((c, False) for c in children[v])
        else:
            if v not in z:
                stack.extend((c, False) for c in children[v])
            if v in ancestors_of_z:
                stack.extend((p, True) for p in parents[v])
    return True


#: cudag's native base of CIT: its call answered from the p-values computed so far (keyed as
#: causal-learn keys them) without a Python frame; None with a module built without it.
_CitBase = getattr(getattr(cudag, "_cudag", None), "CitMemo", None)


def _level_codes(x: np.ndarray, test: str) -> np.ndarray:
    """Discrete data for chisq / gsq as causal-learn reads them: each column's distinct values
    (any numbers) as its levels, coded 0..k-1 in increasing order (CIT does the same)."""
    if test not in ("chi-square", "g-square") or x.ndim != 2 or not np.issubdtype(x.dtype, np.number):
        return x
    if np.isnan(x.astype(float)).any():
        return x
    return np.apply_along_axis(lambda c: np.unique(c, return_inverse=True)[1], 0, x).astype(np.int64)


class CIT(_CitBase or object):
    """causal-learn's ``CIT(data, method, **kwargs)``: ``cit(X, Y, condition_set)`` is the
    p-value of column X _||_ column Y given the columns of condition_set (indices), with
    causal-learn's arithmetic, computed by a :class:`cudag.Tester` that reads the data once
    (Fisher-z: from the correlation matrix, once its tests outweigh computing it).
    ``method``: "fisherz", "chisq", "gsq", "mv_fisherz" (test-wise deletion of NaN values)
    or "d_separation" (with ``true_dag=``: 1.0 where X and Y are d-separated by the set in
    true_dag, else 0.0). Fisher-z on a singular correlation block (a column a linear function
    of others among X, Y and the set) raises causal-learn's ValueError.

    Results are kept in ``pvalue_cache`` as causal-learn keeps them (keys ``"X;Y|S1.S2"``,
    X < Y, the set sorted; ``data_hash``, ``method_name``, ``parameters_hash``); with
    ``cache_path`` (a ``.json`` file) an existing cache is read (refused when written for
    other data or another test) and the cache is written every 30 s of calls, as causal-learn
    writes it, and by ``save_to_local_cache(force=True)``.

    A test asked before is answered from a table of the p-values computed (in cudag's
    native base class, keyed as causal-learn's cache: X < Y, the set sorted without
    repeats), without a Python frame or reading ``pvalue_cache`` again: a new float of the
    same bits as the first answer; with ``cache_path`` every call goes through
    ``pvalue_cache``, as causal-learn's, so that the file is written on its cycle."""

    SAVE_CACHE_CYCLE_SECONDS = 30

    def __init__(self, data, method: str = "fisherz", cache_path: str | None = None, **kwargs):
        if _CitBase is not None:
            super().__init__()
            self._enable_vectorcall()  # calls without an argument tuple (once per class)
        name = _method_name(method)
        true_dag = kwargs.pop("true_dag", None)
        x = np.asarray(data)
        if x.ndim != 2:
            raise ValueError(f"CIT: the data must be 2-D (samples x variables), not {x.ndim}-D")
        if name in ("chisq", "gsq"):  # causal-learn keeps (and hashes) the columns' codes 0..k-1
            x = np.apply_along_axis(lambda c: np.unique(c, return_inverse=True)[1], 0, x).astype(np.int64)
        self.method = name
        self.data = x
        self.sample_size, self.num_features = x.shape
        self.data_hash = hashlib.md5(str(x).encode("utf-8")).hexdigest()
        self.cache_path = cache_path
        self.last_time_cache_saved = time.time()
        self.pvalue_cache = {"data_hash": self.data_hash}
        self._tester = None
        self._dag = None
        if name == D_SEPARATION:
            if true_dag is None:
                raise ValueError("CIT(..., 'd_separation') needs true_dag= (the DAG whose d-separations answer the "
                                 "tests)")
            self._dag = _dag_parents(true_dag, x.shape[1])
        else:
            test = _test_name(name)
            self._tester = cudag.tester(x, test, names=[f"X{k + 1}" for k in range(x.shape[1])],
                                        compat="causal-learn", **_missing(name), **kwargs)
        if cache_path is not None:
            cache_path = os.fspath(cache_path)
            if not cache_path.endswith(".json"):
                raise ValueError(f"cache_path={cache_path!r}: the cache is a .json file")
            if os.path.exists(cache_path):
                with open(cache_path) as f:
                    try:
                        cache = json.load(f)
                    except ValueError as e:
                        raise ValueError(f"{cache_path}: not a JSON p-value cache ({e})") from None
                if not isinstance(cache, dict) or cache.get("data_hash") != self.data_hash:
                    raise ValueError(f"{cache_path}: the cache was written for other data (its data_hash differs)")
                if cache.get("method_name", name) != name:
                    raise ValueError(f"{cache_path}: the cache holds {cache['method_name']!r} tests, not {name!r}")
                self.pvalue_cache = cache
            else:
                folder = os.path.dirname(cache_path)
                if folder:
                    os.makedirs(folder, exist_ok=True)
            self.cache_path = cache_path
            if _CitBase is not None:
                self._memo_enabled = False
        self.pvalue_cache["method_name"] = name
        self.pvalue_cache["parameters_hash"] = _NO_PARAMETERS

    def save_to_local_cache(self, force: bool = False) -> None:
        """Writes ``pvalue_cache`` to ``cache_path`` (if any) when 30 s have passed since the
        last write (as causal-learn does at each call), or now with force=True."""
        if self.cache_path is None:
            return
        if force or time.time() - self.last_time_cache_saved > self.SAVE_CACHE_CYCLE_SECONDS:
            text = json.dumps(self.pvalue_cache, indent=2)
            with open(self.cache_path, "w") as f:
                f.write(text)
            self.last_time_cache_saved = time.time()

    def _key(self, X, Y, condition_set):
        """X, Y (X < Y), the set (sorted, no repeats) and causal-learn's key "X;Y|S1.S2"."""
        given = sorted({int(v) for v in condition_set}) if condition_set is not None else []
        X, Y = int(X), int(Y)
        if Y < X:
            X, Y = Y, X
        if X in given or Y in given:
            raise ValueError(f"CIT: X and Y cannot be in condition_set (X={X}, Y={Y}, condition_set={given})")
        key = f"{X};{Y}|{'.'.join(map(str, given))}" if given else f"{X};{Y}"
        return X, Y, given, key

    def _run(self, X: int, Y: int, given: list) -> float:
        if self._dag is not None:
            return float(_d_separated(*self._dag, X, Y, given))
        try:  # the tester's engine by column index (no names, no result object)
            return self._tester._engine.p_value(X, Y, given)
        except cudag.InputError as e:
            if "is singular" in str(e):
                raise ValueError(_SINGULAR) from e
            raise

    if _CitBase is None:
        def __call__(self, X, Y, condition_set=None) -> float:
            return self._compute(X, Y, condition_set)

    def _compute(self, X, Y, condition_set=None) -> float:
        """A call not answered by the native table: causal-learn's ``pvalue_cache``, else the test."""
        Xs, Ys, given, key = self._key(X, Y, condition_set)
        p = self.pvalue_cache.get(key)
        if p is None:
            p = self.pvalue_cache[key] = self._run(Xs, Ys, given)
        self.save_to_local_cache()
        return p

    def _test_all(self, queries) -> list:
        """The p-value of each (X, Y, S) of ``queries``, those not in the cache in one batch
        (the cudag tester's test_batch: each the single test's p-value)."""
        keys = [self._key(a, b, s) for a, b, s in queries]
        todo = {}
        for X, Y, given, key in keys:
            if key not in self.pvalue_cache and key not in todo:
                todo[key] = (X, Y, given)
        if todo:
            if self._dag is not None:
                for key, (X, Y, given) in todo.items():
                    self.pvalue_cache[key] = self._run(X, Y, given)
            else:
                batch = self._tester.test_batch(list(todo.values()))
                for key, p in zip(todo, batch.p_value):
                    self.pvalue_cache[key] = float(p)
            self.save_to_local_cache()
        return [self.pvalue_cache[k[3]] for k in keys]
