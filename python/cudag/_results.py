# SPDX-License-Identifier: Apache-2.0
"""The results cudag.pc, cudag.fci, cudag.citest, cudag.mcmc and cudag.load return.

A graph result holds edge lists (the HDF5 result's /skeleton/edges, /cpdag/edges,
/pag/edges, the pMax pairs): nothing n x n, so that a result of 10^6 variables fits where
its edges fit. The matrices (``cpdag``, ``cl_matrix``, ``amat``, ``pag``, ``skeleton``,
``pmax``, ``best_dag``) are built on first use and cached, and refused above
:data:`MATRIX_LIMIT` variables (the command line's limit for its matrix formats) with the
sparse accessors to use instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import numpy as np

try:
    from . import _cudag
except ImportError:  # an in-tree build: PYTHONPATH=python:<build>/python
    import _cudag

#: The most variables a result builds an n x n matrix for (20,000: 4·10^8 cells), as the
#: command line writes its matrix formats (amat, cl) only up to it.
MATRIX_LIMIT: int = int(_cudag.MATRIX_LIMIT)

#: _repr_svg_ draws graphs of at most this many variables (a notebook would wait on
#: Graphviz for longer ones; draw() takes any size).
DRAW_LIMIT: int = 300

_KIND_MARK = ("---", "-->", "<->")


#: The type of each configuration key a result records (``result.config``), for the keys
#: whose type is known; every other key stays a str. int and float values are the
#: numbers the file writes (17 significant digits, so a float is the double that ran);
#: bool from "on"/"off"; list[int] from a comma-separated list of counts. A value that
#: does not parse as its type (a file of another version) stays the str it is.
CONFIG_TYPES: dict[str, type] = {
    **dict.fromkeys(("max_level", "threads", "ranks", "n_vars", "n_samples", "input_bytes", "input_mtime",
                     "cmiknn_k", "cmiknn_shuffle_neighbors", "cmiknn_permutations", "cmiknn_seed",
                     "bootstrap_replicates", "bootstrap_seed", "bootstrap_replicate_samples", "max_parents",
                     "chains", "iterations", "burn_in", "thin", "seed", "table_entries", "subset_row_nodes",
                     "pdsep_max", "pdsep_tests", "pdsep_removed", "triple_tests", "ambiguous_triples"), int),
    **dict.fromkeys(("alpha", "cmiknn_knn", "bootstrap_consensus", "iss", "edge_penalty", "sum_rows_gib"), float),
    "table_pruning": bool,
    **dict.fromkeys(("table_scored_by_node", "table_kept_by_node"), list),
}


def _typed_value(key: str, text: str):
    kind = CONFIG_TYPES.get(key, str)
    try:
        if kind is bool:
            return {"on": True, "off": False}[text]
        if kind is list:
            return [int(v) for v in text.split(",")] if text else []
        return kind(text)
    except (KeyError, ValueError):
        return text


def typed_config(config: dict) -> dict:
    """``config`` (key: str as the result file stores it) with each value of a key in
    :data:`CONFIG_TYPES` converted to its type."""
    return {k: _typed_value(k, v) for k, v in config.items()}


def _check_dense(n: int, what: str, sparse: str) -> None:
    if n > MATRIX_LIMIT:
        raise _cudag.Error(f"{what} is an n x n matrix, refused for {n:,} variables (more than cudag.MATRIX_LIMIT = "
                           f"{MATRIX_LIMIT:,}): use {sparse}")


def _edge_rows(edges) -> np.ndarray:
    return np.asarray(edges, dtype=np.int32).reshape(-1, 3)


def _marks_of(edges: np.ndarray, n: int) -> np.ndarray:
    """causal-learn's encoding from (a, b, kind) rows: [i, j] the mark at i's end."""
    m = np.zeros((n, n), dtype=np.int8)
    a, b, k = edges[:, 0], edges[:, 1], edges[:, 2]
    m[a, b] = np.where(k == 2, 1, -1)
    m[b, a] = np.where(k == 0, -1, 1)
    return m


def _adjacency_of(edges: np.ndarray, n: int) -> np.ndarray:
    """[i, j] = 1 for i --> j, 1/1 for i --- j, 2/2 for i <-> j."""
    m = np.zeros((n, n), dtype=np.int8)
    a, b, k = edges[:, 0], edges[:, 1], edges[:, 2]
    m[a, b] = np.where(k == 2, 2, 1)
    m[b, a] = np.where(k == 1, 0, np.where(k == 2, 2, 1))
    return m


def _named_edges(edges: np.ndarray, names: list[str]):
    return [(names[a], names[b], _KIND_MARK[k]) for a, b, k in edges.tolist()]


def _to_networkx(edges: np.ndarray, names: list[str], weights=None):
    try:
        import networkx as nx
    except ImportError as e:  # optional dependency
        raise ImportError("to_networkx() needs networkx: pip install networkx") from e
    g = nx.DiGraph()
    g.add_nodes_from(names)
    for a, b, k in edges.tolist():
        attrs = {"mark": _KIND_MARK[k]}
        if weights is not None:
            attrs["weight"] = float(weights[a, b])
        g.add_edge(names[a], names[b], **attrs)
        if k != 1:  # undirected and bidirected edges go both ways
            back = dict(attrs)
            if weights is not None:
                back["weight"] = float(weights[b, a])
            g.add_edge(names[b], names[a], **back)
    return g


def _pandas():
    try:
        import pandas as pd
    except ImportError as e:  # optional dependency
        raise ImportError("to_pandas() needs pandas: pip install pandas") from e
    return pd


def _dot_svg(dot_path: str) -> str | None:
    """Graphviz's SVG of a DOT file; None without Graphviz."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    r = subprocess.run([dot, "-Tsvg", dot_path], capture_output=True, text=True)
    if r.returncode != 0:
        raise _cudag.Error(f"Graphviz dot failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
    return r.stdout


class _Dense:
    """A result's n x n forms: built on first use, cached, refused above MATRIX_LIMIT
    variables with a message naming the sparse accessors (_SPARSE)."""

    names: list[str]
    _SPARSE = "result.edge_array (rows a, b, kind), result.edges() or result.to_pandas(edges=True)"

    def _dense(self, key: str, build):
        cache = self.__dict__.setdefault("_dense_cache", {})
        if key not in cache:
            _check_dense(len(self.names), f"result.{key}", self._SPARSE)
            cache[key] = build()
        return cache[key]


class _Graph(_Dense):
    """What a PC result and an MCMC result's CPDAG share: the CPDAG as an edge list and the
    encodings built from it."""

    _cpdag_edges: np.ndarray

    @property
    def edge_array(self) -> np.ndarray:
        """The CPDAG's edges as int32 rows (a, b, kind), the HDF5 result's /cpdag/edges:
        kind 0 a --- b (a < b), 1 a --> b, 2 a <-> b (a < b), sorted by (a, b)."""
        return self._cpdag_edges.copy()

    @property
    def _marks(self) -> np.ndarray:
        return self._dense("cl_matrix", lambda: _marks_of(self._cpdag_edges, len(self.names)))

    @property
    def cpdag(self) -> np.ndarray:
        """n x n int8: [i, j] = 1 for i --> j, 1/1 for i --- j, 2/2 for i <-> j."""
        return self._dense("cpdag", lambda: _adjacency_of(self._cpdag_edges, len(self.names)))

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
        return _named_edges(self._cpdag_edges, self.names)

    def _graph_edges(self) -> np.ndarray:
        """The rows (a, b, kind) of the graph the conversions and drawings show."""
        return self._cpdag_edges

    def to_pandas(self, edges: bool = False):
        """The graph as a pandas DataFrame: edges=False, the labelled n x n adjacency of
        ``cpdag`` ([a, b] = 1 for a --> b, 1/1 for a --- b, 2/2 for a <-> b; rows and
        columns named); edges=True, one row per edge (source, target, mark), which any
        size allows."""
        pd = _pandas()
        rows = self._graph_edges()
        if edges:
            return pd.DataFrame(_named_edges(rows, self.names), columns=["source", "target", "mark"])
        _check_dense(len(self.names), "to_pandas()", "to_pandas(edges=True)")
        return pd.DataFrame(_adjacency_of(rows, len(self.names)), index=list(self.names), columns=list(self.names))

    def to_causallearn(self):
        """The graph as causal-learn's GeneralGraph (nodes named as the variables; its
        ``.graph`` is ``cl_matrix``). Needs causal-learn."""
        try:
            from causallearn.graph.Edge import Edge
            from causallearn.graph.Endpoint import Endpoint
            from causallearn.graph.GeneralGraph import GeneralGraph
            from causallearn.graph.GraphNode import GraphNode
        except ImportError as e:  # optional dependency
            raise ImportError("to_causallearn() needs causal-learn: pip install causal-learn") from e
        nodes = [GraphNode(s) for s in self.names]
        g = GeneralGraph(nodes)
        ends = ((Endpoint.TAIL, Endpoint.TAIL), (Endpoint.TAIL, Endpoint.ARROW), (Endpoint.ARROW, Endpoint.ARROW))
        for a, b, k in self._graph_edges().tolist():
            g.add_edge(Edge(nodes[a], nodes[b], *ends[k]))
        return g

    def to_pgmpy(self):
        """The graph in pgmpy: a PDAG (directed and undirected edges; a bidirected edge is
        refused) for a CPDAG, a DAG for an MCMC result's best DAG. Needs pgmpy."""
        try:
            from pgmpy.base import PDAG
        except ImportError as e:  # optional dependency
            raise ImportError("to_pgmpy() needs pgmpy: pip install pgmpy") from e
        directed, undirected = [], []
        for a, b, mark in self.edges():
            if mark == "<->":
                raise ValueError(f"to_pgmpy(): the edge {a} <-> {b} is bidirected; a pgmpy PDAG has none "
                                 "(use to_causallearn() or edges())")
            (directed if mark == "-->" else undirected).append((a, b))
        g = PDAG(directed_ebunch=directed, undirected_ebunch=undirected)
        g.add_nodes_from(self.names)
        return g

    def to_dot(self) -> str:
        """The graph as the command line's DOT file (Graphviz): every variable a node,
        undirected edges dir=none, bidirected dir=both."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "graph.dot")
            _cudag.write_dot(list(self.names), np.ascontiguousarray(self._graph_edges(), dtype=np.int32), path)
            with open(path, encoding="utf-8") as f:
                return f.read()

    def draw(self, path=None, format: str | None = None):
        """The graph drawn by Graphviz (``dot``): written to ``path`` (format from its suffix,
        or ``format``: svg, png, pdf, ...) and the path returned, or, without a path, the
        SVG text. ImportError-like RuntimeError when Graphviz is not installed."""
        if shutil.which("dot") is None:
            raise _cudag.Error("draw() needs Graphviz's dot on PATH (apt install graphviz, conda install graphviz); "
                               "to_dot() gives the DOT text without it")
        with tempfile.TemporaryDirectory() as d:
            dot_path = os.path.join(d, "graph.dot")
            with open(dot_path, "w", encoding="utf-8") as f:
                f.write(self.to_dot())
            if path is None:
                return _dot_svg(dot_path)
            path = os.fspath(path)
            fmt = format or os.path.splitext(path)[1].lstrip(".") or "svg"
            r = subprocess.run(["dot", f"-T{fmt}", dot_path, "-o", path], capture_output=True, text=True)
            if r.returncode != 0:
                raise _cudag.Error(f"Graphviz dot -T{fmt} failed: {r.stderr.strip()}")
            return path

    def _repr_svg_(self):
        """A notebook's drawing: Graphviz's SVG when dot is installed and the graph has at
        most DRAW_LIMIT variables (None otherwise: the notebook shows repr())."""
        if len(self.names) > DRAW_LIMIT or shutil.which("dot") is None:
            return None
        return self.draw()


class _Search(_Dense):
    """What a PC and an FCI result share: the skeleton search's records (names, skeleton,
    separating sets, pMax, levels, configuration), from the dict of _cudag's pc_dict."""

    def __init__(self, raw: dict):
        self.names: list[str] = list(raw["names"])
        self.n_samples: int = raw["n_samples"]
        self._skeleton_pairs: np.ndarray = np.asarray(raw["skeleton_pairs"]).reshape(-1, 2)
        self._pmax_pairs = (raw["pmax_i"], raw["pmax_j"], raw["pmax_p"])
        self._sep = (raw["sepset_keys"], raw["sepset_offsets"], raw["sepset_nodes"])
        self._pmax = None
        self._sepsets = None
        self._pair_keys = None
        self.levels: list[dict] = list(raw["levels"])
        self.config_text: dict = dict(raw["config"])
        self.config: dict = typed_config(self.config_text)
        self.level_labels: list[list[str]] = list(raw["level_labels"])
        self.seconds: float = raw["seconds"]
        self._index = {s: k for k, s in enumerate(self.names)}

    @property
    def skeleton_pairs(self) -> np.ndarray:
        """The skeleton's adjacent pairs as int32 rows (i, j), i < j, sorted (the HDF5
        result's /skeleton/edges)."""
        return self._skeleton_pairs.copy()

    @property
    def skeleton(self) -> np.ndarray:
        """n x n bool, symmetric: the adjacent pairs."""
        def build():
            n = len(self.names)
            m = np.zeros((n, n), dtype=bool)
            i, j = self._skeleton_pairs[:, 0], self._skeleton_pairs[:, 1]
            m[i, j] = True
            m[j, i] = True
            return m
        return self._dense("skeleton", build)

    @property
    def pmax_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """pcalg's pMax of the pairs stored (i, j, p arrays, i < j, sorted): every pair
        tested at level >= 1 and, up to 4,096 variables, every pair."""
        i, j, p = self._pmax_pairs
        return i.copy(), j.copy(), p.copy()

    @property
    def pmax(self) -> np.ndarray:
        if self._pmax is None:
            n = len(self.names)
            _check_dense(n, "result.pmax", "result.pmax_pairs")
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

    @property
    def sepsets_by_name(self) -> dict:
        """``sepsets`` with names: {(name_i, name_j): (name, ...)}."""
        names = self.names
        return {(names[i], names[j]): tuple(names[k] for k in s) for (i, j), s in self.sepsets.items()}

    def _idx(self, v) -> int:
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            if not 0 <= v < len(self.names):
                raise IndexError(f"variable index {v} is out of range (0..{len(self.names) - 1})")
            return int(v)
        try:
            return self._index[str(v)]
        except KeyError:
            raise KeyError(f"no variable named {v!r}") from None

    def adjacent(self, a, b) -> bool:
        """Whether a and b (names or indices) are adjacent in the skeleton."""
        i, j = sorted((self._idx(a), self._idx(b)))
        if self._pair_keys is None:
            p = self._skeleton_pairs.astype(np.int64)
            self._pair_keys = p[:, 0] * len(self.names) + p[:, 1]
        key = i * len(self.names) + j
        k = int(np.searchsorted(self._pair_keys, key))
        return k < len(self._pair_keys) and int(self._pair_keys[k]) == key

    def sepset(self, a, b, *, names: bool = False):
        """The separating set of a and b (names or indices) as a tuple of indices, or of
        names with names=True; () when they were separated by the empty set; None when
        they are adjacent."""
        i, j = sorted((self._idx(a), self._idx(b)))
        if self.adjacent(i, j):
            return None
        s = self.sepsets.get((i, j), ())
        return tuple(self.names[k] for k in s) if names else s


class PcResult(_Graph, _Search):
    """The result of :func:`cudag.pc` (and of :func:`cudag.load` on a PC result file).

    names: the variables; edge_array: the CPDAG's edges (rows a, b, kind); skeleton_pairs:
    the adjacent pairs (rows i < j); skeleton: n x n bool; cpdag: n x n int8 ([i, j] = 1 for
    i --> j, 1/1 for i --- j, 2/2 for i <-> j); cl_matrix / amat: causal-learn's and
    pcalg's encodings (the n x n forms are built on first use, up to MATRIX_LIMIT
    variables); pmax: n x n pcalg pMax (-1 on the diagonal and for pairs not stored) and
    pmax_pairs; sepsets: {(i, j): (k, ...)} for i < j, the pairs removed at level >= 1 (a
    non-adjacent pair missing there was separated by the empty set: see ``sepset``), and
    sepsets_by_name; levels: a dict per level (level, tests, removed, edges_after,
    seconds); config: the run's configuration as the result file records it, values typed
    by :data:`CONFIG_TYPES` (int, float, bool, list; other keys str; config_text: every value
    the str the file stores); n_samples;
    seconds: the search's time.
    """

    def __init__(self, raw: dict):
        _Search.__init__(self, raw)
        self._cpdag_edges: np.ndarray = _edge_rows(raw["cpdag_edges"])

    def __repr__(self) -> str:
        directed = int(np.count_nonzero(self._cpdag_edges[:, 2] == 1))
        return (f"PcResult({len(self.names)} variables, {len(self._cpdag_edges)} edges ({directed} directed), "
                f"{len(self.levels)} levels, {self.seconds:.3g} s)")

    def to_networkx(self):
        """The CPDAG as a networkx DiGraph over the names: i --> j one arc, i --- j and
        i <-> j an arc each way; every arc has a "mark" attribute."""
        return _to_networkx(self._cpdag_edges, self.names)


#: The columns of a bootstrap's frequency table (``cudag pc --bootstrap B --format freq``):
#: the pair's adjacency frequency, then each kind's (source --> target, target --> source,
#: ...), then its mark in the consensus graph ("" when not in it).
FREQUENCY_COLUMNS = ("source", "target", "adjacency", "none", "-->", "<--", "---", "<->", "consensus")


class _Frequencies:
    """A bootstrap's per-pair counts (``_counts``: K x kinds, column 0 "none") over
    ``replicates``, shared by PC's and FCI's bootstrap results."""

    _counts: np.ndarray
    replicates: int

    @property
    def counts(self) -> np.ndarray:
        """int32 K x kinds: per pair, the replicates where it is none, then each edge kind
        (PC: i --> j, j --> i, i --- j, i <-> j; FCI: PAG_EDGE_KINDS read from i to j); each row
        sums to ``replicates``."""
        return self._counts.copy()

    @property
    def frequency(self) -> np.ndarray:
        """float64 K x kinds: ``counts / replicates`` (the result file's /bootstrap/frequency)."""
        return self._counts.astype(np.float64) / float(self.replicates)

    @property
    def adjacency(self) -> np.ndarray:
        """float64 K: each pair's adjacency frequency, ``(replicates - none) / replicates``."""
        return (self.replicates - self._counts[:, 0]).astype(np.float64) / float(self.replicates)

    def _pair(self, a, b) -> tuple[bool, list]:
        """(a is the pair's lower index, the pair's counts row; [B, 0, ...] for a pair no
        replicate joined). a, b: names or indices."""
        i, j = self._idx(a), self._idx(b)
        if i == j:
            raise ValueError(f"edge_frequency(): {self.names[i]!r} twice; a pair needs two variables")
        lo, hi = min(i, j), max(i, j)
        rows = getattr(self, "_pair_rows", None)
        if rows is None:
            p = self._pairs.astype(np.int64)
            rows = self._pair_rows = p[:, 0] * len(self.names) + p[:, 1]
        key = lo * len(self.names) + hi
        k = int(np.searchsorted(rows, key))
        if k < len(rows) and int(rows[k]) == key:
            return i == lo, self._counts[k].tolist()
        return i == lo, [self.replicates] + [0] * (self._counts.shape[1] - 1)


class BootstrapResult(_Frequencies, PcResult):
    """The result of ``cudag.pc(..., bootstrap=B)`` and ``cudag.mcmc(..., bootstrap=B)``
    (and of :func:`cudag.load` on their result files): a :class:`PcResult` whose graph is
    the consensus graph (edge_array, edges(), cpdag, amat, cl_matrix, skeleton, to_networkx,
    draw ... as PcResult's; no separating sets, pMax or levels), plus the edge frequencies,
    the result file's /bootstrap: ``pairs`` (int32 K x 2, i < j, sorted: the pairs adjacent
    in at least one replicate), ``counts`` (int32 K x 5: replicates of each kind none,
    i --> j, j --> i, i --- j, i <-> j, summing to B), ``frequency`` (K x 5, counts / B),
    ``adjacency`` (K, 1 - none); ``replicates`` (B), ``resample``, ``seed``, ``consensus``
    (the consensus graph's adjacency threshold). ``to_pandas()`` is the frequency table
    (``--format freq``), ``edge_frequency(a, b)`` one pair's frequencies."""

    def __init__(self, raw: dict):
        super().__init__(raw)
        b = raw["bootstrap"]
        self.replicates: int = int(b["replicates"])
        self.resample: str = b["resample"]
        self.seed: int = int(b["seed"])
        self.consensus: float = float(b["consensus"])
        self._pairs: np.ndarray = np.asarray(b["pairs"], dtype=np.int32).reshape(-1, 2)
        self._counts: np.ndarray = np.asarray(b["counts"], dtype=np.int32).reshape(-1, 5)
        self._pair_rows = None

    def __repr__(self) -> str:
        directed = int(np.count_nonzero(self._cpdag_edges[:, 2] == 1))
        return (f"BootstrapResult({len(self.names)} variables, {self.replicates} replicates ({self.resample}), "
                f"{len(self._pairs)} pairs adjacent in some; consensus at {self.consensus:g}: "
                f"{len(self._cpdag_edges)} edges ({directed} directed))")

    @property
    def pairs(self) -> np.ndarray:
        """int32 K x 2: the pairs (i, j), i < j, adjacent in at least one replicate, sorted."""
        return self._pairs.copy()


    def _consensus_marks(self) -> list[str]:
        """Each pair's mark in the consensus graph, as the frequency table writes it."""
        edges = {(a, b): k for a, b, k in self._cpdag_edges.tolist()}
        marks = []
        for i, j in self._pairs.tolist():
            if (i, j) in edges:
                marks.append(_KIND_MARK[edges[(i, j)]])
            elif (j, i) in edges:
                marks.append("<--")
            else:
                marks.append("")
        return marks

    def frequencies(self) -> list[tuple]:
        """The frequency table's rows (source, target, adjacency, none, -->, <--, ---, <->,
        consensus): one per pair in ``pairs``, the source its lower index (FREQUENCY_COLUMNS)."""
        freq, adj, names = self.frequency.tolist(), self.adjacency.tolist(), self.names
        return [(names[i], names[j], a, *f, m)
                for (i, j), a, f, m in zip(self._pairs.tolist(), adj, freq, self._consensus_marks())]

    def to_pandas(self, edges: bool = False, frequencies: bool = True):
        """The frequency table as a pandas DataFrame (the columns of ``--format freq``:
        FREQUENCY_COLUMNS, exact rather than to 6 digits); ``frequencies=False`` gives
        PcResult's frames of the consensus graph (its ``edges`` as there)."""
        if not frequencies:
            return super().to_pandas(edges=edges)
        return _pandas().DataFrame(self.frequencies(), columns=list(FREQUENCY_COLUMNS))

    def edge_frequency(self, a, b) -> dict:
        """The frequencies of the pair a, b (names or indices), seen from a: {"adjacency",
        "none", "-->" (a --> b), "<--" (b --> a), "---", "<->"}; a pair no replicate joined
        has adjacency 0 and none 1."""
        from_lower, c = self._pair(a, b)
        b = float(self.replicates)
        f = [v / b for v in c]
        forward, backward = (f[1], f[2]) if from_lower else (f[2], f[1])
        return {"adjacency": (self.replicates - c[0]) / b, "none": f[0], "-->": forward, "<--": backward,
                "---": f[3], "<->": f[4]}


#: A PAG mark (pcalg's amat.pag codes 1 circle, 2 arrowhead, 3 tail) as an edge string
#: writes it at the edge's first and at its second end ("o->", "<-o", "-->").
_MARK_AT_SOURCE = {1: "o", 2: "<", 3: "-"}
_MARK_AT_TARGET = {1: "o", 2: ">", 3: "-"}
#: causal-learn's endpoint code of each pcalg code (0 none, 1 circle, 2 arrowhead, 3 tail):
#: circle 2, arrowhead 1, tail -1.
_CL_ENDPOINT = np.array([0, 2, 1, -1], dtype=np.int8)


def pag_edge_string(at_a: int, at_b: int) -> str:
    """The edge a - b as causal-learn and Tetrad print it, read from a to b: the mark at a
    ('o', '<', '-'), '-', the mark at b ('o', '>', '-'): "o->", "<->", "-->", "o-o", ..."""
    return _MARK_AT_SOURCE[at_a] + "-" + _MARK_AT_TARGET[at_b]


class FciResult(_Search):
    """The result of :func:`cudag.fci` (and of :func:`cudag.load` on a ``cudag fci`` result
    file): a partial ancestral graph (PAG) and the skeleton search's records.

    edge_array: the PAG's edges as int32 rows (a, b, mark at a, mark at b), a < b, sorted
    (the HDF5 result's /pag/edges), marks pcalg's amat.pag codes 1 circle, 2 arrowhead,
    3 tail; edges(): rows (source, target, mark) with mark "o->", "<->", "-->", "o-o", ...
    read from source to target (the command line's edge list); pag: n x n int8, pcalg's
    ``amat.pag`` ([a, b] = the mark at b, 0 not adjacent); cl_matrix: causal-learn's
    ``G.graph`` ([i, j] = the mark at i: -1 tail, 1 arrowhead, 2 circle); variant: "fci" or
    "rfci". As a :class:`PcResult`: names, skeleton_pairs, skeleton, sepsets (revised by
    Possible-D-SEP and RFCI's tests, as pcalg revises them), sepset(), adjacent(),
    pmax_pairs, pmax, levels (the skeleton search's), config (with the FCI stage's keys:
    learner, fci_type, pdsep, pdsep_max, collider_rule, rules, pdsep_tests, ...),
    config_text, n_samples, seconds. The n x n forms are built on first use, up to
    MATRIX_LIMIT variables.
    """

    _SPARSE = "result.edges(), result.edge_array (rows a, b, mark at a, mark at b) or result.to_pandas(edges=True)"

    def __init__(self, raw: dict):
        super().__init__(raw)
        self._pag_edges: np.ndarray = np.asarray(raw["pag_edges"], dtype=np.int32).reshape(-1, 4)
        self.variant: str = self.config_text.get("learner", "fci")

    def __repr__(self) -> str:
        e = self._pag_edges
        bidirected = int(np.count_nonzero((e[:, 2] == 2) & (e[:, 3] == 2)))
        directed = int(np.count_nonzero(((e[:, 2] == 3) & (e[:, 3] == 2)) | ((e[:, 2] == 2) & (e[:, 3] == 3))))
        return (f"FciResult({self.variant}: {len(self.names)} variables, {len(e)} edges ({directed} directed, "
                f"{bidirected} bidirected), {len(self.levels)} levels, {self.seconds:.3g} s)")

    @property
    def edge_array(self) -> np.ndarray:
        """The PAG's edges as int32 rows (a, b, mark at a, mark at b), a < b, sorted by
        (a, b): the HDF5 result's /pag/edges (1 circle, 2 arrowhead, 3 tail)."""
        return self._pag_edges.copy()

    def edges(self) -> list[tuple[str, str, str]]:
        """The PAG's edges as (source, target, mark), source the lower index, mark read from
        source to target ("o->", "<-o", "o-o", "-->", "<--", "<->", "---", "o--", "--o"), in
        the order of the command line's edge list (``cudag fci``'s stdout, ``--format edges``)."""
        names = self.names
        return [(names[a], names[b], pag_edge_string(ma, mb)) for a, b, ma, mb in self._pag_edges.tolist()]

    @property
    def pag(self) -> np.ndarray:
        """n x n int8, pcalg's ``amat.pag`` (``fci(...)@amat``): [a, b] = the mark at b on
        the edge a - b (0 not adjacent, 1 circle, 2 arrowhead, 3 tail)."""
        def build():
            n = len(self.names)
            m = np.zeros((n, n), dtype=np.int8)
            e = self._pag_edges
            m[e[:, 0], e[:, 1]] = e[:, 3]
            m[e[:, 1], e[:, 0]] = e[:, 2]
            return m
        return self._dense("pag", build)

    @property
    def cl_matrix(self) -> np.ndarray:
        """causal-learn's encoding of the PAG (fci's ``G.graph``): [i, j] = the mark at i on
        the edge i - j: -1 tail, 1 arrowhead, 2 circle (0 not adjacent); i o-> j is
        [i, j] = 2, [j, i] = 1."""
        def build():
            n = len(self.names)
            m = np.zeros((n, n), dtype=np.int8)
            e = self._pag_edges
            m[e[:, 0], e[:, 1]] = _CL_ENDPOINT[e[:, 2]]
            m[e[:, 1], e[:, 0]] = _CL_ENDPOINT[e[:, 3]]
            return m
        return self._dense("cl_matrix", build).copy()

    def to_pandas(self, edges: bool = False):
        """The PAG as a pandas DataFrame: edges=False, the labelled ``pag`` (pcalg's
        amat.pag); edges=True, one row per edge (source, target, mark), which any size
        allows."""
        pd = _pandas()
        if edges:
            return pd.DataFrame(self.edges(), columns=["source", "target", "mark"])
        return pd.DataFrame(self.pag, index=list(self.names), columns=list(self.names))

    def to_causallearn(self):
        """The PAG as causal-learn's GeneralGraph, as its ``fci`` returns it: nodes named as
        the variables (attribute "id" their column), each edge an ``Edge`` with
        ``Endpoint.TAIL`` / ``ARROW`` / ``CIRCLE`` ends, ``set_pag(True)``; its ``.graph``
        is ``cl_matrix``. Needs causal-learn."""
        try:
            from causallearn.graph.Edge import Edge
            from causallearn.graph.Endpoint import Endpoint
            from causallearn.graph.GeneralGraph import GeneralGraph
            from causallearn.graph.GraphNode import GraphNode
        except ImportError as e:  # optional dependency
            raise ImportError("to_causallearn() needs causal-learn: pip install causal-learn") from e
        nodes = []
        for k, s in enumerate(self.names):
            node = GraphNode(s)
            node.add_attribute("id", k)
            nodes.append(node)
        g = GeneralGraph(nodes)
        end = {1: Endpoint.CIRCLE, 2: Endpoint.ARROW, 3: Endpoint.TAIL}
        for a, b, ma, mb in self._pag_edges.tolist():
            g.add_edge(Edge(nodes[a], nodes[b], end[ma], end[mb]))
        g.set_pag(True)
        return g


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


class CitestBatchResult:
    """The result of :meth:`cudag.Tester.test_batch`: ``statistic`` and ``p_value`` (numpy
    arrays in query order, each the single test's value bit for bit), the ``queries`` as
    (x, y, given) names, ``n_samples``, and ``where`` the batch ran ("the CPU (8 threads)",
    a GPU engine)."""

    def __init__(self, raw: dict, queries: list, test: str):
        import numpy as np

        self.statistic = np.asarray(raw["statistic"], dtype=np.float64)
        self.p_value = np.asarray(raw["p_value"], dtype=np.float64)
        self.n_samples: int = raw["n_samples"]
        self.where: str = raw["where"]
        self.queries = queries
        self.test = test

    def __len__(self) -> int:
        return len(self.queries)

    def __repr__(self) -> str:
        return f"CitestBatchResult({self.test}: {len(self)} tests on {self.where})"


class McmcResult(_Graph):
    """The result of :func:`cudag.mcmc` (and of :func:`cudag.load` on an MCMC result file):
    names; edge_prob (n x n, [p, v] the posterior of p --> v in sum mode, the frequency in
    the chains' best DAGs in max mode); best_dag_edges (int32 rows (parent, child));
    best_dag (n x n uint8, [p, v] = 1 for p --> v, built on first use) and best_dag_score;
    cpdag / cl_matrix / amat / edge_array of the best DAG's class; traces (chains x kept
    iterations), acceptance per chain, score_psrf, score_ess, edge_max_psrf, best_chain,
    config (typed as PcResult's; config_text the strs), seconds. to_pandas / to_pgmpy /
    to_causallearn / draw show the best DAG."""

    def __init__(self, raw: dict):
        self.names: list[str] = list(raw["names"])
        self.n_samples: int = raw["n_samples"]
        self.edge_prob: np.ndarray = raw["edge_prob"]
        self._best_dag_edges: np.ndarray = np.asarray(raw["best_dag_edges"]).reshape(-1, 2)
        self.best_dag_score: float = raw["best_dag_score"]
        self._cpdag_edges: np.ndarray = _edge_rows(raw["cpdag_edges"])
        self.traces: np.ndarray = raw["traces"]
        self.acceptance: np.ndarray = raw["acceptance"]
        self.score_psrf: float = raw["score_psrf"]
        self.score_ess: float = raw["score_ess"]
        self.edge_max_psrf: float = raw["edge_max_psrf"]
        self.best_chain: int = raw["best_chain"]
        self.config_text: dict = dict(raw.get("config", {}))
        self.config: dict = typed_config(self.config_text)
        self.seconds: float = raw["seconds"]

    def __repr__(self) -> str:
        return (f"McmcResult({len(self.names)} variables, best DAG score {self.best_dag_score:.4f} with "
                f"{len(self._best_dag_edges)} edges, {self.traces.shape[0]} chains)")

    @property
    def best_dag_edges(self) -> np.ndarray:
        """The best DAG's arcs as int32 rows (parent, child), sorted (/best_dag/edges)."""
        return self._best_dag_edges.copy()

    @property
    def best_dag(self) -> np.ndarray:
        """n x n uint8: [p, v] = 1 for p --> v in the best DAG."""
        def build():
            n = len(self.names)
            m = np.zeros((n, n), dtype=np.uint8)
            m[self._best_dag_edges[:, 0], self._best_dag_edges[:, 1]] = 1
            return m
        return self._dense("best_dag", build)

    def _graph_edges(self) -> np.ndarray:
        e = self._best_dag_edges
        return np.column_stack([e, np.ones(len(e), dtype=e.dtype)]).astype(np.int32).reshape(-1, 3)

    def to_pandas(self, edges: bool = False):
        """The best DAG as a pandas DataFrame: the labelled n x n ``best_dag`` (edges=False)
        or rows (source, target, probability) with each arc's ``edge_prob`` (edges=True)."""
        pd = _pandas()
        if not edges:
            _check_dense(len(self.names), "to_pandas()", "to_pandas(edges=True)")
            return pd.DataFrame(self.best_dag, index=list(self.names), columns=list(self.names))
        rows = [(self.names[p], self.names[v], float(self.edge_prob[p, v])) for p, v in self._best_dag_edges.tolist()]
        return pd.DataFrame(rows, columns=["source", "target", "probability"])

    def to_pgmpy(self):
        """The best DAG as a pgmpy DAG. Needs pgmpy."""
        try:
            from pgmpy.base import DAG
        except ImportError as e:  # optional dependency
            raise ImportError("to_pgmpy() needs pgmpy: pip install pgmpy") from e
        g = DAG()
        g.add_nodes_from(self.names)
        g.add_edges_from((self.names[p], self.names[v]) for p, v in self._best_dag_edges.tolist())
        return g

    def to_networkx(self):
        """The best DAG as a networkx DiGraph, each arc weighted by its edge probability."""
        return _to_networkx(self._graph_edges(), self.names, weights=self.edge_prob)


class SimulateResult:
    """The result of :func:`cudag.simulate`: ``data`` (samples x variables: float64, or
    the level labels as str for discrete data), ``names``, and the true DAG: ``truth``
    (rows (source, target, weight); discrete: weight NaN), ``truth_edge_array`` (int32
    rows (parent, child, 1) in the CPDAG edge-list layout), ``functions`` (nonlinear: each
    edge's function). ``to_pandas()`` gives the data as a DataFrame."""

    def __init__(self, data: np.ndarray, names: list[str], truth: list, functions: list[str], kind: str):
        self.data, self.names, self.truth, self.functions, self.kind = data, list(names), truth, functions, kind
        index = {s: k for k, s in enumerate(self.names)}
        rows = [(index[a], index[b], 1) for a, b, _ in truth]
        self.truth_edge_array = np.array(rows, dtype=np.int32).reshape(-1, 3)

    @classmethod
    def from_files(cls, data_csv: str, truth_tsv: str, kind: str) -> "SimulateResult":
        import csv
        with open(data_csv, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        names, cells = rows[0], rows[1:]
        try:
            data = np.array([[float(c) for c in row] for row in cells], dtype=np.float64).reshape(len(cells), len(names))
        except ValueError:  # level labels
            data = np.array(cells, dtype=str).reshape(len(cells), len(names))
        truth, functions = [], []
        with open(truth_tsv, encoding="utf-8") as f:
            header = f.readline().rstrip("\n").split("\t")
            for line in f:
                cols = dict(zip(header, line.rstrip("\n").split("\t")))
                w = cols.get("weight", "")
                truth.append((cols["source"], cols["target"], float(w) if w not in ("", "NA") else float("nan")))
                if "function" in cols:
                    functions.append(cols["function"])
        return cls(data, names, truth, functions, kind)

    def __repr__(self) -> str:
        return (f"SimulateResult({self.kind}: {self.data.shape[1]} variables x {self.data.shape[0]} samples, "
                f"{len(self.truth)} true edges)")

    def to_pandas(self):
        """The data as a pandas DataFrame with the variables' names."""
        return _pandas().DataFrame(self.data, columns=self.names)
