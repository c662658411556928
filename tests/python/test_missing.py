# SPDX-License-Identifier: Apache-2.0
"""Issue 55: missing values (--missing testwise|listwise) and mixed columns, from Python and
the command line. Test-wise Fisher-z equals causal-learn 0.1.4.8's mv_fisherz on the 20
reference data sets of tests/data/mv_fisherz (5-30 % of the cells missing; made by
scripts/dev/mv_fisherz_reference.py, so causal-learn is not needed here)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import cudag
from conftest import cudag_binary

DATA = Path(__file__).resolve().parents[1] / "data" / "mv_fisherz"


def read_case(k: int) -> np.ndarray:
    rows = []
    with open(DATA / f"case{k}.csv") as f:
        next(f)
        for line in f:
            rows.append([float(c) if c else np.nan for c in line.rstrip("\n").split(",")])
    return np.array(rows)


def reference_rows():
    with open(DATA / "mv_fisherz.tsv") as f:
        next(f)
        for line in f:
            k, x, y, given, used, p = line.rstrip("\n").split("\t")
            s = [] if given == "-" else [int(v) for v in given.split(",")]
            yield int(k), int(x), int(y), s, int(used), float(p)


def test_testwise_fisher_z_is_causal_learns_mv_fisherz_on_20_cases():
    rows = list(reference_rows())
    assert len(rows) == 80
    worst = 0.0
    for k in range(20):
        t = cudag.tester(read_case(k), "fisher-z", missing="testwise", compat="causal-learn")
        for kk, x, y, s, used, p in rows:
            if kk != k:
                continue
            r = t.test(x, y, s)
            assert r.n_samples == used, (k, x, y, s)
            assert r.p_value == pytest.approx(p, rel=1e-9, abs=1e-15), (k, x, y, s)
            if p > 1e-300:
                worst = max(worst, abs(r.p_value - p) / p)
    assert worst < 1e-9


def test_testwise_on_the_command_line_reports_the_rows_used(tmp_path):
    out = subprocess.run([cudag_binary(), "citest", "--data", str(DATA / "case7.csv"), "--test", "fisher-z", "--x",
                          "v1", "--y", "v4", "--given", "v2,v3", "--missing", "testwise", "--compat", "causal-learn",
                          "--json"], capture_output=True, text=True, check=True).stdout
    r = json.loads(out)
    ref = [row for row in reference_rows() if row[0] == 7 and row[1:4] == (1, 4, [2, 3])][0]
    assert r["n_samples"] == ref[4]
    assert r["p_value"] == pytest.approx(ref[5], rel=1e-9)
    # Without --missing the first missing cell is refused, naming it.
    bad = subprocess.run([cudag_binary(), "citest", "--data", str(DATA / "case7.csv"), "--test", "fisher-z", "--x",
                          "v1", "--y", "v4"], capture_output=True, text=True)
    assert bad.returncode != 0
    assert "missing value (empty field) in column" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_listwise_is_pc_on_the_complete_rows(tmp_path):
    x = read_case(12)
    complete = x[~np.isnan(x).any(axis=1)]
    a = cudag.pc(x, missing="listwise")
    b = cudag.pc(complete)
    assert a.edges() == b.edges()


def test_testwise_pc_runs_each_test_on_its_rows():
    x = read_case(19)  # 30 % of the cells missing
    r = cudag.pc(x, missing="testwise", compat="causal-learn")
    # Every pair the search kept is dependent on its own complete rows at level 0.
    t = cudag.tester(x, "fisher-z", missing="testwise", compat="causal-learn")
    for a, b, _ in r.edges():
        assert t(a, b) <= 0.01
    with pytest.raises(cudag.InputError, match="missing value"):
        cudag.pc(x)
    with pytest.raises(cudag.InputError, match="testwise"):
        cudag.mcmc(x, score="bge", missing="testwise")


def test_pandas_categorical_columns_are_discrete():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    g = rng.integers(0, 3, 300)
    frame = pd.DataFrame({"g": pd.Categorical(g), "x": g + rng.normal(size=300), "y": rng.normal(size=300)})
    with pytest.raises(cudag.InputError, match="column 'g' is discrete"):
        cudag.citest(frame, "x", "y", test="fisher-z")
    frame2 = pd.DataFrame({"x": g + rng.normal(size=300), "y": rng.normal(size=300)})
    assert cudag.citest(frame2, "x", "y", test="fisher-z").p_value > 0


def test_causal_learn_face_takes_mv_fisherz():
    from cudag.compat import causallearn as cl

    x = read_case(4)
    cit = cl.CIT(x, "mv_fisherz")
    for k, a, b, s, used, p in reference_rows():
        if k == 4:
            assert cit(a, b, s) == pytest.approx(p, rel=1e-9)
    cg = cl.pc(x, 0.05, "mv_fisherz", show_progress=False)
    direct = cudag.pc(x, test="fisher-z", alpha=0.05, compat="causal-learn", missing="testwise",
                      names=[f"X{k + 1}" for k in range(x.shape[1])])
    assert (cg.G.graph == direct.cl_matrix).all()
    with pytest.raises(ValueError, match="MVPC"):
        cl.pc(x, 0.05, "mv_fisherz", mvpc=True)


def test_causal_learn_face_builds_nx_graph_on_first_use():
    nx = pytest.importorskip("networkx")
    from cudag.compat import causallearn as cl

    cg = cl.pc(read_case(2), 0.05, "mv_fisherz", show_progress=False)
    a = nx.to_numpy_array(cg.nx_graph).astype(int)  # causal-learn's get_adjacancy_matrix
    g = cg.G.graph
    for i in range(len(g)):
        for j in range(len(g)):
            assert a[i, j] == (1 if (g[i, j] == -1 and g[j, i] in (-1, 1)) or (g[i, j] == 1 and g[j, i] == 1) else 0)
    assert cg.labels[0] == "X1"
