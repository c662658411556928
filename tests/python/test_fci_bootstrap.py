# SPDX-License-Identifier: Apache-2.0
"""FCI's edge confidence from Python (issue 54): cudag.fci(bootstrap=B, ...) gives the
command line's PAG frequency table and consensus PAG for the same data and seed, and
cudag.load reads the file back into the same FciBootstrapResult."""

import csv
from pathlib import Path

import numpy as np
import pytest

import cudag
from conftest import h5, read_csv, run_cli

B, SEED = 5, 9
G05 = Path(__file__).resolve().parents[1] / "data" / "fci" / "datasets" / "g05.csv"


@pytest.fixture(scope="module")
def fci_boot(tmp_path_factory):
    d = tmp_path_factory.mktemp("fciboot")
    x, names = read_csv(G05)
    py_out, cli_out = d / "py.h5", d / "cli.h5"
    res = cudag.fci(x, names=names, alpha=0.05, bootstrap=B, seed=SEED, consensus=0.4, out=py_out)
    run_cli("fci", "--data", G05, "--alpha", 0.05, "--bootstrap", B, "--seed", SEED, "--consensus", 0.4, "--out",
            cli_out, "--format", "freq", "-q")
    return res, py_out, cli_out, d / "cli.freq.tsv"


def test_fci_bootstrap_equals_the_command_line(fci_boot):
    res, py_out, cli_out, freq = fci_boot
    assert isinstance(res, cudag.FciBootstrapResult) and isinstance(res, cudag.FciResult)
    assert (res.replicates, res.resample, res.seed, res.consensus) == (B, "bootstrap", SEED, 0.4)
    assert res.counts.shape == (len(res.pairs), 10) and (res.counts.sum(axis=1) == B).all()
    for path in (py_out, cli_out):
        np.testing.assert_array_equal(res.counts, h5(path, "/bootstrap/counts").astype(int).reshape(-1, 10))
        np.testing.assert_array_equal(res.pairs, h5(path, "/bootstrap/pairs").astype(int).reshape(-1, 2))
        np.testing.assert_array_equal(res.edge_array, h5(path, "/pag/edges").astype(int).reshape(-1, 4))
    adjacent = {(i, j) for i, j in res.pairs[res.adjacency >= 0.4].tolist()}
    assert {(a, b) for a, b, _, _ in res.edge_array.tolist()} == adjacent
    with open(freq, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    assert tuple(rows[0]) == cudag.PAG_FREQUENCY_COLUMNS
    assert len(res.frequencies()) == len(rows) - 1
    for ours, theirs in zip(res.frequencies(), rows[1:]):
        assert (ours[0], ours[1], ours[-1]) == (theirs[0], theirs[1], theirs[-1])
        assert [float(f"{v:.6g}") for v in ours[2:-1]] == [float(v) for v in theirs[2:-1]]


def test_to_pandas_is_the_frequency_table(fci_boot):
    res = fci_boot[0]
    pytest.importorskip("pandas")
    df = res.to_pandas()
    assert list(df.columns) == list(cudag.PAG_FREQUENCY_COLUMNS)
    assert [tuple(r) for r in df.itertuples(index=False)] == res.frequencies()


def test_load_round_trips_fci_bootstrap(fci_boot):
    res, py_out, cli_out, _ = fci_boot
    for path in (py_out, cli_out):
        back = cudag.load(path)
        assert isinstance(back, cudag.FciBootstrapResult)
        for attr in ("pairs", "counts", "frequency", "adjacency", "edge_array"):
            np.testing.assert_array_equal(getattr(back, attr), getattr(res, attr), err_msg=attr)
        assert back.frequencies() == res.frequencies() and back.edges() == res.edges()


def test_edge_frequency_reads_the_table_from_either_end(fci_boot):
    res = fci_boot[0]
    from cudag._fci_bootstrap import PAG_EDGE_KINDS as kinds
    flip = {"o->": "<-o", "<-o": "o->", "o-o": "o-o", "-->": "<--", "<--": "-->", "<->": "<->", "---": "---",
            "o--": "--o", "--o": "o--"}
    for (i, j), c in zip(res.pairs.tolist(), res.counts.tolist()):
        f = res.edge_frequency(i, j)
        assert f["adjacency"] == pytest.approx((B - c[0]) / B) and f["none"] == pytest.approx(c[0] / B)
        for k, kind in enumerate(kinds):
            assert f[kind] == pytest.approx(c[k + 1] / B)
        back = res.edge_frequency(res.names[j], res.names[i])  # by name, seen from j
        for kind in kinds:
            assert back[flip[kind]] == f[kind]
        assert sum(v for k, v in back.items() if k != "adjacency") == pytest.approx(1.0)
    # A pair no replicate joined: adjacency 0, none 1.
    joined = {tuple(p) for p in res.pairs.tolist()}
    n = len(res.names)
    lone = next((a, b) for a in range(n) for b in range(a + 1, n) if (a, b) not in joined)
    f = res.edge_frequency(*lone)
    assert f["adjacency"] == 0.0 and f["none"] == 1.0 and all(f[k] == 0.0 for k in kinds)
    with pytest.raises(ValueError, match="twice"):
        res.edge_frequency(0, 0)
