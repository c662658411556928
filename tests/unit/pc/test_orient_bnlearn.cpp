// SPDX-License-Identifier: Apache-2.0
// pc::orient with UcRule::Bnlearn (bnlearn 4.9's learn.arc.directions, orient_bnlearn.cpp) on
// hand-made graphs: conflicting v-structures settled by the separating tests' p-values (the
// weaker one dropped, not a bidirected edge), a v-structure that would close a directed cycle
// skipped, blacklisted directions fixed first, a pair blacklisted both ways tested given the
// centre, and bnlearn's CPDAG rules. Its agreement with
// bnlearn itself on learned graphs is tested in r/tests/testthat (test-bnlearn-pc.R,
// test-bnlearn-mixed.R, test-bnlearn-boot.R).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "core/graph.hpp"
#include "core/knowledge.hpp"
#include "core/pdag.hpp"
#include "core/sepsets.hpp"
#include "pc/orient.hpp"

namespace {

using cudag::Graph;
using cudag::Knowledge;
using cudag::Pdag;
using cudag::SepSets;
using cudag::pc::OrientOptions;
using cudag::pc::PValueFn;
using cudag::pc::UcRule;

Graph make_graph(int n, const std::vector<std::pair<int, int>>& edges) {
    Graph g(n);
    for (auto [a, b] : edges) g.add(a, b);
    return g;
}

/// p-values by pair (either order), 0.5 where not listed.
PValueFn pvalues(std::map<std::pair<int, int>, double> p) {
    return [p](std::int32_t x, std::int32_t y, const std::vector<std::int32_t>&) {
        const auto it = p.find({std::min(x, y), std::max(x, y)});
        return it == p.end() ? 0.5 : it->second;
    };
}

OrientOptions bnlearn(const Knowledge* k = nullptr) {
    OrientOptions o;
    o.rule = UcRule::Bnlearn;
    o.alpha = 0.05;
    o.knowledge = k;
    return o;
}

TEST(OrientBnlearn, ConflictingVStructuresKeepTheOneOfTheSmallerPValue) {
    // 0 - 1 - 2 - 3, separated: {0, 2} by {}, {1, 3} by {}: v-structures 0 -> 1 <- 2 and
    // 1 -> 2 <- 3 disagree on 1 - 2
    const Graph g = make_graph(4, {{0, 1}, {1, 2}, {2, 3}});
    SepSets s;
    s.set(0, 2, {});
    s.set(1, 3, {});
    s.set(0, 3, {1});
    const Pdag first = cudag::pc::orient(g, s, bnlearn(), pvalues({{{0, 2}, 0.2}, {{1, 3}, 0.6}}));
    EXPECT_TRUE(first.is_directed(0, 1));
    EXPECT_TRUE(first.is_directed(2, 1));
    EXPECT_TRUE(first.is_undirected(2, 3));  // 1 -> 2 <- 3 not applicable: 2 -> 1 already
    const Pdag second = cudag::pc::orient(g, s, bnlearn(), pvalues({{{0, 2}, 0.7}, {{1, 3}, 0.6}}));
    EXPECT_TRUE(second.is_directed(1, 2));
    EXPECT_TRUE(second.is_directed(3, 2));
    EXPECT_TRUE(second.is_undirected(0, 1));
    // pcalg's rule applies both (its 1 - 2 ends with an arrowhead at each end)
    OrientOptions pcalg;
    pcalg.rule = UcRule::Pcalg;
    const Pdag both = cudag::pc::orient(g, s, pcalg, {});
    EXPECT_TRUE(both.is_directed(0, 1));
    EXPECT_TRUE(both.is_directed(3, 2));
}

TEST(OrientBnlearn, ACollidersNeighboursAreDirectedAwayFromIt) {
    // 0 -> 1 <- 2 (0, 2 separated by {}), and 1 - 3 with 3 separated from 0 and 2 by {1}:
    // 3 -> 1 would make an unshielded collider, so 1 -> 3 (bnlearn's step 3b, Meek's rule 1)
    const Graph g = make_graph(4, {{0, 1}, {2, 1}, {1, 3}});
    SepSets s;
    s.set(0, 2, {});
    s.set(0, 3, {1});
    s.set(2, 3, {1});
    const Pdag p = cudag::pc::orient(g, s, bnlearn(), pvalues({}));
    EXPECT_TRUE(p.is_directed(0, 1));
    EXPECT_TRUE(p.is_directed(2, 1));
    EXPECT_TRUE(p.is_directed(1, 3));
}

TEST(OrientBnlearn, AVStructureThatClosesADirectedCycleIsSkipped) {
    // 3 -> 0 -> 1 (3 -> 0 fixed by the blacklist, 0 -> 1 by v-structure 0 -> 1 <- 2 of the
    // smaller p-value) and 1 - 3; the v-structure 1 -> 3 <- 4 would close 3 -> 0 -> 1 -> 3
    const Graph g = make_graph(5, {{0, 1}, {2, 1}, {0, 3}, {1, 3}, {3, 4}});
    SepSets s;
    s.set(0, 2, {});
    s.set(1, 4, {});
    s.set(0, 4, {3});
    s.set(2, 3, {1});
    s.set(2, 4, {});
    Knowledge k(5);
    k.forbid_direction(0, 3);
    const Pdag p = cudag::pc::orient(g, s, bnlearn(&k), pvalues({{{0, 2}, 0.1}, {{1, 4}, 0.3}}));
    EXPECT_TRUE(p.is_directed(3, 0));
    EXPECT_TRUE(p.is_directed(0, 1));
    EXPECT_TRUE(p.is_directed(2, 1));
    EXPECT_FALSE(p.is_directed(1, 3));  // 1 -> 3 <- 4 not applied
}

TEST(OrientBnlearn, BlacklistedDirectionsAreFixedFirst) {
    // 0 - 1 - 2 with 0, 2 separated given 1; 1 -> 0 blacklisted: 0 -> 1, then 1 -> 2 (2 -> 1
    // would make an unshielded collider at 1)
    const Graph g = make_graph(3, {{0, 1}, {1, 2}});
    SepSets s;
    s.set(0, 2, {1});
    Knowledge k(3);
    k.forbid_direction(1, 0);
    const Pdag p = cudag::pc::orient(g, s, bnlearn(&k), pvalues({}));
    EXPECT_TRUE(p.is_directed(0, 1));
    EXPECT_TRUE(p.is_directed(1, 2));
    // 0 - 2 - 1 with 0, 1 separated by {}: the v-structure 0 -> 2 <- 1 needs 0 -> 2, which is
    // blacklisted: 2 -> 0, and 1 - 2 stays undirected
    const Graph h = make_graph(3, {{0, 2}, {1, 2}});
    SepSets t;
    t.set(0, 1, {});
    Knowledge f(3);
    f.forbid_direction(0, 2);
    const Pdag q = cudag::pc::orient(h, t, bnlearn(&f), pvalues({}));
    EXPECT_TRUE(q.is_directed(2, 0));
    EXPECT_TRUE(q.is_undirected(1, 2));
}

}  // namespace

/// 0 - 2 - 1 with 0, 1 blacklisted both ways (never tested, no separating set), 0 - 3, 0 - 4
/// and 1 - 5 (and 1 - 6 with `tie`); every other unshielded triple separated through its centre.
struct BlacklistedPair {
    Graph g;
    SepSets s;
    Knowledge k;
    explicit BlacklistedPair(bool tie) : g(7), k(7) {
        for (auto [a, b] : std::vector<std::pair<int, int>>{{0, 2}, {1, 2}, {0, 3}, {0, 4}, {1, 5}}) g.add(a, b);
        if (tie) g.add(1, 6);
        s.set(2, 3, {0});
        s.set(2, 4, {0});
        s.set(3, 4, {0});
        s.set(2, 5, {1});
        s.set(2, 6, {1});
        s.set(5, 6, {1});
        k.forbid_direction(0, 1);
        k.forbid_direction(1, 0);
    }
};

TEST(OrientBnlearn, APairBlacklistedBothWaysIsTestedGivenTheCentreAndTheSmallerNeighbourhood) {
    // bnlearn's vstruct.detect: allsubs.test(0, 1, fixed = 2, sx) with sx the smaller of
    // adj(0) \ {2, 1} = {3, 4} and adj(1) \ {2, 0} = {5}: the tests given {2}, then {2, 5}, in
    // that order, 0 first; a v-structure when all are dependent (p <= alpha).
    for (const bool independent_last : {false, true}) {
        BlacklistedPair c(false);
        std::vector<std::vector<std::int32_t>> asked;
        const PValueFn p = [&](std::int32_t x, std::int32_t y, const std::vector<std::int32_t>& set) {
            EXPECT_EQ(x, 0);
            EXPECT_EQ(y, 1);
            asked.push_back(set);
            return set.size() == 1 ? 0.01 : independent_last ? 0.2 : 0.03;
        };
        const Pdag out = cudag::pc::orient(c.g, c.s, bnlearn(&c.k), p);
        EXPECT_EQ(asked, (std::vector<std::vector<std::int32_t>>{{2}, {2, 5}}));
        EXPECT_EQ(out.is_directed(0, 2) && out.is_directed(1, 2), !independent_last);
        EXPECT_EQ(out.is_undirected(0, 2) && out.is_undirected(1, 2), independent_last);
    }
    // Equal sizes: the second endpoint's neighbourhood (bnlearn's `smaller` keeps b on a tie).
    BlacklistedPair tie(true);
    std::vector<std::vector<std::int32_t>> asked;
    const PValueFn p = [&](std::int32_t, std::int32_t, const std::vector<std::int32_t>& set) {
        asked.push_back(set);
        return 0.001;
    };
    cudag::pc::orient(tie.g, tie.s, bnlearn(&tie.k), p);
    EXPECT_EQ(asked, (std::vector<std::vector<std::int32_t>>{{2}, {2, 5}, {2, 6}, {2, 5, 6}}));
    // max.sx caps the subsets beside the centre; independent given the centre alone: none.
    OrientOptions capped = bnlearn(&tie.k);
    capped.max_sx = 1;
    asked.clear();
    cudag::pc::orient(tie.g, tie.s, capped, p);
    EXPECT_EQ(asked, (std::vector<std::vector<std::int32_t>>{{2}, {2, 5}, {2, 6}}));
    capped.max_sx = 0;
    asked.clear();
    const Pdag none =
        cudag::pc::orient(tie.g, tie.s, capped, [&](std::int32_t, std::int32_t, const std::vector<std::int32_t>& set) {
            asked.push_back(set);
            return 0.5;
        });
    EXPECT_EQ(asked, (std::vector<std::vector<std::int32_t>>{{2}}));
    EXPECT_TRUE(none.is_undirected(0, 2));
}
