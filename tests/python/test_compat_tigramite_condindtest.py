# SPDX-License-Identifier: Apache-2.0
"""cudag.compat.tigramite's ParCorr as a tigramite CondIndTest on a DataFrame, its shuffle
test and bootstrap, DataFrame.construct_array and PCMCI's run_pc_stable / run_mci / pc_alpha
choices. References: numpy least squares and correlations computed here; tigramite 5.2.10.1
and scipy 1.17.1 values in tests/data/tigramite_face/reference.json
(scripts/dev/tigramite_face_reference.py, on tests/data/pcmci/c00.csv). tigramite's own test
files run against these faces through scripts/dev/run_tigramite_tests.py."""

import json
from pathlib import Path

import numpy as np
import pytest

import cudag
from cudag.compat import tigramite as tg

DATA = Path(__file__).resolve().parents[1] / "data"
REF = json.loads((DATA / "tigramite_face" / "reference.json").read_text())
SERIES = np.loadtxt(DATA / "pcmci" / "c00.csv", delimiter=",", skiprows=1)


def standardised(a):
    a = a - a.mean(axis=1, keepdims=True)
    sd = a.std(axis=1, keepdims=True)
    return np.where(sd == 0, a, a / np.where(sd == 0, 1, sd))


def residual(a, target, standardize=True):
    """numpy: row `target` of a (dim x T) less its least-squares fit on rows 2..."""
    a = standardised(a) if standardize else a
    y = a[target]
    if a.shape[0] == 2:
        return y, None
    z = a[2:].T
    fit = z @ np.linalg.lstsq(z, y, rcond=None)[0]
    return y - fit, fit


def partial_correlation(a):
    return np.corrcoef(residual(a, 0)[0], residual(a, 1)[0])[0, 1]


def random_array(seed, dim=5, t=400):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((dim, t))
    a[0] += 0.6 * a[2:].sum(axis=0)
    a[1] += 0.4 * a[2:].sum(axis=0) + 0.3 * a[0]
    return a


@pytest.mark.parametrize("standardize", [True, False])
def test_residuals_are_least_squares(standardize):
    a = random_array(1)
    test = tg.ParCorr()
    for target in (0, 1):
        want_r, want_fit = residual(a, target, standardize)
        r, fit = test._get_single_residuals(a.copy(), target, standardize=standardize, return_means=True)
        np.testing.assert_allclose(r, want_r, rtol=0, atol=1e-12)
        np.testing.assert_allclose(fit, want_fit, rtol=0, atol=1e-12)
    r, fit = test._get_single_residuals(a[:2].copy(), 1, standardize=standardize, return_means=True)
    assert fit is None
    np.testing.assert_allclose(r, standardised(a[:2])[1] if standardize else a[1], atol=1e-15)


def test_dependence_measure_is_the_residuals_correlation():
    test = tg.ParCorr()
    for seed in range(3):
        a = random_array(seed)
        value = test.get_dependence_measure(a, np.array([0, 1, 2, 2, 2]))
        assert value == pytest.approx(partial_correlation(a), abs=1e-13)
        assert value == test.run_test_raw(a[[0]].T, a[[1]].T, a[2:].T)[0]


def test_student_t_quantile_is_scipys():
    for p, df, want in REF["t_isf"]:
        assert cudag._cudag.student_t_isf(p, df) == pytest.approx(want, rel=1e-12, abs=1e-300)
        if p < 0.5:  # the p-value of the quantile is p again
            assert cudag._cudag.student_t_sf(cudag._cudag.student_t_isf(p, df), df) == pytest.approx(p, rel=1e-12)
    assert np.isnan(cudag._cudag.student_t_isf(1.5, 3)) and np.isnan(cudag._cudag.student_t_isf(0.1, 0))
    assert cudag._cudag.student_t_isf(0.0, 3) == np.inf and cudag._cudag.student_t_isf(1.0, 3) == -np.inf


def test_analytic_confidence_is_tigramites():
    test = tg.ParCorr()
    for value, df, lev, lo, hi in REF["confidence"]:
        got = test.get_analytic_confidence(value, df, lev)
        assert got == pytest.approx((lo, hi), rel=1e-11, abs=1e-13)


def test_block_shuffle_order_keeps_blocks_and_is_keyed():
    t, length = 23, 4  # 5 blocks and a tail of 3
    seen = set()
    for r in range(40):
        order = cudag._cudag.block_rows(t, length, 7, r, False)
        assert sorted(order) == list(range(t))
        tail_at = int(np.where(order == 20)[0][0])
        assert tail_at % length == 0 and tail_at < 20  # before a block, never at the end
        np.testing.assert_array_equal(order[tail_at:tail_at + 3], [20, 21, 22])
        rest = np.delete(order, range(tail_at, tail_at + 3)).reshape(5, length)
        np.testing.assert_array_equal(rest - rest[:, :1], np.tile(np.arange(length), (5, 1)))
        assert all(b % length == 0 for b in rest[:, 0])
        seen.add(tuple(order))
        np.testing.assert_array_equal(order, cudag._cudag.block_rows(t, length, 7, r, False))
    assert len(seen) > 30
    assert not np.array_equal(cudag._cudag.block_rows(t, length, 8, 0, False),
                              cudag._cudag.block_rows(t, length, 7, 0, False)) or \
        not np.array_equal(cudag._cudag.block_rows(t, length, 8, 1, False),
                           cudag._cudag.block_rows(t, length, 7, 1, False))


def test_block_bootstrap_rows_are_blocks_of_consecutive_rows():
    t, length = 22, 5
    starts = []
    for r in range(50):
        rows = cudag._cudag.block_rows(t, length, 3, r, True)
        assert len(rows) == t and rows.min() >= 0 and rows.max() < t
        blocks = np.concatenate([rows, np.full(3, -1)]).reshape(5, length)  # ceil(22/5) blocks, cut
        for b in blocks:
            b = b[b >= 0]
            np.testing.assert_array_equal(b - b[0], np.arange(len(b)))
            assert b[0] <= t - length
            starts.append(b[0])
    assert set(starts) == set(range(t - length + 1))  # every start drawn somewhere in 250


def test_shuffle_null_is_the_correlation_of_shuffled_residuals():
    a = random_array(4, t=301)
    test = tg.ParCorr(significance="shuffle_test", sig_samples=300, sig_blocklength=3, seed=11)
    value = test.get_dependence_measure(a, None)
    p, null = test.get_shuffle_significance(a, None, value, return_null_dist=True)
    x, y = residual(a, 0)[0], residual(a, 1)[0]
    for r in (0, 1, 299):
        order = cudag._cudag.block_rows(301, 3, 11, r, False)
        assert null[r] == pytest.approx(np.corrcoef(x[order], y)[0, 1], abs=1e-13)
    assert p == (1 + np.sum(np.abs(null) >= abs(value))) / 301
    assert test.get_shuffle_significance(a, None, value) == p  # keyed by seed: the same every call
    assert test.run_test_raw(a[[0]].T, a[[1]].T, a[2:].T) == (value, p)


@pytest.mark.parametrize("seed, coupling", [(5, 0.0), (6, 0.03), (7, 0.04), (8, 0.05)])
def test_shuffle_p_value_is_near_the_analytic_one(seed, coupling):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((2, 1000))
    a[1] += coupling * a[0]
    test = tg.ParCorr(significance="shuffle_test", sig_samples=4000, sig_blocklength=1, seed=seed)
    value = test.get_dependence_measure(a, None)
    analytic = test.get_analytic_significance(value, 1000, 2)
    # The shuffle p-value's standard error is at most 0.5 / sqrt(4000) = 0.008.
    assert test.get_shuffle_significance(a, None, value) == pytest.approx(analytic, abs=0.025)


def test_bootstrap_replicates_are_parcorr_on_resampled_rows():
    a = random_array(8, t=250)
    dist = cudag._cudag.parcorr_bootstrap(np.ascontiguousarray(a.T), 60, 4, 42)
    for r in (0, 17, 59):
        rows = cudag._cudag.block_rows(250, 4, 42, r, True)
        assert dist[r] == pytest.approx(partial_correlation(a[:, rows]), abs=1e-12)
    test = tg.ParCorr(seed=42)
    lo, hi = test.get_bootstrap_confidence(a, None, conf_samples=60, conf_blocklength=4, conf_lev=0.9)
    s = np.sort(dist)
    assert (lo, hi) == (s[int(0.05 * 60)], s[int(0.95 * 60)])
    # Another measure goes through the same resamples.
    assert test.get_bootstrap_confidence(a, None, dependence_measure=lambda arr, xyz: partial_correlation(arr),
                                         conf_samples=60, conf_blocklength=4, conf_lev=0.9) == \
        pytest.approx((lo, hi), abs=1e-12)


def lagged(data, nodes, first):
    return np.array([data[first + lag:len(data) + lag if lag else None, var] for var, lag in nodes])


def test_construct_array_is_the_lagged_series():
    data = np.arange(60.0).reshape(20, 3)
    df = tg.DataFrame(data)
    X, Y, Z = [(0, -1), (0, -1)], [(1, 0)], [(2, -2), (1, 0), (0, -3)]
    for cut_off, first in [("2xtau_max", 4), ("tau_max", 3), ("max_lag", 3), ("max_lag_or_tau_max", 3)]:
        array, xyz, (x, y, z), types = df.construct_array(X, Y, Z, tau_max=2 if cut_off == "2xtau_max" else 3,
                                                          cut_off=cut_off, return_cleaned_xyz=True)
        assert (x, y, z) == ([(0, -1)], [(1, 0)], [(2, -2), (0, -3)]) and types is None
        np.testing.assert_array_equal(xyz, [0, 1, 2, 2])
        np.testing.assert_array_equal(array, lagged(data, x + y + z, first))
    array, _, _ = df.construct_array(X, Y, Z, tau_max=3, cut_off="2xtau_max_future")
    np.testing.assert_array_equal(array, lagged(data, [(0, -1), (1, 0), (2, -2), (0, -3)], 3)[:, :14])
    with pytest.raises(ValueError, match="lags must be non-positive"):
        df.construct_array([(0, 1)], Y, [], tau_max=1)
    with pytest.raises(ValueError, match=r"must be in \[0, 2\]"):
        df.construct_array([(3, -1)], Y, [], tau_max=1)
    with pytest.raises(ValueError, match="reaches before the series' start"):
        df.construct_array([(0, -3)], Y, [], tau_max=1)


def test_run_test_on_nodes_is_tigramites():
    test = tg.ParCorr()
    test.set_dataframe(tg.DataFrame(SERIES))
    for X, Y, Z, tau_max, cut_off, value, p in REF["run_test"]:
        X, Y, Z = ([tuple(n) for n in nodes] for nodes in (X, Y, Z))
        got = test.run_test(X, Y, Z, tau_max=tau_max, cut_off=cut_off)
        assert got[0] == pytest.approx(value, abs=1e-12)
        assert got[1] == pytest.approx(p, rel=1e-9, abs=1e-300)
        assert test.run_test(X, Y, Z, tau_max=tau_max, cut_off=cut_off, alpha_or_thres=0.01)[2] == (p <= 0.01)
        if cut_off == "2xtau_max":
            assert test.get_measure(X, Y, Z, tau_max=tau_max) == got[0]
    fixed = tg.ParCorr(significance="fixed_thres")
    fixed.set_dataframe(tg.DataFrame(SERIES))
    assert fixed.run_test([(0, -1)], [(1, 0)], [], tau_max=2, alpha_or_thres=0.3)[1:] == (0.0, True)
    assert fixed.run_test([(0, -1)], [(1, 0)], [], tau_max=2, alpha_or_thres=0.5)[1:] == (1.0, False)


def test_run_test_with_a_constant_x_is_independent():
    data = SERIES.copy()
    data[:, 3] = 2.5
    test = tg.ParCorr()
    test.set_dataframe(tg.DataFrame(data))
    assert test.run_test([(3, -1)], [(0, 0)], [(1, -1)], tau_max=1, alpha_or_thres=0.05) == (0.0, 1.0, False)
    assert test.get_measure([(3, -1)], [(0, 0)], [(1, -1)], tau_max=1) == 0.0


def test_model_selection_criterion_is_tigramites():
    test = tg.ParCorr()
    test.set_dataframe(tg.DataFrame(SERIES))
    for j, parents, tau_max, criterion, want in REF["criterion"]:
        got = test.get_model_selection_criterion(j, [tuple(p) for p in parents], tau_max, criterion)
        assert got == pytest.approx(want, rel=1e-12)


def test_confidence_on_nodes():
    analytic = tg.ParCorr(confidence="analytic", conf_lev=0.9)
    boot = tg.ParCorr(confidence="bootstrap", conf_lev=0.9, conf_samples=400, conf_blocklength=1)
    for t in (analytic, boot):
        t.set_dataframe(tg.DataFrame(SERIES))
    args = ([(0, -1)], [(1, 0)], [(1, -1)])
    a = np.array(analytic.get_confidence(*args, tau_max=2))
    b = np.array(boot.get_confidence(*args, tau_max=2))
    value = analytic.get_measure(*args, tau_max=2)
    assert a[0] < value < a[1] and b[0] < value < b[1]
    # Both are 90% intervals of the same correlation (T = 296): within a few of its standard errors.
    np.testing.assert_allclose(a, b, atol=0.03)
    assert tg.ParCorr().get_confidence(*args) is None


def test_corrected_p_values_are_tigramites():
    pcmci = tg.PCMCI(tg.DataFrame(SERIES), tg.ParCorr())
    p = np.array(REF["fdr"]["p_matrix"])
    np.testing.assert_allclose(pcmci.get_corrected_pvalues(p, tau_max=2), REF["fdr"]["q_matrix"], rtol=1e-14)
    np.testing.assert_allclose(pcmci.get_corrected_pvalues(p, tau_max=2, exclude_contemporaneous=False),
                               REF["fdr"]["q_matrix_with_lag0"], rtol=1e-14)
    np.testing.assert_array_equal(pcmci.get_corrected_pvalues(p, fdr_method="none", tau_max=2), p)


def parents_of(d):
    return {int(j): [tuple(n) for n in p] for j, p in d.items()}


def assert_matrices(res, ref):
    np.testing.assert_array_equal(res["graph"], np.array(ref["graph"]))
    np.testing.assert_allclose(res["val_matrix"], ref["val_matrix"], rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(res["p_matrix"], ref["p_matrix"], rtol=1e-8, atol=1e-300)


def test_pc_stable_with_pc_alpha_none_is_tigramites():
    pcmci = tg.PCMCI(tg.DataFrame(SERIES), tg.ParCorr())
    assert pcmci.run_pc_stable(tau_max=2, pc_alpha=None) == parents_of(REF["pc_stable_none"])
    assert pcmci.all_parents == parents_of(REF["pc_stable_none"])
    assert pcmci.run_pc_stable(tau_max=2, pc_alpha=0.2) == parents_of(REF["mci"]["parents"])


def test_mci_on_given_parents_is_tigramites():
    pcmci = tg.PCMCI(tg.DataFrame(SERIES), tg.ParCorr())
    res = pcmci.run_mci(tau_min=0, tau_max=2, parents=parents_of(REF["mci"]["parents"]), alpha_level=0.05)
    assert_matrices(res, REF["mci"])
    # The same as cudag.pcmci's MCI (C++) on the parents it selects itself.
    whole = cudag.pcmci(SERIES, 2, pc_alpha=0.2, alpha_level=0.05)
    assert_matrices(res, {k: whole[k] for k in ("graph", "val_matrix", "p_matrix")})
    assert pcmci.return_parents_dict(res["graph"], res["val_matrix"]) == \
        {j: sorted([(i, -lag) for i, lag in zip(*np.where(res["graph"][:, j, 1:] == "-->")) for lag in [lag + 1]],
                   key=lambda n: -abs(res["val_matrix"][n[0], j, -n[1]])) for j in range(4)}


def test_pcmci_and_pcmciplus_with_pc_alpha_none_are_tigramites():
    pcmci = tg.PCMCI(tg.DataFrame(SERIES), tg.ParCorr())
    assert_matrices(pcmci.run_pcmci(tau_max=2, pc_alpha=None), REF["pcmci_none"])
    assert pcmci.all_parents == parents_of(REF["pc_stable_none"])
    res = pcmci.run_pcmciplus(tau_max=2, pc_alpha=None)
    assert_matrices(res, REF["pcmciplus_none"])
    assert res["optimal_alpha"] == REF["pcmciplus_none"]["optimal_alpha"]


def test_bad_arguments_are_one_line_errors():
    a = random_array(2)
    for make, call, match in [
        (lambda: tg.ParCorr(significance="shuffle_test"), lambda t: t.get_shuffle_significance(a, None, 0.1),
         "sig_blocklength=None"),
        (lambda: tg.ParCorr(), lambda t: t.get_bootstrap_confidence(a, None), "conf_blocklength=None"),
        (lambda: tg.ParCorr(sig_blocklength=500, significance="shuffle_test"),
         lambda t: t.get_shuffle_significance(a, None, 0.1), r"block length must be in \[1, T = 400\]"),
        (lambda: tg.ParCorr(), lambda t: t.run_test([(0, -1)], [(1, 0)]), "Call set_dataframe first"),
        (lambda: tg.ParCorr(), lambda t: t._get_single_residuals(a, 2), "target_var must be 0 or 1"),
        (lambda: tg.ParCorr(significance="fixed_thres"), lambda t: t.run_test_raw(a[[0]].T, a[[1]].T),
         "requires setting alpha_or_thres"),
    ]:
        with pytest.raises(ValueError, match=match) as e:
            call(make())
        assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="confidence='interval'"):
        tg.ParCorr(confidence="interval")
    pcmci = tg.PCMCI(tg.DataFrame(SERIES), tg.ParCorr())
    with pytest.raises(ValueError, match="0 <= tau_min <= tau_max"):
        pcmci.run_mci(tau_min=2, tau_max=1)
    with pytest.raises(ValueError, match="Inconsistent link assumptions"):
        pcmci.run_mci(tau_max=1, link_assumptions={0: {(1, 0): "-->"}, 1: {(0, 0): "-->"}, 2: {}, 3: {}})
