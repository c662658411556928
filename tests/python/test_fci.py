# SPDX-License-Identifier: Apache-2.0
"""cudag.fci (issue 54) gives what `cudag fci` gives on the same data in a file (the PAG's
edge list, pcalg's amat.pag and causal-learn's matrix, for fci, rfci and FCI's options);
its keywords are the command's, its bad values the command's one-line errors; cudag.load
reads a `cudag fci` result file back; cudag.compat.causallearn.fci runs --compat
causal-learn (causal-learn's PAG on all 52 reference runs of tests/data/fci) and returns
causal-learn's (GeneralGraph, edges), its endpoints checked on a collider (the causal-learn tests skip
where causal-learn is not installed; the numpy ones run without it)."""

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import cudag
import cudag._results as results
from cudag.compat import causallearn as cl
from conftest import cli_error, h5, read_csv, run_cli


@pytest.fixture(scope="module")
def hidden(tmp_path_factory):
    """cudag.simulate's Gaussian DAG of 14 variables (600 samples) with X1 and X2 hidden:
    (data, names, CSV of the same values)."""
    sim = cudag.simulate("gaussian", vars=14, samples=600, density=0.3, seed=5)
    x, names = sim.data[:, 2:], sim.names[2:]
    path = tmp_path_factory.mktemp("fci") / "hidden.csv"
    np.savetxt(path, x, delimiter=",", header=",".join(names), comments="", fmt="%.17g")
    return x, names, path


def read_edges(path):
    lines = open(path).read().splitlines()
    assert lines[0] == "source\ttarget\tmark"
    return [tuple(line.split("\t")) for line in lines[1:]]


def cli_fci(tmp_path, csv, *options):
    out = tmp_path / "r.h5"
    run_cli("fci", "--data", csv, "--out", out, "--format", "edges,amat,cl", "-q", *options)
    return out


def assert_same_as_cli(res, out):
    stem = str(out)[:-3]
    assert res.edges() == read_edges(stem + ".edges.tsv")
    rows = open(stem + ".pag.amat.csv").read().splitlines()[1:]
    np.testing.assert_array_equal(res.pag, np.array([[int(c) for c in row.split(",")[1:]] for row in rows]))
    np.testing.assert_array_equal(res.cl_matrix, np.loadtxt(stem + ".cl.txt", dtype=int, ndmin=2))
    np.testing.assert_array_equal(res.edge_array, h5(out, "/pag/edges").astype(int).reshape(-1, 4))
    np.testing.assert_array_equal(res.skeleton_pairs, h5(out, "/skeleton/edges").astype(int).reshape(-1, 2))


@pytest.mark.parametrize("py, cli", [
    ({}, []),
    ({"variant": "rfci"}, ["--variant", "rfci"]),
    ({"conservative": True}, ["--conservative"]),
    ({"majority_rule": True}, ["--majority-rule"]),
    ({"no_pdsep": True}, ["--no-pdsep"]),
    ({"pdsep_max": 2}, ["--pdsep-max", 2]),
    ({"no_selection_bias": True}, ["--no-selection-bias"]),
    ({"type": "anytime", "max_level": 2}, ["--type", "anytime", "--max-level", 2]),
    ({"type": "adaptive"}, ["--type", "adaptive"]),
    ({"variant": "rfci", "conservative": True, "test": "fisher-z"}, ["--variant", "rfci", "--conservative"]),
])
def test_same_as_cli(tmp_path, hidden, py, cli):
    x, names, csv = hidden
    res = cudag.fci(x, names=names, alpha=0.05, backend="cpu", **py)
    assert isinstance(res, cudag.FciResult) and res.names == names
    assert res.variant == py.get("variant", "fci") and res.config["learner"] == res.variant
    assert len(res.edges()) > 0
    assert_same_as_cli(res, cli_fci(tmp_path, csv, "--alpha", 0.05, "--backend", "cpu", *cli))


def test_the_pag_has_hidden_causes_and_agrees_with_its_encodings(hidden):
    x, names, _ = hidden
    res = cudag.fci(x, names=names, alpha=0.05)
    marks = {m for _, _, m in res.edges()}
    assert "<->" in marks and marks <= {"o->", "<-o", "o-o", "-->", "<--", "<->", "---", "o--", "--o"}
    pag, clm, idx = res.pag, res.cl_matrix, {s: k for k, s in enumerate(names)}
    code = {"o": 1, "<": 2, ">": 2, "-": 3}
    for a, b, m in res.edges():
        i, j = idx[a], idx[b]
        assert i < j and (pag[j, i], pag[i, j]) == (code[m[0]], code[m[2]])
        assert (clm[i, j], clm[j, i]) == ({1: 2, 2: 1, 3: -1}[pag[j, i]], {1: 2, 2: 1, 3: -1}[pag[i, j]])
    np.testing.assert_array_equal(res.skeleton, pag != 0)
    np.testing.assert_array_equal(pag != 0, pag.T != 0)
    assert res.sepset(*np.argwhere(res.skeleton)[0]) is None
    assert re.fullmatch(r"FciResult\(fci: 12 variables, \d+ edges \(\d+ directed, \d+ bidirected\), \d+ levels, .* s\)",
                        repr(res)), repr(res)
    assert isinstance(res.config["pdsep_tests"], int) and res.config["pdsep"] == "true"


def collider(n=2000, seed=3):
    """X -> Y <- Z, strongly: X o-> Y <-o Z."""
    rng = np.random.default_rng(seed)
    x, z = rng.normal(size=n), rng.normal(size=n)
    return np.column_stack([x, x + z + 0.5 * rng.normal(size=n), z])


def test_collider_marks():
    res = cudag.fci(collider(), names=["X", "Y", "Z"], alpha=0.01)
    assert res.edges() == [("X", "Y", "o->"), ("Y", "Z", "<-o")]
    np.testing.assert_array_equal(res.edge_array, [[0, 1, 1, 2], [1, 2, 2, 1]])
    np.testing.assert_array_equal(res.pag, [[0, 2, 0], [1, 0, 1], [0, 2, 0]])  # pcalg's amat.pag
    np.testing.assert_array_equal(res.cl_matrix, [[0, 2, 0], [1, 0, 1], [0, 2, 0]])  # causal-learn's G.graph
    assert res.sepset("X", "Z") == () and res.sepset("X", "Y") is None


def test_to_pandas():
    pytest.importorskip("pandas", reason="pandas is optional: FciResult.to_pandas() not tested")
    res = cudag.fci(collider(), names=["X", "Y", "Z"], alpha=0.01)
    assert res.to_pandas(edges=True).values.tolist() == [["X", "Y", "o->"], ["Y", "Z", "<-o"]]
    frame = res.to_pandas()
    assert list(frame.index) == list(frame.columns) == ["X", "Y", "Z"] and frame.loc["X", "Y"] == 2


def test_load_reads_an_fci_result_file(tmp_path, hidden):
    x, names, csv = hidden
    res = cudag.fci(x, names=names, alpha=0.05, variant="rfci", out=tmp_path / "py.h5")
    for path in (tmp_path / "py.h5", cli_fci(tmp_path, csv, "--alpha", 0.05, "--variant", "rfci")):
        back = cudag.load(path)
        assert isinstance(back, cudag.FciResult) and back.variant == "rfci"
        assert back.edges() == res.edges() and back.names == res.names
        for attr in ("pag", "cl_matrix", "edge_array", "skeleton_pairs", "pmax"):
            np.testing.assert_array_equal(getattr(back, attr), getattr(res, attr), err_msg=attr)
        assert back.sepsets == res.sepsets and len(back.levels) == len(res.levels)
        assert back.config["rules"] == res.config["rules"] and back.n_samples == 600
    assert isinstance(cudag.load(cli_fci(tmp_path, csv, "--alpha", 0.05)), cudag.FciResult)


def test_matrices_refused_above_the_limit(hidden, monkeypatch):
    x, names, _ = hidden
    res = cudag.fci(x, names=names, alpha=0.05)
    monkeypatch.setattr(results, "MATRIX_LIMIT", len(names) - 1)
    for attr in ("pag", "cl_matrix", "skeleton"):
        with pytest.raises(cudag.Error, match=r"n x n matrix, refused for 12 variables .*: use result\.edges\(\)"):
            getattr(res, attr)
    assert len(res.edges()) == len(res.edge_array) > 0


def test_keywords_are_the_commands_options():
    """Every keyword is an option of `cudag fci` (as --help lists it, or one of its hidden
    ones) and every option of it (but the data's, and --write-resample's, which writes a
    file and runs nothing: cudag.resample gives its rows) a keyword (--oracle and --latent
    too: oracle= and latent=); PC's collider rules are not; its bootstrap is (issue 54)."""
    table = dict((o, k) for k, o, *_ in cudag._cudag.keywords("fci"))
    help_text = run_cli("fci", "--help").stdout
    options = set(re.findall(r"(?m)^\s+(?:-\w,)?(--[a-z][a-z0-9-]*)", help_text))
    data_only = {"--data", "--dataset", "--na-values", "--help", "--write-resample",
                 "--replicate", "--overwrite"}
    hidden = {"--tune", "--stop-after-level"}  # options --help does not list (testing and tuning)
    assert set(table) == (options - data_only) | hidden
    for pc_only in ("uc_rule", "uc_priority"):
        assert pc_only not in table.values()
    for boot in ("bootstrap", "resample", "consensus"):
        assert boot in table.values()
    text = cudag.options("fci")
    assert "pdsep_max" in text and "--no-selection-bias" in text and "--max-level" in text
    assert "variant" in cudag.fci.__doc__ and "majority_rule" in str(__import__("inspect").signature(cudag.fci))


@pytest.mark.parametrize("options, message", [
    ({"uc_rule": 1}, "cudag.fci() got an unexpected keyword argument 'uc_rule'"),
    ({"bootstrap": 2.5}, "bootstrap= takes an integer, not float"),
    ({"pdsep_max": 2.5}, "pdsep_max= takes an integer, not float"),
    ({"no_pdsep": "yes"}, "no_pdsep= takes True or False, not str"),
    ({"variant": 1}, "variant= takes a str, not int"),
])
def test_unknown_keyword_or_wrong_type_is_a_type_error(options, message):
    with pytest.raises(TypeError) as e:
        cudag.fci(collider(200), **options)
    assert str(e.value) == message


@pytest.mark.parametrize("options, cli", [
    ({"pdsep_max": -2}, ["--pdsep-max", -2]),
    ({"variant": "fcx"}, ["--variant", "fcx"]),
    ({"conservative": True, "majority_rule": True}, ["--conservative", "--majority-rule"]),
    ({"type": "anytime"}, ["--type", "anytime"]),
    ({"variant": "rfci", "no_pdsep": True}, ["--variant", "rfci", "--no-pdsep"]),
    ({"compat": "causal-learn", "variant": "rfci"}, ["--compat", "causal-learn", "--variant", "rfci"]),
    ({"compat": "causal-learn", "conservative": True}, ["--compat", "causal-learn", "--conservative"]),
    ({"compat": "causal-learn", "max_path_length": -2}, ["--compat", "causal-learn", "--max-path-length", -2]),
    ({"max_path_length": 3}, ["--max-path-length", 3]),
    ({"tiers": [["X1"], ["X2", "X3"]]}, ["--tiers", "TIERS"]),
    ({"alpha": 1.5}, ["--alpha", 1.5]),
])
def test_bad_values_are_the_command_lines_errors(tmp_path, options, cli):
    x = collider(200)
    csv = tmp_path / "c.csv"
    np.savetxt(csv, x, delimiter=",", header="X1,X2,X3", comments="", fmt="%.17g")
    (tmp_path / "tiers.txt").write_text("X1\nX2 X3\n")
    cli = [tmp_path / "tiers.txt" if c == "TIERS" else c for c in cli]
    with pytest.raises(cudag.InputError) as e:
        cudag.fci(x, **options)
    assert str(e.value) == cli_error("fci", "--data", csv, *cli, "-q").replace(str(csv), "<array>")
    assert "\n" not in str(e.value)


def test_compare_pags_as_cli(tmp_path):
    """cudag.compare of an FciResult is `cudag compare` of its r.h5: the mark scores of a PC
    CPDAG (--- as o-o) and of the PAG against a hand-written true PAG."""
    fci = cudag.fci(collider(), names=["X", "Y", "Z"], alpha=0.01, out=tmp_path / "f.h5")
    pc = cudag.pc(collider(), names=["X", "Y", "Z"], alpha=0.01)
    truth = tmp_path / "t.tsv"
    truth.write_text("source\ttarget\tmark\nX\tY\t-->\nZ\tY\t<->\n")
    got = cudag.compare(truth, fci)
    want = json.loads(run_cli("compare", "--truth", truth, "--estimate", tmp_path / "f.h5", "--json", "-").stdout)
    assert {k: got[k] for k in want} == want and got["pag"]
    # Estimate X o-> Y <-o Z against X --> Y <-> Z: arrowheads all right, the circles at X
    # and Z where the truth has a tail and an arrowhead.
    assert (got["shd"], got["arrow_truth"], got["arrow_estimate"], got["arrow_correct"]) == (2, 3, 2, 2)
    assert (got["arrow_precision"], got["arrow_recall"]) == (1.0, 2 / 3)
    assert (got["tail_truth"], got["tail_estimate"], got["circle_estimate"], got["circle_correct"]) == (1, 0, 2, 0)
    assert cudag.compare(fci, fci)["shd"] == 0
    # PC's v-structure X --> Y <-- Z against the learnt PAG X o-> Y <-o Z: tails where
    # the PAG has circles. (The truth file has no circle: not a PAG, so PC against it is
    # the CPDAG comparison.)
    p = cudag.compare(fci, pc)
    assert p["pag"] and p["estimate_was_dag"]  # every edge directed: a DAG, its own CPDAG
    assert (p["tail_estimate"], p["tail_correct"], p["arrow_correct"], p["circle_truth"], p["shd"]) == (2, 0, 2, 2, 2)
    assert not cudag.compare(truth, pc)["pag"]
    # A PAG is no DAG to score (as the command line's cudag score refuses a circle mark).
    with pytest.raises(cudag.InputError, match="a PAG .* is not a DAG to score"):
        cudag.score(collider(), fci, "bge")
    with pytest.raises(cudag.InputError, match="f.h5: a PAG"):
        cudag.score(collider(), tmp_path / "f.h5", "bge")


# ---- cudag.compat.causallearn.fci --------------------------------------------------------

def test_compat_refusals():
    x = collider(300)
    with pytest.raises(TypeError, match="'max_path_length' must be 'int' type!"):
        cl.fci(x, max_path_length=1.5, show_progress=False)
    with pytest.raises(ValueError, match="fisherz, chisq, gsq"):
        cl.fci(x, "kci", show_progress=False)
    with pytest.raises(TypeError, match="unexpected keyword argument 'kernelX'"):
        cl.fci(x, show_progress=False, kernelX="Gaussian")


class Node:
    """A stand-in for causal-learn's GraphNode (hashable, get_name())."""

    def __init__(self, name):
        self.name = name

    def get_name(self):
        return self.name

    def __repr__(self):
        return self.name


def bk(forbidden=(), required=(), tiers=None):
    from types import SimpleNamespace
    nodes = {s: Node(s) for s in ("X1", "X2", "X3")}
    return SimpleNamespace(forbidden_rules_specs={(nodes[a], nodes[b]) for a, b in forbidden},
                           required_rules_specs={(nodes[a], nodes[b]) for a, b in required}, tier_map=tiers or {})


def without_causallearn(monkeypatch):
    for key in [k for k in sys.modules if k == "causallearn" or k.startswith("causallearn.")] + ["causallearn"]:
        monkeypatch.setitem(sys.modules, key, None)


def test_compat_without_causallearn(monkeypatch):
    """The numpy face: a stand-in graph (causal-learn's matrix) and the edge rows."""
    without_causallearn(monkeypatch)
    g, edges = cl.fci(collider(), show_progress=False)
    want = cudag.fci(collider(), test="fisher-z", alpha=0.05, compat="causal-learn")
    np.testing.assert_array_equal(g.graph, want.cl_matrix)
    assert want.config["algorithm"] == "fci (causal-learn)" and want.config["max_path_length"] == "-1"
    assert g.graph[0, 1] == 2 and g.graph[1, 0] == 1  # X1 o-> X2
    assert g.get_node_names() == ["X1", "X2", "X3"] and g.get_num_edges() == 2
    assert edges == [("X1", "X2", "o->"), ("X2", "X3", "<-o")]
    # depth is max_level; background knowledge: a pair forbidden both ways is an absent edge
    g, _ = cl.fci(collider(), depth=0, show_progress=False, background_knowledge=bk([("X1", "X2"), ("X2", "X1")]))
    want = cudag.fci(collider(), alpha=0.05, max_level=0, forbid=["X1 -- X2"], compat="causal-learn")
    np.testing.assert_array_equal(g.graph, want.cl_matrix)
    assert g.graph[0, 1] == 0 and want.config["max_level"] == 0
    # directed knowledge and tiers: as cudag.fci(forbid=, require=, tiers=) under causal-learn's compat
    g, _ = cl.fci(collider(), show_progress=False, background_knowledge=bk([("X2", "X1")], [("X3", "X2")]))
    want = cudag.fci(collider(), alpha=0.05, forbid=["X2 -> X1"], require=["X3 -> X2"], compat="causal-learn")
    np.testing.assert_array_equal(g.graph, want.cl_matrix)
    assert g.graph[1, 2] == 1 and g.graph[2, 1] == -1  # X3 --> X2
    within = bk(tiers={0: {Node("X1")}})
    within.forbidden_within_tiers = {0}
    with pytest.raises(ValueError, match="forbid_within_tier"):
        cl.fci(collider(), show_progress=False, background_knowledge=within)
    with pytest.raises(ValueError, match="not in node_names"):
        cl.fci(collider(), show_progress=False, background_knowledge=bk([("X1", "X2"), ("X2", "X1")]),
               node_names=["A", "B", "C"])
    with pytest.raises(ImportError, match="pip install causal-learn"):
        want.to_causallearn()


CL_REF = Path(__file__).resolve().parents[1] / "data" / "fci"


def cl_reference_runs():
    rows = [line.split("\t") for line in (CL_REF / "causal_learn_fci" / "manifest.tsv").read_text().splitlines()[1:]]
    return [(r[0], r[1], r[3], r[4]) for r in rows if r[6] == "ok"]


@pytest.mark.parametrize("ds, algo, alpha, test", cl_reference_runs())
def test_compat_equals_causal_learn_on_the_reference_runs(monkeypatch, ds, algo, alpha, test):
    """compat.causallearn.fci gives causal-learn 0.1.4.8's PAG on every reference run of
    tests/data/fci/causal_learn_fci (read from the files: no causal-learn needed)."""
    without_causallearn(monkeypatch)
    csv = CL_REF / "datasets" / f"{ds}.csv"
    names = csv.read_text().split("\n", 1)[0].split(",")
    x = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
    g, _ = cl.fci(x, test, float(alpha), node_names=names, show_progress=False)
    lines = (CL_REF / "causal_learn_fci" / f"{ds}__{algo}__{alpha}.amat").read_text().splitlines()
    assert lines[0].split() == names
    amat = np.array([[int(v) for v in line.split()] for line in lines[1:] if line.strip()])
    # amat.pag[i, j] is the mark at j; causal-learn's graph[j, i] is the mark at j (-1 tail, 1 arrow, 2 circle)
    want = np.vectorize({0: 0, 1: 2, 2: 1, 3: -1}.get)(amat).T
    np.testing.assert_array_equal(g.graph, want)


@pytest.mark.parametrize("seed", range(6))
def test_compat_follows_pythonhashseed(monkeypatch, seed):
    """causal-learn's PAG on causal_learn_hashseed/h01.csv depends on PYTHONHASHSEED (its
    Python sets of nodes); with PYTHONHASHSEED set, compat.causallearn.fci gives causal-learn's
    PAG under that seed."""
    without_causallearn(monkeypatch)
    monkeypatch.setenv("PYTHONHASHSEED", str(seed))
    d = CL_REF / "causal_learn_hashseed"
    csv = d / "h01.csv"
    names = csv.read_text().split("\n", 1)[0].split(",")
    g, _ = cl.fci(np.loadtxt(csv, delimiter=",", skiprows=1), "fisherz", 0.2, node_names=names, show_progress=False)
    lines = (d / f"h01__fci__0.2__seed{seed}.amat").read_text().splitlines()
    amat = np.array([[int(v) for v in line.split()] for line in lines[1:] if line.strip()])
    np.testing.assert_array_equal(g.graph, np.vectorize({0: 0, 1: 2, 2: 1, 3: -1}.get)(amat).T)


def test_compat_max_path_length_is_the_options():
    x = collider(300)
    g, _ = cl.fci(x, max_path_length=0, show_progress=False)
    res = cudag.fci(x, alpha=0.05, compat="causal-learn", max_path_length=0)
    np.testing.assert_array_equal(g.graph, res.cl_matrix)
    assert res.config["max_path_length"] == "0"


def test_compat_returns_causallearns_objects():
    pytest.importorskip("causallearn", reason="causal-learn is optional: compat.causallearn.fci's objects not tested")
    from causallearn.graph.Edge import Edge
    from causallearn.graph.Endpoint import Endpoint
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.search.ConstraintBased.FCI import fci as causallearn_fci
    x = collider()
    g, edges = cl.fci(x, "fisherz", 0.05, node_names=["X", "Y", "Z"], show_progress=False)
    assert isinstance(g, GeneralGraph) and all(isinstance(e, Edge) for e in edges) and len(edges) == 2
    X, Y, Z = (g.get_node(s) for s in ("X", "Y", "Z"))
    assert [n.get_attribute("id") for n in (X, Y, Z)] == [0, 1, 2]
    xy, zy = g.get_edge(X, Y), g.get_edge(Z, Y)
    assert (xy.get_proximal_endpoint(X), xy.get_proximal_endpoint(Y)) == (Endpoint.CIRCLE, Endpoint.ARROW)
    assert (zy.get_proximal_endpoint(Z), zy.get_proximal_endpoint(Y)) == (Endpoint.CIRCLE, Endpoint.ARROW)
    assert g.get_edge(X, Z) is None
    assert sorted(str(e) for e in edges) == ["X o-> Y", "Z o-> Y"]
    np.testing.assert_array_equal(g.graph, [[0, 2, 0], [1, 0, 1], [0, 2, 0]])
    # causal-learn's own fci on the same data: the same PAG and edge properties
    theirs, their_edges = causallearn_fci(x, "fisherz", 0.05, node_names=["X", "Y", "Z"], show_progress=False)
    np.testing.assert_array_equal(g.graph, theirs.graph)
    assert sorted((str(e), sorted(map(str, e.properties))) for e in edges) == \
        sorted((str(e), sorted(map(str, e.properties))) for e in their_edges)
    # the result's own conversion is the same graph
    np.testing.assert_array_equal(cudag.fci(x, alpha=0.05, compat="causal-learn").to_causallearn().graph, g.graph)
