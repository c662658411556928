# SPDX-License-Identifier: Apache-2.0
"""cudag's cg-lrt test against the independent numpy reference (scripts/dev/cg_lrt_reference.py)
on a freshly generated random mixed data set and 30 queries: statistic and p-value at relative
1e-9, dof and the rows used exactly."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "dev" / "cg_lrt_reference.py"
DISCRETE = ["d0", "d1", "d2", "d3"]  # the generated data's discrete columns (labels L<code>)


def reference_module():
    spec = importlib.util.spec_from_file_location("cg_lrt_reference", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_tsv(path: Path) -> list[dict[str, str]]:
    lines = path.read_text().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, ln.split("\t"))) for ln in lines[1:] if ln]


def cudag_values(data_path: Path, queries: list[tuple[str, str, list[str]]]) -> list[tuple[float, float, float, int]]:
    """cudag's cg-lrt on data_path (its discrete columns hold labels) for each query (x, y,
    given names): (statistic, dof, p, rows used), in query order."""
    import csv

    import numpy as np

    import cudag

    with open(data_path, newline="") as f:
        rows = list(csv.reader(f))
    t = cudag.tester(np.array(rows[1:], dtype=object), "cg-lrt", names=rows[0])
    out = []
    for x, y, given in queries:
        r = t.test(x, y, given)
        out.append((r.statistic, float(r.details["dof"]), r.p_value, int(r.details["rows"])))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_cg_lrt_equals_independent_reference(tmp_path, seed):
    ref = reference_module()
    ref.generate(str(tmp_path), seed, 400)
    queries = ref.read_queries(str(tmp_path / "queries.tsv"))
    expected = read_tsv(tmp_path / "reference.tsv")
    assert len(queries) == len(expected) == 30
    got = cudag_values(tmp_path / "data.csv", queries)
    assert len(got) == len(queries)
    for (x, y, given), want, (stat, dof, p, rows) in zip(queries, expected, got):
        label = f"{x} _||_ {y} | {','.join(given)}"
        assert want["statistic"] != "singular", label  # the generator makes no singular stratum
        assert stat == pytest.approx(float(want["statistic"]), rel=1e-9), label
        assert dof == float(want["dof"]), label
        assert p == pytest.approx(float(want["p_value"]), rel=1e-9), label
        assert rows == int(want["rows"]), label
