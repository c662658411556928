# SPDX-License-Identifier: Apache-2.0
"""causal-learn parity through the Python API: cudag.pc(..., compat="causal-learn") on
causal-learn's own test data gives its reference matrices (cg.G.graph) cell for cell. The
reference files are read from ../shared/data/causal-learn (never copied into the project)."""

import re
from pathlib import Path

import numpy as np
import pytest

import cudag
from conftest import shared_data

SHARED = shared_data()
pytestmark = pytest.mark.skipif(SHARED is None, reason="../shared/data/causal-learn is absent: "
                                "causal-learn parity not tested (set CUDAG_SHARED_DATA)")
CL = SHARED / "causal-learn" if SHARED else Path("/nonexistent")
REF = re.compile(r"(\w+)_pc_(fisherz|chisq|gsq)_([0-9.]+)_stable_(-?\d)_(-?\d)\.txt")
TESTS = {"fisherz": "fisher-z", "chisq": "chi-square", "gsq": "g-square"}


def load(path):
    with open(path) as f:
        names = f.readline().split()
    return np.loadtxt(path, skiprows=1, ndmin=2), names


def cases():
    if SHARED is None:
        return []
    out = []
    for ref in sorted((CL / "benchmark_returned_results").glob("*_pc_*.txt")):
        m = REF.fullmatch(ref.name)
        out.append(pytest.param(CL / f"data_{m[1]}.txt", ref, m, id=ref.stem))
    for ref in sorted((CL / "bnlearn_discrete_10000" / "benchmark_returned_results").glob("*.txt")):
        m = REF.fullmatch(ref.name)
        if m[1] in ("barley", "hailfinder", "win95pts", "water"):
            continue  # the larger networks: the C++ suite covers them
        out.append(pytest.param(CL / "bnlearn_discrete_10000" / "data" / f"{m[1]}.txt", ref, m, id=ref.stem))
    return out


@pytest.mark.parametrize("data, ref, m", cases())
def test_matches_causal_learn(data, ref, m):
    x, names = load(data)
    res = cudag.pc(x, names=names, test=TESTS[m[2]], alpha=float(m[3]), compat="causal-learn",
                   uc_rule=int(m[4]), uc_priority=int(m[5]), threads=2)
    expect = np.loadtxt(ref, dtype=int, ndmin=2)
    np.testing.assert_array_equal(res.cl_matrix, expect)
