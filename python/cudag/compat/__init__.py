# SPDX-License-Identifier: Apache-2.0
"""Faces of cudag shaped as its peers' APIs: :mod:`cudag.compat.causallearn` (causal-learn's
``pc`` and ``CIT``) and :mod:`cudag.compat.tigramite` (tigramite's ``CMIknn.run_test_raw`` and
``ParCorr.run_test_raw``)."""
