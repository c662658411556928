// SPDX-License-Identifier: Apache-2.0
// PC on the d-separation oracle (`--oracle`, issue 54): with every node observed, PC-stable
// must give exactly the DAG's CPDAG, on hundreds of random DAGs; with latent nodes, the
// skeleton is what d-separation over the observed nodes says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/dsep.hpp"
#include "core/error.hpp"
#include "pc/metrics.hpp"
#include "pc/run.hpp"
#include "skeleton/ci_tests.hpp"
#include "support/same_graph.hpp"

namespace cudag::pc {
namespace {

/// A random DAG on n nodes (edges forward along a random order, each with probability
/// `density`) as a Dag and as a Pdag.
std::pair<Dag, Pdag> random_dag(int n, double density, std::mt19937_64& rng) {
    std::vector<std::int32_t> order(static_cast<std::size_t>(n));
    for (int v = 0; v < n; ++v) order[static_cast<std::size_t>(v)] = v;
    std::shuffle(order.begin(), order.end(), rng);
    Dag dag(n);
    Pdag pdag{Graph(n)};
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b)
            if (u(rng) < density) {
                dag.add_edge(order[static_cast<std::size_t>(a)], order[static_cast<std::size_t>(b)]);
                pdag.orient(order[static_cast<std::size_t>(a)], order[static_cast<std::size_t>(b)]);
            }
    return {std::move(dag), std::move(pdag)};
}

std::vector<std::string> node_names(std::int64_t n) {
    std::vector<std::string> names;
    for (std::int64_t v = 0; v < n; ++v) {
        std::string name = "X";  // not "X" + to_string(v): GCC 12 warns falsely (-Wrestrict)
        name += std::to_string(v);
        names.push_back(std::move(name));
    }
    return names;
}

/// The oracle's variables as the data PC runs on (names, no samples), and the config.
Dataset oracle_data(const std::shared_ptr<const DsepOracle>& oracle, PcConfig& cfg) {
    Dataset data;
    data.names = oracle->var_names();
    data.n_vars = oracle->n_vars();
    data.source = oracle->source();
    cfg.test.oracle = oracle;
    cfg.backend.kind = BackendKind::Cpu;
    cfg.backend.threads = 1;
    return data;
}

using cudag::test::same_graph;

TEST(DsepOraclePc, GivesTheCpdagOfHundredsOfRandomDags) {
    std::mt19937_64 rng(54);
    int with_arrows = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const int n = 5 + static_cast<int>(rng() % 8);  // 5..12 nodes
        const double density = 0.1 + 0.5 * std::uniform_real_distribution<double>(0.0, 1.0)(rng);
        auto [dag, pdag] = random_dag(n, density, rng);
        const Pdag want = dag_to_cpdag(pdag);
        const auto oracle =
            std::make_shared<const DsepOracle>(std::move(dag), node_names(n), std::vector<std::string>{}, "random DAG");
        for (const skeleton::Compat compat : {skeleton::Compat::Pcalg, skeleton::Compat::CausalLearn}) {
            PcConfig cfg;
            cfg.compat = compat;
            const Dataset data = oracle_data(oracle, cfg);
            const PcResult r = run_pc(data, cfg);
            ASSERT_TRUE(same_graph(r.cpdag, want)) << "trial " << trial << " (" << n << " nodes, density " << density
                                                   << "), --compat " << to_string(compat);
        }
        bool arrows = false;
        for (std::int32_t i = 0; i < want.n() && !arrows; ++i)
            for (const std::int32_t j : want.neighbours(i)) arrows = arrows || want.is_directed(i, j);
        with_arrows += arrows;
    }
    EXPECT_GT(with_arrows, 100);  // the orientation rules are exercised, not only skeletons
}

TEST(DsepOraclePc, KeepsALatentCommonCausesChildrenAdjacent) {
    // L -> A, L -> B, A -> C, B -> D with L latent: A and B are never separated.
    Dag dag(5);
    dag.add_edge(0, 1);
    dag.add_edge(0, 2);
    dag.add_edge(1, 3);
    dag.add_edge(2, 4);
    const auto oracle = std::make_shared<const DsepOracle>(
        std::move(dag), std::vector<std::string>{"L", "A", "B", "C", "D"}, std::vector<std::string>{"L"}, "latent DAG");
    PcConfig cfg;
    const Dataset data = oracle_data(oracle, cfg);
    const PcResult r = run_pc(data, cfg);
    EXPECT_EQ(r.names, (std::vector<std::string>{"A", "B", "C", "D"}));
    EXPECT_TRUE(r.cpdag.adjacent(0, 1));   // A - B
    EXPECT_TRUE(r.cpdag.adjacent(0, 2));   // A - C
    EXPECT_TRUE(r.cpdag.adjacent(1, 3));   // B - D
    EXPECT_FALSE(r.cpdag.adjacent(2, 3));  // C ⟂ D | A
    EXPECT_EQ(r.cpdag.n_edges(), 3);
}

TEST(DsepOraclePc, RefusesAnotherTestAndTheCudaBackend) {
    Dag dag(2);
    dag.add_edge(0, 1);
    const auto oracle = std::make_shared<const DsepOracle>(std::move(dag), std::vector<std::string>{"A", "B"},
                                                           std::vector<std::string>{}, "g");
    PcConfig cfg;
    const Dataset data = oracle_data(oracle, cfg);
    PcConfig other = cfg;
    other.test.kind = skeleton::TestKind::FisherZ;
    EXPECT_THROW(run_pc(data, other), InputError);
    PcConfig cuda = cfg;
    cuda.backend.kind = BackendKind::Cuda;
    EXPECT_THROW(run_pc(data, cuda), InputError);
}

TEST(DsepOracleCiTest, AnswersSingleTestsAsDsepTest) {
    // a -> b -> c: a ⟂ c | b only.
    Dag dag(3);
    dag.add_edge(0, 1);
    dag.add_edge(1, 2);
    const auto oracle = std::make_shared<const DsepOracle>(std::move(dag), std::vector<std::string>{"a", "b", "c"},
                                                           std::vector<std::string>{}, "chain");
    PcConfig cfg;
    const Dataset data = oracle_data(oracle, cfg);
    const auto test = skeleton::make_ci_test(data, resolve_test(cfg, data), skeleton::Compat::Pcalg, 1);
    EXPECT_EQ(test->name(), "d-separation");
    const std::vector<std::int32_t> none, b{1};
    EXPECT_EQ(test->test(0, 2, none).p, 0.0);
    EXPECT_EQ(test->test(0, 2, b).p, 1.0);
    EXPECT_EQ(test->test(0, 1, none).p, 0.0);
}

}  // namespace
}  // namespace cudag::pc
