# SPDX-License-Identifier: Apache-2.0
"""result.config typed (issue 36): the keys of cudag.CONFIG_TYPES as int, float, bool or a
list of ints, every other key the str the result file stores (config_text keeps them all
as stored); the same after cudag.load."""

import pytest

import cudag
import cudag._results as results
from conftest import read_csv


def test_pc_config_typed(tmp_path, gaussian_csv):
    x, names = read_csv(gaussian_csv)
    res = cudag.pc(x, names=names, alpha=0.05, max_level=2, threads=2, out=tmp_path / "r.h5")
    c = res.config
    assert c["alpha"] == 0.05 and type(c["alpha"]) is float
    assert c["max_level"] == 2 and type(c["max_level"]) is int
    assert (c["n_samples"], c["n_vars"], c["threads"], c["ranks"]) == (500, 30, 2, 1)
    assert c["test"] == "fisher-z" and c["compat"] == "pcalg"
    assert res.config_text["alpha"] == "0.050000000000000003" and res.config_text["n_samples"] == "500"
    assert set(c) == set(res.config_text)
    for key, value in c.items():
        assert type(value) is results.CONFIG_TYPES.get(key, str), key
    back = cudag.load(tmp_path / "r.h5")
    assert back.config == c and back.config_text == res.config_text


def test_cmiknn_config_typed(gaussian_csv):
    x, names = read_csv(gaussian_csv)
    c = cudag.pc(x[:120, :5], names=names[:5], test="cmiknn", knn=0.1, permutations=100, seed=4,
                 max_level=0).config
    assert c["cmiknn_knn"] == 0.1 and c["cmiknn_k"] == 12 and c["cmiknn_permutations"] == 100
    assert c["cmiknn_seed"] == 4 and c["cmiknn_transform"] == "ranks"
    assert isinstance(c["cmiknn_early_stop"], str)  # a sentence, not a flag


def test_mcmc_config_typed(discrete_csv):
    x, names = read_csv(discrete_csv)
    c = cudag.mcmc(x, "bdeu", names=names, chains=2, iterations=200, seed=3, max_parents=2).config
    assert (c["chains"], c["iterations"], c["seed"], c["max_parents"], c["thin"]) == (2, 200, 3, 2, 1)
    assert c["burn_in"] == 40 and c["iss"] == 1.0 and c["edge_penalty"] == 1.0
    assert c["table_pruning"] is True
    assert isinstance(c["table_scored_by_node"], list) and len(c["table_scored_by_node"]) == 12
    assert all(type(v) is int and v > 0 for v in c["table_kept_by_node"])
    assert c["score"] == "bdeu" and c["learner"] == "order-mcmc"
    # Sum mode's subset rows: the budget, and every node given rows (11 candidates each).
    assert c["sum_rows_gib"] == 8.0 and c["subset_row_nodes"] == 0  # max mode: none
    s = cudag.mcmc(x, "bdeu", names=names, chains=2, iterations=200, seed=3, max_parents=2, order_score="sum").config
    assert s["sum_rows_gib"] == 8.0 and s["subset_row_nodes"] == 12


@pytest.mark.parametrize("key, text, value", [
    ("alpha", "0.01", 0.01), ("alpha", "fast", "fast"), ("threads", "8", 8), ("threads", "2.5", "2.5"),
    ("table_pruning", "off", False), ("table_pruning", "maybe", "maybe"), ("table_kept_by_node", "", []),
    ("table_kept_by_node", "3,1,4", [3, 1, 4]), ("table_kept_by_node", "3,x", "3,x"), ("host", "42", "42"),
])
def test_parse_rule(key, text, value):
    got = results.typed_config({key: text})[key]
    assert got == value and type(got) is type(value)
