# SPDX-License-Identifier: Apache-2.0
"""Notes on results as Python warnings (cudag.CudagWarning): integer-coded data that look
discrete but run as Fisher-z (the command line's note, one source), MCMC chains that have
not converged (score PSRF above cudag.PSRF_WARN, an infinite edge PSRF); none where there
is nothing to say."""

import warnings

import numpy as np
import pytest

import cudag


def integer_codes(seed=3, n=300, k=5):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(0, 2, n)) % 3
    c = rng.integers(0, 4, (n, k - 2))
    return np.column_stack([a, b, c]).astype(float)


def test_integer_codes_warn_that_they_run_as_fisher_z():
    x = integer_codes()
    with pytest.warns(cudag.CudagWarning, match="look discrete; running fisher-z anyway"):
        r = cudag.pc(x)
    assert r.config["test"] == "fisher-z"


def test_no_warning_when_the_test_is_chosen_or_the_data_are_continuous():
    x = integer_codes()
    with warnings.catch_warnings():
        warnings.simplefilter("error", cudag.CudagWarning)
        cudag.pc(x, test="fisher-z")
        cudag.pc(x, discrete=True)
        cudag.pc(np.random.default_rng(1).normal(size=(200, 4)))


def test_warnings_can_be_made_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", cudag.CudagWarning)
        with pytest.raises(cudag.CudagWarning):
            cudag.pc(integer_codes())


def chain_data(seed=5, n=400, k=10):
    """A binary chain X1 -> X2 -> ... -> Xk, each copying its parent with 15% flips."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, (n, k))
    for j in range(1, k):
        x[:, j] = x[:, j - 1] ^ (rng.random(n) < 0.15)
    return x


def test_unconverged_chains_warn():
    # A handful of iterations from different starting orders: the chains disagree.
    with pytest.warns(cudag.CudagWarning, match="not converged|PSRF is infinite"):
        r = cudag.mcmc(chain_data(), "bdeu", chains=4, iterations=6, burn_in=0, seed=2)
    assert r.score_psrf > cudag.PSRF_WARN or np.isinf(r.edge_max_psrf)


def test_converged_chains_are_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error", cudag.CudagWarning)
        r = cudag.mcmc(chain_data(), "bdeu", chains=4, iterations=20000, seed=2)
    assert r.score_psrf <= cudag.PSRF_WARN
