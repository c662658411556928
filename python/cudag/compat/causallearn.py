# SPDX-License-Identifier: Apache-2.0
"""causal-learn's face of cudag: ``pc(data, alpha, indep_test, stable, uc_rule, uc_priority,
...)`` with causal-learn's positional order and defaults, returning an object shaped as
causal-learn's ``CausalGraph`` (``.G.graph`` is causal-learn's endpoint matrix, ``.G`` a
causal-learn ``GeneralGraph`` when causal-learn is installed), computed by cudag with
``compat="causal-learn"`` (causal-learn's p-value arithmetic, strict decisions, its
orientation rules): the same matrices as causal-learn's own ``pc`` (tests/python). causal-learn
is not a dependency; without it ``.G`` is a small stand-in with the same ``graph`` matrix.
``fci(dataset, independence_test_method, alpha, depth, ...)`` returns causal-learn's
``(graph, edges)``, the PAG computed by cudag as pcalg's fci (see :func:`fci`).

    from cudag.compat.causallearn import pc
    cg = pc(data, 0.05, "fisherz", node_names=names)
    cg.G.graph          # [i, j] = -1 tail, 1 arrowhead at i's end of i - j, 0 no edge
"""

from __future__ import annotations

import contextlib
import io
import os

import numpy as np

import cudag

__all__ = ["pc", "fci", "CausalGraph", "CIT", "D_SEPARATION"]

#: causal-learn's test names (and its CIT constants' values) and cudag's.
TESTS = {"fisherz": "fisher-z", "chisq": "chi-square", "gsq": "g-square"}
#: causal-learn's tests with test-wise deletion of missing values (NaN), and cudag's test run
#: with ``missing="testwise"``.
MISSING_TESTS = {"mv_fisherz": "fisher-z"}


#: causal-learn's d-separation "test" (its constant ``causallearn.utils.cit.d_separation``).
D_SEPARATION = "d_separation"


def _missing(indep_test) -> dict:
    """``missing="testwise"`` for causal-learn's test-wise deletion tests (mv_fisherz), else {}."""
    name = indep_test if isinstance(indep_test, str) else getattr(indep_test, "__name__", str(indep_test))
    return {"missing": "testwise"} if name in MISSING_TESTS else {}


def _test_name(indep_test) -> str:
    name = indep_test if isinstance(indep_test, str) else getattr(indep_test, "__name__", str(indep_test))
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


def _knowledge(bk, names: list[str]) -> dict:
    """causal-learn's BackgroundKnowledge (forbidden and required rules between nodes, tiers)
    as cudag.pc's forbid=/require=/tiers= values, by node name."""
    if bk is None:
        return {}

    def name(node) -> str:
        return node.get_name() if hasattr(node, "get_name") else str(node)

    out = {}
    forbid = [(name(a), name(b)) for a, b in getattr(bk, "forbidden_rules_specs", ())]
    require = [(name(a), name(b)) for a, b in getattr(bk, "required_rules_specs", ())]
    if getattr(bk, "forbidden_pattern_rules_specs", None) or getattr(bk, "required_pattern_rules_specs", None):
        raise ValueError("background_knowledge: pattern rules (regular expressions) are not supported; "
                         "give the node pairs")
    tier_map = getattr(bk, "tier_map", None) or {}
    if tier_map:
        tiers = []
        for t in sorted(tier_map):
            tiers.append(sorted(name(node) for node in tier_map[t]))
        out["tiers"] = tiers
    if forbid:
        out["forbid"] = forbid
    if require:
        out["require"] = require
    unknown = {a for pair in forbid + require for a in pair} - set(names)
    if unknown:
        raise ValueError(f"background_knowledge names nodes that are not in node_names: {sorted(unknown)}")
    return out


class _Graph:
    """The stand-in for causal-learn's GeneralGraph when causal-learn is not installed."""

    def __init__(self, graph: np.ndarray, names: list[str]):
        self.graph = graph
        self._names = list(names)

    def get_node_names(self) -> list[str]:
        return list(self._names)

    def get_num_edges(self) -> int:
        return int(np.count_nonzero(np.triu(self.graph != 0)))

    def __repr__(self) -> str:
        return f"cudag GeneralGraph stand-in ({len(self._names)} nodes, {self.get_num_edges()} edges)"


def _general_graph(graph: np.ndarray, names: list[str]):
    try:
        from causallearn.graph.GeneralGraph import GeneralGraph
        from causallearn.graph.GraphNode import GraphNode
    except ImportError:
        return _Graph(graph, names)
    g = GeneralGraph([GraphNode(n) for n in names])
    g.graph = graph.copy()
    return g


class CausalGraph:
    """What causal-learn's ``pc`` returns, as far as cudag computes it: ``G`` (``G.graph`` the
    endpoint matrix), ``sepset`` (n x n array; [i, j] ``[(), ()]`` for a pair removed at
    level 0 as causal-learn lists it, a list holding the separating set as a tuple for a
    later removal, None for adjacent pairs), ``node_names``, ``PC_elapsed`` (seconds), causal-learn's queries of the
    matrix (``find_fully_directed()``, ``find_undirected()``, ``find_bi_directed()``,
    ``find_arrow_heads()``, ``find_tails()``, ``find_adj()``, ``neighbors(i)``,
    ``max_degree()``, ``is_undirected(i, j)``, ``is_fully_directed(i, j)``), and ``result``, the
    full :class:`cudag.PcResult`."""

    def __init__(self, result: cudag.PcResult):
        self.result = result
        self.node_names = list(result.names)
        self.G = _general_graph(np.asarray(result.cl_matrix, dtype=int), self.node_names)
        n = len(self.node_names)
        # causal-learn's sepset: [(), ()] for a pair removed at level 0 (its stable search
        # tests the pair from both ends there and lists the empty set each time), a list
        # holding the set for a later removal (causal-learn lists every set it found, from
        # both ends: the union cudag keeps is not that list yet), None for adjacent pairs
        # and the diagonal.
        self.sepset = np.empty((n, n), dtype=object)
        adjacent = np.asarray(result.skeleton, dtype=bool)
        for i in range(n):
            for j in range(n):
                if i != j and not adjacent[i, j]:
                    self.sepset[i, j] = [(), ()]
        for (i, j), s in result.sepsets.items():
            self.sepset[i, j] = self.sepset[j, i] = [tuple(s)]
        self.PC_elapsed = result.seconds  # causal-learn's run time attribute

    # causal-learn's CausalGraph queries of the endpoint matrix G.graph ([i, j] the mark at
    # i's end of i - j: -1 tail, 1 arrowhead), pairs listed in row-major order of the matrix.
    def _marks(self, mark: int) -> list:
        """(j, i) for every [i, j] == mark: the edges i - j with that mark at i, as (j, i)."""
        return [(j, i) for i, j in np.argwhere(np.asarray(self.G.graph) == mark)]

    def neighbors(self, i: int):
        """The nodes adjacent to node i."""
        return np.flatnonzero(np.asarray(self.G.graph)[i, :] != 0)

    def max_degree(self) -> int:
        """The largest number of edges at one node."""
        return max(np.sum(np.asarray(self.G.graph) != 0, axis=1))

    def find_arrow_heads(self) -> list:
        """(i, j) for each arrowhead at j's end of i - j (i o-> j, i --> j, i <-> j)."""
        return self._marks(1)

    def find_tails(self) -> list:
        """(i, j) for each tail at j's end of i - j."""
        return self._marks(-1)

    def find_undirected(self) -> list:
        """(i, j) for each i --- j, both ways."""
        g = np.asarray(self.G.graph)
        return [(a, b) for a, b in self.find_tails() if g[a, b] == -1]

    def find_fully_directed(self) -> list:
        """(i, j) for each i --> j."""
        g = np.asarray(self.G.graph)
        return [(a, b) for a, b in self.find_arrow_heads() if g[a, b] == -1]

    def find_bi_directed(self) -> list:
        """(i, j) for each i <-> j, both ways."""
        g = np.asarray(self.G.graph)
        return [(b, a) for a, b in self.find_arrow_heads() if g[b, a] == 1 and g[a, b] == 1]

    def to_nx_graph(self):
        """causal-learn's: ``nx_graph``, a networkx DiGraph of the nodes 0..n-1 with an edge per
        undirected (both ways, color 'g'), directed ('b') and bidirected (both ways, 'r') edge,
        and ``labels`` {index: name}. Needs networkx."""
        import networkx as nx

        self.nx_graph = nx.DiGraph()
        nodes = range(len(self.node_names))
        self.labels = {i: self.node_names[i] for i in nodes}
        self.nx_graph.add_nodes_from(nodes)
        for color, pairs in (("g", self.find_undirected()), ("b", self.find_fully_directed()),
                             ("r", self.find_bi_directed())):
            for i, j in pairs:
                self.nx_graph.add_edge(i, j, color=color)

    def __getattr__(self, name):
        # causal-learn's pc returns its graph with nx_graph built (get_adjacancy_matrix reads
        # it): built here on first use, networkx being optional.
        if name in ("nx_graph", "labels"):
            self.to_nx_graph()
            return self.__dict__[name]
        raise AttributeError(f"'CausalGraph' object has no attribute '{name}'")

    def find_adj(self) -> list:
        """(i, j) for each end of each edge: the tails' pairs, then the arrowheads'."""
        return self.find_tails() + self.find_arrow_heads()

    def is_undirected(self, i: int, j: int) -> bool:
        g = np.asarray(self.G.graph)
        return bool(g[i, j] == -1 and g[j, i] == -1)

    def is_fully_directed(self, i: int, j: int) -> bool:
        """Whether i --> j."""
        g = np.asarray(self.G.graph)
        return bool(g[i, j] == -1 and g[j, i] == 1)

    def __repr__(self) -> str:
        return f"CausalGraph({self.G!r}) from cudag"


def pc(data, alpha: float = 0.05, indep_test="fisherz", stable: bool = True, uc_rule: int = 0,
       uc_priority: int = 2, mvpc: bool = False, correction_name: str = "MV_Crtn_Fisher_Z",
       background_knowledge=None, verbose: bool = False, show_progress: bool = True, node_names=None,
       *, depth: int = -1, backend: str | None = None, threads: int | None = None, true_dag=None) -> CausalGraph:
    """causal-learn's ``pc`` (same parameters, order and defaults), run by cudag.

    ``indep_test``: "fisherz", "chisq" or "gsq" (or causal-learn's constants of those names),
    or "d_separation" with ``true_dag=`` (a networkx DiGraph, or a 0/1 adjacency): as in
    causal-learn, each test of columns X, Y given S is d-separation of the nodes X, Y and S of
    true_dag (column k is its node ``k``; its other nodes are hidden), and only the data's
    column count is used (``np.empty((0, n))`` will do); cudag's oracle answers them.
    "mv_fisherz": Fisher-z with test-wise deletion of missing values (NaN), as causal-learn's.
    ``stable=False`` and ``mvpc=True`` are refused (cudag runs PC-stable; MVPC's correction
    is not implemented).
    ``depth``: the largest conditioning set (-1: no cap). ``backend``/``threads``: cudag's.
    ``show_progress`` draws a progress bar when tqdm is installed."""
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
    if depth is not None and depth >= 0:
        opts["max_level"] = depth
    if backend is not None:
        opts["backend"] = backend
    if threads is not None:
        opts["threads"] = threads
    opts.update(_knowledge(background_knowledge, names))
    if test == D_SEPARATION:
        return CausalGraph(cudag.pc(**opts, **_oracle(x, names, true_dag)))
    return CausalGraph(cudag.pc(x, test=test, names=names, **opts, **_missing(indep_test)))


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
    BackgroundKnowledge (forbidden and required node pairs, tiers; not patterns or
    forbid_within_tier), used as causal-learn's fci uses it (a pair forbidden both ways
    is absent; rule0 orients the knowledge's edges; R0-R4 leave forbidden arrowheads out);
    cudag keeps required edges in the skeleton, as cudag.pc does. ``show_progress`` draws a progress bar when tqdm is
    installed. ``kwargs`` go to :func:`cudag.fci` (``backend``, ``threads``, ...);
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
        res = cudag.fci(**opts, **_oracle(x, names, true_dag))
    else:
        res = cudag.fci(x, test=test, names=names, **opts, **_missing(independence_test_method))
    try:
        from causallearn.search.ConstraintBased.FCI import get_color_edges
    except ImportError:
        return _Graph(res.cl_matrix.astype(int), names), res.edges()
    g = res.to_causallearn()
    # causal-learn's own edge properties; it prints each visible edge as it goes.
    with contextlib.nullcontext() if verbose else contextlib.redirect_stdout(io.StringIO()):
        edges = get_color_edges(g)
    return g, edges


class CIT:
    """causal-learn's ``CIT(data, method, **kwargs)``: ``cit(X, Y, condition_set)`` is the
    p-value of column X _||_ column Y given the columns of condition_set (indices), with
    causal-learn's arithmetic; the data are read once (a :class:`cudag.Tester`). ``method``:
    "fisherz", "chisq", "gsq" or "mv_fisherz" (test-wise deletion of NaN values)."""

    def __init__(self, data, method: str = "fisherz", **kwargs):
        x = np.asarray(data)
        self.method = method
        self._tester = cudag.tester(x, _test_name(method), names=[f"X{k + 1}" for k in range(x.shape[1])],
                                    compat="causal-learn", **_missing(method), **kwargs)
        self._cache = {}  # (X, Y, condition set) -> p, as causal-learn's pvalue_cache

    def __call__(self, X, Y, condition_set=None) -> float:
        given = () if condition_set is None else tuple(int(c) for c in condition_set)
        key = (int(X), int(Y), given)
        p = self._cache.get(key)
        if p is None:
            p = self._cache[key] = self._tester(key[0], key[1], given)
        return p
