# SPDX-License-Identifier: Apache-2.0
"""Edge confidence from Python (issue 38): cudag.pc/mcmc(bootstrap=B, resample=, consensus=,
seed=) give the command line's frequency table and consensus graph for the same data and
seed (the HDF5 result's /bootstrap arrays, --format freq), cudag.load reads a bootstrap
result back into the same BootstrapResult, cudag.resample gives the rows --write-resample
writes, and bad keywords and values fail as the command line does."""

import csv

import numpy as np
import pytest

import cudag
from conftest import cli_error, h5, read_csv, run_cli

B, SEED = 6, 3


@pytest.fixture(scope="module")
def pc_boot(tmp_path_factory, gaussian_csv):
    """The same bootstrap from Python and from the command line: (python result, its
    file, the command line's file, its freq table)."""
    d = tmp_path_factory.mktemp("boot")
    x, names = read_csv(gaussian_csv)
    py_out, cli_out = d / "py.h5", d / "cli.h5"
    res = cudag.pc(x, names=names, alpha=0.05, bootstrap=B, seed=SEED, resample="half", consensus=0.4,
                   out=py_out)
    run_cli("pc", "--data", gaussian_csv, "--alpha", 0.05, "--bootstrap", B, "--seed", SEED, "--resample", "half",
            "--consensus", 0.4, "--out", cli_out, "--format", "freq", "-q")
    return res, py_out, cli_out, d / "cli.freq.tsv"


def assert_table_is_file(res, path):
    np.testing.assert_array_equal(res.pairs, h5(path, "/bootstrap/pairs").astype(int).reshape(-1, 2))
    np.testing.assert_array_equal(res.counts, h5(path, "/bootstrap/counts").astype(int).reshape(-1, 5))
    np.testing.assert_array_equal(res.frequency, h5(path, "/bootstrap/frequency").reshape(-1, 5))
    np.testing.assert_array_equal(res.adjacency, h5(path, "/bootstrap/adjacency").reshape(-1))
    np.testing.assert_array_equal(res.edge_array, h5(path, "/cpdag/edges").astype(int).reshape(-1, 3))


def test_pc_bootstrap_equals_the_command_line(pc_boot):
    res, py_out, cli_out, _ = pc_boot
    assert isinstance(res, cudag.BootstrapResult) and isinstance(res, cudag.PcResult)
    assert (res.replicates, res.resample, res.seed, res.consensus) == (B, "half", SEED, 0.4)
    assert len(res.pairs) > len(res.edge_array) > 0  # some pairs below the consensus threshold
    assert (res.counts.sum(axis=1) == B).all()
    assert_table_is_file(res, cli_out)
    assert_table_is_file(res, py_out)
    # the consensus graph: the pairs at or above the threshold
    adjacent = {(i, j) for i, j in res.pairs[res.adjacency >= 0.4].tolist()}
    assert {tuple(sorted((a, b))) for a, b, _ in res.edge_array.tolist()} == adjacent
    assert res.config["bootstrap_replicates"] == B and res.config["bootstrap_consensus"] == 0.4
    assert res.config["bootstrap_resample"] == "half" and res.config["n_samples"] == 500
    assert "6 replicates (half)" in repr(res)


def test_frequency_table_is_the_freq_file(pc_boot):
    res, _, _, freq = pc_boot
    with open(freq, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    assert tuple(rows[0]) == cudag.FREQUENCY_COLUMNS
    assert len(res.frequencies()) == len(rows) - 1 == len(res.pairs)
    for ours, theirs in zip(res.frequencies(), rows[1:]):
        assert (ours[0], ours[1], ours[-1]) == (theirs[0], theirs[1], theirs[-1])
        assert [float(f"{v:.6g}") for v in ours[2:-1]] == [float(v) for v in theirs[2:-1]]
    assert sum(1 for row in res.frequencies() if row[-1]) == len(res.edge_array)
    pytest.importorskip("pandas")
    df = res.to_pandas()
    assert list(df.columns) == list(cudag.FREQUENCY_COLUMNS)
    assert [tuple(r) for r in df.itertuples(index=False)] == res.frequencies()
    # the consensus graph's own frames stay reachable
    assert len(res.to_pandas(edges=True, frequencies=False)) == len(res.edge_array)


def test_edge_frequency(pc_boot):
    res, _, _, _ = pc_boot
    for (i, j), c in zip(res.pairs.tolist(), res.counts.tolist()):
        f = res.edge_frequency(i, j)
        assert [f["none"], f["-->"], f["<--"], f["---"], f["<->"]] == [v / B for v in c]
        assert f["adjacency"] == (B - c[0]) / B
        back = res.edge_frequency(res.names[j], res.names[i])  # by name, seen from j
        assert (back["-->"], back["<--"], back["---"]) == (f["<--"], f["-->"], f["---"])
    listed = {tuple(p) for p in res.pairs.tolist()}
    i, j = next((i, j) for i in range(30) for j in range(i + 1, 30) if (i, j) not in listed)
    assert res.edge_frequency(i, j) == {"adjacency": 0.0, "none": 1.0, "-->": 0.0, "<--": 0.0, "---": 0.0,
                                        "<->": 0.0}
    with pytest.raises(KeyError):
        res.edge_frequency("nope", 0)
    with pytest.raises(ValueError):
        res.edge_frequency(1, 1)


def test_load_round_trips_bootstrap(pc_boot):
    res, py_out, cli_out, _ = pc_boot
    for path in (py_out, cli_out):
        back = cudag.load(path)
        assert isinstance(back, cudag.BootstrapResult)
        for attr in ("pairs", "counts", "frequency", "adjacency", "edge_array", "skeleton_pairs", "cpdag"):
            np.testing.assert_array_equal(getattr(back, attr), getattr(res, attr), err_msg=attr)
        assert (back.replicates, back.resample, back.seed, back.consensus) == (B, "half", SEED, 0.4)
        assert back.names == res.names and back.edges() == res.edges()
        assert back.frequencies() == res.frequencies()
    assert cudag.load(py_out).config == res.config


def test_same_table_whatever_the_threads(gaussian_csv, pc_boot):
    res = pc_boot[0]
    x, names = read_csv(gaussian_csv)
    one = cudag.pc(x, names=names, alpha=0.05, bootstrap=B, seed=SEED, resample="half", consensus=0.4, threads=1)
    np.testing.assert_array_equal(one.counts, res.counts)
    other = cudag.pc(x, names=names, alpha=0.05, bootstrap=B, seed=SEED + 1, resample="half")
    assert not np.array_equal(other.counts, res.counts) or not np.array_equal(other.pairs, res.pairs)


def test_mcmc_bootstrap_equals_the_command_line(tmp_path, discrete_csv):
    x, names = read_csv(discrete_csv)
    opts = {"chains": 2, "iterations": 300, "seed": 5, "max_parents": 2}
    res = cudag.mcmc(x, "bdeu", names=names, bootstrap=3, **opts)
    out = tmp_path / "m.h5"
    run_cli("mcmc", "--data", discrete_csv, "--score", "bdeu", "--chains", 2, "--iterations", 300, "--seed", 5,
            "--max-parents", 2, "--bootstrap", 3, "--out", out, "-q")
    assert isinstance(res, cudag.BootstrapResult) and res.replicates == 3 and res.seed == 5
    assert_table_is_file(res, out)
    assert (res.counts[:, [3, 4]] == 0).all()  # best DAGs: directed kinds only
    assert res.config["bootstrap_replicates"] == 3 and res.config["bootstrap_seed"] == 5
    back = cudag.load(out)
    np.testing.assert_array_equal(back.counts, res.counts)


def test_resample_is_write_resample(tmp_path, gaussian_csv):
    x, names = read_csv(gaussian_csv)
    for kind, r in (("half", 2), ("bootstrap", 0)):
        out = tmp_path / f"rep_{kind}.csv"
        run_cli("pc", "--data", gaussian_csv, "--write-resample", out, "--replicate", r, "--seed", 9, "--resample",
                kind, "-q")
        written, wnames = read_csv(out)
        ours = cudag.resample(x, r, seed=9, resample=kind)
        assert wnames == names
        np.testing.assert_array_equal(ours, written)
        rows = cudag.resample_rows(len(x), r, seed=9, resample=kind)
        np.testing.assert_array_equal(x[rows], ours)
        assert (np.diff(rows) >= 0).all()
        if kind == "half":
            assert len(rows) == 250 and len(set(rows.tolist())) == 250
        else:
            assert len(rows) == 500
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(x, columns=names)
    sub = cudag.resample(df, 1, seed=9)
    np.testing.assert_array_equal(sub.index.to_numpy(), cudag.resample_rows(len(x), 1, seed=9))
    assert not np.array_equal(cudag.resample_rows(500, 1, seed=9), cudag.resample_rows(500, 2, seed=9))


def test_bad_keywords_are_type_errors(gaussian_csv):
    x, names = read_csv(gaussian_csv)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bootstraps'"):
        cudag.pc(x, bootstraps=3)
    with pytest.raises(TypeError, match="bootstrap= takes an integer, not float"):
        cudag.pc(x, bootstrap=2.5)
    with pytest.raises(TypeError, match="bootstrap= takes an integer, not str"):
        cudag.mcmc(x, "bge", bootstrap="3")
    with pytest.raises(TypeError, match="consensus= takes a number, not str"):
        cudag.pc(x, bootstrap=2, consensus="half")
    with pytest.raises(TypeError, match="resample= takes a str, not int"):
        cudag.mcmc(x, "bge", bootstrap=2, resample=2)
    with pytest.raises(TypeError):
        cudag.resample_rows(10, True)
    assert "bootstrap" in cudag.options("pc") and "--consensus" in cudag.options("mcmc")


@pytest.mark.parametrize("py, cli", [
    ({"bootstrap": 0}, ["--bootstrap", 0]),
    ({"bootstrap": -2}, ["--bootstrap", -2]),
    ({"bootstrap": 3, "consensus": 1.5}, ["--bootstrap", 3, "--consensus", 1.5]),
    ({"bootstrap": 3, "consensus": 0.0}, ["--bootstrap", 3, "--consensus", 0]),
    ({"bootstrap": 3, "resample": "thirds"}, ["--bootstrap", 3, "--resample", "thirds"]),
])
def test_bad_values_are_the_command_lines_errors(gaussian_csv, py, cli):
    x, names = read_csv(gaussian_csv)
    expected = cli_error("pc", "--data", gaussian_csv, *cli)
    with pytest.raises(cudag.InputError) as e:
        cudag.pc(x, names=names, **py)
    assert str(e.value) == expected
    expected = cli_error("mcmc", "--data", gaussian_csv, "--score", "bge", *cli)
    with pytest.raises(cudag.InputError) as e:
        cudag.mcmc(x, "bge", names=names, **py)
    assert str(e.value) == expected


def test_resample_errors(gaussian_csv):
    x, _ = read_csv(gaussian_csv)
    with pytest.raises(cudag.InputError, match=r"unknown --resample 'x' \(available: bootstrap, half\)"):
        cudag.resample(x, 0, resample="x")
    with pytest.raises(cudag.InputError, match="--replicate must be >= 0, got -1"):
        cudag.resample_rows(10, -1)
    with pytest.raises(cudag.InputError, match="--resample half needs at least 2 samples, the data have 1"):
        cudag.resample_rows(1, 0, resample="half")
    with pytest.raises(cudag.InputError, match="--seed: must be 0 or more"):
        cudag.resample_rows(10, 0, seed=-1)


@pytest.mark.skipif(cudag.visible_gpus() == 0, reason="no GPU: the CUDA engines' bootstrap is not run")
def test_gpu_bootstrap_equals_cpu(gaussian_csv, discrete_csv):
    x, names = read_csv(gaussian_csv)
    opts = {"alpha": 0.05, "bootstrap": B, "seed": SEED, "resample": "bootstrap"}
    cpu, gpu = (cudag.pc(x, names=names, backend=b, **opts) for b in ("cpu", "cuda"))
    np.testing.assert_array_equal(gpu.pairs, cpu.pairs)
    np.testing.assert_array_equal(gpu.counts, cpu.counts)
    assert gpu.edges() == cpu.edges()
    d, dnames = read_csv(discrete_csv)
    mopts = {"chains": 2, "iterations": 300, "seed": 5, "max_parents": 2, "bootstrap": 3}
    cpu, gpu = (cudag.mcmc(d, "bdeu", names=dnames, backend=b, **mopts) for b in ("cpu", "cuda"))
    np.testing.assert_array_equal(gpu.counts, cpu.counts)
