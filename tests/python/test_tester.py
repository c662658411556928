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
