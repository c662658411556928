# SPDX-License-Identifier: Apache-2.0
"""cudag.tester (data read once, many tests) and causal-learn's CIT face give exactly what
cudag.citest gives for every test kind and conditioning-set size, in any call order; bad
variables are the same errors."""

import numpy as np
import pytest

import cudag
from conftest import gaussian_chain
from cudag.compat.causallearn import CIT


def gaussian(seed=2, n=300, k=6):
    return gaussian_chain(seed, n, k, 0.6)


def codes(seed=3, n=600, k=6):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, (n, k))
    for j in range(1, k):
        x[:, j] = np.where(rng.random(n) < 0.7, x[:, j - 1], x[:, j])
    return x


CALLS = [(0, 1, ()), (2, 4, (3,)), (0, 5, (1, 2, 3)), (1, 3, ()), (4, 0, (2, 1))]


@pytest.mark.parametrize("test, data, opts", [
    ("fisher-z", gaussian(), {}),
    ("fisher-z", gaussian(), {"compat": "causal-learn"}),
    ("chi-square", codes(), {}),
    ("g-square", codes(), {"dof": "causal-learn"}),
    ("cmiknn", gaussian(n=150), {"permutations": 49, "seed": 4}),
])
def test_tester_equals_citest(test, data, opts):
    t = cudag.tester(data, test, **opts)
    for x, y, given in CALLS:
        if test == "g-square" and len(given) > 2:
            continue
        want = cudag.citest(data, x, y, given, test, **opts)
        got = t.test(x, y, given)
        assert got.p_value == want.p_value and got.statistic == want.statistic, (x, y, given)
        assert t(x, y, given) == want.p_value


@pytest.mark.parametrize("test, data, opts", [
    ("fisher-z", gaussian(), {}),
    ("fisher-z", gaussian(), {"compat": "causal-learn", "threads": 3}),
    ("chi-square", codes(), {}),
    ("g-square", codes(), {"dof": "causal-learn"}),
    ("cmiknn", gaussian(n=150), {"permutations": 49, "seed": 4}),
])
def test_batches_equal_single_tests(test, data, opts):
    t = cudag.tester(data, test, backend="cpu", **opts)
    calls = [c for c in CALLS if not (test == "g-square" and len(c[2]) > 2)]
    got = t.test_batch(calls)
    assert len(got) == len(calls) and got.n_samples == data.shape[0]
    assert "CPU" in got.where
    for k, (x, y, given) in enumerate(calls):
        want = cudag.citest(data, x, y, given, test, **opts)
        assert got.p_value[k] == want.p_value and got.statistic[k] == want.statistic, (x, y, given)
    # (x, y) pairs, a single name for given, and names
    pairs = t.test_batch([(0, 1), ("X3", "X5", "X1")])
    assert pairs.p_value[0] == t(0, 1) and pairs.p_value[1] == t("X3", "X5", ["X1"])


def test_batch_errors():
    t = cudag.tester(gaussian())
    with pytest.raises(ValueError, match="query 2: give"):
        t.test_batch([(0, 1), (0,)])
    with pytest.raises(ValueError, match="no queries"):
        t.test_batch([])
    with pytest.raises(cudag.InputError, match="query 2: .*unknown variable 'q'"):
        t.test_batch([("X1", "X2"), ("X1", "q")])
    with pytest.raises(cudag.InputError, match="unknown backend=.tpu."):
        cudag.tester(gaussian(), backend="tpu").test_batch([(0, 1)])


def test_tester_names_and_errors():
    x = gaussian()
    t = cudag.tester(x, names=list("abcdef"))
    assert t("a", "b", ["c"]) == cudag.citest(x, "a", "b", ["c"], names=list("abcdef")).p_value
    with pytest.raises(cudag.InputError, match="unknown variable 'q'"):
        t("a", "q")
    with pytest.raises(TypeError):
        cudag.tester(x, no_such_option=1)


def test_causal_learn_cit_face():
    x = gaussian()
    cit = CIT(x, "fisherz")
    for a, b, s in CALLS:
        want = cudag.citest(x, a, b, s, "fisher-z", compat="causal-learn").p_value
        assert cit(a, b, list(s)) == want
    assert cit(0, 1) == cit(0, 1, None)
