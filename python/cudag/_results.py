# SPDX-License-Identifier: Apache-2.0
"""The results cudag.pc, cudag.citest and cudag.mcmc return."""

from __future__ import annotations

import numpy as np

_MARKS = {(-1, 1): "-->", (-1, -1): "---", (1, 1): "<->"}


def _edges(marks: np.ndarray, names: list[str]):
    """(source, target, mark) sorted by (source, target) index, as the edge list file."""
    rows, cols = np.nonzero(np.triu(marks != 0, 1))
    edges = []
    for i, j in zip(rows.tolist(), cols.tolist()):
        a, b = int(marks[i, j]), int(marks[j, i])
        if (a, b) == (1, -1):  # j --> i
            edges.append((j, i, "-->"))
        else:
            edges.append((i, j, _MARKS.get((a, b), "?")))
    edges.sort()
    return [(names[i], names[j], mark) for i, j, mark in edges]


def _to_networkx(marks: np.ndarray, names: list[str], weights=None):
    try:
        import networkx as nx
    except ImportError as e:  # optional dependency
        raise ImportError("to_networkx() needs networkx: pip install networkx") from e
    g = nx.DiGraph()
    g.add_nodes_from(names)
    index = {s: k for k, s in enumerate(names)}
    for a, b, mark in _edges(marks, names):
        attrs = {"mark": mark}
        if weights is not None:
            attrs["weight"] = float(weights[index[a], index[b]])
        g.add_edge(a, b, **attrs)
        if mark != "-->":  # undirected and bidirected edges go both ways
            back = dict(attrs)
            if weights is not None:
                back["weight"] = float(weights[index[b], index[a]])
            g.add_edge(b, a, **back)
    return g


class _Graph:
    """What a PC result and an MCMC result's CPDAG share."""

    names: list[str]
    _marks: np.ndarray

    @property
    def cl_matrix(self) -> np.ndarray:
        """causal-learn's encoding (``cg.G.graph``): [i, j] = -1 and [j, i] = 1 for
        i --> j, -1/-1 for i --- j, 1/1 for i <-> j."""
        return self._marks.copy()

    @property
    def amat(self) -> np.ndarray:
        """pcalg's ``amat.cpdag`` (as ``as(pc.fit, "amat")``): [a, b] = 0 and [b, a] = 1
        for a --> b, 1/1 for a --- b, 2/2 for a <-> b. The transpose of ``cpdag``."""
        return self.cpdag.T.copy()

    def edges(self) -> list[tuple[str, str, str]]:
        """The CPDAG's edges as (source, target, mark), mark "-->", "---" or "<->", in the
        order of the command line's edge list."""
        return _edges(self._marks, self.names)


class PcResult(_Graph):
    """The result of :func:`cudag.pc`.

    names: the variables; skeleton: n x n bool; cpdag: n x n int8 ([i, j] = 1 for i --> j,
    1/1 for i --- j, 2/2 for i <-> j); cl_matrix / amat:
    causal-learn's and pcalg's encodings; pmax: n x n pcalg pMax (-1 on the diagonal and for
    pairs not stored); sepsets: {(i, j): (k, ...)} for i < j, the pairs removed at level >= 1
    (a non-adjacent pair missing there was separated by the empty set: see ``sepset``);
    levels: a dict per level (level, tests, removed, edges_after, seconds); config: the run's
    configuration as the result file records it; n_samples; seconds: the search's time.
    """

    def __init__(self, raw: dict):
        self.names: list[str] = list(raw["names"])
        self.n_samples: int = raw["n_samples"]
        self.skeleton: np.ndarray = raw["skeleton"]
        self._marks: np.ndarray = raw["marks"]
        self.cpdag: np.ndarray = raw["cpdag"]
        self._pmax_pairs = (raw["pmax_i"], raw["pmax_j"], raw["pmax_p"])
        self._sep = (raw["sepset_keys"], raw["sepset_offsets"], raw["sepset_nodes"])
        self._pmax = None
        self._sepsets = None
        self.levels: list[dict] = list(raw["levels"])
        self.config: dict = dict(raw["config"])
        self.level_labels: list[list[str]] = list(raw["level_labels"])
        self.seconds: float = raw["seconds"]
        self._index = {s: k for k, s in enumerate(self.names)}

    def __repr__(self) -> str:
        edges = self.edges()
        directed = sum(1 for e in edges if e[2] == "-->")
        return (f"PcResult({len(self.names)} variables, {len(edges)} edges ({directed} directed), "
                f"{len(self.levels)} levels, {self.seconds:.3g} s)")

    @property
    def pmax(self) -> np.ndarray:
        if self._pmax is None:
            n = len(self.names)
            i, j, p = self._pmax_pairs
            m = np.full((n, n), -1.0)
            m[i, j] = p
            m[j, i] = p
            self._pmax = m
        return self._pmax

    @property
    def sepsets(self) -> dict:
        if self._sepsets is None:
            keys, offs, nodes = self._sep
            ii = (keys >> np.uint64(32)).astype(np.int64).tolist()
            jj = (keys & np.uint64(0xFFFFFFFF)).astype(np.int64).tolist()
            offs = offs.tolist()
            nodes = nodes.tolist()
            self._sepsets = {(i, j): tuple(nodes[offs[r]:offs[r + 1]])
                             for r, (i, j) in enumerate(zip(ii, jj))}
        return self._sepsets

    def _idx(self, v) -> int:
        if isinstance(v, (int, np.integer)):
            return int(v)
        return self._index[str(v)]

    def sepset(self, a, b):
        """The separating set of a and b (names or indices) as a tuple of indices; () when
        they were separated by the empty set; None when they are adjacent."""
        i, j = sorted((self._idx(a), self._idx(b)))
        if self.skeleton[i, j]:
            return None
        return self.sepsets.get((i, j), ())

    def to_networkx(self):
        """The CPDAG as a networkx DiGraph over the names: i --> j one arc, i --- j and
        i <-> j an arc each way; every arc has a "mark" attribute."""
        return _to_networkx(self._marks, self.names)


class CitestResult:
    """The result of :func:`cudag.citest`: statistic, p_value, n_samples and the test's
    other numbers in ``details`` (k, permutations, surrogates, exceedances, seed for
    cmiknn; z for fisher-z; dof for chi-square/g-square)."""

    def __init__(self, raw: dict, x: str, y: str, given: list[str], test: str):
        raw = dict(raw)
        self.statistic: float = raw.pop("statistic")
        self.p_value: float = raw.pop("p_value")
        self.n_samples: int = raw.pop("n_samples")
        self.details: dict = raw
        self.x, self.y, self.given, self.test = x, y, list(given), test

    def __repr__(self) -> str:
        given = f" | {', '.join(self.given)}" if self.given else ""
        return (f"CitestResult({self.test}: {self.x} _||_ {self.y}{given}: statistic {self.statistic:.6g}, "
                f"p {self.p_value:.6g})")

    def __iter__(self):  # statistic, p = cudag.citest(...)
        return iter((self.statistic, self.p_value))


class McmcResult(_Graph):
    """The result of :func:`cudag.mcmc`: names; edge_prob (n x n, [p, v] the posterior of
    p --> v in sum mode, the frequency in the chains' best DAGs in max mode); best_dag
    (n x n uint8, [p, v] = 1 for p --> v) and best_dag_score; cpdag / cl_matrix / amat of
    the best DAG's class; traces (chains x kept iterations), acceptance per chain,
    score_psrf, score_ess, edge_max_psrf, best_chain, seconds."""

    def __init__(self, raw: dict):
        self.names: list[str] = list(raw["names"])
        self.n_samples: int = raw["n_samples"]
        self.edge_prob: np.ndarray = raw["edge_prob"]
        self.best_dag: np.ndarray = raw["best_dag"]
        self.best_dag_score: float = raw["best_dag_score"]
        self._marks: np.ndarray = raw["marks"]
        self.cpdag: np.ndarray = raw["cpdag"]
        self.traces: np.ndarray = raw["traces"]
        self.acceptance: np.ndarray = raw["acceptance"]
        self.score_psrf: float = raw["score_psrf"]
        self.score_ess: float = raw["score_ess"]
        self.edge_max_psrf: float = raw["edge_max_psrf"]
        self.best_chain: int = raw["best_chain"]
        self.seconds: float = raw["seconds"]

    def __repr__(self) -> str:
        return (f"McmcResult({len(self.names)} variables, best DAG score {self.best_dag_score:.4f} with "
                f"{int(self.best_dag.sum())} edges, {self.traces.shape[0]} chains)")

    def to_networkx(self):
        """The best DAG as a networkx DiGraph, each arc weighted by its edge probability."""
        n = len(self.names)
        marks = np.zeros((n, n), dtype=np.int8)
        p, v = np.nonzero(self.best_dag)
        marks[p, v] = -1
        marks[v, p] = 1
        return _to_networkx(marks, self.names, weights=self.edge_prob)
