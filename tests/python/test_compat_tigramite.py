# SPDX-License-Identifier: Apache-2.0
"""tigramite's CMIknn face: run_test_raw's statistic equals tigramite 5.2.10.1's
get_dependence_measure on the reference values of tests/data/cmiknn/statistic.tsv, its
p-value equals cudag.citest's (same options and seed), and its arguments are checked."""

from pathlib import Path

import numpy as np
import pytest

import cudag
from cudag.compat.tigramite import CMIknn

DATA = Path(__file__).resolve().parents[1] / "data" / "cmiknn"


def reference_rows():
    rows = []
    for line in (DATA / "statistic.tsv").read_text().splitlines():
        if line.startswith("#") or line.startswith("x\t"):
            continue
        x, y, z, knn, transform, stat = line.split("\t")
        zs = [] if z == "-" else [int(v) for v in z.split(";")]
        rows.append((int(x), int(y), zs, float(knn), transform, float(stat)))
    return rows


VALUES = np.loadtxt(DATA / "data.csv", delimiter=",", skiprows=1)


@pytest.mark.parametrize("x, y, z, knn, transform, want", reference_rows())
def test_statistic_is_tigramites(x, y, z, knn, transform, want):
    knn_arg = int(knn) if knn >= 1 else knn
    test = CMIknn(knn=knn_arg, transform=transform, sig_samples=19, seed=3)
    zarr = VALUES[:, z] if z else None
    val, pval = test.run_test_raw(VALUES[:, x], VALUES[:, [y]], zarr)
    assert val == pytest.approx(want, rel=1e-10, abs=1e-13)
    assert 0.0 < pval <= 1.0


def test_p_value_is_cudags_shuffle_test_and_alpha_gives_the_decision():
    test = CMIknn(knn=0.2, shuffle_neighbors=5, sig_samples=99, seed=11)
    val, pval, dependent = test.run_test_raw(VALUES[:, 0], VALUES[:, 1], VALUES[:, [2, 3]], alpha_or_thres=0.05)
    names = [f"v{k}" for k in range(VALUES.shape[1])]
    ref = cudag.citest(VALUES, "v0", "v1", given=["v2", "v3"], test="cmiknn", names=names, knn=0.2,
                       shuffle_neighbors=5, permutations=99, seed=11)
    assert (val, pval) == (ref.statistic, ref.p_value)
    assert dependent == (pval <= 0.05)
    # p = (1 + exceedances) / (1 + B): a multiple of 1 / 100.
    assert round(pval * 100) == pytest.approx(pval * 100, abs=1e-9)


def test_bad_arguments():
    with pytest.raises(TypeError, match="unexpected keyword"):
        CMIknn(knn=0.2, sig_blocklength=3)
    with pytest.raises(ValueError, match="shuffle_test"):
        CMIknn(significance="analytic")
    test = CMIknn()
    with pytest.raises(ValueError, match="one variable"):
        test.run_test_raw(VALUES[:, :2], VALUES[:, 2])
    with pytest.raises(ValueError, match="samples"):
        test.run_test_raw(VALUES[:, 0], VALUES[:100, 1])
    with pytest.raises(ValueError, match="mixed data"):
        test.run_test_raw(VALUES[:, 0], VALUES[:, 1], x_type=np.zeros(len(VALUES)))
