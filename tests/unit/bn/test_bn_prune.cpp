// SPDX-License-Identifier: Apache-2.0
// Max mode's pruned table (issue 37; ScoreTable::set_pruning): the superset bound of
// bn/local_score.hpp on hand-made counts against every split of their samples, the
// scorers' bounds against every superset's score, and pruned tables whose sorted lists and
// chains equal the full table's bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "bn/local_score.hpp"
#include "bn/order_mcmc.hpp"
#include "bn/prior.hpp"
#include "bn/score.hpp"
#include "bn/score_table.hpp"
#include "support/bn_sim.hpp"

namespace {

using cudag::bn::ScoreTable;

/// Counts of r = 3 levels in two observed configurations: (3, 1, 0) and (0, 2, 2).
constexpr int kR = 3;
const std::vector<std::uint32_t> kCounts = {3, 1, 0, 0, 2, 2};

TEST(PruneBound, BoundsEverySplitOfHandMadeCountsAndIsReachedByTheLevelSplit) {
    // The samples as (configuration, level); each goes to one of 3 groups within its
    // configuration (a superset's refinement): every assignment, at a_jk >= a_min.
    std::vector<std::pair<int, int>> samples;
    for (int j = 0; j < 2; ++j)
        for (int k = 0; k < kR; ++k)
            for (std::uint32_t t = 0; t < kCounts[j * kR + k]; ++t) samples.push_back({j, k});
    const int ns = static_cast<int>(samples.size()), groups = 3;
    const double a_min = 0.05;
    const double bound = cudag::bn::bd_superset_bound(kCounts.data(), 2, kR, a_min);
    double best = -std::numeric_limits<double>::infinity();
    std::int64_t splits = 0;
    for (const double a : {a_min, 0.2, 1.0, 7.0}) {
        std::vector<int> g(static_cast<std::size_t>(ns), 0);
        for (;;) {
            // Refined configurations: (j, group), each with its own counts.
            std::vector<std::uint32_t> refined(static_cast<std::size_t>(2 * groups * kR), 0);
            for (int i = 0; i < ns; ++i) ++refined[(samples[i].first * groups + g[i]) * kR + samples[i].second];
            const double score = cudag::bn::bd_local_score(refined.data(), 2 * groups, kR, a);
            EXPECT_LE(score, bound + 1e-12);
            best = std::max(best, score);
            ++splits;
            int i = 0;
            while (i < ns && ++g[i] == groups) g[i++] = 0;
            if (i == ns) break;
        }
    }
    EXPECT_EQ(splits, 4 * 6561);
    // Reached: each configuration split by level (3 groups hold one level each) at a_min.
    EXPECT_NEAR(best, bound, 1e-12);
    // The bound by hand: per nonzero count c, lgamma(a + c) - lgamma(a) + lgamma(3a) - lgamma(3a + c).
    double want = 0.0;
    for (const std::uint32_t c : kCounts)
        if (c > 0)
            want += std::lgamma(a_min + c) - std::lgamma(a_min) + std::lgamma(3 * a_min) - std::lgamma(3 * a_min + c);
    EXPECT_NEAR(bound, want, 1e-12);
    // A larger smallest a_jk gives a smaller (tighter) bound.
    EXPECT_LT(cudag::bn::bd_superset_bound(kCounts.data(), 2, kR, 1.0), bound);
}

/// A floor no bound is above: local_bounded then always computes the bound.
constexpr double kNoFloor = std::numeric_limits<double>::infinity();

/// Every set of at most s of the nodes other than v, as increasing ids.
std::vector<std::vector<std::int32_t>> sets_of(int n, std::int32_t v, int s) {
    std::vector<std::vector<std::int32_t>> out;
    for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
        if (mask >> v & 1u) continue;
        std::vector<std::int32_t> set;
        for (int u = 0; u < n; ++u)
            if (mask >> u & 1u) set.push_back(u);
        if (static_cast<int>(set.size()) <= s) out.push_back(set);
    }
    return out;
}

bool strict_subset(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
    return a.size() < b.size() && std::includes(b.begin(), b.end(), a.begin(), a.end());
}

TEST(PruneBound, ScorersBoundEveryStrictSuperset) {
    const int n = 6, s = 3;
    const cudag::bn::DiscreteScorer bdeu = cudag::test::simulated_scorer(n, 25, 4);
    const cudag::bn::DiscreteScorer k2(bdeu.codes(), cudag::bn::ScoreSpec{cudag::bn::ScoreKind::K2, 1.0});
    cudag::bn::StructurePrior prior;
    prior.edge_penalty = 0.5;  // each parent adds +log 2: the bound must carry it
    prior.belief.assign(n * n, 0.5);
    prior.belief[1 * n + 0] = 0.9;
    prior.belief[2 * n + 0] = 0.2;
    const cudag::bn::PriorScorer with_prior(bdeu, prior);
    for (const cudag::bn::LocalScorer* scorer : std::vector<const cudag::bn::LocalScorer*>{&bdeu, &k2, &with_prior}) {
        for (std::int32_t v = 0; v < n; ++v) {
            const auto sets = sets_of(n, v, s);
            for (const auto& a : sets) {
                double bound = 0.0;
                const double score = scorer->local_bounded(v, a, s, kNoFloor, &bound);
                EXPECT_EQ(score, scorer->local(v, a));  // the same bits
                double most = -std::numeric_limits<double>::infinity();
                for (const auto& b : sets)
                    if (strict_subset(a, b)) most = std::max(most, scorer->local(v, b));
                EXPECT_LE(most, bound) << "node " << v << ", " << a.size() << " parents";
                EXPECT_TRUE(std::isfinite(bound));  // a bound, not the default +inf
                // With the score as the floor the bound may be skipped (+inf), only where it
                // lies above the score: the table could not have pruned with it.
                double skipped = 0.0;
                EXPECT_EQ(scorer->local_bounded(v, a, s, -kNoFloor, &skipped), score);
                EXPECT_TRUE(skipped == bound || (std::isinf(skipped) && bound > score));
            }
        }
    }
}

/// Both tables' lists, entry by entry.
void expect_same_lists(const ScoreTable& full, const ScoreTable& pruned) {
    ASSERT_TRUE(full.has_sorted() && pruned.has_sorted());
    for (std::int32_t v = 0; v < full.n_nodes(); ++v) {
        EXPECT_TRUE(std::ranges::equal(full.sorted_offsets(v), pruned.sorted_offsets(v))) << "node " << v;
        EXPECT_TRUE(std::ranges::equal(full.sorted_parents(v), pruned.sorted_parents(v))) << "node " << v;
        EXPECT_TRUE(std::ranges::equal(full.sorted_scores(v), pruned.sorted_scores(v))) << "node " << v;
    }
}

/// Builds `scorer`'s table over n nodes with the limit s, full and pruned, over every
/// other node or a plus1 space (v's candidates the nodes u < v % 6 + 1), with two required
/// parents or none; expects equal lists and max-mode chains. Returns the entries pruning
/// skipped.
std::int64_t expect_pruned_equals_full(const cudag::bn::LocalScorer& scorer, int n, int s, bool plus1, bool require,
                                       const char* what) {
    SCOPED_TRACE(what);
    std::vector<std::vector<std::int32_t>> cands(n), extras(n);
    for (std::int32_t v = 0; v < n; ++v)
        for (std::int32_t u = 0; u < n; ++u)
            if (u != v) (!plus1 || u < v % 6 + 1 ? cands[v] : extras[v]).push_back(u);
    std::vector<ScoreTable> tables;
    for (const bool prune : {false, true}) {
        ScoreTable t = plus1 ? ScoreTable::layout(n, cands, s, extras) : ScoreTable::layout(n, s);
        if (require) {
            std::vector<std::vector<std::int32_t>> req(n);
            req[4] = {t.candidates(4)[0]};
            req[n - 1] = {t.candidates(n - 1)[1]};
            t.require_parents(req);
        }
        t.set_pruning(prune);
        t.fill_nodes(scorer, t.all_nodes(), prune ? 2 : 1);
        EXPECT_TRUE(t.build_sorted(1));
        tables.push_back(std::move(t));
    }
    const ScoreTable &full = tables[0], &pruned = tables[1];
    expect_same_lists(full, pruned);
    std::printf("[ info ] %s: %lld of %lld entries scored, %lld kept\n", what,
                static_cast<long long>(pruned.scored_entries()), static_cast<long long>(pruned.total_entries()),
                static_cast<long long>(pruned.sorted_entries()));
    cudag::bn::OrderMcmcOptions o;
    o.chains = 3;
    o.iterations = 600;
    o.burn_in = 100;
    o.seed = 5;
    o.mode = cudag::bn::OrderScoreMode::Max;
    o.threads = 1;
    const auto a = cudag::bn::run_order_mcmc(full, o), b = cudag::bn::run_order_mcmc(pruned, o);
    for (std::size_t k = 0; k < a.chains.size(); ++k) {
        EXPECT_EQ(a.chains[k].trace, b.chains[k].trace);
        EXPECT_EQ(a.chains[k].best_parents, b.chains[k].best_parents);
        EXPECT_EQ(a.chains[k].best_dag_score, b.chains[k].best_dag_score);
    }
    EXPECT_EQ(a.edge_prob, b.edge_prob);
    return full.scored_entries() - pruned.scored_entries();
}

/// Few samples against many configurations, where the bound bites: 25 samples of five
/// 5-level variables (uniform), a skewed binary one (a 1 about one time in ten) and a
/// 3-level function of the first two (noisy); from a fixed linear congruential generator.
cudag::bn::DiscreteScorer sparse_scorer(cudag::bn::ScoreKind kind) {
    cudag::ci::DiscreteCodes c;
    c.n_vars = 7;
    c.n_samples = 25;
    c.cards = {5, 5, 5, 5, 5, 2, 3};
    c.codes.resize(static_cast<std::size_t>(c.n_vars * c.n_samples));
    std::uint64_t x = 12345;
    const auto next = [&](std::uint64_t mod) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::uint8_t>((x >> 33) % mod);
    };
    for (std::int64_t t = 0; t < c.n_samples; ++t) {
        for (int v = 0; v < 5; ++v) c.codes[v * c.n_samples + t] = next(5);
        c.codes[5 * c.n_samples + t] = next(10) == 0 ? 1 : 0;
        c.codes[6 * c.n_samples + t] =
            next(4) == 0 ? next(3) : static_cast<std::uint8_t>((c.codes[t] + c.codes[c.n_samples + t]) % 3);
    }
    return cudag::bn::DiscreteScorer(std::move(c), cudag::bn::ScoreSpec{kind, 1.0});
}

TEST(PrunedTable, ListsAndChainsEqualTheFullTables) {
    const int n = 9, s = 3;
    for (const int samples : {30, 500}) {
        const cudag::bn::DiscreteScorer base = cudag::test::simulated_scorer(n, samples, 12);
        cudag::bn::StructurePrior prior;
        prior.edge_penalty = 0.7;
        prior.belief.assign(n * n, 0.5);
        prior.belief[0 * n + 3] = 0.95;
        prior.belief[4 * n + 5] = 0.1;
        const cudag::bn::PriorScorer with_prior(base, prior);
        expect_pruned_equals_full(base, n, s, false, false, "simulated");
        expect_pruned_equals_full(base, n, s, true, false, "simulated, plus1");
        expect_pruned_equals_full(with_prior, n, s, false, false, "simulated, prior");
        expect_pruned_equals_full(base, n, s, false, true, "simulated, required");
    }
}

TEST(PrunedTable, SparseDataArePrunedAndListsAndChainsEqualTheFullTables) {
    std::int64_t skipped = 0;
    for (const auto kind : {cudag::bn::ScoreKind::BDeu, cudag::bn::ScoreKind::K2}) {
        const cudag::bn::DiscreteScorer base = sparse_scorer(kind);
        cudag::bn::StructurePrior prior;
        prior.edge_penalty = 0.8;  // each parent adds log 1.25: the bound must carry it
        const cudag::bn::PriorScorer with_prior(base, prior);
        skipped += expect_pruned_equals_full(base, 7, 3, false, false, "sparse");
        skipped += expect_pruned_equals_full(base, 7, 3, true, false, "sparse, plus1");
        skipped += expect_pruned_equals_full(with_prior, 7, 3, false, false, "sparse, prior");
        skipped += expect_pruned_equals_full(base, 7, 3, false, true, "sparse, required");
    }
    EXPECT_GT(skipped, 0);  // the bound pruned: the comparisons have teeth
}

}  // namespace
