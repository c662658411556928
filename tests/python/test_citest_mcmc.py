# SPDX-License-Identifier: Apache-2.0
"""cudag.citest's statistics and p-values equal `cudag citest --json`'s; cudag.mcmc's edge
posteriors and best DAG equal `cudag mcmc`'s for the same seed."""

import json

import numpy as np
import pytest

import cudag
from conftest import read_csv, run_cli


def cli_citest(csv, *args):
    return json.loads(run_cli("citest", "--data", csv, "--json", "-q", *args).stdout)


@pytest.mark.parametrize("test, given, extra", [
    ("fisher-z", [], []),
    ("fisher-z", [2, 5], []),
    ("cmiknn", [3], ["--knn", "5", "--permutations", "50", "--seed", "9"]),
])
def test_citest_continuous_as_cli(gaussian_csv, test, given, extra):
    x, names = read_csv(gaussian_csv)
    opts = {}
    if extra:
        opts = {"knn": 5, "permutations": 50, "seed": 9}
    r = cudag.citest(x, 0, names[1], given=given, test=test, names=names, **opts)
    args = ["--test", test, "--x", names[0], "--y", names[1]] + extra
    if given:
        args += ["--given", ",".join(names[g] for g in given)]
    c = cli_citest(gaussian_csv, *args)
    assert r.statistic == c["statistic"] and r.p_value == c["p_value"]
    assert r.n_samples == c["n_samples"] == 500
    for k, v in r.details.items():
        assert v == c[k], k
    statistic, p = r
    assert (statistic, p) == (r.statistic, r.p_value)


@pytest.mark.parametrize("test", ["chi-square", "g-square"])
def test_citest_discrete_as_cli(discrete_csv, test):
    x, names = read_csv(discrete_csv)
    r = cudag.citest(x, "X1", "X2", given=["X3"], test=test, names=names, dof="causal-learn")
    c = cli_citest(discrete_csv, "--test", test, "--x", "X1", "--y", "X2", "--given", "X3", "--dof", "causal-learn")
    assert (r.statistic, r.p_value, r.details["dof"]) == (c["statistic"], c["p_value"], c["dof"])


def read_edgeprob(path, names):
    n = len(names)
    m = np.zeros((n, n))
    lines = open(path).read().splitlines()
    assert lines[0] == "source\ttarget\tprobability"
    for line in lines[1:]:
        a, b, p = line.split("\t")
        m[names.index(a), names.index(b)] = float(p)
    return m


@pytest.mark.parametrize("order_score", ["max", "sum"])
def test_mcmc_as_cli(tmp_path, discrete_csv, order_score):
    x, names = read_csv(discrete_csv)
    opts = dict(chains=3, iterations=600, seed=11, max_parents=2, order_score=order_score, threads=2)
    seen = []
    r = cudag.mcmc(x, "bdeu", names=names, progress=seen.append, **opts)
    out = tmp_path / "m.h5"
    run_cli("mcmc", "--data", discrete_csv, "--score", "bdeu", "--chains", 3, "--iterations", 600, "--seed", 11,
            "--max-parents", 2, "--order-score", order_score, "--threads", 2, "--out", out,
            "--format", "edgeprob,edges", "-q")
    prob = read_edgeprob(tmp_path / "m.edgeprob.tsv", names)
    np.testing.assert_array_equal(np.where(np.eye(len(names), dtype=bool), 0.0, r.edge_prob), prob)
    assert r.edge_prob.shape == (12, 12) and r.edge_prob.max() > 0.5
    edges = [tuple(line.split("\t")[:2]) for line in open(tmp_path / "m.edges.tsv").read().splitlines()[1:]]
    dag = np.zeros_like(r.best_dag)
    for a, b in edges:
        dag[names.index(a), names.index(b)] = 1
    np.testing.assert_array_equal(r.best_dag, dag)
    assert r.traces.shape == (3, 600 - 600 // 5) and r.acceptance.shape == (3,)
    chains = [d for d in seen if d["phase"] == "chains"]
    assert chains and chains[-1]["done"] == 600 and chains[-1]["total"] == 600
    # The score table's phases report first, each from done <= total to its end, then the
    # chains, then the result's steps.
    phases = [d["phase"] for d in seen]
    assert phases[0] == "local-score table" and "chains" in phases
    first, last = phases.index("chains"), len(phases) - phases[::-1].index("chains")
    assert first > 0 and all(p == "chains" for p in phases[first:last])
    assert phases[last:] == ["result"] * 3 and [d["done"] for d in seen[last:]] == [0, 1, 2]
    for d in seen:
        assert 0 <= d["done"] <= d["total"]
    table = [d for d in seen if d["phase"] == "local-score table"]
    assert table[-1]["done"] == table[-1]["total"]


def test_mcmc_bge_dataframe(gaussian_csv):
    pd = pytest.importorskip("pandas", reason="pandas is optional: DataFrame input not tested")
    x, names = read_csv(gaussian_csv)
    df = pd.DataFrame(x[:, :8], columns=[f"v{k}" for k in range(8)])
    r = cudag.mcmc(df, "bge", iterations=200, seed=3)
    assert r.names == list(df.columns)
    same = cudag.mcmc(x[:, :8], "bge", iterations=200, seed=3)
    np.testing.assert_array_equal(r.edge_prob, same.edge_prob)


def test_mcmc_pc_space_bge_as_cli(tmp_path, gaussian_csv):
    """--space pc reads the data a second time (for its PC skeleton): through the same array."""
    x, names = read_csv(gaussian_csv)
    r = cudag.mcmc(x, "bge", names=names, space="pc", alpha=0.01, iterations=300, chains=2, seed=4,
                   order_score="sum", threads=2)
    out = tmp_path / "b.h5"
    run_cli("mcmc", "--data", gaussian_csv, "--score", "bge", "--space", "pc", "--alpha", 0.01, "--iterations", 300,
            "--chains", 2, "--seed", 4, "--order-score", "sum", "--threads", 2, "--out", out, "--format", "edgeprob",
            "-q")
    prob = read_edgeprob(tmp_path / "b.edgeprob.tsv", names)
    np.testing.assert_array_equal(np.where(np.eye(len(names), dtype=bool), 0.0, r.edge_prob), prob)
    assert r.edge_prob.max() > 0.5


def test_mcmc_require_and_iterative_space(discrete_csv):
    """Issue 37: require= makes a parent mandatory (its edge in every sampled DAG: posterior
    exactly 1, in the best DAG); space="iterative" runs (and the full table gives its
    chains too); a required pair without a direction is refused."""
    x, names = read_csv(discrete_csv)
    a, b = names[0], names[5]
    for order_score in ("sum", "max"):
        r = cudag.mcmc(x, "bdeu", names=names, require=[(a, b)], iterations=400, chains=2, seed=3,
                       max_parents=2, order_score=order_score)
        assert r.edge_prob[0, 5] == 1.0 and r.best_dag[0, 5] == 1
    kw = dict(names=names, alpha=0.01, hard_limit=3, iterations=300, chains=2, seed=3, max_parents=2)
    it = cudag.mcmc(x, "bdeu", space="iterative", **kw)
    pc = cudag.mcmc(x, "bdeu", space="pc", **kw)
    assert it.best_dag_score >= pc.best_dag_score  # the grown space holds pc's
    full = cudag.mcmc(x, "bdeu", space="iterative", tune="table-prune=off", **kw)
    np.testing.assert_array_equal(full.edge_prob, it.edge_prob)
    with pytest.raises(cudag.InputError, match="gives no direction"):
        cudag.mcmc(x, "bdeu", names=names, require=[f"{a} -- {b}"], iterations=100)


def test_citest_queries_on_the_command_line(tmp_path, gaussian_csv):
    q = tmp_path / "q.tsv"
    q.write_text("x\ty\tgiven\nX1\tX2\t\nX1\tX3\tX2,X4\n")
    out = run_cli("citest", "--data", gaussian_csv, "--test", "fisher-z", "--queries", q, "--backend", "cpu").stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows[0] == ["x", "y", "given", "statistic", "p_value"] and len(rows) == 3
    one = run_cli("citest", "--data", gaussian_csv, "--test", "fisher-z", "--x", "X1", "--y", "X3", "--given",
                  "X2,X4", "--json").stdout
    assert float(rows[2][4]) == json.loads(one)["p_value"]

    def error(*args):  # the command line's own words (conftest's cli_error gives Python's)
        r = run_cli("citest", "--data", gaussian_csv, "--test", "fisher-z", *args, check=False)
        assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        return r.stderr.strip()

    assert error() == "cudag: error: citest needs --x and --y (or --queries FILE)"
    assert "excludes" in error("--queries", q, "--x", "X1")
    assert error("--queries", tmp_path / "no.tsv") == f"cudag: error: {tmp_path / 'no.tsv'}: cannot read the queries file"
    assert error("--queries", q, "--backend", "tpu") == "cudag: error: unknown --backend 'tpu' (available: auto, cpu, cuda)"
