# SPDX-License-Identifier: Apache-2.0
"""score="cg-bic" in cudag.score and cudag.mcmc: the command line's results on mixed data
(labels and numbers), pgmpy's reference values (tests/data/cg_bic), column types and
--missing listwise."""
import csv
import json
from pathlib import Path

import numpy as np
import pytest

import cudag
from conftest import run_cli

DATA = Path(__file__).resolve().parents[1] / "data" / "cg_bic"


def mixed_set(k: int = 0):
    """Set k of tests/data/cg_bic/data.csv: an object array (labels L0.. and floats), names."""
    with open(DATA / "data.csv") as f:
        rows = list(csv.reader(f))
    names = rows[0][1:]
    data = [[c if n.startswith("d") else float(c) for n, c in zip(names, r[1:])] for r in rows[1:] if r[0] == str(k)]
    return np.array(data, dtype=object), names


def expected(k: int, child: str, parents: str) -> float:
    with open(DATA / "scores.tsv") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == str(k) and p[1] == child and p[2] == parents:
                return float(p[9])
    raise KeyError((k, child, parents))


def write_csv(path, x, names):
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for r in x:
            f.write(",".join(v if isinstance(v, str) else repr(v) for v in r) + "\n")


def test_score_cg_bic_equals_pgmpy_reference_and_cli(tmp_path):
    x, names = mixed_set(0)
    dag = [("d0", "c2"), ("c3", "d4"), ("c3", "c5"), ("d4", "c5")]
    r = cudag.score(x, dag, "cg-bic", names=names)
    assert r["score"] == "cg-bic" and r["n_samples"] == 150
    for child, parents in [("c2", "d0"), ("d4", "c3"), ("c5", "c3,d4"), ("d0", "-")]:
        assert r["nodes"][child] == pytest.approx(expected(0, child, parents), rel=1e-9, abs=0)
    write_csv(tmp_path / "m.csv", x, names)
    (tmp_path / "dag.tsv").write_text("source\ttarget\tmark\n" + "".join(f"{a}\t{b}\t-->\n" for a, b in dag))
    out = run_cli("score", "--data", tmp_path / "m.csv", "--dag", tmp_path / "dag.tsv", "--score", "cg-bic", "--json")
    cli = json.loads(out.stdout)
    assert cli["nodes"] == r["nodes"] and cli["total"] == r["total"]


def test_mcmc_cg_bic_as_cli(tmp_path):
    x, names = mixed_set(3)
    write_csv(tmp_path / "m.csv", x, names)
    r = cudag.mcmc(x, "cg-bic", names=names, chains=2, iterations=400, seed=5, max_parents=2, threads=2)
    run_cli("mcmc", "--data", tmp_path / "m.csv", "--score", "cg-bic", "--chains", 2, "--iterations", 400, "--seed", 5,
            "--max-parents", 2, "--threads", 2, "--out", tmp_path / "m.h5", "--format", "edgeprob", "-q")
    prob = np.zeros((len(names), len(names)))
    for line in open(tmp_path / "m.edgeprob.tsv").read().splitlines()[1:]:
        a, b, p = line.split("\t")
        prob[names.index(a), names.index(b)] = float(p)
    np.testing.assert_array_equal(np.where(np.eye(len(names), dtype=bool), 0.0, r.edge_prob), prob)
    assert r.edge_prob.max() > 0.5


def test_cg_bic_column_types_and_listwise():
    x, names = mixed_set(1)
    base = cudag.score(x, [("d0", "c2")], "cg-bic", names=names)
    # The same discrete columns as integer codes, named discrete.
    codes = np.array([[float(v[1:]) if isinstance(v, str) else v for v in row] for row in x])
    typed = cudag.score(codes, [("d0", "c2")], "cg-bic", names=names, discrete_columns=["d0", "d1", "d4"])
    assert typed["nodes"] == base["nodes"]
    # Without the column types, integer codes are continuous: another score.
    plain = cudag.score(codes, [("d0", "c2")], "cg-bic", names=names)
    assert plain["nodes"]["c2"] != base["nodes"]["c2"]
    # A missing cell: refused by default, its row dropped under listwise.
    holed = x.copy()
    holed[4, 2] = ""
    with pytest.raises(cudag.InputError):
        cudag.score(holed, [("d0", "c2")], "cg-bic", names=names)
    r = cudag.score(holed, [("d0", "c2")], "cg-bic", names=names, missing="listwise")
    want = cudag.score(np.delete(x, 4, axis=0), [("d0", "c2")], "cg-bic", names=names)
    assert r["n_samples"] == want["n_samples"] == len(x) - 1
    assert r["nodes"] == want["nodes"]
    with pytest.raises(cudag.InputError, match='apply to score="cg-bic"'):
        cudag.score(codes, [("d0", "c2")], "bge", names=names, discrete_columns=["d0"])
