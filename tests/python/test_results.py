# SPDX-License-Identifier: Apache-2.0
"""Results as edge lists (matrices built on demand, refused above cudag.MATRIX_LIMIT),
cudag.load round trips, conversions (pandas, causal-learn, pgmpy, Graphviz) and the
separating sets by name."""

import numpy as np
import pytest

import cudag
import cudag._results as results
from conftest import h5, read_csv, run_cli


@pytest.fixture(scope="module")
def pc_run(tmp_path_factory, gaussian_csv):
    x, names = read_csv(gaussian_csv)
    out = tmp_path_factory.mktemp("load") / "r.h5"
    return cudag.pc(x, names=names, alpha=0.05, out=out), out


def test_edge_lists_are_the_result_files(pc_run):
    res, out = pc_run
    np.testing.assert_array_equal(res.edge_array, h5(out, "/cpdag/edges").astype(int).reshape(-1, 3))
    np.testing.assert_array_equal(res.skeleton_pairs, h5(out, "/skeleton/edges").astype(int).reshape(-1, 2))
    i, j, p = res.pmax_pairs
    np.testing.assert_array_equal(np.column_stack([i, j]), h5(out, "/pmax/pairs").astype(int).reshape(-1, 2))
    np.testing.assert_array_equal(p, h5(out, "/pmax/values"))
    # the dense forms agree with the lists
    sk = np.zeros_like(res.skeleton)
    sk[res.skeleton_pairs[:, 0], res.skeleton_pairs[:, 1]] = True
    np.testing.assert_array_equal(res.skeleton, sk | sk.T)
    assert [res.adjacent(a, b) for a, b, _ in res.edges()] == [True] * len(res.edges())


def test_matrices_refused_above_the_limit(pc_run, monkeypatch):
    res, out = pc_run
    skeleton = res.skeleton  # the reference's dense form, built below the limit
    fresh = cudag.load(out)  # nothing dense built yet
    monkeypatch.setattr(results, "MATRIX_LIMIT", len(fresh.names) - 1)
    for attr in ("cpdag", "cl_matrix", "amat", "skeleton", "pmax"):
        with pytest.raises(cudag.Error, match=r"n x n matrix, refused for 30 variables .*: use result\.") as e:
            getattr(fresh, attr)
        assert "\n" not in str(e.value)
    # the sparse accessors still answer, the same as below the limit
    assert fresh.edges() == res.edges()
    np.testing.assert_array_equal(fresh.edge_array, res.edge_array)
    i, j = np.argwhere(~skeleton & ~np.eye(len(res.names), dtype=bool))[0]
    assert fresh.sepset(i, j) == res.sepset(i, j)
    assert fresh.sepset(*res.skeleton_pairs[0]) is None
    assert fresh.to_networkx is not None and "30 variables" in repr(fresh)


def test_load_round_trips_pc(pc_run):
    res, out = pc_run
    back = cudag.load(out)
    assert isinstance(back, cudag.PcResult)
    assert back.names == res.names and back.n_samples == res.n_samples and back.seconds == res.seconds
    for attr in ("skeleton", "cpdag", "cl_matrix", "amat", "pmax", "edge_array", "skeleton_pairs"):
        np.testing.assert_array_equal(getattr(back, attr), getattr(res, attr), err_msg=attr)
    assert back.sepsets == res.sepsets and back.edges() == res.edges()
    assert back.levels == res.levels
    assert list(back.config.values()) == list(res.config.values())
    assert back.level_labels == res.level_labels == []


def test_load_round_trips_discrete_labels(tmp_path, discrete_csv):
    x, names = read_csv(discrete_csv)
    labels = np.array([["abc"[int(v)] for v in row] for row in x])
    out = tmp_path / "d.h5"
    res = cudag.pc(labels, names=names, alpha=0.05, out=out)
    back = cudag.load(out)
    assert back.level_labels == res.level_labels and back.level_labels[0] == sorted(set(labels[:, 0]))
    np.testing.assert_array_equal(back.cl_matrix, res.cl_matrix)
    assert back.sepsets == res.sepsets


def test_load_round_trips_mcmc(tmp_path, discrete_csv):
    x, names = read_csv(discrete_csv)
    out = tmp_path / "m.h5"
    res = cudag.mcmc(x, "bdeu", names=names, chains=2, iterations=400, seed=3, max_parents=2, out=out)
    back = cudag.load(out)
    assert isinstance(back, cudag.McmcResult)
    for attr in ("edge_prob", "best_dag", "best_dag_edges", "cpdag", "cl_matrix", "edge_array", "traces",
                 "acceptance"):
        np.testing.assert_array_equal(getattr(back, attr), getattr(res, attr), err_msg=attr)
    for attr in ("names", "n_samples", "best_dag_score", "best_chain", "score_psrf", "score_ess", "edge_max_psrf",
                 "seconds"):
        assert getattr(back, attr) == getattr(res, attr) or (np.isnan(getattr(res, attr)) and
                                                             np.isnan(getattr(back, attr))), attr
    assert list(back.config.values()) == list(res.config.values())


def test_load_refuses_other_files(tmp_path, gaussian_csv):
    with pytest.raises(cudag.InputError, match="not an HDF5 file"):
        cudag.load(gaussian_csv)
    data = tmp_path / "data.h5"
    run_cli("simulate", "gaussian", "--vars", 3, "--samples", 5, "--out", data, "-q")
    with pytest.raises(cudag.InputError, match="not a cudag result"):
        cudag.load(data)


def test_sepsets_by_name(pc_run):
    res, _ = pc_run
    by_name = res.sepsets_by_name
    assert len(by_name) == len(res.sepsets)
    for (i, j), s in res.sepsets.items():
        assert by_name[(res.names[i], res.names[j])] == tuple(res.names[k] for k in s)
        assert res.sepset(res.names[j], res.names[i], names=True) == tuple(res.names[k] for k in s)
    with pytest.raises(KeyError, match="no variable named 'nope'"):
        res.sepset("nope", res.names[0])


def test_to_pandas(pc_run):
    pd = pytest.importorskip("pandas", reason="pandas is optional: to_pandas() not tested")
    res, _ = pc_run
    df = res.to_pandas()
    assert list(df.index) == list(df.columns) == res.names
    np.testing.assert_array_equal(df.to_numpy(), res.cpdag)
    edges = res.to_pandas(edges=True)
    assert [tuple(r) for r in edges.itertuples(index=False)] == res.edges()


def test_to_causallearn(pc_run):
    pytest.importorskip("causallearn", reason="causal-learn is optional: to_causallearn() not tested")
    res, _ = pc_run
    g = res.to_causallearn()
    assert [n.get_name() for n in g.get_nodes()] == res.names
    np.testing.assert_array_equal(g.graph, res.cl_matrix)
    assert g.get_num_edges() == len(res.edges())


def test_to_pgmpy(pc_run, tmp_path, discrete_csv):
    pytest.importorskip("pgmpy", reason="pgmpy is optional: to_pgmpy() not tested")
    res, _ = pc_run
    g = res.to_pgmpy()
    assert sorted(g.nodes) == sorted(res.names)
    assert set(g.directed_edges) == {(a, b) for a, b, m in res.edges() if m == "-->"}
    assert {frozenset(e) for e in g.undirected_edges} == {frozenset((a, b)) for a, b, m in res.edges() if m == "---"}
    x, names = read_csv(discrete_csv)
    m = cudag.mcmc(x, "bdeu", names=names, chains=2, iterations=200, seed=1, max_parents=2)
    dag = m.to_pgmpy()
    assert set(dag.edges) == {(names[p], names[v]) for p, v in m.best_dag_edges.tolist()}


def test_dot_and_drawing(pc_run, tmp_path):
    res, _ = pc_run
    dot = res.to_dot()
    assert all(f'"{n}"' in dot for n in res.names)
    assert dot.count("dir=none") == sum(1 for e in res.edges() if e[2] == "---")
    import shutil
    if shutil.which("dot") is None:
        assert res._repr_svg_() is None
        pytest.skip("Graphviz dot is not installed: drawings not tested")
    svg = res._repr_svg_()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and res.names[0] in svg
    png = res.draw(tmp_path / "g.png")
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
