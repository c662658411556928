# SPDX-License-Identifier: Apache-2.0
"""tigramite's CMIknn test shape: ``CMIknn(knn=0.2, shuffle_neighbors=5, sig_samples=500,
transform="ranks", seed=42).run_test_raw(x, y, z)`` returns ``(statistic, p_value)`` (and
``dependent`` when ``alpha_or_thres`` is given, as tigramite 5.2's). The statistic is
tigramite's ``get_dependence_measure`` (equal to tigramite 5.2.10.1's to ~1e-14 on the
reference values in tests/data/cmiknn/); the p-value is cudag's shuffle test with the same
defaults (``sig_samples`` surrogates of Y permuted among its ``shuffle_neighbors`` nearest
neighbours in Z, (1 + #{null >= statistic}) / (1 + B)), drawn from cudag's counter-based
generator keyed by ``seed``: not NumPy's stream, so p-values agree with tigramite's in
distribution, not draw for draw (docs/cmiknn.md). x and y are one variable each (T or T x 1);
z is T x dim_z or None. Only ``significance="shuffle_test"`` is offered."""

from __future__ import annotations

import numpy as np

import cudag

_IGNORED = {"verbosity", "workers"}  # tigramite's, without effect on the values


class CMIknn:
    """tigramite's ``CMIknn`` for ``run_test_raw`` (see the module's text)."""

    def __init__(self, knn: float = 0.2, shuffle_neighbors: int = 5, significance: str = "shuffle_test",
                 transform: str = "ranks", sig_samples: int = 500, seed: int = 42, **kwargs):
        unknown = sorted(set(kwargs) - _IGNORED)
        if unknown:
            raise TypeError(f"CMIknn() got unexpected keyword arguments {unknown} (cudag's face offers knn, "
                            "shuffle_neighbors, significance, transform, sig_samples, seed)")
        if significance != "shuffle_test":
            raise ValueError(f"significance={significance!r}: cudag's CMIknn offers 'shuffle_test' only")
        if transform is False or transform is None:
            transform = "none"
        self.knn, self.shuffle_neighbors, self.transform = knn, shuffle_neighbors, str(transform)
        self.sig_samples, self.seed, self.significance = sig_samples, seed, significance

    @staticmethod
    def _column(a, what: str, t: int | None) -> np.ndarray:
        a = np.asarray(a, dtype=float)
        if a.ndim == 2 and a.shape[1] == 1:
            a = a[:, 0]
        if a.ndim != 1:
            raise ValueError(f"{what} must be one variable (T or T x 1 values), not shape {a.shape}")
        if t is not None and a.shape[0] != t:
            raise ValueError(f"{what} has {a.shape[0]} samples, x has {t}")
        return a

    def run_test_raw(self, x, y, z=None, x_type=None, y_type=None, z_type=None, alpha_or_thres=None):
        """(statistic, p_value), or (statistic, p_value, dependent) with ``alpha_or_thres``
        (dependent: p_value <= alpha_or_thres). Mixed-type arguments are not offered."""
        if x_type is not None or y_type is not None or z_type is not None:
            raise ValueError("x_type, y_type and z_type (mixed data) are not offered by cudag's CMIknn")
        xs = self._column(x, "x", None)
        ys = self._column(y, "y", xs.shape[0])
        cols = [xs, ys]
        if z is not None:
            zs = np.asarray(z, dtype=float)
            if zs.ndim == 1:
                zs = zs[:, None]
            if zs.ndim != 2 or zs.shape[0] != xs.shape[0]:
                raise ValueError(f"z must be T x dim_z with T = {xs.shape[0]}, not shape {zs.shape}")
            cols += [zs[:, k] for k in range(zs.shape[1])]
        names = ["X", "Y"] + [f"Z{k}" for k in range(len(cols) - 2)]
        res = cudag.citest(np.column_stack(cols), "X", "Y", given=names[2:], test="cmiknn", names=names,
                           knn=self.knn, shuffle_neighbors=self.shuffle_neighbors, permutations=self.sig_samples,
                           transform=self.transform, seed=self.seed)
        if alpha_or_thres is None:
            return res.statistic, res.p_value
        return res.statistic, res.p_value, bool(res.p_value <= alpha_or_thres)

    def __repr__(self) -> str:
        return (f"cudag.compat.tigramite.CMIknn(knn={self.knn}, shuffle_neighbors={self.shuffle_neighbors}, "
                f"sig_samples={self.sig_samples}, transform={self.transform!r}, seed={self.seed})")
