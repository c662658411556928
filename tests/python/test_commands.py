# SPDX-License-Identifier: Apache-2.0
"""cudag.score, cudag.simulate and cudag.compare give what `cudag score`, `cudag simulate`
and `cudag compare` give; python -m cudag is the command line (the executable the wheel
installs as its `cudag` script)."""

import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import cudag
from conftest import ROOT, read_csv, run_cli


def read_truth(path):
    lines = open(path).read().splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


@pytest.mark.parametrize("kind, options", [
    ("gaussian", {"vars": 12, "samples": 300, "density": 0.2, "seed": 5}),
    ("gaussian", {"vars": 15, "samples": 100, "graph": "scale-free", "degree": 3, "seed": 2}),
    ("nonlinear", {"vars": 8, "samples": 200, "seed": 9}),
    ("discrete", {"vars": 6, "samples": 400, "states": 3, "max_parents": 2, "seed": 4}),
])
def test_simulate_as_cli(tmp_path, kind, options):
    sim = cudag.simulate(kind, **options)
    out, truth = tmp_path / "d.csv", tmp_path / "t.tsv"
    args = [a for k, v in options.items() for a in ("--" + k.replace("_", "-"), v)]
    run_cli("simulate", kind, *args, "--out", out, "--truth", truth, "-q")
    x, names = read_csv(out)
    assert sim.names == names and sim.kind == kind
    np.testing.assert_array_equal(sim.data.astype(float), x)
    rows = read_truth(truth)
    assert [(a, b) for a, b, _ in sim.truth] == [(r["source"], r["target"]) for r in rows]
    if kind != "discrete":
        assert [w for _, _, w in sim.truth] == [float(r["weight"]) for r in rows]
    if kind == "nonlinear":
        assert sim.functions == [r["function"] for r in rows]
    np.testing.assert_array_equal(sim.truth_edge_array[:, 2], 1)


def test_simulate_keywords():
    with pytest.raises(TypeError, match=r"simulate\('discrete'\) got an unexpected keyword argument 'graph'"):
        cudag.simulate("discrete", vars=3, samples=10, graph="er")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        cudag.simulate("gaussian", vars=3, samples=10, colour=1)
    with pytest.raises(cudag.InputError, match="no kind 'poisson'"):
        cudag.simulate("poisson", vars=3, samples=10)
    with pytest.raises(cudag.InputError) as e:
        cudag.simulate("gaussian", vars=3, samples=10, graph="ring")
    expect = run_cli("simulate", "gaussian", "--vars", 3, "--samples", 10, "--graph", "ring", "--out", "x.csv",
                     check=False).stderr.strip().splitlines()[-1]
    # the command line's line, its options named as keywords
    assert str(e.value) == "cudag.simulate: " + expect[len("cudag: error: "):].replace("--graph ", "graph=")
    assert str(e.value) == "cudag.simulate: unknown graph='ring' (expected cupc, er or scale-free)"
    sig = inspect.signature(cudag.simulate)
    assert all(p.kind is p.KEYWORD_ONLY for name, p in sig.parameters.items() if name != "kind")


def test_compare_as_cli(tmp_path):
    sim = cudag.simulate("gaussian", vars=20, samples=500, density=0.15, seed=3)
    res = cudag.pc(sim.data, names=sim.names, alpha=0.01, out=tmp_path / "r.h5")
    got = cudag.compare(sim, res)
    truth = tmp_path / "t.tsv"
    run_cli("simulate", "gaussian", "--vars", 20, "--samples", 500, "--density", 0.15, "--seed", 3, "--out",
            tmp_path / "d.csv", "--truth", truth, "-q")
    want = json.loads(run_cli("compare", "--truth", truth, "--estimate", tmp_path / "r.h5", "--json", "-").stdout)
    assert {k: got[k] for k in want} == want
    assert got["truth_was_dag"] and not got["estimate_was_dag"]
    assert cudag.compare(truth, tmp_path / "r.h5") == got  # files, read as the command line reads them
    assert cudag.compare(res, res)["shd"] == 0
    with pytest.raises(TypeError, match="truth= takes a cudag result"):
        cudag.compare(np.zeros((3, 3)), res)


def test_score_as_cli(tmp_path, discrete_csv):
    x, names = read_csv(discrete_csv)
    m = cudag.mcmc(x, "bdeu", names=names, chains=2, iterations=300, seed=2, max_parents=2,
                   out=tmp_path / "m.h5", format="edges")
    want = json.loads(run_cli("score", "--data", discrete_csv, "--dag", tmp_path / "m.edges.tsv", "--score", "bdeu",
                              "--iss", 2, "--json").stdout)
    for dag in (m, tmp_path / "m.edges.tsv", m.best_dag, [(names[p], names[v]) for p, v in m.best_dag_edges]):
        got = cudag.score(x, dag, "bdeu", names=names, iss=2.0)
        assert got["total"] == want["total"] and got["nodes"] == want["nodes"]
    assert got["score"] == "bdeu" and got["n_samples"] == 2000
    assert cudag.score(x, m, "bdeu", names=names)["total"] == pytest.approx(m.best_dag_score, rel=0, abs=1e-9)


def test_score_errors(discrete_csv):
    x, names = read_csv(discrete_csv)
    with pytest.raises(TypeError, match="unexpected keyword argument 'ess'"):
        cudag.score(x, [], "bdeu", ess=1)
    with pytest.raises(TypeError, match="iss= takes a number, not str"):
        cudag.score(x, [], "bdeu", iss="1")
    with pytest.raises(cudag.InputError, match="directed cycle through 'X1'"):
        cudag.score(x, [(0, 1), (1, 0)], "bdeu")
    with pytest.raises(cudag.InputError, match="'nope' is not a column"):
        cudag.score(x, [("nope", "X1")], "bdeu")
    with pytest.raises(cudag.InputError, match="am="):
        cudag.score(x, [], "bdeu", am=2.0)  # the command line's check (--am is BGe's), in keywords
    assert "score" in cudag.options("score") and "--iss" in cudag.options("score")


def python_cli(*args, **kw):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "cudag", *map(str, args)], capture_output=True, text=True, env=env,
                          cwd=ROOT, **kw)


def test_console_script_is_the_command_line(tmp_path, gaussian_csv):
    r = python_cli("--help")
    assert r.returncode == 0 and "simulate" in r.stdout and "mcmc" in r.stdout
    assert r.stdout == run_cli("--help").stdout
    r = python_cli("pc", "--data", gaussian_csv, "--out", tmp_path / "py.h5", "--format", "edges", "-q")
    assert r.returncode == 0, r.stderr
    run_cli("pc", "--data", gaussian_csv, "--out", tmp_path / "cli.h5", "--format", "edges", "-q")
    assert (tmp_path / "py.edges.tsv").read_text() == (tmp_path / "cli.edges.tsv").read_text()
    r = python_cli("pc", "--alpha", "2")
    assert r.returncode == run_cli("pc", "--alpha", "2", check=False).returncode != 0
    assert r.stderr.strip().splitlines()[-1].startswith("cudag: error: ")
