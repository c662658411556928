# SPDX-License-Identifier: Apache-2.0
"""Background knowledge from Python: forbid=/require= as pairs and tiers= as lists give
the same graph as the command line with the same knowledge in files; bad knowledge is the
command line's one-line error."""

import numpy as np
import pytest

import cudag
from conftest import read_csv
from test_pc import assert_same_as_cli, cli_pc


def test_knowledge_as_python_values_same_as_files(tmp_path, gaussian_csv):
    x, names = read_csv(gaussian_csv)
    plain = cudag.pc(x, names=names, alpha=0.05, backend="cpu")
    # A kept edge forbidden as a pair (a -- b: gone), a direction forbidden as a tuple
    # (a -> b, as causal-learn's BackgroundKnowledge), and tiers against the data.
    i, j = map(int, np.argwhere(np.triu(plain.skeleton))[0])
    a, b = names[i], names[j]
    forbid = [f"{a} -- {b}", (names[0], names[-1])]
    tiers = [[names[j]], [names[i]], names[:i] + names[i + 1:j] + names[j + 1:]]
    res = cudag.pc(x, names=names, alpha=0.05, backend="cpu", forbid=forbid, tiers=tiers)
    assert not res.skeleton[i, j] and not res.skeleton[j, i]
    (tmp_path / "f.txt").write_text(f"{a} -- {b}\n{names[0]} -> {names[-1]}\n")
    (tmp_path / "t.txt").write_text("\n".join(" ".join(t) for t in tiers) + "\n")
    out = cli_pc(tmp_path, gaussian_csv, "--alpha", 0.05, "--backend", "cpu", "--forbid", tmp_path / "f.txt",
                 "--tiers", tmp_path / "t.txt")
    assert_same_as_cli(res, out, len(names))
    # Column indices name the same variables; a file path still works.
    by_index = cudag.pc(x, names=names, alpha=0.05, backend="cpu", forbid=[f"{a} -- {b}", (0, len(names) - 1)],
                        tiers=str(tmp_path / "t.txt"))
    np.testing.assert_array_equal(by_index.cpdag, res.cpdag)


def test_required_pair_stays_and_bad_knowledge_is_an_error(gaussian_csv):
    x, names = read_csv(gaussian_csv)
    plain = cudag.pc(x, names=names, alpha=0.05, backend="cpu")
    i, j = map(int, np.argwhere(~np.triu(plain.skeleton) & ~np.tri(len(names), dtype=bool))[0])
    res = cudag.pc(x, names=names, alpha=0.05, backend="cpu", require=[f"{names[i]} -- {names[j]}"])
    assert res.skeleton[i, j] and res.skeleton[j, i]
    with pytest.raises(cudag.InputError, match="unknown variable 'nope'"):
        cudag.pc(x, names=names, backend="cpu", forbid=[("nope", names[0])])
    with pytest.raises(cudag.InputError, match="contradictory background knowledge: .* is required but forbidden"):
        cudag.pc(x, names=names, backend="cpu", forbid=[(names[0], names[1])], require=[(names[0], names[1])])
