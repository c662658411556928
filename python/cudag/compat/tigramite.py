# SPDX-License-Identifier: Apache-2.0
"""tigramite 5.2's conditional-independence tests on raw arrays, CMIknn and ParCorr.

tigramite's CMIknn test shape: ``CMIknn(knn=0.2, shuffle_neighbors=5, sig_samples=500,
transform="ranks", seed=42).run_test_raw(x, y, z)`` returns ``(statistic, p_value)`` (and
``dependent`` when ``alpha_or_thres`` is given, as tigramite 5.2's). The statistic is
tigramite's ``get_dependence_measure`` (equal to tigramite 5.2.10.1's to ~1e-14 on the
reference values in tests/data/cmiknn/); the p-value is cudag's shuffle test with the same
defaults (``sig_samples`` surrogates of Y permuted among its ``shuffle_neighbors`` nearest
neighbours in Z, (1 + #{null >= statistic}) / (1 + B)), drawn from cudag's counter-based
generator keyed by ``seed``: not NumPy's stream, so p-values agree with tigramite's in
distribution, not draw for draw (docs/cmiknn.md). x and y are one variable each (T or T x 1);
z is T x dim_z or None. Only ``significance="shuffle_test"`` is offered.

tigramite's ParCorr test shape: ``ParCorr().run_test_raw(x, y, z)`` returns ``(value, p_value)``
(and ``dependent`` with ``alpha_or_thres``) as tigramite 5.2's ``significance="analytic"``:
every column standardised, x and y regressed on z by least squares, value = the Pearson
correlation of the two residuals, p-value two-sided from Student's t with T - dim degrees of
freedom (dim: the columns of x, y and z). Both come from cudag's library (ci::parcorr,
ci::student_t_sf); they equal tigramite 5.2.10.1's to ~1e-13 on tests/data/parcorr/. As
tigramite's, x, y and z must be 2-d (samples x dimension); x and y one column each.
ParCorr is also tigramite's CondIndTest on a DataFrame (run_test, get_measure,
get_confidence, the shuffle test and bootstrap from cudag's keyed generator; see the class),
DataFrame has construct_array, and PCMCI has run_pc_stable, run_mci and tigramite's pc_alpha
choice; tigramite 5.2.10.1's own ParCorr and PCMCI tests run against them through
scripts/dev/run_tigramite_tests.py."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np

import cudag

_IGNORED = {"verbosity", "workers"}  # tigramite's, without effect on the values


def _cmi_transform(transform) -> str:
    """tigramite's transform names, spelled as it compares them ('ranks', 'standardize',
    'uniform'; False, None or 'none': none). tigramite reads any other value as no transform; cudag
    refuses it rather than run a misspelt one untransformed."""
    if transform is False or transform is None:
        return "none"
    if isinstance(transform, str) and transform in ("ranks", "standardize", "uniform", "none"):
        return transform
    raise ValueError(f"transform={transform!r}: tigramite's CMIknn transforms are 'ranks', 'standardize' and "
                     "'uniform' (as spelt; tigramite runs anything else untransformed), or False / 'none' for none")


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
        transform = _cmi_transform(transform)
        self.knn, self.shuffle_neighbors, self.transform = knn, shuffle_neighbors, transform
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


def _check_degrees_of_freedom(p_value: float, samples: int, dim: int) -> None:
    if np.isnan(p_value):
        raise ValueError(f"ParCorr: {samples} samples for {dim} columns of x, y and z: Student's t needs "
                         f"at least {dim + 1} samples (T - dim >= 1; tigramite gives NaN)")


_SIGNIFICANCES = ("analytic", "shuffle_test", "fixed_thres")
_CUT_OFFS = ("2xtau_max", "tau_max", "max_lag", "max_lag_or_tau_max", "2xtau_max_future")


class ParCorr:
    """tigramite's ``ParCorr`` (a ``CondIndTest``): ``run_test_raw``, and on a DataFrame
    (``set_dataframe``) ``run_test``, ``get_measure``, ``get_confidence``, with the methods
    they call (``get_dependence_measure``, ``get_analytic_significance``,
    ``get_shuffle_significance``, ``get_analytic_confidence``, ``get_bootstrap_confidence``,
    ``get_model_selection_criterion``, ``_get_single_residuals``, ``_get_array``,
    ``_get_p_value``). Every value comes from cudag's library (ci::parcorr,
    ci::parcorr_residuals, ci::student_t_sf / student_t_isf, ci::parcorr_shuffle_null,
    ci::parcorr_bootstrap). Differences from tigramite 5.2.10.1:

    * the shuffle test and the bootstrap draw from cudag's counter-based generator keyed by
      ``seed`` (replicate r: stream r), not NumPy's: the same call gives the same p-value or
      interval every time, and they agree with tigramite's in distribution, not draw for draw;
    * ``sig_blocklength`` and ``conf_blocklength`` must be given for those (tigramite's
      block length from the autocorrelation's decay is not offered);
    * masks (``mask_type``) are kept but a DataFrame with a mask is refused by cudag's DataFrame;
    * results are not cached by the array's hash (cudag's values are deterministic);
    * a constant X or Y (after Z is regressed out) is a one-line error where tigramite gives NaN."""

    two_sided = True
    residual_based = True

    def __init__(self, seed: int = 42, mask_type=None, significance: str = "analytic", fixed_thres=None,
                 sig_samples: int = 500, sig_blocklength=None, confidence=None, conf_lev: float = 0.9,
                 conf_samples: int = 100, conf_blocklength=None, recycle_residuals: bool = False,
                 verbosity: int = 0):
        if significance not in _SIGNIFICANCES:
            raise ValueError(f"significance={significance!r}: cudag's ParCorr offers {', '.join(_SIGNIFICANCES)}")
        if fixed_thres is not None:
            raise ValueError("fixed_thres is replaced by providing alpha_or_thres in run_test")
        if confidence not in (None, False, "analytic", "bootstrap"):
            raise ValueError(f"confidence={confidence!r}: cudag's ParCorr offers 'analytic', 'bootstrap' or None")
        if seed is None or int(seed) < 0:
            raise ValueError(f"seed={seed!r}: cudag's ParCorr keys its generator by a seed >= 0")
        self.seed, self.significance = int(seed), significance
        self.sig_samples, self.sig_blocklength = sig_samples, sig_blocklength
        self.confidence, self.conf_lev, self.conf_samples = confidence, conf_lev, conf_samples
        self.conf_blocklength, self.recycle_residuals, self.verbosity = conf_blocklength, recycle_residuals, verbosity
        self.dataframe = None
        self.ci_results = {}
        self.residuals = {}
        self.conf = None
        self.set_mask_type(mask_type)

    @property
    def measure(self) -> str:
        return "par_corr"

    def set_mask_type(self, mask_type):
        if mask_type is not None and set(mask_type) - {"x", "y", "z"}:
            raise ValueError(f"mask_type = {mask_type}, but must be list containing 'x','y','z', or any combination")
        self.mask_type = mask_type

    def set_dataframe(self, dataframe):
        """tigramite's: the DataFrame the node-based methods read."""
        if self.mask_type is not None and getattr(dataframe, "mask", None) is None:
            raise ValueError("mask_type is not None, but no mask in dataframe.")
        self.dataframe = dataframe

    # ---- raw arrays (T x dim) ---------------------------------------------------------

    @staticmethod
    def _array(a, what: str, t: int | None, type_=None) -> np.ndarray:
        if np.ndim(a) != 2:  # tigramite's messages
            if what == "z":
                raise ValueError("z must be array of shape (samples, dimension) where dimension can be 1.")
            raise ValueError("x,y must be arrays of shape (samples, dimension) where dimension can be 1.")
        try:
            out = np.asarray(a, dtype=float)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{what} must hold numbers: {e}") from None
        if t is not None and out.shape[0] != t:
            raise ValueError(f"{what} has {out.shape[0]} samples, x has {t}")
        if type_ is not None and np.shape(type_) != out.shape:
            raise ValueError(f"{what}_type has shape {np.shape(type_)}, {what} has {out.shape}")
        return out

    def run_test_raw(self, x, y, z=None, x_type=None, y_type=None, z_type=None, alpha_or_thres=None):
        """(value, p_value), or (value, p_value, dependent) with ``alpha_or_thres``
        (dependent: p_value <= alpha_or_thres; with ``significance="fixed_thres"``
        |value| >= |alpha_or_thres| and p_value 0 or 1). x_type, y_type and z_type are
        accepted and, as in tigramite's ParCorr, change nothing."""
        xs = self._array(x, "x", None, x_type)
        ys = self._array(y, "y", xs.shape[0], y_type)
        zs = None if z is None else self._array(z, "z", xs.shape[0], z_type)
        if xs.shape[1] != 1 or ys.shape[1] != 1:
            raise ValueError(f"ParCorr tests one X and one Y (T x 1 each), not x {xs.shape} and y {ys.shape} "
                             "(tigramite's ParCorrMult, for multivariate X and Y, is not offered)")
        if self.significance == "fixed_thres" and alpha_or_thres is None:
            raise ValueError("significance == 'fixed_thres' requires setting alpha_or_thres")
        array = np.column_stack([xs, ys] if zs is None else [xs, ys, zs])
        if np.isnan(array).sum() != 0:
            raise ValueError("nans in the array!")
        xyz = np.array([0, 1] + [2] * (array.shape[1] - 2))
        value = self.get_dependence_measure(array.T, xyz)
        p_value = self._get_p_value(value, array.T, xyz, array.shape[0], array.shape[1])
        return self._decide(value, p_value, alpha_or_thres)

    def _decide(self, value, p_value, alpha_or_thres):
        if self.significance == "fixed_thres":
            dependent = bool(np.abs(value) >= np.abs(alpha_or_thres))
            return value, np.float64(0.0 if dependent else 1.0), dependent
        if alpha_or_thres is None:
            return value, p_value
        return value, p_value, bool(p_value <= alpha_or_thres)

    # ---- arrays as tigramite lays them out: dim x T, xyz codes -------------------------

    @staticmethod
    def _rows(array, what: str = "array") -> np.ndarray:
        a = np.asarray(array, dtype=float)
        if a.ndim != 2 or a.shape[0] < 2:
            raise ValueError(f"{what} must be dim x T with X and Y in its first two rows, not shape {a.shape}")
        return np.ascontiguousarray(a.T)  # T x dim for cudag's library

    def get_dependence_measure(self, array, xyz=None, data_type=None):
        """The partial correlation of rows 0 and 1 of ``array`` (dim x T) given rows 2..:
        ci::parcorr's value."""
        values = self._rows(array)
        value, _, _ = cudag._cudag.parcorr(values)
        if np.isnan(value):
            raise ValueError("ParCorr: x or y is constant (after z is regressed out): the partial correlation "
                             "is not defined (tigramite gives NaN)")
        return np.float64(value)

    def _get_single_residuals(self, array, target_var, standardize: bool = True, return_means: bool = False):
        """tigramite's: the residual of row ``target_var`` (0 or 1) of ``array`` (dim x T)
        regressed on rows 2.. by least squares without intercept, every row standardised
        first when ``standardize``; with ``return_means`` also the fitted values (None without
        Z). ci::parcorr_residuals; ``array`` is not modified (tigramite standardises it in place)."""
        resid, fitted = cudag._cudag.parcorr_residuals(self._rows(array), int(target_var), bool(standardize))
        return (resid, fitted) if return_means else resid

    def get_analytic_significance(self, value, T, dim, xyz=None):
        """tigramite's: the two-sided Student-t p-value of ``value`` with T - dim degrees of
        freedom; a ValueError where T - dim < 1 (tigramite gives NaN)."""
        p_value = cudag._cudag.parcorr_p_value(float(value), int(T), int(dim))
        _check_degrees_of_freedom(p_value, int(T), int(dim))
        return np.float64(p_value)

    @staticmethod
    def _blocklength(value, what: str) -> int:
        if value is None:
            raise ValueError(f"{what}=None (tigramite's block length from the autocorrelation's decay) is not "
                             f"offered by cudag's ParCorr: give {what} (1 for no blocks)")
        return int(value)

    def get_shuffle_significance(self, array, xyz, value, return_null_dist: bool = False, data_type=None):
        """tigramite's shuffle test: X's and Y's standardised residuals on Z, X's block-shuffled
        ``sig_samples`` times (blocks of ``sig_blocklength``, the tail inserted at a random
        block boundary), p = (1 + #{|null| >= |value|}) / (1 + sig_samples). The shuffles come
        from cudag's generator keyed by ``seed`` (ci::parcorr_shuffle_null), not NumPy's."""
        values = self._rows(array)
        blocklength = self._blocklength(self.sig_blocklength, "sig_blocklength")
        x = cudag._cudag.parcorr_residuals(values, 0, True)[0]
        y = cudag._cudag.parcorr_residuals(values, 1, True)[0]
        null = cudag._cudag.parcorr_shuffle_null(x, y, int(self.sig_samples), blocklength, self.seed)
        p_value = float(np.sum(np.abs(null) >= np.abs(value)) + 1) / (self.sig_samples + 1)
        return (p_value, null) if return_null_dist else p_value

    def _get_p_value(self, val, array, xyz, T, dim, data_type=None, sig_override=None):
        use = self.significance if sig_override is None else sig_override
        if use == "analytic":
            return self.get_analytic_significance(value=val, T=T, dim=dim, xyz=xyz)
        if use == "shuffle_test":
            return self.get_shuffle_significance(array=array, xyz=xyz, value=val)
        if use == "fixed_thres":
            return None
        raise ValueError(f"{use} not known.")

    def get_analytic_confidence(self, value, df, conf_lev):
        """tigramite's: the interval of the correlation from Student's t with ``df`` degrees
        of freedom centred at value·sqrt(df / (1 - value²)), mapped back by t / sqrt(df + t²)
        (quantiles from ci::student_t_isf)."""
        q = cudag._cudag.student_t_isf((1.0 - conf_lev) / 2.0, float(df))
        if np.isnan(q):
            raise ValueError(f"ParCorr: no confidence interval for df = {df}, conf_lev = {conf_lev}")
        centre = value * np.sqrt(df) / np.sqrt(1.0 - value ** 2)
        lower, upper = centre - q, centre + q
        return (lower / np.sqrt(df + lower ** 2), upper / np.sqrt(df + upper ** 2))

    def get_bootstrap_confidence(self, array, xyz, dependence_measure=None, conf_samples: int = 100,
                                 conf_blocklength=None, conf_lev: float = 0.95, data_type=None, verbosity: int = 0):
        """tigramite's block bootstrap interval: ``conf_samples`` resamples of whole columns
        (blocks of ``conf_blocklength``), the (1 - conf_lev)/2 and (1 + conf_lev)/2 order
        statistics of the measure, as tigramite indexes them. The resamples come from cudag's
        generator keyed by ``seed`` (ci::parcorr_bootstrap for this test's own measure)."""
        values = self._rows(array)
        blocklength = self._blocklength(conf_blocklength, "conf_blocklength")
        c_int = 1.0 - (1.0 - conf_lev) / 2.0
        own = dependence_measure is None or getattr(dependence_measure, "__func__", None) is \
            ParCorr.get_dependence_measure
        if own:
            dist = cudag._cudag.parcorr_bootstrap(values, int(conf_samples), blocklength, self.seed)
        else:
            t = values.shape[0]
            dist = np.array([dependence_measure(values[cudag._cudag.block_rows(t, blocklength, self.seed, r, True)].T,
                                                xyz) for r in range(int(conf_samples))])
        dist = np.sort(dist)
        return (dist[int((1.0 - c_int) * conf_samples)], dist[int(c_int * conf_samples)])

    # ---- nodes of a DataFrame ----------------------------------------------------------

    def _get_array(self, X, Y, Z, tau_max=0, cut_off="2xtau_max", remove_constant_data=False, verbosity=0):
        """tigramite's: the DataFrame's construct_array (cleaned X, Y, Z); with
        ``remove_constant_data`` also the array, xyz, nodes and types less constant rows."""
        if len(X) > 1 or len(Y) > 1:
            raise ValueError(f"X and Y for {self.measure} must be univariate.")
        if self.dataframe is None:
            raise ValueError("Call set_dataframe first when using CI test outside causal discovery classes.")
        array, xyz, XYZ, type_array = self.dataframe.construct_array(
            X=X, Y=Y, Z=Z, tau_max=tau_max, mask_type=self.mask_type, return_cleaned_xyz=True, do_checks=True,
            remove_overlaps=True, cut_off=cut_off, verbosity=verbosity)
        if not remove_constant_data:
            return array, xyz, XYZ, type_array
        constant = np.where(array.std(axis=1) == 0.0)[0]
        kept = []
        for code, nodes in enumerate(XYZ):
            rows = np.where(xyz == code)[0]
            kept.append([node for node, row in zip(nodes, rows) if row not in constant])
        nonzero_array = np.delete(array, constant, axis=0)
        nonzero_xyz = np.delete(xyz, constant, axis=0)
        nonzero_type = None if type_array is None else np.delete(type_array, constant, axis=0)
        return array, xyz, XYZ, type_array, nonzero_array, nonzero_xyz, tuple(kept), nonzero_type

    def _measure_on(self, X, Y, Z, xyz, array):
        if not self.recycle_residuals:
            return self.get_dependence_measure(array, xyz)
        resid = []
        for target, nodes in ((0, X), (1, Y)):
            key = (tuple(set(nodes)), tuple(set(Z)))
            if key in self.residuals:
                resid.append(self.residuals[key])
            else:
                r = self._get_single_residuals(array, target_var=target)
                if Z:
                    self.residuals[key] = r
                resid.append(r)
        return self.get_dependence_measure(np.array(resid), np.array([0, 1]))

    def run_test(self, X, Y, Z=None, tau_max=0, cut_off="2xtau_max", alpha_or_thres=None):
        """tigramite's: X _||_ Y | Z on nodes [(var, -lag)] of the DataFrame; (value, p_value)
        or (value, p_value, dependent) with ``alpha_or_thres``. Constant rows are left out;
        a constant X or Y gives value 0, p-value 1 (None for fixed_thres), not dependent."""
        if self.significance == "fixed_thres" and alpha_or_thres is None:
            raise ValueError("significance == 'fixed_thres' requires setting alpha_or_thres")
        (array, xyz, XYZ, _, nz_array, nz_xyz, nz_XYZ, _) = self._get_array(
            X=X, Y=Y, Z=Z, tau_max=tau_max, cut_off=cut_off, remove_constant_data=True, verbosity=self.verbosity)
        if np.any(np.isnan(array)):
            raise ValueError("nans in the array!")
        nz_X, nz_Y, nz_Z = nz_XYZ
        if len(nz_X) == 0 or len(nz_Y) == 0:
            value = np.float64(0.0)
            p_value = None if self.significance == "fixed_thres" else np.float64(1.0)
            dependent = False
            if self.significance == "fixed_thres":
                p_value = np.float64(1.0)
        else:
            value = self._measure_on(nz_X, nz_Y, nz_Z, nz_xyz, nz_array)
            dim, T = nz_array.shape
            p_value = self._get_p_value(value, nz_array, nz_xyz, T, dim)
            out = self._decide(value, p_value, alpha_or_thres)
            p_value = out[1]
            dependent = out[2] if len(out) == 3 else None
        self.ci_results[(tuple(XYZ[0]), tuple(XYZ[1]), tuple(XYZ[2]))] = (value, p_value, dependent)
        if alpha_or_thres is None:
            return value, p_value
        return value, p_value, dependent

    def get_measure(self, X, Y, Z=None, tau_max=0, data_type=None):
        """tigramite's: the partial correlation on nodes of the DataFrame (0 where X or Y is constant)."""
        (array, xyz, XYZ, _, nz_array, nz_xyz, nz_XYZ, _) = self._get_array(
            X=X, Y=Y, Z=Z, tau_max=tau_max, remove_constant_data=True, verbosity=self.verbosity)
        if np.any(np.isnan(array)):
            raise ValueError("nans in the array!")
        if len(nz_XYZ[0]) == 0 or len(nz_XYZ[1]) == 0:
            return np.float64(0.0)
        return self._measure_on(nz_XYZ[0], nz_XYZ[1], nz_XYZ[2], nz_xyz, nz_array)

    def get_confidence(self, X, Y, Z=None, tau_max=0, data_type=None):
        """tigramite's: the ``confidence`` interval ('analytic' or 'bootstrap') of the
        partial correlation on nodes of the DataFrame; None without ``confidence``."""
        if not self.confidence:
            return None
        if self.conf_lev < 0.5 or self.conf_lev >= 1.0:
            raise ValueError("conf_lev = %.2f, but must be between 0.5 and 1" % self.conf_lev)
        half_conf = self.conf_samples * (1.0 - self.conf_lev) / 2.0
        if self.confidence == "bootstrap" and half_conf < 1.0:
            raise ValueError("conf_samples*(1.-conf_lev)/2 is %.2f, must be >> 1" % half_conf)
        array, xyz, _, _ = self._get_array(X=X, Y=Y, Z=Z, tau_max=tau_max, remove_constant_data=False)
        dim, T = array.shape
        if np.isnan(array).sum() != 0:
            raise ValueError("nans in the array!")
        if self.confidence == "analytic":
            value = self.get_dependence_measure(array, xyz)
            self.conf = self.get_analytic_confidence(df=T - dim, value=value, conf_lev=self.conf_lev)
        else:
            self.conf = self.get_bootstrap_confidence(array, xyz, conf_samples=self.conf_samples,
                                                      conf_blocklength=self.conf_blocklength, conf_lev=self.conf_lev)
        return self.conf

    def get_model_selection_criterion(self, j, parents, tau_max=0, criterion="aic"):
        """tigramite's: variable j regressed on ``parents`` (standardised, least squares),
        with RSS the residual sum of squares, T the samples and p = len(parents) + 1:
        'aic' T log RSS + 2p, 'bic' T log(RSS/T) + p log T, 'corrected_aic'
        T log RSS + 2p + (2p² + 2p)/(T - p - 1)."""
        array, _, _ = self.dataframe.construct_array(X=[(j, 0)], Y=[(j, 0)], Z=parents, tau_max=tau_max,
                                                     mask_type=self.mask_type, return_cleaned_xyz=False,
                                                     do_checks=True, verbosity=self.verbosity)
        dim, T = array.shape
        rss = float((self._get_single_residuals(array, target_var=1) ** 2).sum())
        p = dim - 1
        if criterion == "corrected_aic":
            return T * np.log(rss) + 2.0 * p + (2.0 * p ** 2 + 2.0 * p) / (T - p - 1)
        if criterion == "bic":
            return T * np.log(rss / float(T)) + p * np.log(T)
        if criterion == "aic":
            return T * np.log(rss) + 2.0 * p
        raise ValueError("Unknown scoring criterion.")

    def __repr__(self) -> str:
        return f"cudag.compat.tigramite.ParCorr(significance={self.significance!r})"


class DataFrame:
    """tigramite's ``DataFrame`` for :class:`PCMCI`: a T x N array (rows in time order) or, with
    ``analysis_mode='multiple'``, several independent series (a dict of T_m x N arrays or an
    M x T x N array), its variable names and tigramite's ``missing_flag`` (cells equal to it
    become NaN, as tigramite makes them; each test leaves out the time steps where one of its
    lagged variables is missing). Masks, vector variables, data types, reference points, time
    offsets and remove_missing_upto_maxlag=True are not offered."""

    def __init__(self, data, mask=None, missing_flag=None, vector_vars=None, var_names=None, data_type=None,
                 datatime=None, analysis_mode="single", reference_points=None, time_offsets=None,
                 remove_missing_upto_maxlag=False):
        if mask is not None or vector_vars is not None or data_type is not None:
            raise ValueError("cudag's DataFrame takes data, var_names, missing_flag and analysis_mode (no mask, "
                             "vector_vars or data_type)")
        if reference_points is not None or time_offsets is not None or remove_missing_upto_maxlag:
            raise ValueError("cudag's DataFrame takes no reference_points, time_offsets or "
                             "remove_missing_upto_maxlag=True")
        if analysis_mode not in ("single", "multiple"):
            raise ValueError(f"'analysis_mode' is '{analysis_mode}', must be 'single' or 'multiple'.")
        if isinstance(data, dict):
            if analysis_mode == "single" and len(data) != 1:
                raise ValueError("In analysis mode 'single', 'data' given as dictionary. There are "
                                 f"{len(data)} entries in 'data', there must be exactly one entry.")
            values = {k: np.array(v, dtype=float) for k, v in data.items()}
        else:
            array = np.array(data, dtype=float)
            if array.ndim == 3 and (analysis_mode == "multiple" or array.shape[0] == 1):
                values = {m: array[m] for m in range(array.shape[0])}
            else:
                values = {0: array}
        for key, v in values.items():
            if v.ndim != 2:
                raise ValueError(f"data[{key}] must be T x N, not shape {v.shape}")
            if np.isnan(v).sum() != 0:
                raise ValueError("NaNs in the data.")
        if len({v.shape[1] for v in values.values()}) != 1:
            raise ValueError("All entries must be np.ndarrays of shape (T_i, N), where T_i may vary across the "
                             "entries while N must not vary.")
        if missing_flag is not None:
            for v in values.values():
                v[v == missing_flag] = np.nan
        self.values = values
        self.analysis_mode = analysis_mode
        self.datasets = list(values.keys())
        self.M = len(values)
        self.T = {k: v.shape[0] for k, v in values.items()}
        self.N = next(iter(values.values())).shape[1]
        self.var_names = ({i: f"$X^{{{i}}}$" for i in range(self.N)} if var_names is None
                          else {i: str(n) for i, n in enumerate(var_names)})
        self.datatime = datatime
        self.missing_flag = missing_flag
        self.mask = None
        self.data_type = None
        self.vector_vars = None
        self.bootstrap = None
        self.Ndata = self.N
        self.largest_time_step = max(self.T.values())
        self.use_indices_dataset_dict = {}

    def construct_array(self, X, Y, Z, tau_max, extraZ=None, mask=None, mask_type=None, data_type=None,
                        return_cleaned_xyz=False, do_checks=True, remove_overlaps=True, cut_off="2xtau_max",
                        verbosity=0):
        """tigramite's: the dim x n array of the nodes X, Y, Z (and extraZ), each [(var, -lag)],
        duplicates dropped and Z's nodes in X or Y left out (``remove_overlaps``); row r of node
        (var, -lag) holds var's values at t - lag for the reference times t from the cut-off on
        ('2xtau_max': 2 tau_max, 'tau_max', 'max_lag': the nodes' largest lag,
        'max_lag_or_tau_max', '2xtau_max_future': 'max_lag' less the latest times down to the
        count of '2xtau_max'). Returns (array, xyz, type_array None), with
        ``return_cleaned_xyz`` (array, xyz, (X, Y, Z), None); xyz codes X 0, Y 1, Z 2, extraZ 3."""
        if mask is not None or data_type is not None:
            raise ValueError("cudag's DataFrame takes no mask or data_type in construct_array")
        if cut_off not in _CUT_OFFS:
            raise ValueError("max_lag must be in {'2xtau_max', 'tau_max', 'max_lag', 'max_lag_or_tau_max', "
                             "'2xtau_max_future'}")

        def unique(nodes):
            return list(dict.fromkeys((int(v), int(lag)) for v, lag in (nodes or [])))

        X, Y, Z, extraZ = unique(X), unique(Y), unique(Z), unique(extraZ)
        if remove_overlaps:
            Z = [n for n in Z if n not in X and n not in Y]
            extraZ = [n for n in extraZ if n not in X and n not in Y and n not in Z]
        XYZ = X + Y + Z + extraZ
        if do_checks:
            if any(lag > 0 for _, lag in XYZ):
                raise ValueError(f"nodes are {XYZ}, but all lags must be non-positive")
            if any(v < 0 or v >= self.N for v, _ in XYZ):
                raise ValueError(f"var indices {[v for v, _ in XYZ]}, but must be in [0, {self.N - 1}]")
        if not XYZ:
            raise ValueError("X, Y, Z must be lists of tuples in format [(var, -lag),...], eg., [(2, -2), (1, 0), ...]")
        max_node_lag = max(abs(lag) for _, lag in XYZ)
        first = {"2xtau_max": 2 * tau_max, "tau_max": tau_max, "max_lag": max_node_lag,
                 "max_lag_or_tau_max": max(max_node_lag, tau_max), "2xtau_max_future": max_node_lag}[cut_off]
        if self.M != 1 or self.missing_flag is not None:
            raise ValueError("cudag's DataFrame.construct_array takes one series without a missing_flag "
                             "(cudag.pcmci runs several series and missing values)")
        data = next(iter(self.values.values()))
        T = data.shape[0]
        times = np.arange(max(first, 0), T)
        if cut_off == "2xtau_max_future":
            times = times[:max(0, T - max(2 * tau_max, 0))]
        if times.size and max_node_lag > times[0]:
            raise ValueError(f"a lag of {max_node_lag} reaches before the series' start at the cut-off "
                             f"'{cut_off}' (tau_max = {tau_max})")
        xyz = np.array([code for code, nodes in enumerate((X, Y, Z, extraZ)) for _ in nodes])
        array = np.empty((len(XYZ), times.size), dtype=data.dtype)
        for r, (var, lag) in enumerate(XYZ):
            array[r] = data[times + lag, var]
        if array.shape[1] == 0:
            raise ValueError("No valid samples")
        self.use_indices_dataset_dict = {0: times}
        if return_cleaned_xyz:
            return array, xyz, (X, Y, Z), None
        return array, xyz, None


def _series_of(dataframe):
    """(data, names, input options) of a DataFrame (cudag's, or tigramite's own without a mask):
    one T x N array, or a dict of them for several series; the input options hold
    missing_flag NaN where the DataFrame has a missing flag (both DataFrames hold the flagged
    cells as NaN)."""
    values = getattr(dataframe, "values", None)
    if not isinstance(values, dict) or len(values) == 0:
        raise ValueError("PCMCI takes a DataFrame (tigramite's or cudag.compat.tigramite's)")
    if getattr(dataframe, "mask", None) is not None:
        raise ValueError("cudag's PCMCI takes no mask")
    if getattr(dataframe, "remove_missing_upto_maxlag", False):
        raise ValueError("cudag's PCMCI takes no remove_missing_upto_maxlag=True")
    arrays = {k: np.asarray(v, dtype=float) for k, v in values.items()}
    first = next(iter(arrays.values()))
    data = first if len(arrays) == 1 else arrays
    names = getattr(dataframe, "var_names", None)
    if isinstance(names, dict):
        names = [names[i] for i in range(first.shape[1])]
    names = [str(n) for n in names] if names is not None else [f"$X^{{{i}}}$" for i in range(first.shape[1])]
    # Names must be unique for cudag's table; tigramite's default LaTeX names are.
    options = {} if getattr(dataframe, "missing_flag", None) is None else {"missing_flag": float("nan")}
    return data, names, options


_PC_ALPHAS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5]  # tigramite's pc_alpha=None choices for PCMCI
_PCMCIPLUS_ALPHAS = [0.001, 0.005, 0.01, 0.025, 0.05]  # and for PCMCI+
_REVERSE = {"-->": "<--", "<--": "-->", "-?>": "<?-", "<?-": "-?>", "o-o": "o-o", "o?o": "o?o", "x-x": "x-x",
            "x?x": "x?x"}


def _alphas(pc_alpha, default: list) -> list:
    if pc_alpha is None:
        return list(default)
    if isinstance(pc_alpha, (list, tuple, np.ndarray)):
        return [float(a) for a in pc_alpha]
    return [float(pc_alpha)]


def _pc_alpha(pc_alpha):
    """tigramite's pc_alpha for cudag.pcmci: one value, a list of values or None (the method's
    default list), the last two tigramite's selection."""
    if pc_alpha is None:
        return "auto"
    if isinstance(pc_alpha, (list, tuple, np.ndarray)):
        return [float(a) for a in pc_alpha]
    return float(pc_alpha)


class PCMCI:
    """tigramite's ``PCMCI(dataframe, cond_ind_test)`` with ``run_pcmci``, ``run_pcmciplus``,
    ``run_pc_stable``, ``run_mci`` and ``return_parents_dict``. ``run_pcmci`` and
    ``run_pcmciplus`` (any ``pc_alpha``) and ``run_pc_stable`` (one ``pc_alpha``) are ``cudag.pcmci``: the same
    ``graph``, ``val_matrix`` and ``p_matrix`` as tigramite 5.2.10.1 (ParCorr: to ~1e-11 on
    tests/data/pcmci/ and tests/data/pcmciplus/; CMIknn: the statistics equal, the p-values
    from cudag's shuffle stream). ``run_mci`` (given parents) runs tigramite's MCI tests one
    by one through ``cond_ind_test.run_test`` (cudag's ParCorr: ci::parcorr). With
    ``pc_alpha`` None or a list, the choice is tigramite's: ``run_pc_stable`` (and so
    ``run_pcmci``) keeps, per variable, the parents of the pc_alpha (0.05, 0.1, 0.2, 0.3,
    0.4, 0.5 for None) whose ``get_model_selection_criterion`` (AIC) is least, then
    ``run_mci``; ``run_pcmciplus`` keeps the pc_alpha (0.001, 0.005, 0.01, 0.025, 0.05 for
    None) whose graph, made a DAG (its o-o links oriented into simplicial variables, in
    decreasing order of the variables' summed |val_matrix|), has the least mean criterion
    over the variables; its results get ``optimal_alpha``. ``cond_ind_test``: this module's
    ParCorr or CMIknn (tigramite's own objects are read for their settings too; the choices
    among several pc_alpha need a test with ``get_model_selection_criterion`` and
    ``run_test``, such as this module's ParCorr). After ``run_pcmci`` and ``run_pc_stable``,
    ``all_parents`` is set; after ``run_pcmciplus``, ``all_lagged_parents``; ``results``
    holds graph, p_matrix, val_matrix and conf_matrix (tigramite's ``sepsets`` and
    ``ambiguous_triples`` are not returned). FDR correction is offered through ``cudag.pcmci``
    (one pc_alpha) only."""

    def __init__(self, dataframe, cond_ind_test, verbosity: int = 0):
        self.dataframe = dataframe
        self.cond_ind_test = cond_ind_test
        self.verbosity = verbosity
        self._data, self.var_names, self._input = _series_of(dataframe)
        if isinstance(self._data, dict):  # several series: tigramite's T is a dict too
            self.T = {k: v.shape[0] for k, v in self._data.items()}
            self.N = len(self.var_names)
        else:
            self.T, self.N = self._data.shape
        self.all_parents = None
        self.results = None
        if hasattr(cond_ind_test, "set_dataframe"):
            cond_ind_test.set_dataframe(dataframe)

    def _test_options(self) -> dict:
        t = self.cond_ind_test
        measure = getattr(t, "measure", None)
        name = type(t).__name__
        if measure == "par_corr" or name == "ParCorr":
            if getattr(t, "significance", "analytic") != "analytic":
                raise ValueError("cudag's PCMCI runs ParCorr with significance='analytic' only")
            return {"test": "parcorr"}
        if measure == "cmi_knn" or name == "CMIknn":
            # settings of tigramite's own CMIknn that change its result and cudag does not run:
            # refused (as ParCorr's other significance modes), never silently replaced
            significance = getattr(t, "significance", "shuffle_test")
            if significance != "shuffle_test":
                raise ValueError(f"cudag's PCMCI runs CMIknn with significance='shuffle_test' only, not "
                                 f"{significance!r}")
            for attr, default in (("null_fit", None), ("permute", "Y"), ("sig_blocklength", None)):
                if getattr(t, attr, default) != default:
                    raise ValueError(f"cudag's PCMCI runs CMIknn with {attr}={default!r} (tigramite's default), "
                                     f"not {getattr(t, attr)!r}")
            seed = getattr(t, "seed", 42)
            return {"test": "cmiknn", "knn": float(t.knn), "shuffle_neighbors": int(t.shuffle_neighbors),
                    "permutations": int(t.sig_samples), "seed": 42 if seed is None else int(seed),
                    "transform": _cmi_transform(getattr(t, "transform", "ranks"))}
        raise ValueError(f"cudag's PCMCI runs ParCorr or CMIknn, not {name}")

    def _run(self, link_assumptions, tau_max, opts: dict) -> dict:
        return cudag.pcmci(self._data, tau_max=int(tau_max), names=list(self.var_names),
                           link_assumptions=link_assumptions, **self._input, **opts)

    @staticmethod
    def _limits(opts: dict, **limits) -> dict:
        for key, value in limits.items():
            if value is not None:
                if int(value) < 0:  # tigramite's _set_max_condition_dim
                    raise ValueError("maximum condition dimension must be >= 0")
                opts[key] = int(value)
        return opts

    def _selection_test(self, what: str):
        t = self.cond_ind_test
        if not hasattr(t, "get_model_selection_criterion") or not hasattr(t, "run_test"):
            raise ValueError(f"{what} chooses among several pc_alpha with the test's get_model_selection_criterion "
                             f"and run_test, which {type(t).__name__} lacks (cudag's ParCorr has them)")
        return t

    def _pc_stable_parents(self, link_assumptions, tau_min, tau_max, pc_alpha, max_conds_dim,
                           max_combinations) -> dict:
        """PC1's parents (cudag.pcmci's condition selection); with several pc_alpha (a list, or
        None for tigramite's default list) each variable keeps the value whose parents score
        lowest by ParCorr's model selection criterion, as tigramite's run_pc_stable."""
        opts = self._test_options()
        opts.update(tau_min=int(tau_min), pc_alpha=pc_alpha, max_combinations=int(max_combinations))
        self._limits(opts, max_conds_dim=max_conds_dim)
        return self._run(link_assumptions, tau_max, opts)["parents"]

    def run_pc_stable(self, selected_links=None, link_assumptions=None, tau_min=1, tau_max=1, save_iterations=False,
                      pc_alpha=0.2, max_conds_dim=None, max_combinations=1):
        """tigramite's condition selection: ``{j: [(i, -lag), ...]}`` (parents in decreasing
        strength), also kept as ``all_parents``. tau_min is raised to 1 as in tigramite."""
        if selected_links is not None:
            raise ValueError("selected_links is DEPRECATED, use link_assumptions instead.")
        if max_combinations <= 0:
            raise ValueError("max_combinations must be > 0")
        if len(_alphas(pc_alpha, _PC_ALPHAS)) > 1:
            self._selection_test("run_pc_stable")
        if link_assumptions is not None:  # tigramite drops the lag-0 links (remove_contemp=True)
            link_assumptions = self._set_link_assumptions(link_assumptions, max(1, int(tau_min)), tau_max,
                                                          remove_contemp=True)
        self.all_parents = self._pc_stable_parents(link_assumptions, max(1, int(tau_min)), tau_max,
                                                   _pc_alpha(pc_alpha), max_conds_dim, max_combinations)
        return self.all_parents

    def _check_tau_limits(self, tau_min, tau_max):
        if not 0 <= tau_min <= tau_max:
            raise ValueError(f"tau_max = {tau_max}, tau_min = {tau_min}, but 0 <= tau_min <= tau_max")

    def _set_max_condition_dim(self, max_conds_dim, tau_min, tau_max):
        """tigramite's: None means N (tau_max - tau_min + 1); a negative one is refused."""
        if max_conds_dim is None:
            max_conds_dim = self.N * (tau_max - tau_min + 1)
        if max_conds_dim < 0:
            raise ValueError("maximum condition dimension must be >= 0")
        return max_conds_dim

    @staticmethod
    def _get_int_parents(parents) -> dict:
        return defaultdict(list, {} if parents is None else {j: list(p) for j, p in dict(parents).items()})

    @staticmethod
    def _sort_parents(parents_vals: dict) -> list:
        """The parents in decreasing |value| (tigramite's order of a variable's parents)."""
        absolute = {k: abs(v) for k, v in parents_vals.items()}
        return sorted(absolute, key=absolute.get, reverse=True)

    @staticmethod
    def _iter_conditions(parent, conds_dim, all_parents):
        """The condition sets of size conds_dim among all_parents less parent, in
        itertools.combinations order (tigramite's PC1 iteration)."""
        others = [p for p in all_parents if p != parent]
        for cond in itertools.combinations(others, conds_dim):
            yield list(cond)

    def _set_link_assumptions(self, link_assumptions, tau_min, tau_max, remove_contemp=False) -> dict:
        """tigramite's internal link assumptions: all links (o?o at lag 0, -?> lagged) when
        None; else the given ones (lag-0 ones dropped with ``remove_contemp``), lagged ones
        directed, lag-0 ones completed by their reverse."""
        if link_assumptions is None:
            return {j: {(i, -lag): ("o?o" if lag == 0 else "-?>") for i in range(self.N)
                        for lag in range(tau_min, tau_max + 1) if not (i == j and lag == 0)} for j in range(self.N)}
        out = {j: dict(link_assumptions.get(j, {})) for j in range(self.N)}
        if remove_contemp:
            out = {j: {link: kind for link, kind in links.items() if link[1] != 0} for j, links in out.items()}
        for j in range(self.N):
            for (i, lag), kind in list(out[j].items()):
                if kind not in _REVERSE:
                    raise ValueError(f"link_assumptions: link type {kind!r} of ({i}, {lag}) -> {j} is not one of "
                                     f"{sorted(_REVERSE)}")
                if lag == 0:
                    other = out[i].get((j, 0))
                    if other is None:
                        out[i][(j, 0)] = _REVERSE[kind]
                    elif other != _REVERSE[kind]:
                        raise ValueError("Inconsistent link assumptions for indices %d - %d " % (i, j))
                else:
                    out[j][(i, lag)] = "-" + kind[1] + ">"
        return out

    def _iter_indep_conds(self, parents, link_assumptions, max_conds_py, max_conds_px):
        """tigramite's MCI iteration: (j, i, tau, Z) for each link (i, tau) --> j of the
        assumptions (not (j, 0), not '<--' / '<?-'), Z = j's first max_conds_py parents
        less (i, tau), then i's first max_conds_px parents shifted by tau not among them."""
        for j in range(self.N):
            conds_y = parents[j][:max_conds_py]
            for (i, tau), kind in link_assumptions[j].items():
                if (i, tau) == (j, 0) or kind in ("<--", "<?-"):
                    continue
                conds_x = [(k, tau + k_tau) for k, k_tau in parents[i][:max_conds_px]]
                Z = [node for node in conds_y if node != (i, tau)]
                Z += [node for node in conds_x if node not in Z]
                yield j, i, tau, Z

    def get_corrected_pvalues(self, p_matrix, fdr_method="fdr_bh", exclude_contemporaneous=True, tau_min=0,
                              tau_max=1, link_assumptions=None):
        """tigramite's: Benjamini-Hochberg q-values (pcmci::fdr_bh) of the links of the
        assumptions (all when None), lag-0 self links and, with ``exclude_contemporaneous``,
        all lag-0 links left as they are; 'none' returns the p-values."""
        p_matrix = np.asarray(p_matrix, dtype=float)
        _, n, lags = p_matrix.shape
        self._check_tau_limits(tau_min, tau_max)
        if link_assumptions is not None:
            mask = np.zeros((n, n, lags), dtype=bool)
            for j, links in self._set_link_assumptions(link_assumptions, tau_min, tau_max).items():
                for (i, lag), kind in links.items():
                    if kind not in ("<--", "<?-"):
                        mask[i, j, abs(lag)] = True
        else:
            mask = np.ones((n, n, lags), dtype=bool)
        mask[range(n), range(n), 0] = False
        if exclude_contemporaneous:
            mask[:, :, 0] = False
        q_matrix = np.array(p_matrix)
        if fdr_method is None or fdr_method == "none":
            return q_matrix
        if fdr_method != "fdr_bh":
            raise ValueError("Only FDR method fdr_bh implemented")
        q_matrix[mask] = cudag._cudag.fdr_bh([float(v) for v in p_matrix[mask]])
        return q_matrix

    def get_graph_from_pmatrix(self, p_matrix, alpha_level, tau_min, tau_max, link_assumptions=None):
        """tigramite's: the string graph of p_matrix <= alpha_level (convert_to_string_graph)."""
        self._set_link_assumptions(link_assumptions, tau_min, tau_max)
        return self.convert_to_string_graph(np.asarray(p_matrix) <= alpha_level)

    def run_mci(self, selected_links=None, link_assumptions=None, tau_min=0, tau_max=1, parents=None,
                max_conds_py=None, max_conds_px=None, val_only=False, alpha_level=0.05, fdr_method="none"):
        """tigramite's MCI step on given ``parents``: each link (i, -tau) --> j tested given
        j's parents (up to max_conds_py, less the link's node) and i's parents shifted by
        tau (up to max_conds_px), through ``cond_ind_test.run_test``; links assumed certain
        ('-->', 'o-o') get value 1, p-value 0. Returns graph, p_matrix, val_matrix,
        conf_matrix, lag-0 entries symmetrised as tigramite's (the larger p-value)."""
        if selected_links is not None:
            raise ValueError("selected_links is DEPRECATED, use link_assumptions instead.")
        self._check_tau_limits(tau_min, tau_max)
        test = self.cond_ind_test
        if not hasattr(test, "run_test"):
            raise ValueError(f"run_mci runs the test's run_test, which {type(test).__name__} lacks "
                             "(cudag's ParCorr has it)")
        links = self._set_link_assumptions(link_assumptions, int(tau_min), int(tau_max))
        max_conds_py = self._set_max_condition_dim(max_conds_py, tau_min, tau_max)
        max_conds_px = self._set_max_condition_dim(max_conds_px, tau_min, tau_max)
        parents = self._get_int_parents(parents)
        shape = (self.N, self.N, tau_max + 1)
        val_matrix, p_matrix = np.zeros(shape), np.ones(shape)
        confident = bool(getattr(test, "confidence", None))
        conf_matrix = np.zeros(shape + (2,)) if confident else None
        for j, i, tau, Z in self._iter_indep_conds(parents, links, max_conds_py, max_conds_px):
            kind = links[j][(i, tau)]
            X, Y = [(i, tau)], [(j, 0)]
            if val_only:
                val_matrix[i, j, abs(tau)] = test.get_measure(X, Y, Z=Z, tau_max=tau_max)
            elif kind in ("-->", "o-o"):
                val_matrix[i, j, abs(tau)], p_matrix[i, j, abs(tau)] = 1.0, 0.0
            else:
                val, pval, _ = test.run_test(X, Y, Z=Z, tau_max=tau_max, alpha_or_thres=alpha_level)
                val_matrix[i, j, abs(tau)], p_matrix[i, j, abs(tau)] = val, pval
            if confident:
                conf_matrix[i, j, abs(tau)] = test.get_confidence(X, Y, Z=Z, tau_max=tau_max)
        if val_only:
            self.results = {"val_matrix": val_matrix, "conf_matrix": conf_matrix}
            return self.results
        if fdr_method != "none":
            if getattr(test, "significance", "analytic") == "fixed_thres":
                raise ValueError("FDR-correction not compatible with significance == 'fixed_thres'")
            p_matrix = self.get_corrected_pvalues(p_matrix, fdr_method=fdr_method, tau_min=tau_min, tau_max=tau_max,
                                                  link_assumptions=links)
        if getattr(test, "significance", "analytic") == "fixed_thres":
            final = np.abs(val_matrix) >= np.abs(alpha_level)
        else:
            final = p_matrix <= alpha_level
        graph = self.convert_to_string_graph(final)
        for i in range(self.N):
            for j in range(self.N):
                kind = links[j].get((i, 0))
                symmetric = kind in ("o-o", "o?o") and p_matrix[i, j, 0] >= p_matrix[j, i, 0]
                if symmetric or kind in ("-->", "-?>"):
                    p_matrix[j, i, 0], val_matrix[j, i, 0] = p_matrix[i, j, 0], val_matrix[i, j, 0]
                    if conf_matrix is not None:
                        conf_matrix[j, i, 0] = conf_matrix[i, j, 0]
        self.results = {"graph": graph, "p_matrix": p_matrix, "val_matrix": val_matrix, "conf_matrix": conf_matrix}
        return self.results

    @staticmethod
    def convert_to_string_graph(final) -> np.ndarray:
        """tigramite's string graph of a 0/1 link array: lagged '-->'; at lag 0 'o-o' where
        both directions hold, '-->' / '<--' where one does."""
        final = np.asarray(final)
        graph = np.full(final.shape, "", dtype="<U3")
        graph[:, :, 1:][final[:, :, 1:] == 1] = "-->"
        now = final[:, :, 0]
        graph[:, :, 0][np.logical_and(now == 1, now.T == 1)] = "o-o"
        for i, j in zip(*np.where(np.logical_and(now == 1, now.T == 0))):
            graph[i, j, 0], graph[j, i, 0] = "-->", "<--"
        return graph

    def return_parents_dict(self, graph, val_matrix, include_lagzero_parents=False):
        """tigramite's: ``{j: [(i, -lag), ...]}`` of the '-->' links into j (lag >= 1, or
        >= 0 with ``include_lagzero_parents``), in decreasing |val_matrix|."""
        graph, val_matrix = np.asarray(graph), np.asarray(val_matrix)
        first = 0 if include_lagzero_parents else 1
        out = {}
        for j in range(self.N):
            links = {(int(i), -int(lag) - first): abs(val_matrix[i, j, lag + first])
                     for i, lag in np.argwhere(graph[:, j, first:] == "-->")}
            out[j] = sorted(links, key=links.get, reverse=True)
        return out

    def run_pcmci(self, selected_links=None, link_assumptions=None, tau_min=0, tau_max=1, save_iterations=False,
                  pc_alpha=0.2, max_conds_dim=None, max_combinations=1, max_conds_py=None, max_conds_px=None,
                  alpha_level=0.05, fdr_method="none"):
        if selected_links is not None:
            raise ValueError("selected_links is DEPRECATED, use link_assumptions instead.")
        opts = self._test_options()
        opts.update(tau_min=int(tau_min), pc_alpha=_pc_alpha(pc_alpha), max_combinations=int(max_combinations),
                    alpha_level=float(alpha_level), fdr_method=str(fdr_method))
        self._limits(opts, max_conds_dim=max_conds_dim, max_conds_py=max_conds_py, max_conds_px=max_conds_px)
        res = self._run(link_assumptions, tau_max, opts)
        self.all_parents = res["parents"]
        # tigramite's iterations: with a pc_alpha selection, each variable's optimal_pc_alpha.
        chosen = res["optimal_pc_alpha"]
        self.iterations = {j: ({} if chosen is None else {"optimal_pc_alpha": chosen[j]}) for j in range(self.N)}
        self.results = {k: res[k] for k in ("graph", "p_matrix", "val_matrix", "conf_matrix")}
        return self.results

    @staticmethod
    def _dag_of(cpdag: np.ndarray, order) -> np.ndarray:
        """One DAG of a CPDAG's Markov class (tigramite's choice): the lag-0 o-o links
        (conflicts x-x left out) oriented into a simplicial variable, the first in ``order``
        whose o-o neighbours are pairwise adjacent, that variable then removed, until none
        is left."""
        dag = np.copy(cpdag)
        circle = np.copy(cpdag)
        circle[:, :, 1:] = ""
        circle[circle == "x-x"] = ""
        circle[:, :, 0][circle[:, :, 0] == "-->"] = ""
        while True:
            found = None
            for j in order:
                adj = np.where(np.isin(circle[:, j, 0], ("o-o", "o?o")))[0].tolist()
                if len(adj) == 1 or (adj and all(circle[a, b, 0] != "" for k, a in enumerate(adj)
                                                 for b in adj[k + 1:])):
                    found = (j, adj)
                    break
            if found is None:
                return dag
            j, adj = found
            for v in adj:
                dag[v, j, 0], dag[j, v, 0] = "-->", "<--"
                circle[v, j, 0] = circle[j, v, 0] = ""

    def run_pcmciplus(self, selected_links=None, link_assumptions=None, tau_min=0, tau_max=1, pc_alpha=0.01,
                      contemp_collider_rule="majority", conflict_resolution=True, reset_lagged_links=False,
                      max_conds_dim=None, max_combinations=1, max_conds_py=None, max_conds_px=None,
                      max_conds_px_lagged=None, fdr_method="none"):
        if selected_links is not None:
            raise ValueError("selected_links is DEPRECATED, use link_assumptions instead.")
        opts = self._test_options()
        opts.update(method="pcmciplus", tau_min=int(tau_min), pc_alpha=_pc_alpha(pc_alpha),
                    contemp_collider_rule=str(contemp_collider_rule) if contemp_collider_rule is not None
                    else "none", conflict_resolution=bool(conflict_resolution),
                    reset_lagged_links=bool(reset_lagged_links), max_combinations=int(max_combinations),
                    fdr_method=str(fdr_method))
        self._limits(opts, max_conds_dim=max_conds_dim, max_conds_py=max_conds_py, max_conds_px=max_conds_px,
                     max_conds_px_lagged=max_conds_px_lagged)
        res = self._run(link_assumptions, tau_max, opts)
        self.all_lagged_parents = res["parents"]
        self.results = {k: res[k] for k in ("graph", "p_matrix", "val_matrix", "conf_matrix")}
        if res["optimal_pc_alpha"] is not None:  # tigramite's pc_alpha selection
            self.results["optimal_alpha"] = res["optimal_pc_alpha"]
        return self.results
