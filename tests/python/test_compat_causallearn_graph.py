# SPDX-License-Identifier: Apache-2.0
"""cudag.compat.causallearn's CausalGraph and CIT as causal-learn 0.1.4.8 shapes them:
cg.sepset against an independent stable skeleton search written here (numpy Fisher-z, every
test logged) that lists the separating sets as causal-learn's does, and against causal-learn's
own values on its data_linear_10; the graph queries on a hand-derived CPDAG; the CIT's
cache (causal-learn's JSON), its singular-data error, its d-separation test; causal-learn
itself where installed (skipped otherwise)."""

import hashlib
import itertools
import json
import math

import numpy as np
import pytest

import cudag
from cudag.compat import causallearn as cl
from conftest import shared_data

SHARED = shared_data()


def fisher_p(corr: np.ndarray, m: int, i: int, j: int, s) -> float:
    """Fisher-z p-value of i _||_ j | s from the correlation matrix (precision-matrix form)."""
    idx = [i, j, *s]
    prec = np.linalg.inv(corr[np.ix_(idx, idx)])
    r = -prec[0, 1] / math.sqrt(prec[0, 0] * prec[1, 1])
    z = 0.5 * math.log((1 + r) / (1 - r))
    return math.erfc(math.sqrt(m - len(s) - 3) * abs(z) / math.sqrt(2))


def reference_sepsets(x: np.ndarray, alpha: float) -> np.ndarray:
    """A stable PC skeleton search written out: at level l every adjacent pair is tested
    from each end a (a = 0..n-1), with every l-subset of a's other neighbours at the level's
    start; causal-learn's record of a pair removed at l: per end in turn, the nodes of that
    end's separating sets as one Python set filled in test order (when it found one), or ()
    at the second end after the first found one; [(), ()] at level 0."""
    m, n = x.shape
    corr = np.corrcoef(x.T)
    adj = ~np.eye(n, dtype=bool)
    out = np.empty((n, n), dtype=object)
    level = 0
    while adj.sum(axis=1).max() - 1 > level - 1 and level <= n:
        start = adj.copy()
        found = {}
        for a in range(n):
            nb = list(np.flatnonzero(start[a]))
            if len(nb) < level - 1:
                continue
            for b in nb:
                sets = [s for s in itertools.combinations([v for v in nb if v != b], level)
                        if fisher_p(corr, m, a, b, s) > alpha]
                key = (min(a, b), max(a, b))
                if sets:
                    found.setdefault(key, []).append(sets)
                    nodes = set()
                    for s in sets:
                        for v in s:
                            nodes.add(np.int64(v))
                    entry = tuple(nodes)
                elif key in found and a == key[1]:
                    entry = ()
                else:
                    continue
                out[a, b] = (out[a, b] or []) + [entry]
                out[b, a] = list(out[a, b])
        for i, j in found:
            adj[i, j] = adj[j, i] = False
        level += 1
    return out


def collider_data(seed=11, m=3000):
    """X1 -> X3 <- X2, X3 -> X4, X5 -> X4 (linear Gaussian)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(m, 5))
    x[:, 2] += 0.9 * x[:, 0] + 0.9 * x[:, 1]
    x[:, 3] += 0.8 * x[:, 2] + 0.8 * x[:, 4]
    return x


@pytest.mark.parametrize("seed, alpha", [(1, 0.05), (2, 0.2), (3, 0.3)])
def test_sepset_matches_a_reference_search(seed, alpha):
    rng = np.random.default_rng(seed)
    m, n = 300, 9
    x = rng.normal(size=(m, n))
    for j in range(1, n):  # a dense DAG: deeper levels and several separating sets per pair
        for k in range(max(0, j - 3), j):
            x[:, j] += 0.5 * x[:, k]
    cg = cl.pc(x, alpha, "fisherz", show_progress=False)
    want = reference_sepsets(x, alpha)
    levels = 0
    for i in range(n):
        for j in range(n):
            assert repr(cg.sepset[i, j]) == repr(want[i, j]), (i, j)
            if want[i, j] is not None:
                levels = max(levels, max(len(t) for t in want[i, j]))
    assert levels >= 2  # the data reached sets of two nodes or more


@pytest.mark.skipif(SHARED is None, reason="../shared/data/causal-learn is absent")
def test_sepset_is_causal_learns_on_linear_10():
    x = np.loadtxt(SHARED / "causal-learn" / "data_linear_10.txt", skiprows=1)
    cg = cl.pc(x, 0.05, "fisherz", show_progress=False)
    # causal-learn 0.1.4.8's pc(x, 0.05, fisherz).sepset at these pairs (its own run):
    want = {(8, 10): [(), ()], (8, 12): [(0, 2), (0, 1, 2)], (8, 11): [(9, 2), (9, 2)], (11, 18): [(0, 14, 7)],
            (12, 16): [(1, 3, 4, 9, 15, 18, 19), ()], (13, 14): [(10, 3, 5, 6), ()],
            (9, 14): [(2, 11), (0, 3, 11, 5)], (18, 19): [(0, 7, 8, 13, 14), ()]}
    for (i, j), sets in want.items():
        assert [tuple(map(int, t)) for t in cg.sepset[i, j]] == sets, (i, j)
        assert cg.sepset[j, i] == cg.sepset[i, j]
        assert all(isinstance(v, np.int64) for t in cg.sepset[i, j] for v in t)
    assert sum(cg.sepset[i, j] is not None for i in range(20) for j in range(i + 1, 20)) == 163


def test_sepset_of_the_d_separation_oracle():
    # true_dag: 0 -> 2 <- 1, 2 -> 3; oracle tests p = 1 (separated) or 0. Level 0 removes
    # 0-1 ([(), ()]); level 1 removes 0-3 and 1-3, each separated by {2} from both ends.
    dag = np.zeros((4, 4), dtype=int)
    dag[0, 2] = dag[1, 2] = dag[2, 3] = 1
    cg = cl.pc(np.zeros((10, 4)), 0.05, "d_separation", true_dag=dag, show_progress=False)
    assert cg.sepset[0, 1] == [(), ()]
    assert [tuple(map(int, t)) for t in cg.sepset[0, 3]] == [(2,), (2,)]
    assert [tuple(map(int, t)) for t in cg.sepset[1, 3]] == [(2,), (2,)]
    assert cg.sepset[0, 2] is None and cg.sepset[2, 3] is None
    assert cg.find_fully_directed() == [(0, 2), (1, 2), (2, 3)]


# causal-learn 0.1.4.8's CausalGraph: its public members (dir()).
MEMBERS = ["G", "PC_elapsed", "ci_test", "definite_UC", "definite_non_UC", "draw_nx_graph", "draw_pydot_graph",
           "find_adj", "find_arrow_heads", "find_bi_directed", "find_cond_sets", "find_cond_sets_with_mid",
           "find_cond_sets_without_mid", "find_fully_directed", "find_kites", "find_tails", "find_triangles",
           "find_undirected", "find_unshielded_triples", "is_fully_directed", "is_undirected", "labels",
           "max_degree", "neighbors", "nx_graph", "nx_skel", "prt_m", "rearrange", "redundant_nodes", "sepset",
           "set_ind_test", "test", "to_nx_graph", "to_nx_skeleton"]


def test_every_member_of_causal_learns_causal_graph():
    cg = cl.pc(collider_data(), 0.01, "fisherz", show_progress=False)
    plain = [m for m in MEMBERS if m not in ("nx_graph", "nx_skel")]  # networkx's, tested below
    for m in plain:
        assert hasattr(cg, m), m
    assert isinstance(cg.PC_elapsed, float) and cg.PC_elapsed >= 0
    assert cg.definite_UC == [] and cg.definite_non_UC == [] and cg.redundant_nodes == [] and cg.prt_m == {}
    assert isinstance(cg.test, cl.CIT)
    assert cg.ci_test(0, 1, ()) == cg.test(0, 1, [])
    assert np.asarray(cg.G.graph).shape == (5, 5)
    assert [node.get_name() for node in cg.G.get_nodes()] == [f"X{k}" for k in range(1, 6)]
    assert cg.G.get_num_edges() == 4
    own = cg.test
    cg.set_ind_test(lambda i, j, s: 0.5)  # a test of the caller's: ci_test asks it
    assert cg.ci_test(0, 1, ()) == 0.5 and cg.test is not own


def test_graph_queries_on_a_known_cpdag():
    # X1 -> X3 <- X2, X3 -> X4 <- X5: every edge oriented (two v-structures), no triangle.
    cg = cl.pc(collider_data(), 0.01, "fisherz", show_progress=False)
    g = np.asarray(cg.G.graph)
    want = np.zeros((5, 5), dtype=int)
    for a, b in [(0, 2), (1, 2), (2, 3), (4, 3)]:
        want[a, b], want[b, a] = -1, 1
    np.testing.assert_array_equal(g, want)
    # pairs in row-major order of the marks they are read from, as causal-learn lists them
    assert cg.find_tails() == [(2, 0), (2, 1), (3, 2), (3, 4)]
    assert cg.find_arrow_heads() == [(0, 2), (1, 2), (2, 3), (4, 3)]
    assert cg.find_fully_directed() == [(0, 2), (1, 2), (2, 3), (4, 3)]
    assert cg.find_undirected() == [] and cg.find_bi_directed() == []
    assert cg.find_adj() == cg.find_tails() + cg.find_arrow_heads()
    assert all(isinstance(v, np.integer) for p in cg.find_adj() for v in p)
    assert list(cg.neighbors(2)) == [0, 1, 3] and cg.max_degree() == 3
    assert cg.is_fully_directed(0, 2) and not cg.is_fully_directed(2, 0) and not cg.is_undirected(0, 2)
    # unshielded triples a - b - c over ordered adjacency pairs (both directions of each path)
    triples = cg.find_unshielded_triples()
    assert sorted(map(lambda t: tuple(map(int, t)), triples)) == sorted(
        [(0, 2, 1), (1, 2, 0), (0, 2, 3), (3, 2, 0), (1, 2, 3), (3, 2, 1), (2, 3, 4), (4, 3, 2)])
    assert len(triples) == 8
    assert cg.find_triangles() == [] and cg.find_kites() == []
    # conditioning sets: every subset of X1's neighbours ({X3}) or of X4's ({X3, X5}), once
    sets = cg.find_cond_sets(0, 3)
    assert sorted(map(lambda s: tuple(map(int, s)), sets)) == [(), (2,), (2, 4), (4,)]
    assert sorted(map(lambda s: tuple(map(int, s)), cg.find_cond_sets_with_mid(0, 3, 2))) == [(2,), (2, 4)]
    assert sorted(map(lambda s: tuple(map(int, s)), cg.find_cond_sets_without_mid(0, 3, 2))) == [(), (4,)]


def test_triangles_and_kites():
    # The DAG X1 -> X2, X1 -> X3, X2 -> X4, X3 -> X4, X1 -> X4 through the oracle: its
    # skeleton has the triangles (X1, X2, X4) and (X1, X3, X4) and the kite X1 - X2 - X4 -
    # X3 - X1 with X1 - X4 (X2, X3 not adjacent).
    dag = np.zeros((4, 4), dtype=int)
    for a, b in [(0, 1), (0, 2), (1, 3), (2, 3), (0, 3)]:
        dag[a, b] = 1
    cg = cl.pc(np.zeros((5, 4)), 0.05, "d_separation", true_dag=dag, show_progress=False)
    tri = {tuple(map(int, t)) for t in cg.find_triangles()}
    assert tri == {p for a, b, c in [(0, 1, 3), (0, 2, 3)] for p in itertools.permutations((a, b, c))}
    assert len(cg.find_triangles()) == 12
    kites = [tuple(map(int, k)) for k in cg.find_kites()]
    # (i, j, k, l): i - j - l - k - i and i - l, j and k not adjacent, j < k
    assert sorted(set(kites)) == [(0, 1, 2, 3), (3, 1, 2, 0)]


def test_definite_maxp_triples():
    # X1 -> X3 <- X2, X3 -> X4 <- X5: definiteMaxP finds the colliders X1 -> X3 <- X2 and
    # X3 -> X4 <- X5 and the non-colliders X1 - X3 - X4, X2 - X3 - X4 (x < z in each)
    cg = cl.pc(collider_data(), 0.01, "fisherz", True, 2, -1, show_progress=False)
    as_ints = lambda ts: {tuple(map(int, t)) for t in ts}  # noqa: E731
    assert as_ints(cg.definite_UC) == {(0, 2, 1), (2, 3, 4)} and len(cg.definite_UC) == 2
    assert as_ints(cg.definite_non_UC) == {(0, 2, 3), (1, 2, 3)} and len(cg.definite_non_UC) == 2
    other = cl.pc(collider_data(), 0.01, "fisherz", True, 0, 2, show_progress=False)
    assert other.definite_UC == [] and other.definite_non_UC == []


def test_networkx_views():
    nx = pytest.importorskip("networkx")
    cg = cl.pc(collider_data(), 0.01, "fisherz", show_progress=False)
    assert isinstance(cg.nx_graph, nx.DiGraph)
    assert sorted(cg.nx_graph.edges(data="color")) == [(0, 2, "b"), (1, 2, "b"), (2, 3, "b"), (4, 3, "b")]
    assert cg.labels == {k: f"X{k + 1}" for k in range(5)}
    cg.to_nx_skeleton()
    assert isinstance(cg.nx_skel, nx.Graph) and cg.nx_skel.number_of_edges() == 4


def test_pydot_drawing_or_a_clear_import_error():
    cg = cl.pc(collider_data(), 0.01, "fisherz", show_progress=False)
    try:
        import pydot  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pydot"):
            cg.draw_pydot_graph()
        return
    dot = cg.to_pydot(labels=list("abcde"))
    assert len(dot.get_nodes()) == 5 and len(dot.get_edges()) == 4


def test_max_k_is_causal_learns_depth():
    x = collider_data()
    assert np.array_equal(cl.pc(x, 0.01, "fisherz", max_k=0, show_progress=False).G.graph,
                          cl.pc(x, 0.01, "fisherz", depth=0, show_progress=False).G.graph)
    with pytest.raises(TypeError, match="max_k"):
        cl.pc(x, max_k="1", show_progress=False)


# ---- CIT ------------------------------------------------------------------------------

def test_cit_values_and_causal_learns_cache_keys(tmp_path):
    x = collider_data(m=500)
    corr = np.corrcoef(x.T)
    cit = cl.CIT(x, "fisherz")
    for a, b, s in [(0, 1, []), (3, 0, [2]), (0, 3, (4, 2)), (4, 1, np.array([2, 3]))]:
        assert cit(a, b, s) == pytest.approx(fisher_p(corr, 500, a, b, list(s)), rel=1e-12, abs=1e-14)
    assert cit(1, 4, [3, 2]) == cit(4, 1, [2, 3])  # one key, as causal-learn's
    keys = sorted(k for k in cit.pvalue_cache if k not in ("data_hash", "method_name", "parameters_hash"))
    assert keys == ["0;1", "0;3|2", "0;3|2.4", "1;4|2.3"]
    assert cit.pvalue_cache["data_hash"] == hashlib.md5(str(x).encode("utf-8")).hexdigest()
    assert cit.pvalue_cache["method_name"] == "fisherz"
    with pytest.raises(ValueError, match="cannot be in condition_set"):
        cit(0, 1, [1])


def test_cit_repeated_calls_come_from_the_native_table():
    # A call asked before, in any order of X, Y and the set, with numpy or Python integers,
    # is answered from the native table keyed as causal-learn's cache; new keys and calls the
    # table does not cover (X in the set, float indices, sets of 9) go through _compute.
    x = collider_data(m=400)
    corr = np.corrcoef(x.T)
    cit = cl.CIT(x, "fisherz")
    assert cit._memo_size() == 0
    p = cit(0, 3, [2, 4])
    assert p == pytest.approx(fisher_p(corr, 400, 0, 3, [2, 4]), rel=1e-12, abs=1e-14)
    calls = []
    compute = cit._compute
    cit._compute = lambda *a: calls.append(a) or compute(*a)
    for q in [(3, 0, [4, 2]), (np.int64(0), np.int32(3), (np.int64(4), 2)), (0, 3, np.array([2, 4, 4])),
              (3, 0, {2, 4})]:
        assert cit(*q) == p
    assert cit(0, 3, condition_set=[4, 2]) == p and cit(X=3, Y=0, condition_set=(2, 4)) == p
    assert calls == [] and cit._memo_size() == 1
    assert cit(0, 1) == cit(1, 0, None) == cit(0, 1, []) == pytest.approx(fisher_p(corr, 400, 0, 1, []), rel=1e-12)
    assert len(calls) == 1 and cit._memo_size() == 2  # (0, 1) once; None and [] one key
    assert cit(0.0, 3, [2, 4]) == p and len(calls) == 2  # a float index: causal-learn's int(X)
    with pytest.raises(ValueError, match="cannot be in condition_set"):
        cit(0, 3, [3])
    with pytest.raises(TypeError):
        cit(0)
    assert sorted(k for k in cit.pvalue_cache if ";" in k) == ["0;1", "0;3|2.4"]
    # the same table behind a subclass; a subclass's own __call__ is the one called
    seen = []

    class Logged(cl.CIT):
        def __call__(self, X, Y, condition_set=None):
            seen.append((X, Y))
            return super().__call__(X, Y, condition_set)

    class Plain(cl.CIT):
        pass

    logged, plain = Logged(x, "fisherz"), Plain(x, "fisherz")
    assert logged(0, 3, [2, 4]) == logged(3, 0, [4, 2]) == plain(3, 0, [4, 2]) == plain(0, 3, [2, 4]) == p
    assert seen == [(0, 3), (3, 0)] and logged._memo_size() == plain._memo_size() == 1


def test_cit_repeated_keys_answer_the_first_value_bit_for_bit():
    # 3,000 keys (the native table grows from 64 slots several times): each asked again in
    # another form of the same key (X and Y swapped, the set reversed with a repeat, numpy
    # integers) answers the first call's float bit for bit, and the value causal-learn's
    # pvalue_cache holds under the key; Fisher-z from numpy on a sample of them.
    rng = np.random.default_rng(11)
    x = rng.normal(size=(300, 40))
    x[:, 1:] += 0.4 * x[:, :-1]
    corr = np.corrcoef(x.T)
    cit = cl.CIT(x, "fisherz")
    queries = [(int(a), int(b), [int(v) for v in s]) for a, b, *s in
               (rng.choice(40, 2 + k % 5, replace=False) for k in range(3000))]
    first = [cit(a, b, s) for a, b, s in queries]
    assert cit._memo_size() == len({(min(a, b), max(a, b), tuple(sorted(s))) for a, b, s in queries})
    again = [cit(np.int64(b), a, [*s[::-1], *s[:1]]) for a, b, s in queries]
    assert [p.hex() for p in again] == [p.hex() for p in first]
    for (a, b, s), p in zip(queries, first):
        key = f"{min(a, b)};{max(a, b)}" + (f"|{'.'.join(map(str, sorted(s)))}" if s else "")
        assert cit.pvalue_cache[key].hex() == p.hex()
    for a, b, s in queries[:50]:
        assert cit(a, b, s) == pytest.approx(fisher_p(corr, 300, a, b, s), rel=1e-10, abs=1e-14)
    cit._memo_clear()
    assert cit._memo_size() == 0 and [cit(a, b, s).hex() for a, b, s in queries[:20]] == [p.hex() for p in first[:20]]


def test_tester_p_value_by_column_index():
    x = collider_data(m=400)
    t = cudag.tester(x, "fisher-z", compat="causal-learn")
    for a, b, s in [(0, 3, [2, 4]), (4, 0, []), (1, 3, [2])]:
        assert t._engine.p_value(a, b, s) == t(a, b, s)  # bit for bit, the same session and cache
    with pytest.raises(cudag.InputError, match="column 5 .* out of range"):
        t._engine.p_value(0, 5, [])
    with pytest.raises(cudag.InputError, match="column 2 .* given twice"):
        t._engine.p_value(0, 2, [2])


def test_cit_cache_file_round_trip(tmp_path):
    x = collider_data(m=500)
    path = tmp_path / "sub" / "cache.json"
    cit = cl.CIT(x, "fisherz", cache_path=str(path))
    p = cit(0, 3, [2])
    cit.save_to_local_cache(force=True)
    saved = json.loads(path.read_text())
    assert saved["0;3|2"] == p and saved["parameters_hash"] == "NO SPECIFIED PARAMETERS"
    # a cache read back answers from the file: a value planted there is what comes back
    saved["0;1|2"] = 0.123
    path.write_text(json.dumps(saved))
    again = cl.CIT(x, "fisherz", cache_path=str(path))
    assert again(1, 0, [2]) == 0.123 and again(0, 3, [2]) == p
    with pytest.raises(ValueError, match="other data"):
        cl.CIT(x[:400], "fisherz", cache_path=str(path))
    with pytest.raises(ValueError, match="holds 'fisherz' tests"):
        cl.CIT(x, "mv_fisherz", cache_path=str(path))
    with pytest.raises(ValueError, match=r"\.json"):
        cl.CIT(x, "fisherz", cache_path=str(tmp_path / "cache.txt"))


def test_pc_cache_path_writes_causal_learns_file(tmp_path):
    x = collider_data(m=500)
    path = tmp_path / "pc.json"
    cg = cl.pc(x, 0.05, "fisherz", cache_path=str(path), show_progress=False)
    head = json.loads(path.read_text())
    assert head["data_hash"] == hashlib.md5(str(x).encode("utf-8")).hexdigest()
    assert cg.test.cache_path == str(path)


def test_cit_singular_data_raise_causal_learns_error():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 4))
    x[:, 3] = 2.0 * x[:, 2]  # a column a multiple of another
    cit = cl.CIT(x, "fisherz")
    msg = "Data correlation matrix is singular. Cannot run fisherz test. Please check your data."
    for q in [(2, 3, []), (0, 3, [2]), (0, 1, [2, 3])]:
        with pytest.raises(ValueError) as e:
            cit(*q)
        assert str(e.value) == msg
    assert 0.0 < cit(0, 1, [3]) <= 1.0  # a regular block still tests
    # the session's one-line error under compat="causal-learn" (the command line's too);
    # pcalg's arithmetic answers (its pseudo-inverse) as before
    with pytest.raises(cudag.InputError, match=r"'X3', 'X4'.* is singular"):
        cudag.citest(x, "X3", "X4", test="fisher-z", compat="causal-learn")
    assert cudag.citest(x, "X3", "X4", test="fisher-z").p_value == 0.0


def test_pc_on_collinear_columns_raises_causal_learns_error():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 5))
    x[:, 4] = -3.0 * x[:, 1] + 2.0  # causal-learn's level-0 test of X2, X5 raises
    with pytest.raises(ValueError, match="^Data correlation matrix is singular"):
        cl.pc(x, 0.05, "fisherz", show_progress=False)
    x[:, 4] += 1e-3 * rng.normal(size=200)  # nearly collinear: tested
    assert cl.pc(x, 0.05, "fisherz", show_progress=False).G.graph[1, 4] != 0


def test_cit_d_separation():
    # 0 -> 2 <- 1, 2 -> 3, 4 isolated: d-separations by hand
    dag = np.zeros((5, 5), dtype=int)
    dag[0, 2] = dag[1, 2] = dag[2, 3] = 1
    cit = cl.CIT(np.zeros((3, 5)), "d_separation", true_dag=dag)
    assert cit(0, 1, []) == 1.0 and cit(0, 1, [2]) == 0.0 and cit(0, 1, [3]) == 0.0
    assert cit(0, 3, []) == 0.0 and cit(0, 3, [2]) == 1.0 and cit(4, 3, []) == 1.0
    with pytest.raises(ValueError, match="true_dag"):
        cl.CIT(np.zeros((3, 5)), "d_separation")


def test_against_causal_learn_itself():
    pytest.importorskip("causallearn")
    if SHARED is None:
        pytest.skip("../shared/data/causal-learn is absent")
    from causallearn.search.ConstraintBased.PC import pc as cl_pc
    from causallearn.utils.cit import CIT as ClCIT

    x = np.loadtxt(SHARED / "causal-learn" / "data_linear_10.txt", skiprows=1)[:500]
    theirs = cl_pc(x, 0.05, "fisherz", True, 0, 2, show_progress=False)
    ours = cl.pc(x, 0.05, "fisherz", True, 0, 2, show_progress=False)
    assert np.array_equal(theirs.G.graph, ours.G.graph)
    assert all(repr(theirs.sepset[i, j]) == repr(ours.sepset[i, j]) for i in range(20) for j in range(20))
    theirs, ours = (f(x, 0.1, "fisherz", True, 2, 3, show_progress=False) for f in (cl_pc, cl.pc))
    assert repr(theirs.definite_UC) == repr(ours.definite_UC) and theirs.definite_UC
    assert repr(theirs.definite_non_UC) == repr(ours.definite_non_UC) and theirs.definite_non_UC
    a, b = ClCIT(x, "fisherz"), cl.CIT(x, "fisherz")
    assert b(3, 1, [5, 2]) == pytest.approx(a(3, 1, [5, 2]), abs=1e-13)
    assert a.data_hash == b.data_hash


def _chi2_p(stat: float, dof: int) -> float:
    """The chi-square survival function for dof 1 or 2 (closed forms)."""
    return math.erfc(math.sqrt(stat / 2)) if dof == 1 else math.exp(-stat / 2)


def test_cit_discrete_and_testwise_tests_closed_forms():
    # chisq / gsq of two binary columns, unconditionally (dof 1) and given a binary third
    # (two strata, dof 2): Pearson's and the likelihood-ratio statistic from the counts;
    # mv_fisherz: Fisher-z on the rows complete in X, Y and the set.
    rng = np.random.default_rng(5)
    z = rng.integers(0, 2, 3000)
    a = (z ^ (rng.random(3000) < 0.3)).astype(int)
    b = (z ^ (rng.random(3000) < 0.3)).astype(int)
    d = np.column_stack([a, b, z])

    def stats(rows):
        o = np.array([[np.sum((a[rows] == i) & (b[rows] == j)) for j in (0, 1)] for i in (0, 1)], dtype=float)
        e = o.sum(1, keepdims=True) * o.sum(0, keepdims=True) / o.sum()
        return float(((o - e) ** 2 / e).sum()), float(2 * (o * np.log(o / e)).sum())

    everything = np.ones(3000, dtype=bool)
    chi0, g0 = stats(everything)
    chi1, g1 = (sum(v) for v in zip(*(stats(z == k) for k in (0, 1))))
    for method, (s0, s1) in (("chisq", (chi0, chi1)), ("gsq", (g0, g1))):
        cit = cl.CIT(d, method)
        assert cit(0, 1) == pytest.approx(_chi2_p(s0, 1), rel=1e-9, abs=1e-300)
        assert cit(1, 0, [2]) == pytest.approx(_chi2_p(s1, 2), rel=1e-9)
    x = collider_data(m=600)
    x[rng.random((600, 5)) < 0.1] = np.nan
    cit = cl.CIT(x, "mv_fisherz")
    for i, j, s in [(0, 1, []), (0, 3, [2]), (1, 4, [3, 2])]:
        rows = ~np.isnan(x[:, [i, j, *s]]).any(axis=1)
        want = fisher_p(np.corrcoef(x[rows][:, [i, j, *s]].T), int(rows.sum()), 0, 1, list(range(2, 2 + len(s))))
        assert cit(i, j, s) == pytest.approx(want, rel=1e-10, abs=1e-14)


def test_cit_against_causal_learn_itself_on_every_test():
    pytest.importorskip("causallearn")
    from causallearn.utils.cit import CIT as ClCIT

    rng = np.random.default_rng(8)
    discrete = rng.integers(0, 3, (2000, 5))
    discrete[:, 2] = (discrete[:, 0] + discrete[:, 1] + rng.integers(0, 2, 2000)) % 3
    missing = collider_data(m=800)
    missing[rng.random((800, 5)) < 0.1] = np.nan
    queries = [(0, 1, []), (0, 1, [2]), (3, 1, [2, 4]), (4, 0, [1, 2, 3])]
    for data, method in ((discrete, "chisq"), (discrete, "gsq"), (missing, "mv_fisherz"),
                         (collider_data(m=800), "fisherz")):
        theirs, ours = ClCIT(data, method), cl.CIT(data, method)
        for q in queries:
            assert ours(*q) == pytest.approx(theirs(*q), rel=1e-9, abs=1e-14), (method, q)
        assert ours.data_hash == theirs.data_hash
        # asked again (X and Y swapped, the set reversed): each side's first value, bit for
        # bit, under the same cache keys
        for (a, b, s) in queries:
            key = f"{min(a, b)};{max(a, b)}" + (f"|{'.'.join(map(str, sorted(s)))}" if s else "")
            assert ours(b, a, s[::-1]).hex() == float(ours.pvalue_cache[key]).hex()
            assert theirs(b, a, s[::-1]) == theirs.pvalue_cache[key]
            assert ours(b, a, s[::-1]) == pytest.approx(theirs(a, b, s), rel=1e-9, abs=1e-14), (method, key)
        assert sorted(ours.pvalue_cache) == sorted(theirs.pvalue_cache)
        assert ours.pvalue_cache["method_name"] == theirs.pvalue_cache["method_name"]
