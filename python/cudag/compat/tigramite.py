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
tigramite's, x, y and z must be 2-d (samples x dimension); x and y one column each."""

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


def _check_degrees_of_freedom(p_value: float, samples: int, dim: int) -> None:
    if np.isnan(p_value):
        raise ValueError(f"ParCorr: {samples} samples for {dim} columns of x, y and z: Student's t needs "
                         f"at least {dim + 1} samples (T - dim >= 1; tigramite gives NaN)")


class ParCorr:
    """tigramite's ``ParCorr`` for ``run_test_raw`` with ``significance="analytic"`` (see the
    module's text). The keywords are tigramite's ``CondIndTest`` ones; those of the shuffle
    test, masks and confidence intervals are kept as attributes and change nothing in
    ``run_test_raw``, as in tigramite."""

    measure = "par_corr"
    two_sided = True
    residual_based = True

    def __init__(self, seed: int = 42, mask_type=None, significance: str = "analytic", fixed_thres=None,
                 sig_samples: int = 500, sig_blocklength=None, confidence=None, conf_lev: float = 0.9,
                 conf_samples: int = 100, conf_blocklength=None, recycle_residuals: bool = False,
                 verbosity: int = 0):
        if significance != "analytic":
            raise ValueError(f"significance={significance!r}: cudag's ParCorr offers 'analytic' only "
                             "(Student's t on the partial correlation)")
        if fixed_thres is not None:
            raise ValueError("fixed_thres is replaced by providing alpha_or_thres in run_test")
        if mask_type is not None and set(mask_type) - {"x", "y", "z"}:
            raise ValueError(f"mask_type = {mask_type}, but must be list containing 'x','y','z', or any combination")
        self.seed, self.mask_type, self.significance = seed, mask_type, significance
        self.sig_samples, self.sig_blocklength = sig_samples, sig_blocklength
        self.confidence, self.conf_lev, self.conf_samples = confidence, conf_lev, conf_samples
        self.conf_blocklength, self.recycle_residuals, self.verbosity = conf_blocklength, recycle_residuals, verbosity

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
        (dependent: p_value <= alpha_or_thres). x_type, y_type and z_type are accepted and,
        as in tigramite's ParCorr, change nothing."""
        xs = self._array(x, "x", None, x_type)
        ys = self._array(y, "y", xs.shape[0], y_type)
        zs = None if z is None else self._array(z, "z", xs.shape[0], z_type)
        if xs.shape[1] != 1 or ys.shape[1] != 1:
            raise ValueError(f"ParCorr tests one X and one Y (T x 1 each), not x {xs.shape} and y {ys.shape} "
                             "(tigramite's ParCorrMult, for multivariate X and Y, is not offered)")
        array = np.column_stack([xs, ys] if zs is None else [xs, ys, zs])
        if np.isnan(array).sum() != 0:
            raise ValueError("nans in the array!")
        value, p_value, _ = cudag._cudag.parcorr(np.ascontiguousarray(array))
        # Where tigramite returns NaN, cudag refuses in one line (a non-finite statistic is
        # never a result).
        if np.isnan(value):
            raise ValueError("ParCorr: x or y is constant (after z is regressed out): the partial correlation "
                             "is not defined (tigramite gives NaN)")
        _check_degrees_of_freedom(p_value, array.shape[0], array.shape[1])
        value, p_value = np.float64(value), np.float64(p_value)
        if alpha_or_thres is None:
            return value, p_value
        return value, p_value, bool(p_value <= alpha_or_thres)

    def get_analytic_significance(self, value, T, dim, xyz=None):
        """tigramite's: the two-sided Student-t p-value of ``value`` with T - dim degrees of
        freedom; a ValueError where T - dim < 1 (tigramite gives NaN)."""
        p_value = cudag._cudag.parcorr_p_value(float(value), int(T), int(dim))
        _check_degrees_of_freedom(p_value, int(T), int(dim))
        return np.float64(p_value)

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


class PCMCI:
    """tigramite's ``PCMCI(dataframe, cond_ind_test)`` with ``run_pcmci`` and ``run_pcmciplus``,
    computed by ``cudag.pcmci``: the same ``graph``, ``val_matrix`` and ``p_matrix`` as
    tigramite 5.2.10.1 (ParCorr: to ~1e-11 on tests/data/pcmci/ and tests/data/pcmciplus/;
    CMIknn: the statistics equal, the p-values from cudag's shuffle stream). ``cond_ind_test``:
    this module's ParCorr or CMIknn (tigramite's own objects are read for their settings too).
    After ``run_pcmci``, ``all_parents`` and ``results`` are set as tigramite sets them; after
    ``run_pcmciplus``, ``all_lagged_parents`` and ``results`` (graph, p_matrix, val_matrix,
    conf_matrix None; tigramite's ``sepsets`` and ``ambiguous_triples`` are not returned)."""

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

    def _test_options(self) -> dict:
        t = self.cond_ind_test
        measure = getattr(t, "measure", None)
        name = type(t).__name__
        if measure == "par_corr" or name == "ParCorr":
            if getattr(t, "significance", "analytic") != "analytic":
                raise ValueError("cudag's PCMCI runs ParCorr with significance='analytic' only")
            return {"test": "parcorr"}
        if measure == "cmi_knn" or name == "CMIknn":
            transform = getattr(t, "transform", "ranks")
            return {"test": "cmiknn", "knn": float(t.knn), "shuffle_neighbors": int(t.shuffle_neighbors),
                    "permutations": int(t.sig_samples), "seed": int(getattr(t, "seed", 42) or 42),
                    "transform": "none" if transform in (False, None) else str(transform)}
        raise ValueError(f"cudag's PCMCI runs ParCorr or CMIknn, not {name}")

    def run_pcmci(self, selected_links=None, link_assumptions=None, tau_min=0, tau_max=1, save_iterations=False,
                  pc_alpha=0.2, max_conds_dim=None, max_combinations=1, max_conds_py=None, max_conds_px=None,
                  alpha_level=0.05, fdr_method="none"):
        if selected_links is not None:
            raise ValueError("selected_links is DEPRECATED, use link_assumptions instead.")
        if pc_alpha is None or isinstance(pc_alpha, (list, tuple, np.ndarray)):
            raise ValueError("cudag's PCMCI takes one pc_alpha (tigramite's selection among several is not "
                             "built yet)")
        opts = self._test_options()
        opts.update(tau_min=int(tau_min), pc_alpha=float(pc_alpha), max_combinations=int(max_combinations),
                    alpha_level=float(alpha_level), fdr_method=str(fdr_method))
        for key, value in (("max_conds_dim", max_conds_dim), ("max_conds_py", max_conds_py),
                           ("max_conds_px", max_conds_px)):
            if value is not None:
                opts[key] = int(value)
        res = cudag.pcmci(self._data, tau_max=int(tau_max), names=list(self.var_names),
                          link_assumptions=link_assumptions, **self._input, **opts)
        self.all_parents = res["parents"]
        self.results = {k: res[k] for k in ("graph", "p_matrix", "val_matrix", "conf_matrix")}
        return self.results

    def run_pcmciplus(self, selected_links=None, link_assumptions=None, tau_min=0, tau_max=1, pc_alpha=0.01,
                      contemp_collider_rule="majority", conflict_resolution=True, reset_lagged_links=False,
                      max_conds_dim=None, max_combinations=1, max_conds_py=None, max_conds_px=None,
                      max_conds_px_lagged=None, fdr_method="none"):
        if selected_links is not None:
            raise ValueError("selected_links is DEPRECATED, use link_assumptions instead.")
        if pc_alpha is None or isinstance(pc_alpha, (list, tuple, np.ndarray)):
            raise ValueError("cudag's PCMCI+ takes one pc_alpha (tigramite's selection among several is not "
                             "built yet)")
        opts = self._test_options()
        opts.update(method="pcmciplus", tau_min=int(tau_min), pc_alpha=float(pc_alpha),
                    contemp_collider_rule=str(contemp_collider_rule) if contemp_collider_rule is not None
                    else "none", conflict_resolution=bool(conflict_resolution),
                    reset_lagged_links=bool(reset_lagged_links), max_combinations=int(max_combinations),
                    fdr_method=str(fdr_method))
        for key, value in (("max_conds_dim", max_conds_dim), ("max_conds_py", max_conds_py),
                           ("max_conds_px", max_conds_px), ("max_conds_px_lagged", max_conds_px_lagged)):
            if value is not None:
                opts[key] = int(value)
        res = cudag.pcmci(self._data, tau_max=int(tau_max), names=list(self.var_names),
                          link_assumptions=link_assumptions, **self._input, **opts)
        self.all_lagged_parents = res["parents"]
        self.results = {k: res[k] for k in ("graph", "p_matrix", "val_matrix", "conf_matrix")}
        return self.results
