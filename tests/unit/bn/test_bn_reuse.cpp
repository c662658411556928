// SPDX-License-Identifier: Apache-2.0
// A table taking a previous table's entries (issue 37; ScoreTable::reuse_from, as BiDAG's
// iterative search space does round after round): every entry, scored count and sorted list
// equal to the same table filled afresh, bit for bit, with and without pruning, mandatory
// parents, a prior, and spaces that grow, shrink or change between the two tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bn/prior.hpp"
#include "bn/score.hpp"
#include "bn/score_table.hpp"
#include "support/bn_sim.hpp"

namespace {

using cudag::bn::ScoreTable;
using Lists = std::vector<std::vector<std::int32_t>>;

struct Space {
    Lists cands, extras;
};

/// BiDAG's plus1 start: v's candidates the nodes u < v % 4 + 1 (u != v), every other node an extra.
Space plus1(int n) {
    Space s{Lists(n), Lists(n)};
    for (std::int32_t v = 0; v < n; ++v)
        for (std::int32_t u = 0; u < n; ++u)
            if (u != v) (u < v % 4 + 1 ? s.cands[v] : s.extras[v]).push_back(u);
    return s;
}

/// `s` with the edges (p, v) admitted both ways, as a round of the iterative search does.
Space admit(Space s, const std::vector<std::pair<std::int32_t, std::int32_t>>& edges) {
    const auto one = [&](std::int32_t child, std::int32_t parent) {
        auto& x = s.extras[child];
        const auto it = std::find(x.begin(), x.end(), parent);
        if (it == x.end()) return;
        x.erase(it);
        s.cands[child].push_back(parent);
    };
    for (const auto& [p, v] : edges) one(v, p), one(p, v);
    return s;
}

ScoreTable fill(const cudag::bn::LocalScorer& scorer, const Space& s, int limit, bool prune, const Lists& required,
                const ScoreTable* prev, bool keep) {
    ScoreTable t = ScoreTable::layout(scorer.n_vars(), s.cands, limit, s.extras);
    if (!required.empty()) t.require_parents(required);
    t.set_pruning(prune);
    t.keep_for_reuse(keep);
    t.reuse_from(prev);
    t.fill_nodes(scorer, t.all_nodes(), 2);
    t.reuse_from(nullptr);
    EXPECT_TRUE(t.build_sorted(1));
    return t;
}

/// Every entry (bits), scored count and sorted list alike.
void expect_same(const ScoreTable& a, const ScoreTable& b) {
    ASSERT_EQ(a.total_entries(), b.total_entries());
    for (std::int32_t v = 0; v < a.n_nodes(); ++v) {
        const auto x = a.node_scores(v), y = b.node_scores(v);
        ASSERT_EQ(x.size(), y.size());
        EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(double)), 0) << "node " << v;
        EXPECT_EQ(a.scored(v), b.scored(v)) << "node " << v;
        EXPECT_TRUE(std::ranges::equal(a.sorted_offsets(v), b.sorted_offsets(v))) << "node " << v;
        EXPECT_TRUE(std::ranges::equal(a.sorted_parents(v), b.sorted_parents(v))) << "node " << v;
        EXPECT_TRUE(std::ranges::equal(a.sorted_scores(v), b.sorted_scores(v))) << "node " << v;
    }
}

TEST(TableReuse, EntriesEqualAFreshFillOverGrowingAndChangedSpaces) {
    const int n = 9, s = 3;
    for (const int samples : {25, 400}) {
        const cudag::bn::DiscreteScorer base = cudag::test::simulated_scorer(n, samples, 21);
        cudag::bn::StructurePrior prior;
        prior.edge_penalty = 0.6;
        const cudag::bn::PriorScorer with_prior(base, prior);
        const Space first = plus1(n);
        const Space grown = admit(first, {{5, 0}, {7, 0}, {8, 2}, {6, 3}, {1, 8}, {4, 7}, {2, 7}});
        // A space that drops a candidate too (not the iterative search's, but any layout must do).
        Space other = grown;
        other.extras[3].push_back(other.cands[3].back());
        other.cands[3].pop_back();
        Lists required(n);
        required[7] = {0};
        required[2] = {1};
        for (const cudag::bn::LocalScorer* scorer : std::vector<const cudag::bn::LocalScorer*>{&base, &with_prior}) {
            for (const bool prune : {false, true}) {
                for (const bool require : {false, true}) {
                    SCOPED_TRACE(::testing::Message() << samples << " samples, prune " << prune << ", require "
                                                      << require << (scorer == &base ? "" : ", prior"));
                    const Lists req = require ? required : Lists{};
                    const ScoreTable prev = fill(*scorer, first, s, prune, req, nullptr, true);
                    for (const Space* next : std::vector<const Space*>{&grown, &other, &first}) {
                        const ScoreTable fresh = fill(*scorer, *next, s, prune, req, nullptr, false);
                        const ScoreTable reused = fill(*scorer, *next, s, prune, req, &prev, false);
                        expect_same(fresh, reused);
                        // The previous table's scored sets all reappear in the grown space.
                        EXPECT_GT(reused.reused_entries(), 0);
                        if (next != &other) {
                            EXPECT_EQ(reused.reused_entries(), prev.scored_entries());
                        }
                    }
                    // A sum-mode table (no pruning) after a pruned one: the pruned sets are
                    // scored, the others taken.
                    const ScoreTable fresh = fill(*scorer, grown, s, false, req, nullptr, false);
                    const ScoreTable reused = fill(*scorer, grown, s, false, req, &prev, false);
                    expect_same(fresh, reused);
                }
            }
        }
    }
}

TEST(TableReuse, NodesThePreviousTableCannotLendAreScoredAnew) {
    const int n = 7, s = 3;
    const cudag::bn::DiscreteScorer base = cudag::test::simulated_scorer(n, 60, 5);
    const Space sp = plus1(n);
    // Not kept for reuse: a pruned table has no closure record to lend, so nothing is taken.
    const ScoreTable unkept = fill(base, sp, s, true, {}, nullptr, false);
    const ScoreTable a = fill(base, sp, s, true, {}, &unkept, false);
    EXPECT_EQ(a.reused_entries(), 0);
    expect_same(unkept, a);
    // Other mandatory parents of node 3: its entries are scored anew, the others taken.
    Lists required(n);
    required[3] = {0};
    const ScoreTable kept = fill(base, sp, s, true, {}, nullptr, true);
    const ScoreTable fresh = fill(base, sp, s, true, required, nullptr, false);
    const ScoreTable b = fill(base, sp, s, true, required, &kept, false);
    expect_same(fresh, b);
    EXPECT_EQ(b.reused(3), 0);
    EXPECT_EQ(b.reused(4), kept.scored(4));
    // Another parent limit: nothing is taken.
    const ScoreTable c = fill(base, sp, 2, true, {}, &kept, false);
    EXPECT_EQ(c.reused_entries(), 0);
    expect_same(fill(base, sp, 2, true, {}, nullptr, false), c);
}

}  // namespace
