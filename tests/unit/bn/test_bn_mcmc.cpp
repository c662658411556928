// SPDX-License-Identifier: Apache-2.0
// Order MCMC (bn/order_mcmc.hpp): sum-mode edge posteriors against the exact enumeration,
// chains that do not depend on the thread count, incremental rescoring against a full one,
// and max mode reaching the best of all orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <vector>

#include "bn/order_mcmc.hpp"
#include "bn/score.hpp"
#include "bn/score_table.hpp"
#include "core/error.hpp"
#include "support/bn_sim.hpp"

namespace {

using cudag::bn::DiscreteScorer;
using cudag::bn::OrderMcmcOptions;
using cudag::bn::OrderScoreMode;
using cudag::bn::ScoreTable;

using cudag::test::simulated_scorer;

/// Options for one thread; thin 1 unless changed by the caller.
OrderMcmcOptions options(int chains, std::int64_t iterations, std::int64_t burn_in, std::uint64_t seed,
                         OrderScoreMode mode) {
    OrderMcmcOptions o;
    o.chains = chains;
    o.iterations = iterations;
    o.burn_in = burn_in;
    o.seed = seed;
    o.mode = mode;
    o.threads = 1;
    return o;
}

TEST(OrderMcmc, SumModeEdgePosteriorsMatchExactEnumeration) {
    const DiscreteScorer scorer = simulated_scorer(5, 100, 21);
    const ScoreTable table = ScoreTable::build(scorer, 2, 1);
    const std::vector<double> exact = cudag::bn::exact_edge_posteriors(table).edge_prob;
    const auto r = cudag::bn::run_order_mcmc(table, options(4, 20000, 2000, 7, OrderScoreMode::Sum));
    ASSERT_EQ(r.edge_prob.size(), exact.size());
    double worst = 0.0;
    int uncertain = 0;  // edges whose exact posterior is far from 0 and 1: the check has teeth
    for (std::size_t e = 0; e < exact.size(); ++e) {
        worst = std::max(worst, std::abs(r.edge_prob[e] - exact[e]));
        if (exact[e] > 0.1 && exact[e] < 0.9) ++uncertain;
    }
    EXPECT_LT(worst, 0.05);
    EXPECT_GE(uncertain, 1);
    std::printf("[ info ] max |MCMC - exact| edge posterior = %.4f over %zu entries (%d with 0.1 < exact < 0.9)\n",
                worst, exact.size(), uncertain);
    for (const auto& c : r.chains) {
        EXPECT_EQ(c.trace.size(), 18000u);
        EXPECT_GT(c.acceptance_rate, 0.0);
        EXPECT_LE(c.acceptance_rate, 1.0);
        // The best DAG within the best order, scored node by node.
        ASSERT_EQ(c.best_parents.size(), 5u);
        double dag = 0.0;
        for (std::int32_t v = 0; v < 5; ++v) dag += table.lookup(v, c.best_parents[v]);
        EXPECT_NEAR(dag, c.best_dag_score, 1e-9 * std::abs(dag));
    }
}

TEST(OrderMcmc, BidagMovesAlsoMatchExactEnumeration) {
    const DiscreteScorer scorer = simulated_scorer(5, 100, 21);
    const ScoreTable table = ScoreTable::build(scorer, 2, 1);
    const std::vector<double> exact = cudag::bn::exact_edge_posteriors(table).edge_prob;
    OrderMcmcOptions o = options(4, 20000, 2000, 9, OrderScoreMode::Sum);
    o.moves = cudag::bn::MoveSet::Bidag;
    const auto r = cudag::bn::run_order_mcmc(table, o);
    double worst = 0.0;
    for (std::size_t e = 0; e < exact.size(); ++e) worst = std::max(worst, std::abs(r.edge_prob[e] - exact[e]));
    EXPECT_LT(worst, 0.05);
    // The mixture differs from plain swaps, with the same seed.
    o.moves = cudag::bn::MoveSet::Swap;
    EXPECT_NE(cudag::bn::run_order_mcmc(table, o).chains[0].trace, r.chains[0].trace);
    // Adjacent swaps and stays occur: proposals with j = i + 1 and i = j.
    int adjacent = 0, stay = 0;
    for (std::int64_t t = 1; t <= 2000; ++t) {
        const auto p = cudag::bn::swap_proposal(9, 0, t, 5, cudag::bn::MoveSet::Bidag);
        ASSERT_TRUE(p.i <= p.j && p.j < 5);
        adjacent += p.j == p.i + 1;
        stay += p.i == p.j;
    }
    EXPECT_GT(adjacent, 600);  // p1 = 0.73 at n = 5: 26% adjacent moves plus swaps of neighbours
    EXPECT_GT(stay, 5);
    EXPECT_LT(stay, 50);
}

TEST(OrderMcmc, SameSeedSameChainsOnAnyThreadCount) {
    const DiscreteScorer scorer = simulated_scorer(6, 150, 5);
    const ScoreTable table = ScoreTable::build(scorer, 2, 1);
    for (const OrderScoreMode mode : {OrderScoreMode::Sum, OrderScoreMode::Max}) {
        OrderMcmcOptions o = options(5, 3000, 500, 99, mode);
        o.thin = 7;
        const auto one = cudag::bn::run_order_mcmc(table, o);
        o.threads = 3;
        const auto three = cudag::bn::run_order_mcmc(table, o);
        EXPECT_EQ(one.edge_prob, three.edge_prob);
        EXPECT_EQ(one.edge_prob.size(), 36u);
        ASSERT_EQ(one.chains.size(), 5u);
        for (std::size_t c = 0; c < 5; ++c) {
            EXPECT_EQ(one.chains[c].trace.size(), static_cast<std::size_t>((3000 - 500) / 7));
            EXPECT_EQ(one.chains[c].trace, three.chains[c].trace);
            EXPECT_EQ(one.chains[c].acceptance_rate, three.chains[c].acceptance_rate);
            EXPECT_EQ(one.chains[c].best_order, three.chains[c].best_order);
            EXPECT_EQ(one.chains[c].best_score, three.chains[c].best_score);
            EXPECT_EQ(one.chains[c].final_order, three.chains[c].final_order);
        }
        // Chains of one run start apart and walk apart.
        EXPECT_NE(one.chains[0].trace, one.chains[1].trace);
        o.seed = 100;
        const auto other = cudag::bn::run_order_mcmc(table, o);
        for (std::size_t c = 0; c < 5; ++c) EXPECT_NE(one.chains[c].trace, other.chains[c].trace) << "chain " << c;
    }
}

TEST(OrderMcmc, IncrementalScoresEqualFullRescoring) {
    const DiscreteScorer scorer = simulated_scorer(7, 200, 3);
    const ScoreTable table = ScoreTable::build(scorer, 3, 1);
    for (const OrderScoreMode mode : {OrderScoreMode::Sum, OrderScoreMode::Max}) {
        const auto r = cudag::bn::run_order_mcmc(table, options(3, 2000, 0, 4, mode));
        for (const auto& c : r.chains) {
            const double full = mode == OrderScoreMode::Sum ? cudag::bn::order_score_sum(table, c.final_order).total
                                                            : cudag::bn::order_score_max(table, c.final_order).total;
            EXPECT_EQ(c.final_score, full);
            EXPECT_EQ(c.trace.back(), full);
            const double best = mode == OrderScoreMode::Sum ? cudag::bn::order_score_sum(table, c.best_order).total
                                                            : cudag::bn::order_score_max(table, c.best_order).total;
            EXPECT_EQ(c.best_score, best);
            EXPECT_EQ(c.best_score, *std::max_element(c.trace.begin(), c.trace.end()));
        }
    }
}

TEST(OrderMcmc, MaxModeFindsTheBestOrder) {
    const DiscreteScorer scorer = simulated_scorer(5, 300, 13);
    const ScoreTable table = ScoreTable::build(scorer, 4, 1);
    std::vector<std::int32_t> order(5);
    std::iota(order.begin(), order.end(), 0);
    double best = -std::numeric_limits<double>::infinity();
    do {
        best = std::max(best, cudag::bn::order_score_max(table, order).total);
    } while (std::next_permutation(order.begin(), order.end()));
    const auto r = cudag::bn::run_order_mcmc(table, options(2, 2000, 0, 1, OrderScoreMode::Max));
    for (const auto& c : r.chains) {
        EXPECT_EQ(c.best_score, best);
        // The MAP DAG of the best order scores the same, node by node.
        ASSERT_EQ(c.best_parents.size(), 5u);
        double dag = 0.0;
        for (std::int32_t v = 0; v < 5; ++v) dag += table.lookup(v, c.best_parents[v]);
        EXPECT_NEAR(dag, best, 1e-9);
    }
}

/// Every field of two results, bit for bit.
void expect_same(const cudag::bn::OrderMcmcResult& a, const cudag::bn::OrderMcmcResult& b) {
    EXPECT_EQ(a.edge_prob, b.edge_prob);
    ASSERT_EQ(a.chains.size(), b.chains.size());
    for (std::size_t c = 0; c < a.chains.size(); ++c) {
        EXPECT_EQ(a.chains[c].trace, b.chains[c].trace);
        EXPECT_EQ(a.chains[c].acceptance_rate, b.chains[c].acceptance_rate);
        EXPECT_EQ(a.chains[c].best_order, b.chains[c].best_order);
        EXPECT_EQ(a.chains[c].best_score, b.chains[c].best_score);
        EXPECT_EQ(a.chains[c].best_parents, b.chains[c].best_parents);
        EXPECT_EQ(a.chains[c].final_order, b.chains[c].final_order);
        EXPECT_EQ(a.chains[c].final_score, b.chains[c].final_score);
        EXPECT_EQ(a.chains[c].edge_sum, b.chains[c].edge_sum);
        EXPECT_EQ(a.chains[c].edge_sumsq, b.chains[c].edge_sumsq);
    }
}

TEST(OrderMcmc, RunCutIntoPiecesEqualsOneRun) {
    const DiscreteScorer scorer = simulated_scorer(6, 150, 8);
    const ScoreTable table = ScoreTable::build(scorer, 3, 1);
    for (const OrderScoreMode mode : {OrderScoreMode::Sum, OrderScoreMode::Max}) {
        OrderMcmcOptions o = options(3, 1500, 300, 5, mode);
        o.thin = 3;
        const auto whole = cudag::bn::run_order_mcmc(table, o);
        std::vector<cudag::bn::ChainState> states;
        for (int c = 0; c < 3; ++c) states.push_back(cudag::bn::start_chain(table, o, c));
        // Stops before, inside and after the burn-in, on and off the thinning grid.
        for (const std::int64_t until : {1, 299, 300, 301, 777, 1499, 1500}) {
            cudag::bn::advance_chains(table, o, states, until);
            for (const auto& st : states) EXPECT_EQ(st.done, until);
        }
        expect_same(whole, cudag::bn::finish_chains(table, o, states));
    }
}

TEST(OrderMcmc, LazyEdgeSumsEqualPlainSums) {
    // Replay one chain iteration by iteration and add the current order's edge values plainly.
    const DiscreteScorer scorer = simulated_scorer(5, 120, 17);
    const ScoreTable table = ScoreTable::build(scorer, 2, 1);
    for (const OrderScoreMode mode : {OrderScoreMode::Sum, OrderScoreMode::Max}) {
        OrderMcmcOptions o = options(1, 600, 100, 3, mode);
        o.thin = 2;
        cudag::bn::ChainState st = cudag::bn::start_chain(table, o, 0);
        std::vector<double> plain(25, 0.0);
        for (std::int64_t t = 1; t <= o.iterations; ++t) {
            std::vector<cudag::bn::ChainState> one{st};
            cudag::bn::advance_chains(table, o, one, t);
            st = one[0];
            if (t > o.burn_in && (t - o.burn_in) % o.thin == 0) {
                if (mode == OrderScoreMode::Sum) {
                    const auto e = cudag::bn::order_score_sum(table, st.order).edge_prob;
                    for (std::size_t i = 0; i < 25; ++i) plain[i] += e[i];
                } else {
                    const auto parents = cudag::bn::order_score_max(table, st.order).parents;
                    for (std::int32_t v = 0; v < 5; ++v)
                        for (const std::int32_t p : parents[v]) plain[p * 5 + v] += 1.0;
                }
            }
        }
        const auto r = cudag::bn::finish_chains(table, o, {st});
        ASSERT_EQ(r.chains[0].edge_sum.size(), 25u);
        int nonzero = 0;
        for (std::size_t i = 0; i < 25; ++i) {
            EXPECT_NEAR(r.chains[0].edge_sum[i], plain[i], 1e-9 * std::max(1.0, plain[i])) << "entry " << i;
            EXPECT_NEAR(r.edge_prob[i], plain[i] / 250.0, 1e-12);
            nonzero += plain[i] > 0.0;
        }
        EXPECT_GE(nonzero, 3);
    }
}

TEST(OrderMcmc, MaxModeChainsEqualWithAndWithoutTheSortedWalk) {
    const DiscreteScorer scorer = simulated_scorer(9, 200, 23);
    const ScoreTable plain = ScoreTable::build(scorer, 3, 1);
    ScoreTable sorted = ScoreTable::build(scorer, 3, 1);
    ASSERT_TRUE(sorted.build_sorted(1));
    OrderMcmcOptions o = options(3, 1500, 100, 12, OrderScoreMode::Max);
    expect_same(cudag::bn::run_order_mcmc(plain, o), cudag::bn::run_order_mcmc(sorted, o));
    // The walk reads the lists alone, their scores included (a rank of a split table holds
    // only its block's entries): with no entry held, the same chains.
    sorted.hold_only({0, 0});
    EXPECT_FALSE(sorted.holds(0));
    EXPECT_THROW((void)sorted.node_scores(0), cudag::LogicError);
    expect_same(cudag::bn::run_order_mcmc(plain, o), cudag::bn::run_order_mcmc(sorted, o));
}

TEST(OrderMcmc, RejectsBadOptions) {
    const DiscreteScorer scorer = simulated_scorer(3, 50, 2);
    const ScoreTable table = ScoreTable::build(scorer, 2, 1);
    OrderMcmcOptions o = options(4, 10, 11, 1, OrderScoreMode::Sum);
    EXPECT_THROW(cudag::bn::run_order_mcmc(table, o), cudag::InputError);
    o.burn_in = 0;
    o.thin = 0;
    EXPECT_THROW(cudag::bn::run_order_mcmc(table, o), cudag::InputError);
    o.thin = 1;
    o.chains = 0;
    EXPECT_THROW(cudag::bn::run_order_mcmc(table, o), cudag::InputError);
}

}  // namespace
