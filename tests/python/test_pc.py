# SPDX-License-Identifier: Apache-2.0
"""cudag.pc on a numpy array gives what `cudag pc` gives on the same data in a file:
skeleton, CPDAG (every encoding), separating sets, pMax and per-level statistics."""

import numpy as np
import pytest

import cudag
from conftest import h5, read_csv, run_cli


def cli_pc(tmp_path, csv, *options):
    out = tmp_path / "r.h5"
    run_cli("pc", "--data", csv, "--out", out, "--format", "cl,amat,edges", "-q", *options)
    return out


def read_edges(path):
    lines = open(path).read().splitlines()
    assert lines[0] == "source\ttarget\tmark"
    return [tuple(line.split("\t")) for line in lines[1:]]


def assert_same_as_cli(res, out, n):
    stem = str(out)[:-3]
    cl = np.loadtxt(stem + ".cl.txt", dtype=int, ndmin=2)
    np.testing.assert_array_equal(res.cl_matrix, cl)
    amat_rows = open(stem + ".amat.csv").read().splitlines()[1:]
    amat = np.array([[int(c) for c in row.split(",")[1:]] for row in amat_rows])
    np.testing.assert_array_equal(res.amat, amat)
    assert res.edges() == read_edges(stem + ".edges.tsv")
    # skeleton: the file's edge list (a, b), a < b
    sk = h5(out, "/skeleton/edges").astype(int).reshape(-1, 2)
    expect = np.zeros((n, n), dtype=bool)
    expect[sk[:, 0], sk[:, 1]] = expect[sk[:, 1], sk[:, 0]] = True
    np.testing.assert_array_equal(res.skeleton, expect)
    # separating sets, exactly as stored (pairs removed at level >= 1)
    pairs = h5(out, "/sepsets/pairs").astype(int).reshape(-1, 2)
    offs = h5(out, "/sepsets/offsets").astype(int)
    nodes = h5(out, "/sepsets/nodes").astype(int)
    stored = {(int(i), int(j)): tuple(int(v) for v in nodes[offs[r]:offs[r + 1]])
              for r, (i, j) in enumerate(pairs)}
    assert res.sepsets == stored
    # pMax, bit for bit (h5dump prints 17 significant digits); a pair with no pMax record
    # (a background-knowledge pair) is NaN in the file's dense matrix, -1 in res.pmax
    want = h5(out, "/pmax/matrix")
    want[np.isnan(want)] = -1.0
    np.testing.assert_array_equal(res.pmax[~np.eye(n, dtype=bool)], want[~np.eye(n, dtype=bool)])
    for key in ("tests", "removed", "edges_after", "level"):
        assert [lv[key] for lv in res.levels] == h5(out, f"/levels/{key}").astype(int).tolist(), key


def test_gaussian_same_as_cli(tmp_path, gaussian_csv):
    x, names = read_csv(gaussian_csv)
    res = cudag.pc(x, names=names, alpha=0.01, backend="cpu")
    assert res.names == names and res.n_samples == 500
    assert res.skeleton.sum() > 0 and len(res.sepsets) > 0  # a graph with level >= 1 removals
    assert_same_as_cli(res, cli_pc(tmp_path, gaussian_csv, "--backend", "cpu"), len(names))


def test_options_as_cli(tmp_path, gaussian_csv):
    x, names = read_csv(gaussian_csv)
    res = cudag.pc(x, names=names, alpha=0.05, max_level=1, compat="causal-learn", uc_rule=1, threads=2)
    assert max(lv["level"] for lv in res.levels) <= 1
    assert res.config["compat"] == "causal-learn"
    assert_same_as_cli(res, cli_pc(tmp_path, gaussian_csv, "--alpha", 0.05, "--max-level", 1, "--compat",
                                   "causal-learn", "--uc-rule", 1), len(names))


def test_discrete_codes_same_as_cli(tmp_path, discrete_csv):
    x, names = read_csv(discrete_csv)
    res = cudag.pc(x, names=names, test="chi-square", alpha=0.05)
    assert_same_as_cli(res, cli_pc(tmp_path, discrete_csv, "--test", "chi-square", "--alpha", 0.05), len(names))


def test_labels_same_as_cli(tmp_path, discrete_csv):
    """A table of labels (a string array) is read as the command line reads a CSV of labels:
    discrete data, chi-square chosen."""
    x, names = read_csv(discrete_csv)
    labels = np.array([["abc"[int(v)] for v in row] for row in x])
    csv = tmp_path / "labels.csv"
    csv.write_text(",".join(names) + "\n" + "\n".join(",".join(r) for r in labels) + "\n")
    res = cudag.pc(labels, names=names, alpha=0.05)
    assert res.level_labels[0] == sorted(set(labels[:, 0]))
    assert_same_as_cli(res, cli_pc(tmp_path, csv, "--alpha", 0.05), len(names))


def test_repeated_calls_agree(gaussian_csv):
    x, names = read_csv(gaussian_csv)
    a = cudag.pc(x, names=names)
    b = cudag.pc(x, names=names)  # the GPU buffers of the first call reused
    cudag.release_gpu_memory()   # and handed back (a no-op without CUDA)
    c = cudag.pc(x, names=names)
    for other in (b, c):
        np.testing.assert_array_equal(a.cl_matrix, other.cl_matrix)
        np.testing.assert_array_equal(a.pmax, other.pmax)
        assert a.sepsets == other.sepsets


def test_encodings_agree(gaussian_csv):
    x, names = read_csv(gaussian_csv)
    res = cudag.pc(x, names=names)
    m = res.cl_matrix
    for a, b, mark in res.edges():
        i, j = names.index(a), names.index(b)
        if mark == "-->":
            assert (m[i, j], m[j, i]) == (-1, 1)
            assert (res.cpdag[i, j], res.cpdag[j, i]) == (1, 0)
        else:
            assert (m[i, j], m[j, i]) == (-1, -1) and res.cpdag[i, j] == res.cpdag[j, i] == 1
    np.testing.assert_array_equal(res.amat, res.cpdag.T)
    np.testing.assert_array_equal(res.skeleton, m != 0)
    i, j = np.argwhere(~res.skeleton & ~np.eye(len(names), dtype=bool))[0]
    assert res.sepset(names[i], names[j]) == res.sepsets.get((min(i, j), max(i, j)), ())
    assert res.sepset(*np.argwhere(res.skeleton)[0]) is None


def test_files_written_as_cli(tmp_path, gaussian_csv):
    x, names = read_csv(gaussian_csv)
    out = tmp_path / "py.h5"
    res = cudag.pc(x, names=names, out=out, format=["edges", "cl"])
    assert out.exists()
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "py.cl.txt", dtype=int), res.cl_matrix)


def test_progress_callback(gaussian_csv):
    x, names = read_csv(gaussian_csv)
    seen = []
    res = cudag.pc(x, names=names, progress=seen.append)
    assert [s["level"] for s in seen] == [lv["level"] for lv in res.levels]
    assert seen[-1]["edges_after"] == res.skeleton.sum() // 2


def test_callback_exception_stops_the_search(gaussian_csv):
    x, names = read_csv(gaussian_csv)
    calls = []

    def stop(info):
        calls.append(info["level"])
        raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        cudag.pc(x, names=names, progress=stop)
    assert calls == [0]


def test_dataframe_names_kept(gaussian_csv):
    pd = pytest.importorskip("pandas", reason="pandas is optional: DataFrame input not tested")
    x, names = read_csv(gaussian_csv)
    df = pd.DataFrame(x, columns=[f"gene {k}" for k in range(x.shape[1])])
    res = cudag.pc(df)
    assert res.names == list(df.columns)
    np.testing.assert_array_equal(res.cl_matrix, cudag.pc(x).cl_matrix)
    assert all(a in res.names and b in res.names for a, b, _ in res.edges())


def test_to_networkx(gaussian_csv):
    nx = pytest.importorskip("networkx", reason="networkx is optional: to_networkx() not tested")
    x, names = read_csv(gaussian_csv)
    res = cudag.pc(x, names=names)
    g = res.to_networkx()
    assert sorted(g.nodes) == sorted(names)
    for a, b, mark in res.edges():
        assert g.edges[a, b]["mark"] == mark
        assert g.has_edge(b, a) == (mark != "-->")
