// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "io/graph_reader.hpp"
#include "pc/metrics.hpp"
#include "sim/gaussian.hpp"
#include "support/paths.hpp"
#include "support/same_graph.hpp"

namespace cudag::pc {
namespace {

using Arc = std::pair<std::int32_t, std::int32_t>;

Pdag dag(std::int64_t n, const std::vector<Arc>& arcs) {
    Pdag g{Graph(n)};
    for (auto [a, b] : arcs) g.orient(a, b);
    return g;
}

using cudag::test::same_graph;

TEST(IsDag, RecognisesDags) {
    EXPECT_TRUE(is_dag(Pdag{Graph(3)}));
    EXPECT_TRUE(is_dag(dag(3, {{0, 1}, {1, 2}, {0, 2}})));
    EXPECT_FALSE(is_dag(dag(3, {{0, 1}, {1, 2}, {2, 0}})));
    Pdag u = dag(3, {{0, 1}});
    u.make_undirected(1, 2);
    EXPECT_FALSE(is_dag(u));
    Pdag b = dag(3, {{0, 1}});
    b.set(1, 2, Mark::Arrow, Mark::Arrow);
    EXPECT_FALSE(is_dag(b));
}

TEST(DagToCpdag, ChainBecomesUndirected) {
    Pdag want{Graph(3)};
    want.make_undirected(0, 1);
    want.make_undirected(1, 2);
    EXPECT_TRUE(same_graph(dag_to_cpdag(dag(3, {{0, 1}, {1, 2}})), want));
    EXPECT_TRUE(same_graph(dag_to_cpdag(dag(3, {{2, 1}, {1, 0}})), want));
    EXPECT_TRUE(same_graph(dag_to_cpdag(dag(3, {{1, 0}, {1, 2}})), want));
}

TEST(DagToCpdag, ColliderStaysDirected) {
    const Pdag g = dag(3, {{0, 2}, {1, 2}});
    EXPECT_TRUE(same_graph(dag_to_cpdag(g), g));
}

TEST(DagToCpdag, EdgeOutOfColliderIsCompelled) {
    // 0 -> 2 <- 1 and 2 -> 3: Meek's rule 1 compels 2 -> 3.
    const Pdag g = dag(4, {{0, 2}, {1, 2}, {2, 3}});
    EXPECT_TRUE(same_graph(dag_to_cpdag(g), g));
}

TEST(DagToCpdag, ShieldedTriangleIsUndirected) {
    Pdag want{Graph(3)};
    want.make_undirected(0, 1);
    want.make_undirected(1, 2);
    want.make_undirected(0, 2);
    EXPECT_TRUE(same_graph(dag_to_cpdag(dag(3, {{0, 1}, {1, 2}, {0, 2}})), want));
}

TEST(DagToCpdag, DiamondWithChordUsesRuleThree) {
    // 0 -> 1, 0 -> 2, 1 -> 3 <- 2 (1, 2 not adjacent) and 0 -> 3: the v-structure is compelled,
    // 0 -> 3 is compelled by Meek's rule 3, 0 - 1 and 0 - 2 are reversible.
    Pdag want{Graph(4)};
    want.make_undirected(0, 1);
    want.make_undirected(0, 2);
    want.orient(1, 3);
    want.orient(2, 3);
    want.orient(0, 3);
    EXPECT_TRUE(same_graph(dag_to_cpdag(dag(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {0, 3}})), want));
    want.remove(0, 3);
    EXPECT_TRUE(same_graph(dag_to_cpdag(dag(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}})), want));
}

TEST(DagToCpdag, RejectsNonDags) {
    EXPECT_THROW(dag_to_cpdag(dag(3, {{0, 1}, {1, 2}, {2, 0}})), InputError);
    Pdag u = dag(3, {{0, 1}});
    u.make_undirected(1, 2);
    EXPECT_THROW(dag_to_cpdag(u), InputError);
}

/// The CPDAG by definition: over every orientation of the skeleton that is acyclic and has
/// the same v-structures, an edge is directed iff all of them orient it the same way.
Pdag brute_force_cpdag(const Pdag& g) {
    const auto n = static_cast<std::int32_t>(g.n());
    std::vector<Arc> edges;
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j : g.neighbours(i))
            if (i < j) edges.push_back({i, j});
    auto v_structures = [&](const Pdag& d) {
        std::vector<std::vector<std::int32_t>> out;
        for (std::int32_t c = 0; c < n; ++c)
            for (std::int32_t a = 0; a < n; ++a)
                for (std::int32_t b = a + 1; b < n; ++b)
                    if (d.is_directed(a, c) && d.is_directed(b, c) && !d.adjacent(a, b)) out.push_back({a, b, c});
        return out;
    };
    const auto want_v = v_structures(g);
    std::vector<int> forward(edges.size(), 0);
    std::vector<int> backward(edges.size(), 0);
    for (std::uint64_t mask = 0; mask < (1ull << edges.size()); ++mask) {
        Pdag d{Graph(n)};
        for (std::size_t e = 0; e < edges.size(); ++e) {
            if ((mask >> e) & 1u)
                d.orient(edges[e].second, edges[e].first);
            else
                d.orient(edges[e].first, edges[e].second);
        }
        if (!is_dag(d) || v_structures(d) != want_v) continue;
        for (std::size_t e = 0; e < edges.size(); ++e) ((mask >> e) & 1u ? backward : forward)[e]++;
    }
    Pdag out{Graph(n)};
    for (std::size_t e = 0; e < edges.size(); ++e) {
        const auto [a, b] = edges[e];
        if (backward[e] == 0)
            out.orient(a, b);
        else if (forward[e] == 0)
            out.orient(b, a);
        else
            out.make_undirected(a, b);
    }
    return out;
}

TEST(DagToCpdag, MatchesBruteForceOnRandomDags) {
    CounterRng rng(314, 0);
    int checked = 0;
    for (std::uint64_t t = 0; t < 150; ++t) {
        const std::int32_t n = 4 + static_cast<std::int32_t>(t % 4);
        const auto sim = sim::simulate_gaussian(sim::GaussianSimSpec{n, 1, 0.5, t}, 1);
        if (sim.dag_edges.size() > 12) continue;
        // Relabel nodes so that index order is not a topological order.
        std::vector<std::int32_t> perm(static_cast<std::size_t>(n));
        for (std::int32_t i = 0; i < n; ++i) perm[i] = i;
        for (std::int32_t i = n - 1; i > 0; --i)
            std::swap(perm[i], perm[rng.next_u32() % static_cast<std::uint32_t>(i + 1)]);
        Pdag g{Graph(n)};
        for (const auto& [p, c, w] : sim.dag_edges) g.orient(perm[p], perm[c]);
        ASSERT_TRUE(same_graph(dag_to_cpdag(g), brute_force_cpdag(g))) << "graph " << t;
        ++checked;
    }
    EXPECT_GT(checked, 100);
}

TEST(CompareGraphs, HandComputedPair) {
    // Truth 0 -> 2 <- 1, 2 -> 3, 1 - 4. Estimate 0 -> 2 (same), 2 -> 1 (reversed), 2 - 3
    // (undirected), 3 -> 4 (extra); 1 - 4 missing. TP 3, FP 1, FN 1, SHD 1 + 1 + 1 + 1 = 4.
    Pdag truth = dag(5, {{0, 2}, {1, 2}, {2, 3}});
    truth.make_undirected(1, 4);
    Pdag est = dag(5, {{0, 2}, {2, 1}, {3, 4}});
    est.make_undirected(2, 3);
    const Comparison c = compare_graphs(truth, est);
    EXPECT_EQ(c.tp, 3);
    EXPECT_EQ(c.fp, 1);
    EXPECT_EQ(c.fn, 1);
    EXPECT_EQ(c.n_true_edges, 4);
    EXPECT_EQ(c.n_est_edges, 4);
    EXPECT_DOUBLE_EQ(c.precision, 0.75);
    EXPECT_DOUBLE_EQ(c.recall, 0.75);
    EXPECT_DOUBLE_EQ(c.f1, 0.75);
    EXPECT_EQ(c.shd, 4);
    // SHD is symmetric; precision and recall swap.
    const Comparison r = compare_graphs(est, truth);
    EXPECT_EQ(r.shd, 4);
    EXPECT_EQ(r.tp, 3);
}

TEST(CompareGraphs, UnequalPrecisionAndRecall) {
    // Truth: 0 -> 1, 1 -> 2, 2 -> 3. Estimate: 0 -> 1, 0 <-> 3.
    // TP 1, FP 1, FN 2: P = 1/2, R = 1/3, F1 = 2/5; SHD = 1 (0-3 extra) + 2 (missing) = 3.
    const Pdag truth = dag(4, {{0, 1}, {1, 2}, {2, 3}});
    Pdag est = dag(4, {{0, 1}});
    est.set(0, 3, Mark::Arrow, Mark::Arrow);
    const Comparison c = compare_graphs(truth, est);
    EXPECT_EQ(c.tp, 1);
    EXPECT_EQ(c.fp, 1);
    EXPECT_EQ(c.fn, 2);
    EXPECT_DOUBLE_EQ(c.precision, 0.5);
    EXPECT_DOUBLE_EQ(c.recall, 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(c.f1, 0.4);
    EXPECT_EQ(c.shd, 3);
}

TEST(CompareGraphs, MarksThatDifferCountOnce) {
    const Pdag a = dag(2, {{0, 1}});
    Pdag b{Graph(2)};
    b.set(0, 1, Mark::Arrow, Mark::Arrow);
    EXPECT_EQ(compare_graphs(a, b).shd, 1);
    EXPECT_EQ(compare_graphs(a, dag(2, {{1, 0}})).shd, 1);
    EXPECT_EQ(compare_graphs(a, a).shd, 0);
    EXPECT_DOUBLE_EQ(compare_graphs(a, a).f1, 1.0);
}

TEST(CompareGraphs, ZeroDenominatorsGiveZero) {
    const Pdag empty{Graph(3)};
    const Pdag one = dag(3, {{0, 1}});
    const Comparison none = compare_graphs(empty, empty);
    EXPECT_EQ(none.precision, 0.0);
    EXPECT_EQ(none.recall, 0.0);
    EXPECT_EQ(none.f1, 0.0);
    EXPECT_EQ(none.shd, 0);
    const Comparison missed = compare_graphs(one, empty);  // nothing estimated
    EXPECT_EQ(missed.precision, 0.0);
    EXPECT_EQ(missed.recall, 0.0);
    EXPECT_EQ(missed.f1, 0.0);
    EXPECT_EQ(missed.shd, 1);
    const Comparison extra = compare_graphs(empty, one);  // empty truth
    EXPECT_EQ(extra.precision, 0.0);
    EXPECT_EQ(extra.recall, 0.0);
    EXPECT_EQ(extra.fp, 1);
}

TEST(CompareGraphs, RejectsDifferentNodeCounts) {
    EXPECT_THROW(compare_graphs(Pdag{Graph(3)}, Pdag{Graph(4)}), InputError);
}

TEST(CompareGraphs, Formats) {
    Comparison c;
    c.tp = 3;
    c.fp = 1;
    c.fn = 1;
    c.precision = 0.75;
    c.recall = 0.75;
    c.f1 = 0.75;
    c.shd = 4;
    c.n_true_edges = 4;
    c.n_est_edges = 4;
    EXPECT_EQ(comparison_json(c),
              "{\"n_true_edges\": 4, \"n_est_edges\": 4, \"tp\": 3, \"fp\": 1, \"fn\": 1, "
              "\"precision\": 0.75, \"recall\": 0.75, \"f1\": 0.75, \"shd\": 4}");
    EXPECT_EQ(comparison_table(c),
              "true edges       4\n"
              "estimated edges  4\n"
              "TP               3\n"
              "FP               1\n"
              "FN               1\n"
              "precision        0.7500\n"
              "recall           0.7500\n"
              "F1               0.7500\n"
              "SHD              4\n");
}

// Expected values come from an independent script (v-structures + Meek rules 1-3 to
// closure for the CPDAG, pcalg's shd on the matrices), not from this code.
TEST(CompareGraphs, CausalLearnPcAgainstTruth) {
    const std::string dir = test::shared_data_dir();
    if (dir.empty()) GTEST_SKIP() << "shared data (../shared/data/causal-learn) not found";
    const std::string cl = dir + "/causal-learn/";
    std::vector<std::string> names;
    const Pdag truth_dag = io::read_graph(cl + "graph.10.txt", names);
    ASSERT_TRUE(is_dag(truth_dag));
    const Pdag truth = dag_to_cpdag(truth_dag);
    std::int64_t undirected = 0;
    for (std::int32_t i = 0; i < truth.n(); ++i)
        for (std::int32_t j : truth.neighbours(i)) undirected += i < j && truth.is_undirected(i, j);
    EXPECT_EQ(undirected, 4);
    const Pdag est = io::read_graph(cl + "benchmark_returned_results/linear_10_pc_fisherz_0.05_stable_0_0.txt", names);
    const Comparison c = compare_graphs(truth, est);
    EXPECT_EQ(c.tp, 25);
    EXPECT_EQ(c.fp, 2);
    EXPECT_EQ(c.fn, 5);
    EXPECT_EQ(c.shd, 9);
    EXPECT_DOUBLE_EQ(c.precision, 25.0 / 27.0);
    EXPECT_DOUBLE_EQ(c.recall, 25.0 / 30.0);
    EXPECT_DOUBLE_EQ(c.f1, 50.0 / 57.0);
}

struct BnlearnCase {
    const char* net;
    std::int64_t n, edges, undirected_in_cpdag, tp, fp, fn, shd;  // tp < 0: no PC output
};

TEST(CompareGraphs, BnlearnTruthsAgainstCausalLearnPc) {
    const std::string dir = test::shared_data_dir();
    if (dir.empty()) GTEST_SKIP() << "shared data (../shared/data/causal-learn) not found";
    const std::string base = dir + "/causal-learn/bnlearn_discrete_10000/";
    const BnlearnCase cases[] = {
        {"alarm", 37, 46, 4, 44, 2, 2, 5},     {"andes", 223, 338, 10, -1, -1, -1, -1},
        {"asia", 8, 8, 3, 5, 1, 3, 5},         {"barley", 48, 84, 9, 57, 2, 27, 38},
        {"cancer", 5, 4, 0, 4, 0, 0, 2},       {"child", 20, 25, 12, 25, 0, 0, 9},
        {"earthquake", 5, 4, 0, 4, 0, 0, 0},   {"hailfinder", 56, 66, 17, 7, 33, 59, 94},
        {"hepar2", 70, 123, 9, 70, 5, 53, 80}, {"insurance", 27, 52, 18, 42, 0, 10, 25},
        {"sachs", 11, 17, 17, 17, 0, 0, 14},   {"survey", 6, 6, 0, 6, 0, 0, 2},
        {"water", 32, 66, 6, 31, 0, 35, 39},   {"win95pts", 76, 112, 12, 76, 3, 36, 52},
    };
    for (const BnlearnCase& k : cases) {
        SCOPED_TRACE(k.net);
        std::vector<std::string> names;
        const Pdag g = io::read_graph(base + "truth_dag_graph/" + k.net + ".graph.txt", names);
        EXPECT_EQ(g.n(), k.n);
        EXPECT_EQ(g.n_edges(), k.edges);
        ASSERT_TRUE(is_dag(g));
        const Pdag truth = dag_to_cpdag(g);
        std::int64_t undirected = 0;
        for (std::int32_t i = 0; i < truth.n(); ++i)
            for (std::int32_t j : truth.neighbours(i)) undirected += i < j && truth.is_undirected(i, j);
        EXPECT_EQ(undirected, k.undirected_in_cpdag);
        if (k.tp < 0) continue;
        const Pdag est =
            io::read_graph(base + "benchmark_returned_results/" + k.net + "_pc_chisq_0.05_stable_0_-1.txt", names);
        const Comparison c = compare_graphs(truth, est);
        EXPECT_EQ(c.tp, k.tp);
        EXPECT_EQ(c.fp, k.fp);
        EXPECT_EQ(c.fn, k.fn);
        EXPECT_EQ(c.shd, k.shd);
    }
}

}  // namespace
}  // namespace cudag::pc
