// SPDX-License-Identifier: Apache-2.0
// Mandatory parents (--require, issue 37; ScoreTable::require_parents): every set a node may
// take holds its required parents. Checked against brute force that scores sets with the
// scorer itself: every order (sum mode's edge posteriors) and every DAG (max mode's best
// DAG) of a 5-node network, enumerated here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "bn/order_mcmc.hpp"
#include "bn/score.hpp"
#include "bn/score_table.hpp"
#include "bn/space.hpp"
#include "core/error.hpp"
#include "core/knowledge.hpp"
#include "support/bn_sim.hpp"

namespace {

namespace bn = cudag::bn;
using bn::DiscreteScorer, bn::OrderMcmcOptions, bn::OrderScoreMode, bn::ScoreTable, cudag::InputError;
using Sets = std::vector<std::vector<std::int32_t>>;

constexpr int kN = 5, kS = 2;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// 1 --> 0, 3 --> 0 and 0 --> 4 required; 2 has none.
Sets required_parents() { return {{1, 3}, {}, {}, {}, {0}}; }

bool holds_all(const std::vector<std::int32_t>& set, const std::vector<std::int32_t>& req) {
    return std::all_of(req.begin(), req.end(),
                       [&](std::int32_t p) { return std::find(set.begin(), set.end(), p) != set.end(); });
}

/// Every set of at most kS of `from` (increasing ids) holding `req`.
Sets allowed_sets(const std::vector<std::int32_t>& from, const std::vector<std::int32_t>& req) {
    Sets out;
    const auto m = static_cast<int>(from.size());
    for (std::uint32_t mask = 0; mask < (1u << m); ++mask) {
        std::vector<std::int32_t> set;
        for (int i = 0; i < m; ++i)
            if (mask >> i & 1u) set.push_back(from[i]);
        if (static_cast<int>(set.size()) <= kS && holds_all(set, req)) out.push_back(set);
    }
    return out;
}

ScoreTable required_table(const DiscreteScorer& scorer) {
    ScoreTable t = ScoreTable::layout(kN, kS);
    t.require_parents(required_parents());
    t.fill_nodes(scorer, t.all_nodes(), 1);
    return t;
}

OrderMcmcOptions options(std::int64_t iterations, std::uint64_t seed, OrderScoreMode mode) {
    OrderMcmcOptions o;
    o.chains = 4;
    o.iterations = iterations;
    o.burn_in = iterations / 10;
    o.seed = seed;
    o.mode = mode;
    o.threads = 1;
    return o;
}

bool respects(const std::vector<std::int32_t>& order, const Sets& req) {
    std::vector<std::size_t> place(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) place[order[i]] = i;
    for (std::int32_t v = 0; v < kN; ++v)
        for (const std::int32_t p : req[v])
            if (place[p] > place[v]) return false;
    return true;
}

TEST(RequiredParents, TableScoresSetsLackingOneAsMinusInfinity) {
    const DiscreteScorer scorer = cudag::test::simulated_scorer(kN, 200, 21);
    const ScoreTable t = required_table(scorer);
    const Sets req = required_parents();
    for (std::int32_t v = 0; v < kN; ++v) {
        std::vector<std::int32_t> others;
        for (std::int32_t u = 0; u < kN; ++u)
            if (u != v) others.push_back(u);
        for (const auto& set : allowed_sets(others, {})) {
            const double want = holds_all(set, req[v]) ? scorer.local(v, set) : -kInf;
            EXPECT_EQ(t.lookup(v, set), want) << "node " << v << ", " << set.size() << " parents";
        }
    }
}

TEST(RequiredParents, SumModeMatchesEnumerationOfEveryOrder) {
    const DiscreteScorer scorer = cudag::test::simulated_scorer(kN, 200, 21);
    const ScoreTable table = required_table(scorer);
    const Sets req = required_parents();
    // Brute force: P(order) ∝ prod_v sum over v's allowed sets within its predecessors of
    // exp(local score); orders where a required parent follows its child weigh 0.
    std::vector<std::int32_t> order(kN);
    std::iota(order.begin(), order.end(), 0);
    std::vector<double> log_w, edge(kN * kN, 0.0);
    std::vector<std::vector<double>> order_edges;
    do {
        double lw = 0.0;
        std::vector<double> e(kN * kN, 0.0);
        for (std::int32_t v = 0; v < kN; ++v) {
            std::vector<std::int32_t> pred;
            for (const std::int32_t u : order) {
                if (u == v) break;
                pred.push_back(u);
            }
            std::sort(pred.begin(), pred.end());
            const Sets sets = allowed_sets(pred, req[v]);
            if (sets.empty()) {
                lw = -kInf;
                break;
            }
            double top = -kInf;
            for (const auto& s : sets) top = std::max(top, scorer.local(v, s));
            double sum = 0.0;
            for (const auto& s : sets) {
                const double w = std::exp(scorer.local(v, s) - top);
                sum += w;
                for (const std::int32_t p : s) e[p * kN + v] += w;
            }
            for (std::int32_t p = 0; p < kN; ++p) e[p * kN + v] /= sum;
            lw += top + std::log(sum);
        }
        if (lw == -kInf) continue;
        log_w.push_back(lw);
        order_edges.push_back(e);
    } while (std::next_permutation(order.begin(), order.end()));
    ASSERT_FALSE(log_w.empty());
    const double top = *std::max_element(log_w.begin(), log_w.end());
    double total = 0.0;
    for (std::size_t o = 0; o < log_w.size(); ++o) {
        const double w = std::exp(log_w[o] - top);
        total += w;
        for (int i = 0; i < kN * kN; ++i) edge[i] += w * order_edges[o][i];
    }
    for (double& x : edge) x /= total;

    const std::vector<double> exact = cudag::bn::exact_edge_posteriors(table).edge_prob;
    for (int i = 0; i < kN * kN; ++i) EXPECT_NEAR(exact[i], edge[i], 1e-9) << "edge " << i / kN << " -> " << i % kN;
    for (std::int32_t v = 0; v < kN; ++v)
        for (const std::int32_t p : req[v]) EXPECT_NEAR(edge[p * kN + v], 1.0, 1e-12);

    const auto r = cudag::bn::run_order_mcmc(table, options(20000, 5, OrderScoreMode::Sum));
    double worst = 0.0;
    int uncertain = 0;
    for (int i = 0; i < kN * kN; ++i) {
        worst = std::max(worst, std::abs(r.edge_prob[i] - edge[i]));
        if (edge[i] > 0.1 && edge[i] < 0.9) ++uncertain;
    }
    EXPECT_LT(worst, 0.05);
    EXPECT_GE(uncertain, 1);  // the comparison has teeth
    for (std::int32_t v = 0; v < kN; ++v)
        for (const std::int32_t p : req[v]) EXPECT_EQ(r.edge_prob[p * kN + v], 1.0);
    for (const auto& c : r.chains) {
        EXPECT_TRUE(respects(c.final_order, req));
        EXPECT_TRUE(respects(c.best_order, req));
        EXPECT_GT(c.acceptance_rate, 0.0);
        for (const double s : c.trace) EXPECT_TRUE(std::isfinite(s));
    }
}

TEST(RequiredParents, MaxModeFindsTheBestDagOfAllThatHoldTheRequiredEdges) {
    const DiscreteScorer scorer = cudag::test::simulated_scorer(kN, 200, 33);
    const Sets req = required_parents();
    // Brute force over DAGs: each node's allowed sets among all other nodes, acyclic.
    std::vector<Sets> choices(kN);
    std::vector<std::vector<double>> local(kN);
    for (std::int32_t v = 0; v < kN; ++v) {
        std::vector<std::int32_t> others;
        for (std::int32_t u = 0; u < kN; ++u)
            if (u != v) others.push_back(u);
        choices[v] = allowed_sets(others, req[v]);
        for (const auto& s : choices[v]) local[v].push_back(scorer.local(v, s));
    }
    double best = -kInf;
    Sets best_dag;
    std::vector<std::size_t> pick(kN, 0);
    for (;;) {
        cudag::bn::Dag dag;
        double total = 0.0;
        for (std::int32_t v = 0; v < kN; ++v) dag.parents.push_back(choices[v][pick[v]]), total += local[v][pick[v]];
        if (total > best && cudag::bn::find_cycle(dag).empty()) best = total, best_dag = dag.parents;
        int v = 0;
        while (v < kN && ++pick[v] == choices[v].size()) pick[v++] = 0;
        if (v == kN) break;
    }
    for (const bool sorted : {false, true}) {
        SCOPED_TRACE(sorted ? "sorted lists" : "enumeration");
        ScoreTable table = required_table(scorer);
        if (sorted) {
            ASSERT_TRUE(table.build_sorted(1));
        }
        const auto r = cudag::bn::run_order_mcmc(table, options(3000, 8, OrderScoreMode::Max));
        double found = -kInf;
        std::size_t at = 0;
        for (std::size_t c = 0; c < r.chains.size(); ++c) {
            EXPECT_TRUE(respects(r.chains[c].final_order, req));
            if (r.chains[c].best_dag_score > found) found = r.chains[c].best_dag_score, at = c;
        }
        EXPECT_NEAR(found, best, 1e-9 * std::abs(best));
        EXPECT_EQ(r.chains[at].best_parents, best_dag);
        for (std::int32_t v = 0; v < kN; ++v)
            for (const std::int32_t p : req[v]) EXPECT_EQ(r.edge_prob[p * kN + v], 1.0);
    }
}

TEST(RequiredParents, BadRequirementsAreInputErrors) {
    ScoreTable t = ScoreTable::layout(4, 1);
    EXPECT_THROW(t.require_parents({{1, 2}, {}, {}, {}}), InputError);  // two required, limit 1
    EXPECT_THROW(t.require_parents({{1}, {2}, {0}, {}}), InputError);   // a cycle
    EXPECT_THROW(t.require_parents({{0}, {}, {}, {}}), InputError);     // not a candidate (itself)
    EXPECT_THROW(t.require_parents({{1}}), InputError);                 // not one list per node
    t.require_parents({{1}, {2}, {}, {}});
    EXPECT_TRUE(t.has_required());
    ScoreTable plus1 = ScoreTable::layout(3, {{1}, {0}, {0}}, 2, {{2}, {2}, {1}});
    EXPECT_THROW(plus1.require_parents({{2}, {}, {}}), InputError);  // an extra, not a candidate
}

TEST(RequiredParents, KnowledgeMakesRequiredDirectionsMandatoryCandidates) {
    cudag::Knowledge k(4);
    k.require_direction(2, 0);
    k.forbid_direction(1, 0);
    cudag::bn::ParentSpace plus1;
    plus1.all = false;
    plus1.candidates = {{3}, {0}, {0}, {0}};
    plus1.extras = {{1, 2}, {2, 3}, {1, 3}, {1, 2}};
    const cudag::bn::ParentSpace s = cudag::bn::restrict_space(plus1, k, 4);
    EXPECT_EQ(s.candidates[0], (std::vector<std::int32_t>{3, 2}));  // 2 moved from the extras
    EXPECT_TRUE(s.extras[0].empty());                               // 1 forbidden, 2 a candidate now
    EXPECT_EQ(s.required, (Sets{{2}, {}, {}, {}}));
    cudag::Knowledge pair(4);
    pair.require_pair(0, 1);
    try {
        (void)cudag::bn::restrict_space(cudag::bn::ParentSpace{}, pair, 4, {"A", "B", "C", "D"});
        ADD_FAILURE() << "an undirected required pair was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("'A' -- 'B' gives no direction"), std::string::npos) << e.what();
    }
}

}  // namespace
