# SPDX-License-Identifier: Apache-2.0
"""Faces of cudag shaped as its peers' APIs: :mod:`cudag.compat.causallearn` (causal-learn's
``pc`` and ``CIT``)."""
