# SPDX-License-Identifier: Apache-2.0
"""The result of ``cudag.fci(..., bootstrap=B)`` (``cudag fci --bootstrap``): the consensus
PAG and the PAG edge kinds' frequencies."""
from __future__ import annotations

import numpy as np

from ._results import FciResult, _Frequencies, _pandas, pag_edge_string

#: The PAG edge kinds a PAG bootstrap counts, read from i to j (i < j), in its columns' order.
PAG_EDGE_KINDS = ("o->", "<-o", "o-o", "-->", "<--", "<->", "---", "o--", "--o")
_REVERSE = str.maketrans("<>", "><")

#: The columns of ``cudag fci --bootstrap B --format freq``: the pair's adjacency frequency,
#: then "none" and each kind's (read from source to target), then its edge in the consensus
#: PAG ("" when not in it).
PAG_FREQUENCY_COLUMNS = ("source", "target", "adjacency", "none", *PAG_EDGE_KINDS, "consensus")


class FciBootstrapResult(_Frequencies, FciResult):
    """The result of ``cudag.fci(..., bootstrap=B)`` (and of :func:`cudag.load` on a
    ``cudag fci --bootstrap`` file): an :class:`FciResult` whose PAG is the consensus PAG
    (edge_array, edges(), pag, cl_matrix ... as FciResult's; no separating sets, pMax or
    levels), plus the result file's /bootstrap: ``pairs`` (int32 K x 2, i < j, sorted: the
    pairs adjacent in at least one replicate), ``counts`` (int32 K x 10: replicates where
    the pair is none, then each of PAG_EDGE_KINDS read from i to j; rows sum to B),
    ``frequency`` (K x 10, counts / B), ``adjacency`` (K, 1 - none); ``replicates`` (B),
    ``resample``, ``seed``, ``consensus``. ``frequencies()`` / ``to_pandas()`` are the
    frequency table (``--format freq``)."""

    def __init__(self, raw: dict):
        super().__init__(raw)
        b = raw["bootstrap"]
        self.replicates: int = int(b["replicates"])
        self.resample: str = b["resample"]
        self.seed: int = int(b["seed"])
        self.consensus: float = float(b["consensus"])
        self._pairs: np.ndarray = np.asarray(b["pairs"], dtype=np.int32).reshape(-1, 2)
        self._counts: np.ndarray = np.asarray(b["counts"], dtype=np.int32).reshape(-1, len(PAG_EDGE_KINDS) + 1)

    def __repr__(self) -> str:
        return (f"FciBootstrapResult({self.variant}: {len(self.names)} variables, {self.replicates} replicates "
                f"({self.resample}), {len(self._pairs)} pairs adjacent in some; consensus at {self.consensus:g}: "
                f"{len(self._pag_edges)} edges)")

    @property
    def pairs(self) -> np.ndarray:
        """int32 K x 2: the pairs (i, j), i < j, adjacent in at least one replicate, sorted."""
        return self._pairs.copy()

    def edge_frequency(self, a, b) -> dict:
        """The frequencies of the pair a, b (names or indices), seen from a: {"adjacency",
        "none", then each of PAG_EDGE_KINDS read from a to b ("o->": a o-> b)}; a pair no
        replicate joined has adjacency 0 and none 1."""
        from_lower, c = self._pair(a, b)
        n = float(self.replicates)
        out = {"adjacency": (self.replicates - c[0]) / n, "none": c[0] / n}
        for kind, count in zip(PAG_EDGE_KINDS, c[1:]):
            # The table reads each kind from the lower index; from the upper one it reverses.
            seen = kind if from_lower else kind[::-1].translate(_REVERSE)
            out[seen] = count / n
        return out

    def frequencies(self) -> list[tuple]:
        """The frequency table's rows (PAG_FREQUENCY_COLUMNS): one per pair in ``pairs``,
        the source its lower index, the consensus PAG's edge last ("" when not in it)."""
        edges = {(a, b): pag_edge_string(ma, mb) for a, b, ma, mb in self._pag_edges.tolist()}
        freq, adj, names = self.frequency.tolist(), self.adjacency.tolist(), self.names
        return [(names[i], names[j], a, *f, edges.get((i, j), ""))
                for (i, j), a, f in zip(self._pairs.tolist(), adj, freq)]

    def to_pandas(self, edges: bool = False, frequencies: bool = True):
        """The frequency table as a pandas DataFrame (PAG_FREQUENCY_COLUMNS, exact rather
        than to 6 digits); ``frequencies=False`` gives FciResult's frames of the consensus PAG."""
        if not frequencies:
            return super().to_pandas(edges=edges)
        return _pandas().DataFrame(self.frequencies(), columns=list(PAG_FREQUENCY_COLUMNS))
