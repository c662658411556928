# SPDX-License-Identifier: Apache-2.0
"""The d-separation oracle from Python (`cudag pc|fci --oracle DAG --latent ...`):
cudag.pc(oracle=dag, latent=[...]) gives a DAG's CPDAG, cudag.fci the true PAG with hidden
nodes, both equal to the command line's --oracle results (edges and separating sets) for
a DAG as a file, as an adjacency matrix and as a networkx DiGraph (when networkx is
installed); cudag.compat.causallearn's pc and fci with indep_test="d_separation" and
true_dag= give what causal-learn 0.1.4.8 gives (reference outputs below); bad input is a
one-line ValueError."""

import numpy as np
import pytest

import cudag
from cudag.compat import causallearn as cl
from conftest import run_cli


def adjacency(n: int, edges) -> np.ndarray:
    a = np.zeros((n, n), dtype=int)
    for i, j in edges:
        a[i, j] = 1
    return a


def flip(mark: str) -> str:
    """A mark read from the other end: 'o->' is '<-o'."""
    return mark[::-1].translate(str.maketrans("<>", "><"))


def edge_set(edges) -> set:
    """Edges (source, target, mark) in one form each: the smaller name first."""
    return {(a, b, m) if a < b else (b, a, flip(m)) for a, b, m in edges}


def sepset_set(result) -> dict:
    return {frozenset(pair): tuple(sorted(s)) for pair, s in result.sepsets_by_name.items()}


# ---- cudag.pc / cudag.fci ------------------------------------------------------------

def test_pc_oracle_gives_the_cpdag():
    # X1 -> X3 <- X2, X3 -> X4, X3 -> X5: every edge is compelled.
    res = cudag.pc(oracle=adjacency(5, [(0, 2), (1, 2), (2, 3), (2, 4)]))
    assert res.names == ["X1", "X2", "X3", "X4", "X5"]
    assert edge_set(res.edges()) == {("X1", "X3", "-->"), ("X2", "X3", "-->"), ("X3", "X4", "-->"),
                                     ("X3", "X5", "-->")}
    assert res.sepset("X1", "X2") == () and res.sepset("X4", "X5") == (2,)
    assert res.config["test"] == "d-separation" and res.config["oracle_dag"] == "<adjacency>"
    assert res.n_samples == 0
    # The diamond A -> B -> D <- C <- A: A's edges reversible, D's collider compelled.
    res = cudag.pc(oracle=adjacency(4, [(0, 1), (0, 2), (1, 3), (2, 3)]), names=["A", "B", "C", "D"])
    assert edge_set(res.edges()) == {("A", "B", "---"), ("A", "C", "---"), ("B", "D", "-->"), ("C", "D", "-->")}
    assert res.sepsets_by_name == {("A", "D"): ("B", "C"), ("B", "C"): ("A",)}


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_pc_oracle_on_simulated_dags_gives_their_cpdags(seed):
    sim = cudag.simulate("gaussian", vars=25, samples=5, density=0.15, seed=seed)
    res = cudag.pc(oracle=sim)  # the SimulateResult's true DAG
    assert res.names == sim.names
    assert cudag.compare(sim, res)["shd"] == 0  # a DAG is compared as its CPDAG


def test_fci_oracle_with_a_latent_gives_the_known_pag():
    # X1 -> X2 <- L -> X3 <- X4 with L hidden: X1 o-> X2 <-> X3 <-o X4 (FCI and RFCI).
    dag = adjacency(5, [(0, 1), (4, 1), (4, 2), (3, 2)])
    names = ["X1", "X2", "X3", "X4", "L"]
    want = {("X1", "X2", "o->"), ("X2", "X3", "<->"), ("X3", "X4", "<-o")}
    for variant in ("fci", "rfci"):
        pag = cudag.fci(oracle=dag, names=names, latent=["L"], variant=variant)
        assert pag.names == ["X1", "X2", "X3", "X4"]
        assert edge_set(pag.edges()) == want
        assert pag.config["oracle_latent"] == "L"
    # Without the latent: L a node like the others; the two colliders only are oriented.
    pag = cudag.fci(oracle=dag, names=names)
    assert edge_set(pag.edges()) == {("L", "X2", "o->"), ("L", "X3", "o->"), ("X1", "X2", "o->"),
                                     ("X3", "X4", "<-o")}


def read_tsv_dag(path):
    """The nodes of a DAG TSV (source, target, mark) in order of first appearance, as the
    command line reads them, and its edges."""
    names, edges = [], []
    for line in open(path).read().splitlines()[1:]:
        a, b = line.split("\t")[:2]
        for v in (a, b):
            if v not in names:
                names.append(v)
        edges.append((names.index(a), names.index(b)))
    return names, edges


@pytest.mark.parametrize("learner,seed,variant", [("pc", 11, None), ("fci", 12, "fci"), ("fci", 13, "rfci"),
                                                   ("fci", 14, "fci")])
def test_oracle_equals_the_command_line(tmp_path, learner, seed, variant):
    csv, tsv, out = tmp_path / "d.csv", tmp_path / "truth.tsv", tmp_path / "r.h5"
    run_cli("simulate", "gaussian", "--vars", 16, "--samples", 5, "--density", 0.25, "--seed", seed,
            "--out", csv, "--truth", tsv)
    names, edges = read_tsv_dag(tsv)
    latent = names[1:3] if learner == "fci" else []
    args = [learner, "--oracle", tsv, "--out", out, "-q"]
    if latent:
        args += ["--latent", ",".join(latent)]
    if variant:
        args += ["--variant", variant]
    run_cli(*args)
    cli = cudag.load(out)
    learn = cudag.pc if learner == "pc" else cudag.fci
    opts = {"variant": variant} if variant else {}
    runs = [learn(oracle=tsv, latent=latent or None, **opts),
            learn(oracle=adjacency(len(names), edges), names=names, latent=latent or None, **opts)]
    try:
        import networkx as nx
        g = nx.DiGraph()
        g.add_nodes_from(names)
        g.add_edges_from((names[a], names[b]) for a, b in edges)
        runs.append(learn(oracle=g, latent=latent or None, **opts))
    except ImportError:
        pass
    for res in runs:
        assert res.names == cli.names
        assert res.edges() == cli.edges()
        assert sepset_set(res) == sepset_set(cli)
        assert res.sepsets == cli.sepsets
    if learner == "pc":
        assert all((r.cpdag == cli.cpdag).all() for r in runs)
    else:
        assert all((r.pag == cli.pag).all() for r in runs)


def test_oracle_from_networkx():
    nx = pytest.importorskip("networkx", reason="networkx is not installed (the adjacency form runs without it)")
    g = nx.DiGraph([(0, 1), (7, 1), (7, 2), (3, 2)])  # nodes named str(node), in the graph's order
    pag = cudag.fci(oracle=g, latent=[7])
    assert pag.names == ["0", "1", "2", "3"]
    assert edge_set(pag.edges()) == {("0", "1", "o->"), ("1", "2", "<->"), ("2", "3", "<-o")}
    with pytest.raises(ValueError, match="undirected"):
        cudag.pc(oracle=nx.Graph([(0, 1)]))


@pytest.mark.parametrize("call,message", [
    (lambda: cudag.pc(oracle=adjacency(3, [(0, 1), (1, 2), (2, 0)])), "directed cycle"),
    (lambda: cudag.fci(oracle=adjacency(3, [(0, 1), (1, 2)]), latent=["Q"]), "'Q' is not a node"),
    (lambda: cudag.pc(np.zeros((10, 3)), oracle=adjacency(3, [(0, 1)])), "without data"),
    (lambda: cudag.pc(oracle=adjacency(3, [(0, 1)]), test="fisher-z"), "drop test="),
    (lambda: cudag.pc(np.zeros((10, 3)), latent=["X1"]), "give oracle="),
    (lambda: cudag.pc(oracle=np.array([[0, 2], [0, 0]])), "other than 0 and 1"),
    (lambda: cudag.pc(oracle=np.zeros((2, 3))), "n x n"),
    (lambda: cudag.pc(oracle=adjacency(2, [(0, 1)]), names=["A", "A"]), "two nodes are named 'A'"),
    (lambda: cudag.pc(oracle=adjacency(2, [(0, 1)]), names=["A"]), "1 names for the 2 nodes"),
    (lambda: cudag.pc(oracle=adjacency(2, [(0, 1)]), backend="cuda"), "CPU only"),
    (lambda: cl.pc(np.empty((0, 3)), 0.05, "d_separation"), "needs true_dag="),
    (lambda: cl.fci(np.empty((0, 3)), "d_separation", 0.05, true_dag=adjacency(2, [(0, 1)])),
     "no node 2 for column 2"),
    (lambda: cl.pc(np.empty((0, 3)), 0.05, "d_separation", true_dag=adjacency(3, [(0, 1), (1, 0)])),
     "directed cycle"),
])
def test_bad_oracle_input_is_a_one_line_value_error(call, message):
    with pytest.raises(ValueError, match=message) as e:
        call()
    assert "\n" not in str(e.value)


def test_no_data_and_no_oracle():
    with pytest.raises(TypeError, match="needs the data"):
        cudag.pc()


# ---- causal-learn's d_separation -------------------------------------------------------

# causal-learn 0.1.4.8's own results: scripts/dev/dsep_reference.py ran its pc (cg.G.graph)
# and fci (G.graph) with indep_test=d_separation on a networkx DiGraph with nodes 0..nodes-1
# and the listed edges, on np.empty((0, columns)) (nodes from `columns` on are hidden), alpha
# 0.05, uc_rule/uc_priority as in `extra` (else 0 and 2); networkx 3.6.1. Every node list was
# X1..X<columns>.
CAUSAL_LEARN = [
    dict(name='collider', learner='pc', nodes=5, columns=5, extra={},
         edges=[(0, 2), (1, 2), (2, 3), (2, 4)],
         graph=[[0, 0, -1, 0, 0], [0, 0, -1, 0, 0], [1, 1, 0, -1, -1], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0]]),
    dict(name='diamond', learner='pc', nodes=4, columns=4, extra={},
         edges=[(0, 1), (0, 2), (1, 3), (2, 3)],
         graph=[[0, -1, -1, 0], [-1, 0, 0, -1], [-1, 0, 0, -1], [0, 1, 1, 0]]),
    dict(name='ten', learner='pc', nodes=10, columns=10, extra={},
         edges=[(0, 3), (1, 3), (2, 4), (3, 5), (4, 5), (5, 6), (5, 7), (6, 8), (7, 8), (1, 9), (9, 8), (2, 7)],
         graph=[[0, 0, 0, -1, 0, 0, 0, 0, 0, 0],
                [0, 0, 0, -1, 0, 0, 0, 0, 0, -1],
                [0, 0, 0, 0, -1, 0, 0, -1, 0, 0],
                [1, 1, 0, 0, 0, -1, 0, 0, 0, 0],
                [0, 0, -1, 0, 0, -1, 0, 0, 0, 0],
                [0, 0, 0, 1, 1, 0, -1, -1, 0, 0],
                [0, 0, 0, 0, 0, 1, 0, 0, -1, 0],
                [0, 0, 1, 0, 0, 1, 0, 0, -1, 0],
                [0, 0, 0, 0, 0, 0, 1, 1, 0, 1],
                [0, -1, 0, 0, 0, 0, 0, 0, -1, 0]]),
    dict(name='ten_maxp', learner='pc', nodes=10, columns=10, extra={'uc_rule': 1, 'uc_priority': -1},
         edges=[(0, 3), (1, 3), (2, 4), (3, 5), (4, 5), (5, 6), (5, 7), (6, 8), (7, 8), (1, 9), (9, 8), (2, 7)],
         graph=[[0, 0, 0, -1, 0, 0, 0, 0, 0, 0],
                [0, 0, 0, -1, 0, 0, 0, 0, 0, -1],
                [0, 0, 0, 0, -1, 0, 0, -1, 0, 0],
                [1, 1, 0, 0, 0, -1, 0, 0, 0, 0],
                [0, 0, -1, 0, 0, -1, 0, 0, 0, 0],
                [0, 0, 0, 1, 1, 0, -1, -1, 0, 0],
                [0, 0, 0, 0, 0, 1, 0, 0, -1, 0],
                [0, 0, 1, 0, 0, 1, 0, 0, -1, 0],
                [0, 0, 0, 0, 0, 0, 1, 1, 0, 1],
                [0, -1, 0, 0, 0, 0, 0, 0, -1, 0]]),
    dict(name='ten_definite_maxp', learner='pc', nodes=10, columns=10, extra={'uc_rule': 2, 'uc_priority': -1},
         edges=[(0, 3), (1, 3), (2, 4), (3, 5), (4, 5), (5, 6), (5, 7), (6, 8), (7, 8), (1, 9), (9, 8), (2, 7)],
         graph=[[0, 0, 0, -1, 0, 0, 0, 0, 0, 0],
                [0, 0, 0, -1, 0, 0, 0, 0, 0, -1],
                [0, 0, 0, 0, -1, 0, 0, -1, 0, 0],
                [1, 1, 0, 0, 0, -1, 0, 0, 0, 0],
                [0, 0, -1, 0, 0, -1, 0, 0, 0, 0],
                [0, 0, 0, 1, 1, 0, -1, -1, 0, 0],
                [0, 0, 0, 0, 0, 1, 0, 0, -1, 0],
                [0, 0, 1, 0, 0, 1, 0, 0, -1, 0],
                [0, 0, 0, 0, 0, 0, 1, 1, 0, 1],
                [0, -1, 0, 0, 0, 0, 0, 0, -1, 0]]),
    dict(name='pc_latent', learner='pc', nodes=6, columns=5, extra={},
         edges=[(5, 0), (5, 1), (0, 2), (1, 3), (2, 4), (3, 4)],
         graph=[[0, -1, -1, 0, 0], [-1, 0, 0, -1, 0], [-1, 0, 0, 0, -1], [0, -1, 0, 0, -1], [0, 0, 1, 1, 0]]),
    dict(name='fci_simple', learner='fci', nodes=4, columns=4, extra={},
         edges=[(0, 1), (0, 2), (1, 3), (2, 3)],
         graph=[[0, 2, 2, 0], [2, 0, 0, -1], [2, 0, 0, -1], [0, 1, 1, 0]]),
    dict(name='fci_two_latent', learner='fci', nodes=9, columns=7, extra={},
         edges=[(7, 0), (7, 1), (8, 3), (8, 4), (2, 5), (2, 6), (5, 1), (6, 3), (3, 0), (1, 4)],
         graph=[[0, 1, 0, 1, 0, 0, 0],
                [1, 0, 0, 0, -1, 1, 0],
                [0, 0, 0, 0, 0, 2, 2],
                [-1, 0, 0, 0, 1, 0, 1],
                [0, 1, 0, 1, 0, 0, 0],
                [0, 2, 2, 0, 0, 0, 0],
                [0, 0, 2, 2, 0, 0, 0]]),
    dict(name='fci_fritl', learner='fci', nodes=10, columns=7, extra={},
         edges=[(7, 0), (7, 5), (8, 0), (8, 6), (9, 3), (9, 4), (9, 6), (0, 1), (0, 2), (1, 2), (2, 4), (5, 6)],
         graph=[[0, 2, 2, 0, 0, 2, 2],
                [2, 0, 2, 0, 0, 0, 0],
                [2, 2, 0, 0, 2, 0, 0],
                [0, 0, 0, 0, 2, 0, 2],
                [0, 0, 1, 1, 0, 0, 1],
                [2, 0, 0, 0, 0, 0, 2],
                [1, 0, 0, 1, 1, 1, 0]]),
    dict(name='fci_collider', learner='fci', nodes=5, columns=5, extra={},
         edges=[(0, 2), (1, 2), (2, 3), (2, 4)],
         graph=[[0, 0, 2, 0, 0], [0, 0, 2, 0, 0], [1, 1, 0, -1, -1], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0]]),
]


def causal_learn_run(case, true_dag):
    x = np.empty((0, case["columns"]))
    if case["learner"] == "pc":
        extra = case["extra"]
        return cl.pc(x, 0.05, "d_separation", True, extra.get("uc_rule", 0), extra.get("uc_priority", 2),
                     show_progress=False, true_dag=true_dag).G
    g, _ = cl.fci(x, cl.D_SEPARATION, 0.05, show_progress=False, true_dag=true_dag)
    return g


@pytest.mark.parametrize("case", CAUSAL_LEARN, ids=[c["name"] for c in CAUSAL_LEARN])
def test_causal_learn_d_separation_equals_causal_learn(case):
    g = causal_learn_run(case, adjacency(case["nodes"], case["edges"]))
    assert np.asarray(g.graph).tolist() == case["graph"]
    assert g.get_node_names() == [f"X{k + 1}" for k in range(case["columns"])]


@pytest.mark.parametrize("case", CAUSAL_LEARN, ids=[c["name"] for c in CAUSAL_LEARN])
def test_causal_learn_d_separation_on_networkx_equals_causal_learn(case):
    nx = pytest.importorskip("networkx", reason="networkx is not installed (the adjacency form runs without it)")
    g = nx.DiGraph()
    g.add_nodes_from(reversed(range(case["nodes"])))  # column k is node k, whatever the node order
    g.add_edges_from(case["edges"])
    assert np.asarray(causal_learn_run(case, g).graph).tolist() == case["graph"]


def test_causal_learn_d_separation_names_and_hidden_labels():
    # node_names name the columns; a hidden node may have any label, even a column's name.
    true_dag = adjacency(5, [(0, 1), (4, 1), (4, 2), (3, 2)])
    g, _ = cl.fci(np.empty((0, 4)), "d_separation", 0.05, show_progress=False, true_dag=true_dag,
                  node_names=["a", "b", "c", "latent[4]"])
    assert g.get_node_names() == ["a", "b", "c", "latent[4]"]
    # a o-> b <-> c <-o latent[4] (causal-learn 0.1.4.8 gives the same matrix on this DAG).
    assert np.asarray(g.graph).tolist() == [[0, 2, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 2, 0]]
    cg = cl.pc(np.empty((0, 4)), 0.05, "d_separation", show_progress=False, true_dag=true_dag,
               node_names=["a", "b", "c", "latent[4]"])
    assert cg.result.config["oracle_latent"] == "_latent[4]"  # the hidden node 4, named unlike any column
    assert cg.node_names == ["a", "b", "c", "latent[4]"]


def test_causal_graph_queries_read_the_matrix():
    # The diamond's CPDAG: X1 --- X2, X1 --- X3, X2 --> X4 <-- X3 (causal-learn's CausalGraph queries).
    cg = cl.pc(np.empty((0, 4)), 0.05, "d_separation", show_progress=False,
               true_dag=adjacency(4, [(0, 1), (0, 2), (1, 3), (2, 3)]))
    pairs = lambda found: sorted((int(a), int(b)) for a, b in found)  # noqa: E731
    assert pairs(cg.find_fully_directed()) == [(1, 3), (2, 3)]
    assert pairs(cg.find_undirected()) == [(0, 1), (0, 2), (1, 0), (2, 0)]
    assert cg.find_bi_directed() == []
    assert pairs(cg.find_arrow_heads()) == [(1, 3), (2, 3)]
    assert len(cg.find_adj()) == 8 and cg.max_degree() == 2
    assert cg.neighbors(3).tolist() == [1, 2]
    assert cg.is_fully_directed(1, 3) and not cg.is_fully_directed(3, 1) and cg.is_undirected(0, 1)
    assert cg.PC_elapsed >= 0
