# SPDX-License-Identifier: Apache-2.0
"""tigramite's CMIknn and ParCorr faces. CMIknn: run_test_raw's statistic equals tigramite
5.2.10.1's get_dependence_measure on the reference values of tests/data/cmiknn/statistic.tsv,
its p-value equals cudag.citest's (same options and seed). ParCorr: value and p-value equal
tigramite 5.2.10.1's run_test_raw on tests/data/parcorr/ (1e-12 absolute, 1e-10 relative).
Both check their arguments."""

from pathlib import Path

import numpy as np
import pytest

import cudag
from cudag.compat.tigramite import CMIknn, ParCorr

DATA = Path(__file__).resolve().parents[1] / "data" / "cmiknn"


def tsv_rows(path):
    """The rows of a reference TSV (comments and the header left out) as lists of cells,
    the z cell ("-" or "2;3") as a list of column indices."""
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith("#") or line.startswith("x\t"):
            continue
        cells = line.split("\t")
        cells[2] = [] if cells[2] == "-" else [int(v) for v in cells[2].split(";")]
        rows.append(cells)
    return rows


def reference_rows():
    return [(int(x), int(y), z, float(knn), transform, float(stat))
            for x, y, z, knn, transform, stat in tsv_rows(DATA / "statistic.tsv")]


VALUES = np.loadtxt(DATA / "data.csv", delimiter=",", skiprows=1)


@pytest.mark.parametrize("x, y, z, knn, transform, want", reference_rows())
def test_statistic_is_tigramites(x, y, z, knn, transform, want):
    knn_arg = int(knn) if knn >= 1 else knn
    test = CMIknn(knn=knn_arg, transform=transform, sig_samples=19, seed=3)
    zarr = VALUES[:, z] if z else None
    val, pval = test.run_test_raw(VALUES[:, x], VALUES[:, [y]], zarr)
    assert val == pytest.approx(want, rel=1e-10, abs=1e-13)
    assert 0.0 < pval <= 1.0


def test_p_value_is_cudags_shuffle_test_and_alpha_gives_the_decision():
    test = CMIknn(knn=0.2, shuffle_neighbors=5, sig_samples=99, seed=11)
    val, pval, dependent = test.run_test_raw(VALUES[:, 0], VALUES[:, 1], VALUES[:, [2, 3]], alpha_or_thres=0.05)
    names = [f"v{k}" for k in range(VALUES.shape[1])]
    ref = cudag.citest(VALUES, "v0", "v1", given=["v2", "v3"], test="cmiknn", names=names, knn=0.2,
                       shuffle_neighbors=5, permutations=99, seed=11)
    assert (val, pval) == (ref.statistic, ref.p_value)
    assert dependent == (pval <= 0.05)
    # p = (1 + exceedances) / (1 + B): a multiple of 1 / 100.
    assert round(pval * 100) == pytest.approx(pval * 100, abs=1e-9)


def test_bad_arguments():
    with pytest.raises(TypeError, match="unexpected keyword"):
        CMIknn(knn=0.2, sig_blocklength=3)
    with pytest.raises(ValueError, match="shuffle_test"):
        CMIknn(significance="analytic")
    test = CMIknn()
    with pytest.raises(ValueError, match="one variable"):
        test.run_test_raw(VALUES[:, :2], VALUES[:, 2])
    with pytest.raises(ValueError, match="samples"):
        test.run_test_raw(VALUES[:, 0], VALUES[:100, 1])
    with pytest.raises(ValueError, match="mixed data"):
        test.run_test_raw(VALUES[:, 0], VALUES[:, 1], x_type=np.zeros(len(VALUES)))
    # tigramite compares the transform's name as spelt (anything else: untransformed there)
    for bad in ("RANKS", "Standardize", "rank", True, 0):
        with pytest.raises(ValueError, match="transforms are 'ranks', 'standardize' and 'uniform'"):
            CMIknn(transform=bad)
    assert CMIknn(transform=False).transform == "none" and CMIknn(transform="uniform").transform == "uniform"
    # a seed beyond 64 bits and a count of neighbours beyond the samples: one line each
    with pytest.raises(cudag.InputError, match=r"seed=18446744073709551616 is out of range \(0 \.\. 18446744073709551615\)"):
        CMIknn(seed=2**64).run_test_raw(VALUES[:, 0], VALUES[:, 1])
    with pytest.raises(cudag.InputError, match="knn= gives k = 1.18059162071741e\\+21 neighbours"):
        CMIknn(knn=2.0**70).run_test_raw(VALUES[:, 0], VALUES[:, 1])


def test_pcmci_face_takes_tigramites_cmiknn_settings_or_refuses_them():
    """The PCMCI face reads a CMIknn's settings; seed 0 is seed 0 (not the default 42), and
    the settings of tigramite's own CMIknn that cudag does not run are refused, not ignored."""
    from cudag.compat.tigramite import PCMCI, DataFrame

    series = np.random.default_rng(0).normal(size=(120, 2))
    assert PCMCI(DataFrame(series), CMIknn(seed=0))._test_options()["seed"] == 0
    assert PCMCI(DataFrame(series), CMIknn())._test_options()["seed"] == 42

    class TigramiteLike:  # the attributes tigramite's CMIknn carries
        measure, knn, shuffle_neighbors, sig_samples, transform, seed = "cmi_knn", 0.2, 5, 50, "ranks", 7
        significance, null_fit, permute, sig_blocklength = "shuffle_test", None, "Y", None

    assert PCMCI(DataFrame(series), TigramiteLike())._test_options()["seed"] == 7
    for attr, value in (("significance", "fixed_thres"), ("null_fit", "normal"), ("permute", "X"),
                        ("sig_blocklength", 3)):
        t = TigramiteLike()
        setattr(t, attr, value)
        with pytest.raises(ValueError, match=attr):
            PCMCI(DataFrame(series), t)._test_options()


# ---- ParCorr -----------------------------------------------------------------------------

PARCORR = Path(__file__).resolve().parents[1] / "data" / "parcorr"
PC_VALUES = np.loadtxt(PARCORR / "data.csv", delimiter=",", skiprows=1)


def parcorr_rows():
    return [(int(x), int(y), z, int(n), float(value), float(p))
            for x, y, z, n, value, p in tsv_rows(PARCORR / "parcorr.tsv")]


@pytest.mark.parametrize("x, y, z, rows, want_value, want_p", parcorr_rows())
def test_parcorr_equals_tigramites(x, y, z, rows, want_value, want_p):
    d = PC_VALUES[:rows]
    if np.isnan(want_p):  # tigramite's NaN (T - dim < 1): a one-line error here
        with pytest.raises(ValueError, match=rf"ParCorr: {rows} samples for .* columns .* needs at least"):
            ParCorr().run_test_raw(d[:, [x]], d[:, [y]], d[:, z] if z else None)
        return
    value, p = ParCorr().run_test_raw(d[:, [x]], d[:, [y]], d[:, z] if z else None)
    assert isinstance(value, np.float64) and isinstance(p, np.float64)
    assert value == pytest.approx(want_value, rel=0, abs=1e-12)
    assert p == pytest.approx(want_p, rel=1e-10, abs=1e-300)


def test_parcorr_decision_and_analytic_significance():
    d = PC_VALUES
    test = ParCorr()
    value, p, dependent = test.run_test_raw(d[:, [0]], d[:, [1]], d[:, [2]], alpha_or_thres=0.2)
    assert dependent == (p <= 0.2) and dependent
    assert test.run_test_raw(d[:, [0]], d[:, [1]], d[:, [2]], alpha_or_thres=0.01)[2] is False
    assert test.get_analytic_significance(value, len(d), 3) == p
    with pytest.raises(ValueError, match="5 samples for 5 columns .* at least 6 samples"):
        test.get_analytic_significance(0.3, 5, 5)
    assert test.get_analytic_significance(1.0, 100, 3) == 0.0
    assert test.measure == "par_corr" and test.two_sided
    # x_type, y_type, z_type (mixed data) change nothing in tigramite's ParCorr.
    typed = test.run_test_raw(d[:, [0]], d[:, [1]], d[:, [2]], x_type=np.zeros((len(d), 1)),
                              y_type=np.zeros((len(d), 1)), z_type=np.ones((len(d), 1)))
    assert typed == (value, p)


def test_parcorr_student_t_tail_is_scipys():
    # scipy.stats.t.sf(t, df), scipy 1.17.1
    for t, df, want in [(2.5, 10, 0.01572342211830441), (-1.0, 3, 0.8044988905221148),
                        (30.0, 100, 4.190166279344164e-52), (0.0, 7, 0.5)]:
        assert cudag._cudag.student_t_sf(t, df) == pytest.approx(want, rel=1e-13)


def test_parcorr_constant_x_is_a_one_line_error():
    d = PC_VALUES
    with pytest.raises(ValueError, match="x or y is constant") as e:
        ParCorr().run_test_raw(d[:, [7]], d[:, [1]], d[:, [2]])
    assert "\n" not in str(e.value)


def test_parcorr_bad_arguments():
    d = PC_VALUES
    with pytest.raises(TypeError, match="unexpected keyword"):
        ParCorr(knn=0.2)
    with pytest.raises(ValueError, match="offers analytic, shuffle_test, fixed_thres"):
        ParCorr(significance="bootstrap")
    with pytest.raises(ValueError, match="fixed_thres is replaced"):
        ParCorr(fixed_thres=0.1)
    with pytest.raises(ValueError, match="mask_type"):
        ParCorr(mask_type="w")
    test = ParCorr(mask_type="y", sig_samples=100, confidence="analytic", verbosity=0)
    with pytest.raises(ValueError, match="x,y must be arrays of shape"):
        test.run_test_raw(d[:, 0], d[:, [1]])
    with pytest.raises(ValueError, match="z must be array of shape"):
        test.run_test_raw(d[:, [0]], d[:, [1]], d[:, 2])
    with pytest.raises(ValueError, match="one X and one Y"):
        test.run_test_raw(d[:, [0, 3]], d[:, [1]])
    with pytest.raises(ValueError, match="samples"):
        test.run_test_raw(d[:, [0]], d[:100, [1]])
    with pytest.raises(ValueError, match="samples"):
        test.run_test_raw(d[:, [0]], d[:, [1]], d[:100, [2]])
    with pytest.raises(ValueError, match="x_type"):
        test.run_test_raw(d[:, [0]], d[:, [1]], x_type=np.zeros(3))
    bad = d[:, [0]].copy()
    bad[5, 0] = np.nan
    with pytest.raises(ValueError, match="nans in the array"):
        test.run_test_raw(bad, d[:, [1]])
    bad[5, 0] = np.inf
    with pytest.raises(ValueError, match="not finite"):
        test.run_test_raw(bad, d[:, [1]])
    with pytest.raises(ValueError, match="at least 2 samples"):
        test.run_test_raw(d[:1, [0]], d[:1, [1]])
    with pytest.raises(TypeError, match="numbers"):
        test.run_test_raw(np.array([["a"], ["b"]]), d[:2, [1]])
