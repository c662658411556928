# SPDX-License-Identifier: Apache-2.0
"""Issue 56: PCMCI and PCMCI+ from Python. cudag.pcmci and cudag.compat.tigramite.PCMCI equal
tigramite 5.2.10.1's run_pcmci with ParCorr on the 12 reference cases of tests/data/pcmci (made
by scripts/dev/pcmci_reference.py, so tigramite is not needed here), and its run_pcmciplus on
the 14 cases of tests/data/pcmciplus (scripts/dev/pcmciplus_reference.py): graph exactly,
val_matrix and p_matrix to 1e-9 relative, the condition selection's parents in tigramite's
order. The pc_alpha selection (a list or None) on the sNN cases of both folders: the chosen
values exactly, and the result as above."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cudag
from cudag.compat import tigramite as tg

DATA = Path(__file__).resolve().parents[1] / "data" / "pcmci"
DATA_PLUS = Path(__file__).resolve().parents[1] / "data" / "pcmciplus"


def read_case(c: int, folder: Path = DATA, prefix: str = "c"):
    data = np.loadtxt(folder / f"{prefix}{c:02d}.csv", delimiter=",", skiprows=1)
    settings, parents, cells = {}, {}, []
    for line in (folder / f"{prefix}{c:02d}.tsv").read_text().splitlines():
        if line.startswith("#") or line.startswith("score\t") or line.startswith("optimal_pc_alpha\t"):
            continue
        f = line.split("\t")
        if f[0] == "parents":
            # The file holds (variable, lag); tigramite's parents are (variable, -lag).
            parents[int(f[1])] = [(int(p.split(",")[0]), -int(p.split(",")[1])) for p in f[2].split(";")] if f[2] else []
        elif len(f) == 2:
            settings[f[0]] = f[1]
        else:
            cells.append(f)
    kw = {}
    for key, value in settings.items():
        if key in ("fdr_method", "contemp_collider_rule", "series_column", "time_column"):
            kw[key] = value
        elif key == "missing_flag":
            kw[key] = float(value)
        elif key in ("conflict_resolution", "reset_lagged_links"):
            kw[key] = value == "True"
        elif key == "pc_alpha" and (value == "None" or "," in value):  # tigramite's selection
            kw[key] = None if value == "None" else [float(a) for a in value.split(",")]
        else:
            kw[key] = float(value) if "alpha" in key else int(value)
    n, tau = data.shape[1] - (2 if "series_column" in kw else 0), kw["tau_max"]
    val, p = np.zeros((n, n, tau + 1)), np.zeros((n, n, tau + 1))
    graph = np.zeros((n, n, tau + 1), dtype="<U3")
    for i, j, lag, v, pv, g in cells:
        val[int(i), int(j), int(lag)] = float(v)
        p[int(i), int(j), int(lag)] = float(pv)
        graph[int(i), int(j), int(lag)] = "" if g == "." else g
    return data, kw, parents, val, p, graph


def read_optimal(c: int, folder: Path):
    """A selection case's chosen pc_alpha values, in order (one per variable, or one)."""
    lines = (folder / f"s{c:02d}.tsv").read_text().splitlines()
    return [float(line.split("\t")[-1]) for line in lines if line.startswith("optimal_pc_alpha\t")]


CASES = sorted(int(p.stem[1:]) for p in DATA.glob("c*.csv"))
MISSING = sorted(int(p.stem[1:]) for p in DATA.glob("m*.csv"))
SEVERAL = sorted(int(p.stem[1:]) for p in DATA.glob("g*.csv"))
CASES_PLUS = sorted(int(p.stem[1:]) for p in DATA_PLUS.glob("c*.csv"))
SELECTION = sorted(int(p.stem[1:]) for p in DATA.glob("s*.csv"))
SELECTION_PLUS = sorted(int(p.stem[1:]) for p in DATA_PLUS.glob("s*.csv"))


def test_there_are_reference_cases():
    assert len(CASES) >= 12
    assert len(MISSING) >= 4 and len(SEVERAL) >= 3
    assert len(CASES_PLUS) >= 12


@pytest.mark.parametrize("c", CASES)
def test_pcmci_equals_tigramite(c):
    data, kw, parents, val, p, graph = read_case(c)
    tau_max = kw.pop("tau_max")
    res = cudag.pcmci(data, tau_max, threads=2, **kw)
    assert res["val_matrix"].shape == val.shape
    np.testing.assert_array_equal(res["graph"], graph)
    np.testing.assert_allclose(res["val_matrix"], val, rtol=1e-9, atol=0)
    np.testing.assert_allclose(res["p_matrix"], p, rtol=1e-9, atol=1e-300)
    assert res["parents"] == parents
    assert res["samples"] == data.shape[0] - 2 * tau_max
    assert res["conf_matrix"] is None


@pytest.mark.parametrize("c", [0, 4, 7])
def test_compat_pcmci_equals_tigramite(c):
    data, kw, parents, val, p, graph = read_case(c)
    pcmci = tg.PCMCI(dataframe=tg.DataFrame(data, var_names=[f"v{i}" for i in range(data.shape[1])]),
                     cond_ind_test=tg.ParCorr(significance="analytic"), verbosity=0)
    results = pcmci.run_pcmci(**kw)
    assert set(results) == {"graph", "p_matrix", "val_matrix", "conf_matrix"}
    np.testing.assert_array_equal(results["graph"], graph)
    np.testing.assert_allclose(results["p_matrix"], p, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(results["val_matrix"], val, rtol=1e-9, atol=0)
    assert pcmci.all_parents == parents


def test_link_assumptions_as_tigramite_takes_them():
    data, kw, _, _, _, _ = read_case(0)
    n = data.shape[1]
    # Only lag-1 links into every variable, and 1 -> 0 at lag 1 forced.
    links = {j: {(i, -1): "-?>" for i in range(n)} for j in range(n)}
    links[0][(1, -1)] = "-->"
    res = cudag.pcmci(data, 2, link_assumptions=links)
    assert res["val_matrix"][1, 0, 1] == 1.0 and res["p_matrix"][1, 0, 1] == 0.0
    assert res["graph"][1, 0, 1] == "-->"
    assert (res["p_matrix"][:, :, 2] == 1.0).all()  # lag 2 not allowed: untested
    assert (res["graph"][:, :, 0] == "").all()


def test_bad_settings_raise_in_one_line():
    data, _, _, _, _, _ = read_case(8)
    with pytest.raises(cudag.InputError, match="tau_max 60 leaves no samples"):
        cudag.pcmci(data, 60)
    with pytest.raises(cudag.InputError, match="'pcmci\\+' \\(available: pcmci, pcmciplus\\)"):
        cudag.pcmci(data, 1, method="pcmci+")
    with pytest.raises(cudag.InputError, match="contemp_collider_rule 'minority'"):
        cudag.pcmci(data, 1, method="pcmciplus", contemp_collider_rule="minority")
    with pytest.raises(cudag.InputError, match=r"settings of PCMCI\+ \(pcmciplus\) only"):
        cudag.pcmci(data, 1, reset_lagged_links=True)
    with pytest.raises(TypeError):
        cudag.pcmci(data, 1, no_such_keyword=3)
    with pytest.raises(cudag.InputError, match='it needs test="parcorr"'):
        cudag.pcmci(data, 1, test="cmiknn", pc_alpha=[0.1, 0.2])
    with pytest.raises(cudag.InputError, match="pc_alpha must lie in"):
        cudag.pcmci(data, 1, pc_alpha=[0.1, 2.0])
    with pytest.raises(cudag.InputError, match="an empty list"):
        cudag.pcmci(data, 1, pc_alpha=[])
    with pytest.raises(TypeError, match="pc_alpha= takes a number"):
        cudag.pcmci(data, 1, pc_alpha=[0.1, "x"])
    pcmci = tg.PCMCI(tg.DataFrame(data), tg.CMIknn())
    with pytest.raises(cudag.InputError, match='it needs test="parcorr"'):
        pcmci.run_pcmci(tau_max=1, pc_alpha=None)
    # too few rows after the lags for a test's conditions: said so (not a Fisher-z NaN)
    with pytest.raises(cudag.InputError, match="parcorr given 0 conditions needs more than 2 samples; there are 2 rows"):
        cudag.pcmci(data[:12], 5)
    # negative condition limits, as tigramite's _set_max_condition_dim
    for key in ("max_conds_dim", "max_conds_py", "max_conds_px"):
        with pytest.raises(ValueError, match="maximum condition dimension must be >= 0"):
            tg.PCMCI(tg.DataFrame(data), tg.ParCorr()).run_pcmci(tau_max=1, **{key: -1})
    contemp = {j: {} for j in range(data.shape[1])}
    contemp[0][(1, 0)], contemp[1][(0, 0)] = "o?o", "o?o"
    with pytest.raises(cudag.InputError, match=r"link assumption \(1, 0\) -> 0 is outside .* lags 1\.\.1"):
        cudag.pcmci(data, 1, tau_min=1, link_assumptions=contemp)


def test_run_pc_stable_drops_lag_zero_link_assumptions():
    """tigramite's run_pc_stable removes the lag-0 links (remove_contemp=True) and runs."""
    data, _, _, _, _, _ = read_case(0)
    n = data.shape[1]
    with_contemp = {j: {(i, -lag): ("o?o" if lag == 0 else "-?>") for i in range(n) for lag in (0, 1)
                        if not (i == j and lag == 0)} for j in range(n)}
    lagged = {j: {(i, -1): "-?>" for i in range(n)} for j in range(n)}
    got = tg.PCMCI(tg.DataFrame(data), tg.ParCorr()).run_pc_stable(link_assumptions=with_contemp, tau_max=1)
    want = tg.PCMCI(tg.DataFrame(data), tg.ParCorr()).run_pc_stable(link_assumptions=lagged, tau_max=1)
    assert got == want
    assert any(got[j] for j in got)


def run_case(c: int, folder: Path, prefix: str = "c", **method):
    """cudag.pcmci on a reference case, its result checked (graph exactly, val and p to 1e-9
    relative, the parents); returns the result, the data and the case's keywords."""
    data, kw, parents, val, p, graph = read_case(c, folder, prefix)
    res = cudag.pcmci(data, kw["tau_max"], threads=2, **method, **{k: v for k, v in kw.items() if k != "tau_max"})
    np.testing.assert_array_equal(res["graph"], graph)
    np.testing.assert_allclose(res["val_matrix"], val, rtol=1e-9, atol=0)
    np.testing.assert_allclose(res["p_matrix"], p, rtol=1e-9, atol=1e-300)
    assert res["parents"] == parents
    return res, data, kw


@pytest.mark.parametrize("c", CASES_PLUS)
def test_pcmciplus_equals_tigramite(c):
    run_case(c, DATA_PLUS, method="pcmciplus")


def test_pcmciplus_takes_tigramites_pc_alpha_by_default():
    # Case 0 was made with run_pcmciplus's default pc_alpha (0.01); run_pcmci's 0.2 differs.
    data, kw, _, val, p, graph = read_case(0, DATA_PLUS)
    assert "pc_alpha" not in kw
    res = cudag.pcmci(data, kw["tau_max"], method="pcmciplus")
    np.testing.assert_array_equal(res["graph"], graph)
    np.testing.assert_allclose(res["p_matrix"], p, rtol=1e-9, atol=1e-300)
    other = cudag.pcmci(data, kw["tau_max"], method="pcmciplus", pc_alpha=0.2)
    assert not np.array_equal(other["graph"], graph)


@pytest.mark.parametrize("c", [2, 4, 8, 11])
def test_compat_pcmciplus_equals_tigramite(c):
    data, kw, parents, val, p, graph = read_case(c, DATA_PLUS)
    pcmci = tg.PCMCI(dataframe=tg.DataFrame(data, var_names=[f"v{i}" for i in range(data.shape[1])]),
                     cond_ind_test=tg.ParCorr(significance="analytic"), verbosity=0)
    results = pcmci.run_pcmciplus(**kw)
    assert set(results) == {"graph", "p_matrix", "val_matrix", "conf_matrix"}
    np.testing.assert_array_equal(results["graph"], graph)
    np.testing.assert_allclose(results["p_matrix"], p, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(results["val_matrix"], val, rtol=1e-9, atol=0)
    assert pcmci.all_lagged_parents == parents


@pytest.mark.parametrize("c", SELECTION)
def test_pc_alpha_selection_equals_tigramite(c):
    res, data, kw = run_case(c, DATA, "s")
    assert res["optimal_pc_alpha"] == dict(enumerate(read_optimal(c, DATA)))
    tried = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5] if kw["pc_alpha"] is None else kw["pc_alpha"]
    assert res["pc_alpha_candidates"] == tried
    assert res["pc_alpha_scores"].shape == (data.shape[1], len(tried))


@pytest.mark.parametrize("c", SELECTION_PLUS)
def test_pcmciplus_pc_alpha_selection_equals_tigramite(c):
    res, _, _ = run_case(c, DATA_PLUS, "s", method="pcmciplus")
    assert [res["optimal_pc_alpha"]] == read_optimal(c, DATA_PLUS)
    assert res["pc_alpha_scores"].shape == (len(res["pc_alpha_candidates"]),)


def test_one_pc_alpha_has_no_selection():
    data, kw, _, _, _, _ = read_case(0)
    res = cudag.pcmci(data, kw["tau_max"])
    assert res["optimal_pc_alpha"] is None and res["pc_alpha_candidates"] is None
    assert res["pc_alpha_scores"] is None


def test_compat_pc_alpha_selection_equals_tigramite():
    # run_pcmci(pc_alpha=None) (s01) and run_pcmciplus(pc_alpha=[0.01, 0.05, 0.2]) (s01) as
    # tigramite's: iterations[j]['optimal_pc_alpha'] and results['optimal_alpha'].
    data, kw, parents, val, p, graph = read_case(1, DATA, "s")
    assert kw["pc_alpha"] is None
    pcmci = tg.PCMCI(dataframe=tg.DataFrame(data), cond_ind_test=tg.ParCorr(significance="analytic"))
    results = pcmci.run_pcmci(**kw)
    np.testing.assert_array_equal(results["graph"], graph)
    np.testing.assert_allclose(results["p_matrix"], p, rtol=1e-9, atol=1e-300)
    assert pcmci.all_parents == parents
    assert [pcmci.iterations[j]["optimal_pc_alpha"] for j in range(data.shape[1])] == read_optimal(1, DATA)
    data, kw, parents, val, p, graph = read_case(1, DATA_PLUS, "s")
    assert kw["pc_alpha"] == [0.01, 0.05, 0.2]
    pcmci = tg.PCMCI(dataframe=tg.DataFrame(data), cond_ind_test=tg.ParCorr(significance="analytic"))
    results = pcmci.run_pcmciplus(**kw)
    np.testing.assert_array_equal(results["graph"], graph)
    np.testing.assert_allclose(results["val_matrix"], val, rtol=1e-9, atol=0)
    assert [results["optimal_alpha"]] == read_optimal(1, DATA_PLUS)
    assert pcmci.all_lagged_parents == parents


def expect_result(res, val, p, graph, parents):
    np.testing.assert_array_equal(res["graph"], graph)
    np.testing.assert_allclose(res["val_matrix"], val, rtol=1e-9, atol=0)
    np.testing.assert_allclose(res["p_matrix"], p, rtol=1e-9, atol=1e-300)
    assert res["parents"] == parents


@pytest.mark.parametrize("c", MISSING)
def test_missing_flag_equals_tigramite(c):
    # tigramite's DataFrame(missing_flag=999.): each test leaves out the time steps where one of
    # its lagged variables is missing; ParCorr's dof are the test's own.
    data, kw, parents, val, p, graph = read_case(c, prefix="m")
    tau_max = kw.pop("tau_max")
    expect_result(cudag.pcmci(data, tau_max, threads=2, **kw), val, p, graph, parents)
    # The same cells as NaN, missing_flag NaN.
    holes = np.where(data == kw["missing_flag"], np.nan, data)
    expect_result(cudag.pcmci(holes, tau_max, **dict(kw, missing_flag=np.nan)), val, p, graph, parents)


def test_compat_missing_flag_equals_tigramite():
    data, kw, parents, val, p, graph = read_case(0, prefix="m")
    flag = kw.pop("missing_flag")
    pcmci = tg.PCMCI(dataframe=tg.DataFrame(data, missing_flag=flag), cond_ind_test=tg.ParCorr(), verbosity=0)
    results = pcmci.run_pcmci(**kw)
    np.testing.assert_array_equal(results["graph"], graph)
    np.testing.assert_allclose(results["val_matrix"], val, rtol=1e-9, atol=0)
    np.testing.assert_allclose(results["p_matrix"], p, rtol=1e-9, atol=1e-300)
    assert pcmci.all_parents == parents
    # A NaN cell without a missing flag is refused, naming its row and column.
    with pytest.raises(cudag.InputError, match=r"missing value \(NaN\) at row 3, column 2"):
        cudag.pcmci(np.where(np.arange(data.size).reshape(data.shape) == 2 * data.shape[1] + 1, np.nan, data), 1)
    with pytest.raises(ValueError, match="NaNs in the data"):
        tg.DataFrame(np.full((10, 2), np.nan))


@pytest.mark.parametrize("c", SEVERAL)
def test_several_series_equal_tigramite(c):
    # DataFrame(dict of arrays, analysis_mode='multiple'): the series' lagged rows stacked.
    table, kw, parents, val, p, graph = read_case(c, prefix="g")
    tau_max = kw.pop("tau_max")
    assert kw.pop("series_column") == "series" and kw.pop("time_column") == "t"
    series = {m: table[table[:, 0] == m, 2:] for m in np.unique(table[:, 0])}
    expect_result(cudag.pcmci(series, tau_max, threads=2, **kw), val, p, graph, parents)
    flag = kw.pop("missing_flag", None)
    frame = tg.DataFrame(series, analysis_mode="multiple", missing_flag=flag)
    pcmci = tg.PCMCI(dataframe=frame, cond_ind_test=tg.ParCorr(), verbosity=0)
    results = pcmci.run_pcmci(tau_max=tau_max, **kw)
    np.testing.assert_array_equal(results["graph"], graph)
    np.testing.assert_allclose(results["val_matrix"], val, rtol=1e-9, atol=0)
    assert pcmci.all_parents == parents
    assert pcmci.T == {m: len(v) for m, v in series.items()}


def test_series_and_time_columns_of_a_dataframe():
    pd = pytest.importorskip("pandas")
    table, kw, parents, val, p, graph = read_case(0, prefix="g")
    frame = pd.DataFrame(table, columns=["series", "t"] + [f"v{i}" for i in range(table.shape[1] - 2)])
    res = cudag.pcmci(frame, kw.pop("tau_max"), **kw)
    expect_result(res, val, p, graph, parents)
    assert res["names"] == ["v0", "v1", "v2", "v3"]
    # Rows out of order: the row is named.
    swapped = frame.copy()
    swapped.iloc[[5, 6]] = swapped.iloc[[6, 5]].to_numpy()
    with pytest.raises(cudag.InputError, match=r"row 7 \(data rows counted from 1\): time 5"):
        cudag.pcmci(swapped, 2, series_column="series", time_column="t")


@pytest.mark.parametrize("stem", ["m00", "g00"])
def test_pcmciplus_with_missing_flag_and_several_series_equals_tigramite(stem):
    table, kw, parents, val, p, graph = read_case(int(stem[1:]), DATA_PLUS, prefix=stem[0])
    tau_max = kw.pop("tau_max")
    if kw.pop("series_column", None):
        kw.pop("time_column")
        table = {m: table[table[:, 0] == m, 2:] for m in np.unique(table[:, 0])}
    expect_result(cudag.pcmci(table, tau_max, method="pcmciplus", **kw), val, p, graph, parents)
