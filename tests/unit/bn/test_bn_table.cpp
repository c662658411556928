// SPDX-License-Identifier: Apache-2.0
// The local-score table (bn/score_table.hpp) against direct local-score calls, its
// rank/unrank indexing, the max- and sum-based order scores and the exact order-modular edge
// posteriors against brute force written out here (every parent set as a bit mask, every
// order by std::next_permutation, sums of exp taken plainly), and the one-line refusal of a
// table that cannot fit.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bn/bge.hpp"
#include "bn/prior.hpp"
#include "bn/score.hpp"
#include "bn/score_table.hpp"
#include "core/combinations.hpp"
#include "core/error.hpp"
#include "support/bn_sim.hpp"

namespace {

using cudag::bn::DiscreteScorer;
using cudag::bn::LocalScorer;
using cudag::bn::ScoreTable;

using cudag::test::simulated_scorer;

/// Every local score 0: a check with answers known in closed form.
class FlatScorer final : public LocalScorer {
public:
    explicit FlatScorer(std::int64_t n) : n_(n) {}
    std::int64_t n_vars() const override { return n_; }
    double local(std::int32_t, std::span<const std::int32_t>) const override { return 0.0; }

private:
    std::int64_t n_;
};

/// The node ids of bit mask `mask`, increasing.
std::vector<std::int32_t> members(unsigned mask) {
    std::vector<std::int32_t> out;
    for (std::int32_t i = 0; i < 32; ++i)
        if (mask & (1u << i)) out.push_back(i);
    return out;
}

/// The masks of v's allowed parent sets within `allowed` (a mask), size <= s.
std::vector<unsigned> allowed_sets(unsigned allowed, int s) {
    std::vector<unsigned> out;
    for (unsigned mask = 0; mask < (1u << 16); ++mask)
        if ((mask & ~allowed) == 0 && std::popcount(mask) <= s) out.push_back(mask);
    return out;
}

unsigned mask_of(std::span<const std::int32_t> nodes) {
    unsigned m = 0;
    for (const std::int32_t v : nodes) m |= 1u << v;
    return m;
}

/// Brute force for one node given an order: the allowed sets (within the predecessors and
/// the node's candidates), their direct scores, and from them max, log-sum, edge and
/// parent-count expectations.
struct Brute {
    double max = -std::numeric_limits<double>::infinity();
    unsigned best = 0;
    double log_sum = 0.0;
    std::vector<double> edge;  // by parent id
    double expected_parents = 0.0;
};

Brute brute_node(const LocalScorer& scorer, int v, const std::vector<std::int32_t>& order, unsigned candidates, int s,
                 unsigned extras = 0) {
    const int n = static_cast<int>(order.size());
    unsigned before = 0;
    for (const std::int32_t u : order) {
        if (u == v) break;
        before |= 1u << u;
    }
    Brute b;
    b.edge.assign(static_cast<std::size_t>(n), 0.0);
    double sum = 0.0;
    for (const unsigned mask : allowed_sets(before & (candidates | extras), s)) {
        if (std::popcount(mask & extras) > 1) continue;  // plus1: one extra parent at most
        const double score = scorer.local(v, members(mask));
        if (score > b.max) b.max = score, b.best = mask;
        const double w = std::exp(score);  // scores here are far above exp's underflow
        sum += w;
        for (const std::int32_t p : members(mask)) b.edge[p] += w;
        b.expected_parents += w * std::popcount(mask);
    }
    b.log_sum = std::log(sum);
    for (double& e : b.edge) e /= sum;
    b.expected_parents /= sum;
    return b;
}

TEST(ScoreTable, EntriesEqualDirectLocalScores) {
    const DiscreteScorer scorer = simulated_scorer(6, 200, 11);
    for (const int s : {0, 2, 4}) {
        const ScoreTable t = ScoreTable::build(scorer, s, 3);
        ASSERT_EQ(t.n_nodes(), 6);
        std::int64_t total = 0;
        for (std::int32_t v = 0; v < 6; ++v) {
            for (int k = 0; k <= s; ++k) {
                ASSERT_EQ(t.count(v, k), cudag::binomial(5, k));
                for (std::int64_t r = 0; r < t.count(v, k); ++r) {
                    const std::vector<std::int32_t> ps = t.parent_set(v, k, r);
                    ASSERT_EQ(static_cast<int>(ps.size()), k);
                    EXPECT_EQ(t.score(v, k, r), scorer.local(v, ps)) << "node " << v << " k " << k << " rank " << r;
                }
                total += t.count(v, k);
            }
            // Every set of the other nodes of size <= s, found by lookup with its parents reversed.
            for (const unsigned mask : allowed_sets(0x3fu & ~(1u << v), s)) {
                std::vector<std::int32_t> ps = members(mask);
                const double direct = scorer.local(v, ps);  // parents increasing, as the table has them
                std::reverse(ps.begin(), ps.end());
                EXPECT_EQ(t.lookup(v, ps), direct);
            }
        }
        EXPECT_EQ(t.total_entries(), total);
    }
}

TEST(ScoreTable, K2AndBgeEntriesEqualDirectLocalScores) {
    const DiscreteScorer bdeu = simulated_scorer(5, 150, 17);
    const DiscreteScorer k2(bdeu.codes(), cudag::bn::ScoreSpec{cudag::bn::ScoreKind::K2, 1.0});
    // Continuous data: c depends on a and b, the rest noise.
    cudag::Dataset data;
    data.n_vars = 5;
    data.n_samples = 80;
    data.values.assign(5 * 80, 0.0);
    std::mt19937 gen(4);
    std::normal_distribution<double> noise(0.0, 1.0);
    for (int v = 0; v < 5; ++v) {
        data.names.push_back(std::string(1, static_cast<char>('a' + v)));
        for (int i = 0; i < 80; ++i) data.column(v)[i] = noise(gen);
    }
    for (int i = 0; i < 80; ++i) data.column(2)[i] += data.column(0)[i] - 0.5 * data.column(1)[i];
    const cudag::bn::BgeScorer bge(data, cudag::bn::BgeSpec{});
    for (const LocalScorer* scorer : {static_cast<const LocalScorer*>(&k2), static_cast<const LocalScorer*>(&bge)}) {
        const ScoreTable t = ScoreTable::build(*scorer, 3, 2);
        for (std::int32_t v = 0; v < 5; ++v)
            for (int k = 0; k <= 3; ++k)
                for (std::int64_t r = 0; r < t.count(v, k); ++r)
                    EXPECT_EQ(t.score(v, k, r), scorer->local(v, t.parent_set(v, k, r)));
    }
}

TEST(ScoreTable, SameEntriesOnAnyNumberOfThreads) {
    const DiscreteScorer scorer = simulated_scorer(7, 150, 5);
    const ScoreTable one = ScoreTable::build(scorer, 3, 1), many = ScoreTable::build(scorer, 3, 4);
    for (std::int32_t v = 0; v < 7; ++v)
        for (int k = 0; k <= 3; ++k)
            for (std::int64_t r = 0; r < one.count(v, k); ++r) EXPECT_EQ(one.score(v, k, r), many.score(v, k, r));
}

TEST(ScoreTable, RestrictedSpaceEntriesAndLookups) {
    const DiscreteScorer scorer = simulated_scorer(5, 200, 3);
    const std::vector<std::vector<std::int32_t>> cands = {{3, 1}, {}, {0, 1, 3, 4}, {2}, {0, 3, 2}};
    const ScoreTable t = ScoreTable::build(scorer, cands, 2, 2);
    EXPECT_EQ(std::vector<std::int32_t>(t.candidates(0).begin(), t.candidates(0).end()),
              (std::vector<std::int32_t>{1, 3}));
    for (std::int32_t v = 0; v < 5; ++v) {
        const int m = static_cast<int>(cands[v].size());
        for (int k = 0; k <= 2; ++k) {
            ASSERT_EQ(t.count(v, k), cudag::binomial(m, k));
            for (std::int64_t r = 0; r < t.count(v, k); ++r)
                EXPECT_EQ(t.score(v, k, r), scorer.local(v, t.parent_set(v, k, r)));
        }
        for (const unsigned mask : allowed_sets(mask_of(cands[v]), 2))
            EXPECT_EQ(t.lookup(v, members(mask)), scorer.local(v, members(mask)));
    }
    EXPECT_THROW(t.lookup(0, std::vector<std::int32_t>{2}), cudag::InputError);               // not a candidate
    EXPECT_THROW(t.lookup(2, std::vector<std::int32_t>{0, 1, 3}), cudag::InputError);         // above the limit
    EXPECT_THROW(ScoreTable::build(scorer, {{0}, {}, {}, {}, {}}, 2, 1), cudag::InputError);  // self
    EXPECT_THROW(ScoreTable::build(scorer, {{1, 1}, {}, {}, {}, {}}, 2, 1), cudag::InputError);
    EXPECT_THROW(ScoreTable::build(scorer, {{1}, {}}, 2, 1), cudag::InputError);  // one list per node
}

TEST(ScoreTable, RankUnrankRoundTrip) {
    const FlatScorer flat(9);
    const ScoreTable t = ScoreTable::build(flat, 4, 2);
    for (std::int32_t v = 0; v < 9; ++v) {
        const auto cands = t.candidates(v);
        for (int k = 0; k <= 4; ++k) {
            std::vector<int> prev;
            for (std::int64_t r = 0; r < t.count(v, k); ++r) {
                const std::vector<std::int32_t> ps = t.parent_set(v, k, r);
                std::vector<int> pos;
                for (const std::int32_t p : ps)
                    pos.push_back(static_cast<int>(std::find(cands.begin(), cands.end(), p) - cands.begin()));
                ASSERT_TRUE(std::is_sorted(pos.begin(), pos.end()));
                EXPECT_EQ(cudag::combination_rank(pos.data(), k, 8), r);
                if (r > 0) {
                    EXPECT_TRUE(std::lexicographical_compare(prev.begin(), prev.end(), pos.begin(), pos.end()));
                }
                prev = pos;
                EXPECT_TRUE(std::find(ps.begin(), ps.end(), v) == ps.end());
            }
        }
    }
}

/// Random orders of n nodes, the identity first.
std::vector<std::vector<std::int32_t>> some_orders(int n, int count, unsigned seed) {
    std::vector<std::int32_t> order(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) order[i] = i;
    std::vector<std::vector<std::int32_t>> out{order};
    std::mt19937 gen(seed);
    for (int c = 1; c < count; ++c) {
        std::shuffle(order.begin(), order.end(), gen);
        out.push_back(order);
    }
    return out;
}

void check_orders(const LocalScorer& scorer, const ScoreTable& t, const std::vector<unsigned>& candidate_masks,
                  const std::vector<unsigned>& extra_masks = {}) {
    const int n = static_cast<int>(t.n_nodes());
    for (const auto& order : some_orders(n, 12, 7)) {
        const auto mx = cudag::bn::order_score_max(t, order);
        const auto sm = cudag::bn::order_score_sum(t, order);
        double max_total = 0.0, sum_total = 0.0;
        for (int v = 0; v < n; ++v) {
            const Brute b = brute_node(scorer, v, order, candidate_masks[v], t.max_parents(),
                                       extra_masks.empty() ? 0u : extra_masks[v]);
            EXPECT_EQ(mx.node_score[v], b.max);
            EXPECT_EQ(mask_of(mx.parents[v]), b.best);
            EXPECT_EQ(scorer.local(v, mx.parents[v]), mx.node_score[v]);
            EXPECT_NEAR(sm.node_score[v], b.log_sum, 1e-9 * std::abs(b.log_sum));
            double edge_total = 0.0;
            for (int p = 0; p < n; ++p) {
                EXPECT_NEAR(sm.edge_prob[p * n + v], b.edge[p], 1e-9);
                edge_total += sm.edge_prob[p * n + v];
            }
            EXPECT_NEAR(edge_total, b.expected_parents, 1e-9);
            // The sum over sets is at least its largest term and at most count times it.
            EXPECT_GE(sm.node_score[v], mx.node_score[v] - 1e-9);
            max_total += b.max;
            sum_total += b.log_sum;
        }
        EXPECT_NEAR(mx.total, max_total, 1e-9 * std::abs(max_total));
        EXPECT_NEAR(sm.total, sum_total, 1e-9 * std::abs(sum_total));
        EXPECT_TRUE(cudag::bn::find_cycle(cudag::bn::Dag{mx.parents}).empty());
    }
}

TEST(OrderScore, MaxAndSumEqualBruteForce) {
    const DiscreteScorer scorer = simulated_scorer(5, 120, 21);
    const std::vector<unsigned> all(5, 0x1fu);
    for (const int s : {1, 2, 4}) {
        SCOPED_TRACE("max_parents " + std::to_string(s));
        check_orders(scorer, ScoreTable::build(scorer, s, 2), all);
    }
}

TEST(OrderScore, RestrictedSpaceEqualsBruteForce) {
    const DiscreteScorer scorer = simulated_scorer(5, 120, 8);
    const std::vector<std::vector<std::int32_t>> cands = {{1, 2, 4}, {0}, {0, 1, 3, 4}, {}, {2, 3}};
    std::vector<unsigned> masks;
    for (const auto& c : cands) masks.push_back(mask_of(c));
    check_orders(scorer, ScoreTable::build(scorer, cands, 2, 2), masks);
}

TEST(ScoreTable, Plus1EntriesAndLookups) {
    const DiscreteScorer scorer = simulated_scorer(6, 200, 13);
    const std::vector<std::vector<std::int32_t>> cands = {{1, 2}, {0}, {}, {0, 4, 5}, {3}, {1, 2, 3}};
    std::vector<std::vector<std::int32_t>> extras(6);
    for (std::int32_t v = 0; v < 6; ++v)
        for (std::int32_t u = 0; u < 6; ++u)
            if (u != v && std::find(cands[v].begin(), cands[v].end(), u) == cands[v].end()) extras[v].push_back(u);
    const ScoreTable t = ScoreTable::build(scorer, cands, 3, 2, extras);
    std::int64_t total = 0;
    for (std::int32_t v = 0; v < 6; ++v) {
        const int m = static_cast<int>(cands[v].size());
        ASSERT_EQ(t.extras(v).size(), extras[v].size());
        std::int64_t entries = 0;
        for (int k = 0; k <= 3; ++k) entries += cudag::binomial(m, k);
        for (std::size_t e = 0; e < extras[v].size(); ++e)
            for (int k = 0; k <= 2; ++k) {
                ASSERT_EQ(t.extra_count(v, k), cudag::binomial(m, k));
                entries += t.extra_count(v, k);
                for (std::int64_t r = 0; r < t.extra_count(v, k); ++r) {
                    const std::vector<std::int32_t> ps = t.extra_parent_set(v, static_cast<std::int64_t>(e), k, r);
                    ASSERT_EQ(static_cast<int>(ps.size()), k + 1);
                    ASSERT_TRUE(std::is_sorted(ps.begin(), ps.end()));
                    EXPECT_EQ(t.extra_score(v, static_cast<std::int64_t>(e), k, r), scorer.local(v, ps));
                    std::vector<std::int32_t> reversed(ps.rbegin(), ps.rend());
                    EXPECT_EQ(t.lookup(v, reversed), scorer.local(v, ps));
                }
            }
        EXPECT_EQ(t.node_entries(v), entries);
        total += entries;
    }
    EXPECT_EQ(t.total_entries(), total);
    EXPECT_THROW(t.lookup(2, std::vector<std::int32_t>{0, 1}), cudag::InputError);  // two extras
    EXPECT_THROW(t.lookup(0, std::vector<std::int32_t>{1, 2, 3, 4}), cudag::InputError);
    // An extra that is also a candidate, or the node itself, is refused.
    EXPECT_THROW(ScoreTable::build(scorer, cands, 3, 1, {{1}, {}, {}, {}, {}, {}}), cudag::InputError);
    EXPECT_THROW(ScoreTable::build(scorer, cands, 3, 1, {{0}, {}, {}, {}, {}, {}}), cudag::InputError);
    EXPECT_THROW(ScoreTable::build(scorer, cands, 3, 1, {{3}}), cudag::InputError);
}

TEST(OrderScore, Plus1SpaceEqualsBruteForce) {
    const DiscreteScorer scorer = simulated_scorer(6, 150, 31);
    const std::vector<std::vector<std::int32_t>> cands = {{1, 2}, {0}, {}, {0, 4, 5}, {3}, {1, 2, 3}};
    std::vector<std::vector<std::int32_t>> extras(6);
    std::vector<unsigned> cmask, xmask;
    for (std::int32_t v = 0; v < 6; ++v) {
        for (std::int32_t u = 0; u < 6; ++u)
            if (u != v && std::find(cands[v].begin(), cands[v].end(), u) == cands[v].end() && (u + v) % 3 != 0)
                extras[v].push_back(u);
        cmask.push_back(mask_of(cands[v]));
        xmask.push_back(mask_of(extras[v]));
    }
    for (const int s : {1, 2, 3}) {
        SCOPED_TRACE("max_parents " + std::to_string(s));
        check_orders(scorer, ScoreTable::build(scorer, cands, s, 2, extras), cmask, xmask);
    }
    // s = 0 leaves no room for an extra: the empty set only.
    check_orders(scorer, ScoreTable::build(scorer, cands, 0, 1, extras), cmask, std::vector<unsigned>(6, 0u));
}

TEST(OrderScore, RejectsNonPermutations) {
    const FlatScorer flat(4);
    const ScoreTable t = ScoreTable::build(flat, 2, 1);
    EXPECT_THROW(cudag::bn::order_score_max(t, std::vector<std::int32_t>{0, 1, 2}), cudag::InputError);
    EXPECT_THROW(cudag::bn::order_score_sum(t, std::vector<std::int32_t>{0, 1, 1, 3}), cudag::InputError);
    EXPECT_THROW(cudag::bn::order_score_sum(t, std::vector<std::int32_t>{0, 1, 2, 4}), cudag::InputError);
}

/// The order-modular posterior by brute force: every order, every allowed set, exp of the
/// direct local scores.
std::vector<double> brute_posterior(const LocalScorer& scorer, int n, int s) {
    std::vector<std::int32_t> order(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) order[i] = i;
    std::vector<double> acc(static_cast<std::size_t>(n * n), 0.0);
    double total = 0.0;
    do {
        double weight = 1.0;  // prod over nodes of sum over sets of exp(score)
        std::vector<double> edge(static_cast<std::size_t>(n * n), 0.0);
        for (int v = 0; v < n; ++v) {
            unsigned before = 0;
            for (const std::int32_t u : order) {
                if (u == v) break;
                before |= 1u << u;
            }
            double sum = 0.0;
            for (const unsigned mask : allowed_sets(before, s)) {
                const double w = std::exp(scorer.local(v, members(mask)));
                sum += w;
                for (const std::int32_t p : members(mask)) edge[p * n + v] += w;
            }
            for (int p = 0; p < n; ++p) edge[p * n + v] /= sum;
            weight *= sum;
        }
        total += weight;
        for (std::size_t i = 0; i < acc.size(); ++i) acc[i] += weight * edge[i];
    } while (std::next_permutation(order.begin(), order.end()));
    for (double& a : acc) a /= total;
    return acc;
}

TEST(ExactPosterior, EqualsBruteForceEnumeration) {
    for (const int n : {3, 4}) {
        for (const int s : {1, 2, 3}) {
            const DiscreteScorer scorer = simulated_scorer(n, 60, 100 + n);
            const auto exact = cudag::bn::exact_edge_posteriors(ScoreTable::build(scorer, s, 2));
            const std::vector<double> brute = brute_posterior(scorer, n, s);
            ASSERT_EQ(exact.edge_prob.size(), brute.size());
            for (std::size_t i = 0; i < brute.size(); ++i) {
                EXPECT_NEAR(exact.edge_prob[i], brute[i], 1e-9) << "n " << n << " s " << s << " entry " << i;
                EXPECT_GE(exact.edge_prob[i], 0.0);
                EXPECT_LE(exact.edge_prob[i], 1.0);
            }
            for (int v = 0; v < n; ++v) EXPECT_EQ(exact.edge_prob[v * n + v], 0.0);
        }
    }
}

TEST(ExactPosterior, FlatScoresInClosedForm) {
    // Three nodes, every set allowed, all scores 0: each order weighs 1 * 2 * 4, and a node
    // takes each predecessor in half of its sets; p precedes v in half the orders.
    const FlatScorer flat(3);
    const auto exact = cudag::bn::exact_edge_posteriors(ScoreTable::build(flat, 2, 1));
    for (int p = 0; p < 3; ++p)
        for (int v = 0; v < 3; ++v) EXPECT_NEAR(exact.edge_prob[p * 3 + v], p == v ? 0.0 : 0.25, 1e-12);
    EXPECT_NEAR(exact.log_evidence, std::log(6.0 * 8.0), 1e-12);
    EXPECT_THROW(cudag::bn::exact_edge_posteriors(ScoreTable::build(FlatScorer(9), 1, 1)), cudag::InputError);
}

TEST(ScoreTable, TooLargeIsOneLineOutOfMemory) {
    // 3000 nodes with up to 4 parents: about 1e16 entries, far beyond any machine.
    const FlatScorer big(3000);
    try {
        (void)ScoreTable::build(big, 4, 1);
        FAIL() << "expected OutOfMemory";
    } catch (const cudag::OutOfMemory& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        EXPECT_NE(what.find("the local-score table needs about"), std::string::npos) << what;
        EXPECT_NE(what.find("3000 nodes"), std::string::npos) << what;
        EXPECT_NE(what.find("available"), std::string::npos) << what;
    }
    std::vector<std::vector<std::int32_t>> cands(3000);
    for (std::int32_t v = 0; v < 3000; ++v)
        for (std::int32_t u = 0; u < 3000; u += 2)
            if (u != v) cands[v].push_back(u);
    EXPECT_THROW((void)ScoreTable::build(big, cands, 4, 1), cudag::OutOfMemory);
}

}  // namespace

namespace {

TEST(PriorScorer, AddsEdgePenaltyAndPairwiseTermsPerParent) {
    const DiscreteScorer base = simulated_scorer(4, 100, 6);
    cudag::bn::StructurePrior prior;
    prior.edge_penalty = 2.0;
    prior.belief.assign(16, 0.5);
    prior.belief[1 * 4 + 2] = 1.0;  // 1 --> 2 believed: +12.5
    prior.belief[3 * 4 + 2] = 0.2;  // 3 --> 2 doubted: 100 * (-0.3)^3 = -2.7
    const cudag::bn::PriorScorer scorer(base, prior);
    const std::vector<std::int32_t> none, both = {1, 3}, other = {0};
    EXPECT_EQ(scorer.local(2, none), base.local(2, none));
    EXPECT_NEAR(scorer.local(2, both), base.local(2, both) - 2.0 * std::log(2.0) + 12.5 - 2.7, 1e-12);
    EXPECT_NEAR(scorer.local(2, other), base.local(2, other) - std::log(2.0), 1e-12);
    EXPECT_DOUBLE_EQ(cudag::bn::pairwise_prior_term(0.0), -12.5);
    // The table takes the prior like any scorer.
    const ScoreTable t = ScoreTable::build(scorer, 2, 1);
    EXPECT_EQ(t.lookup(2, both), scorer.local(2, both));
    prior.belief[5] = 1.5;
    EXPECT_THROW(cudag::bn::PriorScorer(base, prior), cudag::InputError);
    prior.belief.assign(9, 0.5);
    EXPECT_THROW(cudag::bn::PriorScorer(base, prior), cudag::InputError);
    prior.belief.clear();
    prior.edge_penalty = 0.0;
    EXPECT_THROW(cudag::bn::PriorScorer(base, prior), cudag::InputError);
}

}  // namespace

namespace {

TEST(ScoreTable, SortedWalkGivesTheEnumerationsBestSets) {
    // Every set and the plus1 space; ties (a flat scorer) go to the same set both ways.
    const DiscreteScorer scorer = simulated_scorer(7, 120, 19);
    std::vector<std::vector<std::int32_t>> cands = {{1, 2}, {0, 3}, {}, {4, 5, 6}, {0}, {1, 2}, {3}}, extras(7);
    for (std::int32_t v = 0; v < 7; ++v)
        for (std::int32_t u = 0; u < 7; ++u)
            if (u != v && std::find(cands[v].begin(), cands[v].end(), u) == cands[v].end()) extras[v].push_back(u);
    const FlatScorer flat(7);
    for (int variant = 0; variant < 3; ++variant) {
        const LocalScorer& sc = variant == 2 ? static_cast<const LocalScorer&>(flat) : scorer;
        ScoreTable plain = variant == 1 ? ScoreTable::build(sc, cands, 3, 1, extras) : ScoreTable::build(sc, 3, 1);
        ScoreTable sorted = variant == 1 ? ScoreTable::build(sc, cands, 3, 2, extras) : ScoreTable::build(sc, 3, 2);
        ASSERT_TRUE(sorted.build_sorted(2));
        ASSERT_TRUE(sorted.has_sorted());
        ASSERT_FALSE(plain.has_sorted());
        // Sorted by score, each entry's parents those of its offset.
        for (std::int32_t v = 0; v < 7; ++v) {
            const auto off = sorted.sorted_offsets(v);
            const auto sc_v = sorted.node_scores(v);
            for (std::size_t i = 1; i < off.size(); ++i)
                ASSERT_TRUE(sc_v[off[i - 1]] > sc_v[off[i]] ||
                            (sc_v[off[i - 1]] == sc_v[off[i]] && off[i - 1] < off[i]));
            const auto packed = sorted.sorted_parents(v);
            const auto scores = sorted.sorted_scores(v);  // carried with the list, the entries' bits
            ASSERT_EQ(scores.size(), off.size());
            for (std::size_t i = 0; i < off.size(); ++i) {
                const std::vector<std::int32_t> ps = sorted.entry_parents(v, off[i]);
                ASSERT_EQ(sorted.lookup(v, ps), sc_v[off[i]]);
                ASSERT_EQ(std::memcmp(&scores[i], &sc_v[off[i]], sizeof(double)), 0) << "entry " << i;
                for (std::size_t t = 0; t < 3; ++t)
                    ASSERT_EQ(packed[i * 3 + t], t < ps.size() ? ps[t] : ScoreTable::kNoParent) << "entry " << i;
            }
        }
        for (const auto& order : some_orders(7, 40, 3 + variant)) {
            const auto a = cudag::bn::order_score_max(plain, order), b = cudag::bn::order_score_max(sorted, order);
            EXPECT_EQ(a.node_score, b.node_score);
            EXPECT_EQ(a.parents, b.parents);
        }
    }
    EXPECT_FALSE(ScoreTable::build(scorer, 2, 1).build_sorted(1, 10.0));  // over the budget
}

TEST(ScoreTable, DominatedSetsEqualBruteForce) {
    const DiscreteScorer scorer = simulated_scorer(7, 150, 29);
    std::vector<std::vector<std::int32_t>> cands = {{1, 2, 3}, {0, 3}, {}, {4, 5, 6}, {0}, {1, 2}, {3, 0}}, extras(7);
    for (std::int32_t v = 0; v < 7; ++v)
        for (std::int32_t u = 0; u < 7; ++u)
            if (u != v && std::find(cands[v].begin(), cands[v].end(), u) == cands[v].end()) extras[v].push_back(u);
    for (const bool plus1 : {false, true}) {
        const ScoreTable t = plus1 ? ScoreTable::build(scorer, cands, 3, 1, extras) : ScoreTable::build(scorer, 3, 1);
        std::int64_t dominated = 0, total = 0;
        for (std::int32_t v = 0; v < 7; ++v) {
            const std::vector<char> got = cudag::bn::dominated_sets(t, v);
            for (std::int64_t off = 0; off < t.node_entries(v); ++off) {
                const std::vector<std::int32_t> ps = t.entry_parents(v, off);
                const double own = t.node_scores(v)[off];
                bool want = false;
                const unsigned full = (1u << ps.size()) - 1;
                for (unsigned mask = 0; mask < full; ++mask) {  // every proper subset
                    std::vector<std::int32_t> sub;
                    for (std::size_t i = 0; i < ps.size(); ++i)
                        if (mask & (1u << i)) sub.push_back(ps[i]);
                    if (t.lookup(v, sub) >= own) want = true;
                }
                EXPECT_EQ(got[off] != 0, want) << "node " << v << " offset " << off;
                dominated += want;
                ++total;
            }
        }
        EXPECT_GT(dominated, 0);
        EXPECT_LT(dominated, total);
    }
}

/// Every local score 0 except one parent set of one node, which scores `bad`.
class OneBadScorer final : public LocalScorer {
public:
    OneBadScorer(std::int64_t n, std::int32_t node, std::vector<std::int32_t> parents, double bad)
        : n_(n), node_(node), parents_(std::move(parents)), bad_(bad) {}
    std::int64_t n_vars() const override { return n_; }
    double local(std::int32_t v, std::span<const std::int32_t> parents) const override {
        return v == node_ && std::ranges::equal(parents, parents_) ? bad_ : 0.0;
    }

private:
    std::int64_t n_;
    std::int32_t node_;
    std::vector<std::int32_t> parents_;
    double bad_;
};

TEST(ScoreTable, NonFiniteLocalScoreIsAOneLineErrorNamingNodeAndParents) {
    // Issue 33 item 7: a NaN entry made every order through it NaN and the run "succeeded".
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (const double bad : {nan, inf, -inf}) {
        const OneBadScorer scorer(5, 3, {0, 4}, bad);
        try {
            (void)ScoreTable::build(scorer, 2, 2);
            ADD_FAILURE() << "no error for a local score of " << bad;
        } catch (const cudag::InputError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("variable 4 (data column, from 1) with parents {1, 5}"), std::string::npos) << what;
            EXPECT_NE(what.find("not finite"), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
    }
    // Entries a filler (a GPU engine) writes are checked too: an infinite one is refused,
    // naming its node and parent set (the node's first, the empty set), with the same one line.
    const FlatScorer flat(4);
    const ScoreTable::Filler filler = [&](ScoreTable& t, cudag::bn::NodeRange nodes) {
        for (std::int64_t v = nodes.begin; v < nodes.end; ++v) {
            for (double& x : t.mutable_node_scores(static_cast<std::int32_t>(v))) x = v == 2 ? inf : 0.0;
            t.report_filled(static_cast<std::int32_t>(v), ScoreTable::NodeFill::Written);
        }
    };
    try {
        (void)ScoreTable::build(flat, 2, 1, filler);
        ADD_FAILURE() << "no error for an infinite entry from a filler";
    } catch (const cudag::InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("variable 3 (data column, from 1) with parents {} is inf, not finite"), std::string::npos)
            << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    // A filler (a GPU engine) that leaves an entry NaN for the CPU, where the scorer's value is
    // not finite either: the CPU's error, word for word.
    for (const double bad : {nan, inf}) {
        const OneBadScorer scorer(5, 3, {0, 4}, bad);
        std::string cpu_error, filler_error;
        try {
            (void)ScoreTable::build(scorer, 2, 2);
        } catch (const cudag::InputError& e) {
            cpu_error = e.what();
        }
        const ScoreTable::Filler leaves_one = [&](ScoreTable& t, cudag::bn::NodeRange nodes) {
            for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
                const auto out = t.mutable_node_scores(v);
                for (std::size_t i = 0; i < out.size(); ++i) {
                    const auto ps = t.entry_parents(v, static_cast<std::int64_t>(i));
                    const bool the_bad_one = v == 3 && ps == std::vector<std::int32_t>{0, 4};
                    out[i] = the_bad_one ? nan : 0.0;  // the bad entry left to the CPU
                }
                t.report_filled(v, ScoreTable::NodeFill::Written);
            }
        };
        try {
            (void)ScoreTable::build(scorer, 2, 2, leaves_one);
        } catch (const cudag::InputError& e) {
            filler_error = e.what();
        }
        EXPECT_FALSE(cpu_error.empty());
        EXPECT_EQ(filler_error, cpu_error);
    }
    // Finite scores build as before.
    EXPECT_NO_THROW((void)ScoreTable::build(OneBadScorer(5, 3, {0, 4}, -1e300), 2, 2));
}

TEST(ScoreTable, ListsSortedOnTheFillAreKeptAndTheOtherNodesSortedAsBefore) {
    // Issue 37: with sort_on_fill (max mode on a GPU) a filler may build a node's lists where
    // it computed the node's entries and write none of them (NodeFill::Sorted): the host pass
    // skips the node, the table no longer holds it, and build_sorted keeps its lists (with no
    // budget check: decided before the fill) and builds the others' (a node not written, or
    // one written with NaN entries left to the CPU): every list and every max-mode answer
    // equal the CPU's, with mandatory parents too.
    const DiscreteScorer scorer = simulated_scorer(9, 200, 41);
    for (const bool with_required : {false, true}) {
        SCOPED_TRACE(with_required ? "mandatory parents" : "no mandatory parents");
        std::vector<std::vector<std::int32_t>> required;
        if (with_required) {
            required.assign(9, {});
            required[2] = {0};
            required[4] = {8};
            required[5] = {1, 3};
            required[7] = {5};
        }
        ScoreTable ref = ScoreTable::layout(9, 3);
        ref.require_parents(required);
        ref.fill_nodes(scorer, ref.all_nodes(), 2);
        ASSERT_TRUE(ref.build_sorted(2));
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const ScoreTable::Filler filler = [&](ScoreTable& t, cudag::bn::NodeRange nodes) {
            for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
                if (v % 3 == 0) continue;  // not written: the CPU computes it
                if (v % 3 == 1) {          // sorted where it was computed
                    const auto o = ref.sorted_offsets(v);
                    const auto p = ref.sorted_parents(v);
                    const auto sc = ref.sorted_scores(v);
                    t.set_sorted(v, {o.begin(), o.end()}, {p.begin(), p.end()}, {sc.begin(), sc.end()});
                    t.report_filled(v, ScoreTable::NodeFill::Sorted);
                    continue;
                }
                const auto from = ref.node_scores(v);  // written, every third entry left NaN
                const auto out = t.mutable_node_scores(v);
                for (std::size_t i = 0; i < out.size(); ++i) out[i] = i % 3 == 0 ? nan : from[i];
                t.report_filled(v, ScoreTable::NodeFill::Written);
            }
        };
        ScoreTable t = ScoreTable::layout(9, 3);
        t.require_parents(required);
        t.set_sort_on_fill(true);
        ASSERT_TRUE(t.sortable());
        t.fill_nodes(scorer, {0, 5}, 2, filler);  // in two blocks, as a split table's ranks
        t.fill_nodes(scorer, {5, 9}, 2, filler);
        EXPECT_EQ(t.fill_times().sorted_nodes, 3);
        EXPECT_FALSE(t.holds_all());
        for (std::int32_t v = 0; v < 9; ++v) {
            EXPECT_EQ(t.holds(v), v % 3 != 1) << "node " << v;
            EXPECT_EQ(t.sorted_on_fill(v), v % 3 == 1) << "node " << v;
        }
        ASSERT_TRUE(t.build_sorted(2, 0.0));  // the budget was checked before the fill
        EXPECT_EQ(t.sorted_entries(), ref.sorted_entries());
        for (std::int32_t v = 0; v < 9; ++v) {
            const auto a = ref.sorted_offsets(v), b = t.sorted_offsets(v);
            EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << "node " << v;
            const auto pa = ref.sorted_parents(v), pb = t.sorted_parents(v);
            EXPECT_TRUE(std::equal(pa.begin(), pa.end(), pb.begin(), pb.end())) << "node " << v;
            const auto sa = ref.sorted_scores(v), sb = t.sorted_scores(v);
            EXPECT_TRUE(sa.size() == sb.size() && std::memcmp(sa.data(), sb.data(), sb.size_bytes()) == 0)
                << "node " << v;
        }
        std::mt19937_64 rng(5);
        std::vector<std::int32_t> order(9);
        for (int trial = 0; trial < 20; ++trial) {
            for (std::int32_t v = 0; v < 9; ++v) order[v] = v;
            std::shuffle(order.begin(), order.end(), rng);
            const auto x = cudag::bn::order_score_max(ref, order), y = cudag::bn::order_score_max(t, order);
            EXPECT_EQ(std::bit_cast<std::uint64_t>(x.total), std::bit_cast<std::uint64_t>(y.total));
            EXPECT_EQ(x.parents, y.parents);
        }
        // Filled again without a filler (the CPU's): every node held and sorted as before.
        t.fill_nodes(scorer, t.all_nodes(), 2);
        EXPECT_TRUE(t.holds_all());
        ASSERT_TRUE(t.build_sorted(2));
        EXPECT_EQ(t.sorted_entries(), ref.sorted_entries());
    }
}

}  // namespace

namespace sum_prune_tests {

using cudag::bn::best_proper_subsets;
using cudag::bn::ScoreTable;

TEST(SumPrune, DropsExactlyTheSetsFarBelowASubset) {
    const auto scorer = simulated_scorer(6, 200, 41);
    const ScoreTable full = ScoreTable::build(scorer, 3, 2);
    for (const double delta : {0.0, 2.0, 5.0}) {
        ScoreTable t = ScoreTable::build(scorer, 3, 2);
        const std::int64_t dropped = t.prune_sum(delta, 2);
        std::int64_t want = 0;
        for (std::int32_t v = 0; v < t.n_nodes(); ++v) {
            const auto before = full.node_scores(v), after = t.node_scores(v);
            const std::vector<double> best = best_proper_subsets(full, v);
            std::int64_t here = 0;
            for (std::size_t i = 0; i < before.size(); ++i) {
                const bool far = before[i] < best[i] - delta;
                here += far ? 1 : 0;
                if (far) {
                    EXPECT_EQ(after[i], -std::numeric_limits<double>::infinity()) << "node " << v << " entry " << i;
                } else {
                    EXPECT_EQ(after[i], before[i]) << "node " << v << " entry " << i;  // bit for bit
                }
            }
            EXPECT_EQ(t.sum_pruned()[static_cast<std::size_t>(v)], here);
            want += here;
        }
        EXPECT_EQ(dropped, want) << "delta " << delta;
        if (delta == 0.0) {
            EXPECT_GT(dropped, 0);  // the check has teeth
        }
    }
    ScoreTable t = ScoreTable::build(scorer, 3, 1);
    EXPECT_THROW(t.prune_sum(-1.0, 1), cudag::InputError);
    EXPECT_THROW(t.prune_sum(std::numeric_limits<double>::quiet_NaN(), 1), cudag::InputError);
    EXPECT_THROW(t.prune_sum(std::numeric_limits<double>::infinity(), 1), cudag::InputError);
}

TEST(SumPrune, ExactEdgePosteriorsMoveWithinTheBound) {
    // n = 7, s = 3: every order's sum over a node's sets loses less than e^-delta times the
    // node's entries (each dropped set weighs less than e^-delta of a kept subset, which
    // the order allows too), so an edge posterior moves by less than about 2 n e^-delta E.
    const int n = 7;
    const auto scorer = simulated_scorer(n, 150, 43);
    const auto exact = cudag::bn::exact_edge_posteriors(ScoreTable::build(scorer, 3, 2)).edge_prob;
    double last = 1.0;
    for (const double delta : {2.0, 5.0, 10.0, 20.0}) {
        ScoreTable t = ScoreTable::build(scorer, 3, 2);
        const std::int64_t dropped = t.prune_sum(delta, 2);
        std::int64_t most = 0;
        for (std::int32_t v = 0; v < n; ++v) most = std::max(most, t.node_entries(v));
        const auto pruned = cudag::bn::exact_edge_posteriors(t).edge_prob;
        double diff = 0.0;
        for (std::size_t i = 0; i < exact.size(); ++i) diff = std::max(diff, std::abs(pruned[i] - exact[i]));
        const double bound = 2.0 * n * std::exp(-delta) * static_cast<double>(most);
        std::printf("sum-prune delta %.0f: %lld entries dropped, max |edge posterior change| %.3g (bound %.3g)\n",
                    delta, static_cast<long long>(dropped), diff, bound);
        if (bound < 1.0) {
            EXPECT_LE(diff, bound) << "delta " << delta;
        }
        EXPECT_LE(diff, last + 1e-15) << "delta " << delta;  // a larger delta moves them less
        last = diff;
        if (delta == 2.0) {
            EXPECT_GT(dropped, 0);
        }
    }
    EXPECT_LT(last, 1e-6);
}

}  // namespace sum_prune_tests
