// SPDX-License-Identifier: Apache-2.0
// skeleton::test_candidate_sets: a level of learn_skeleton again, with the candidate lists
// the adjacency; its order of sets, its early stop and its pair rules on a scripted engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "skeleton/candidate_tests.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/skeleton.hpp"
#include "support/pcalg_reference.hpp"

using namespace cudag;

namespace {

using Set = std::vector<std::int32_t>;

/// p_value from a script: p of (x, y, S) as given (sorted S), else `otherwise`; every call
/// recorded.
class ScriptedEngine final : public skeleton::SkeletonEngine {
public:
    explicit ScriptedEngine(std::int64_t n) : n_(n) {}
    std::string name() const override { return "scripted"; }
    std::int64_t n_vars() const override { return n_; }
    void level0(std::int64_t, std::int64_t, bool, Graph&, skeleton::Level0Output&) override {}
    void run_level(int, const Adjacency&, const skeleton::LevelBlock&, skeleton::LevelOutput&) override {}
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override {
        calls.push_back({i, j, s});
        const auto it = script.find({i, j, s});
        return it == script.end() ? otherwise : it->second;
    }

    struct Call {
        std::int32_t x, y;
        Set s;
        bool operator<(const Call& o) const { return std::tie(x, y, s) < std::tie(o.x, o.y, o.s); }
        bool operator==(const Call& o) const { return x == o.x && y == o.y && s == o.s; }
    };
    std::map<Call, double> script;
    double otherwise = 0.001;  ///< dependent at alpha 0.01
    std::vector<Call> calls;

private:
    std::int64_t n_;
};

skeleton::TestPolicy policy(bool exhaustive = false) {
    skeleton::TestPolicy p;
    p.alpha = 0.01;
    p.exhaustive = exhaustive;
    return p;
}

/// The level `l` of learn_skeleton on `d`, and test_candidate_sets over every entry of the
/// snapshot before it (candidates: the entry's row, sorted), give the same removals,
/// separating sets and pMax.
void expect_level_equals_candidates(const Dataset& d, int l, bool exhaustive) {
    SCOPED_TRACE("level " + std::to_string(l) + (exhaustive ? ", exhaustive" : ""));
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    opt.policy.strict = exhaustive;
    opt.policy.exhaustive = exhaustive;
    skeleton::CpuFisherEngine eng(d, opt.policy, 2);
    opt.max_level = l - 1;
    const skeleton::SkeletonResult before = skeleton::learn_skeleton(eng, opt);
    opt.max_level = l;
    const skeleton::SkeletonResult after = skeleton::learn_skeleton(eng, opt);
    ASSERT_EQ(after.levels.size(), static_cast<std::size_t>(l) + 1) << "the case should reach level " << l;
    ASSERT_GT(after.levels.back().removed, 0);

    const Graph& g = before.skeleton;
    std::vector<skeleton::CandidateEntry> entries;
    for (std::int32_t x = 0; x < g.n(); ++x)
        for (const std::int32_t y : g.neighbours(x)) entries.push_back({x, y, g.neighbours(x)});
    const skeleton::CandidateResult got = skeleton::test_candidate_sets(eng, l, entries, opt.policy);

    // Removals: the level's.
    std::vector<std::pair<std::int32_t, std::int32_t>> removed;
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (const std::int32_t j : g.neighbours(i))
            if (i < j && !after.skeleton.has(i, j)) removed.emplace_back(i, j);
    EXPECT_EQ(got.removed, removed);
    // Separating sets: the level's records of the pairs it removed.
    ASSERT_EQ(got.sepsets.size(), removed.size());
    for (const auto& [i, j] : removed) {
        const auto want = after.sepsets.get(i, j), have = got.sepsets.get(i, j);
        EXPECT_TRUE(std::equal(want.begin(), want.end(), have.begin(), have.end())) << i << "-" << j;
    }
    // pMax: the table before the level raised by the candidates' contributions.
    std::map<std::pair<std::int32_t, std::int32_t>, double> pmax;
    for (const skeleton::PairP& q : before.pmax) pmax[{q.i, q.j}] = q.p;
    for (const skeleton::PairP& q : got.pmax) {
        ASSERT_TRUE(g.has(q.i, q.j));
        double& p = pmax[{q.i, q.j}];
        p = std::max(p, q.p);
    }
    ASSERT_EQ(pmax.size(), after.pmax.size());
    for (const skeleton::PairP& q : after.pmax) EXPECT_EQ((pmax[{q.i, q.j}]), q.p) << q.i << "-" << q.j;
    // Every entry's tests, and no more when the lower side's separation spares the upper.
    if (exhaustive) {
        EXPECT_EQ(got.tests, after.levels.back().tests);
    } else {
        EXPECT_LE(got.tests, after.levels.back().tests);
    }
}

}  // namespace

TEST(CandidateTests, WithTheAdjacencyAsCandidatesTheyAreALevel) {
    for (const unsigned seed : {1u, 2u, 3u}) {
        const Dataset d = test::random_sem(16, 300, 0.3, seed);
        for (const bool exhaustive : {false, true}) {
            expect_level_equals_candidates(d, 1, exhaustive);
            expect_level_equals_candidates(d, 2, exhaustive);
        }
    }
}

TEST(CandidateTests, SetsGoInLexicographicOrderOfPositionsSortedByNode) {
    ScriptedEngine eng(8);
    // Candidates 5, 2, 7, 0 (x = 0 left out): the pairs of positions (5,2), (5,7), (2,7).
    const std::vector<skeleton::CandidateEntry> entries = {{0, 1, {5, 2, 7, 0}}};
    const auto r = skeleton::test_candidate_sets(eng, 2, entries, policy());
    const std::vector<ScriptedEngine::Call> want = {{0, 1, {2, 5}}, {0, 1, {5, 7}}, {0, 1, {2, 7}}};
    EXPECT_EQ(eng.calls, want);
    EXPECT_EQ(r.tests, 3);
    EXPECT_TRUE(r.removed.empty());
    EXPECT_EQ(r.sepsets.size(), 0u);
    ASSERT_EQ(r.pmax.size(), 1u);
    EXPECT_EQ(r.pmax[0], (skeleton::PairP{0, 1, 0.001}));
}

TEST(CandidateTests, TheFirstSeparatingSetWinsUnlessExhaustive) {
    for (const bool exhaustive : {false, true}) {
        ScriptedEngine eng(6);
        eng.script[{2, 4, {1, 3}}] = 0.2;  // the second set separates
        eng.script[{2, 4, {3, 5}}] = 0.5;  // and the last
        eng.script[{2, 4, {1, 5}}] = 0.005;
        const std::vector<skeleton::CandidateEntry> entries = {{2, 4, {1, 0, 3, 5}}};
        const auto r = skeleton::test_candidate_sets(eng, 2, entries, policy(exhaustive));
        ASSERT_EQ(r.entries.size(), 1u);
        const auto& o = r.entries[0];
        EXPECT_TRUE(o.separated);
        EXPECT_EQ(o.tests, exhaustive ? 6 : 2);
        EXPECT_EQ(o.pmax, exhaustive ? 0.5 : 0.2);
        EXPECT_EQ(o.set, exhaustive ? (Set{1, 3, 5}) : (Set{1, 3}));
        ASSERT_EQ(r.removed.size(), 1u);
        EXPECT_EQ(r.removed[0], (std::pair<std::int32_t, std::int32_t>{2, 4}));
        const auto s = r.sepsets.get(2, 4);
        EXPECT_EQ(Set(s.begin(), s.end()), o.set);
    }
}

TEST(CandidateTests, PairsMergeAsALevelMergesItsEntries) {
    // Pair (1, 3): the lower side separates; the upper side is not tested and neither its
    // set nor its p counts. Pair (2, 5): only the upper side separates; its set is the
    // pair's and pMax is the larger of both sides'.
    ScriptedEngine eng(7);
    eng.script[{1, 3, {0}}] = 0.3;
    eng.script[{3, 1, {0}}] = 0.9;
    eng.script[{5, 2, {6}}] = 0.4;
    eng.script[{2, 5, {0}}] = 0.008;
    const std::vector<skeleton::CandidateEntry> entries = {{3, 1, {0, 4}}, {1, 3, {0, 4}}, {5, 2, {6}}, {2, 5, {0}}};
    const auto r = skeleton::test_candidate_sets(eng, 1, entries, policy());
    EXPECT_EQ(r.entries[0].tests, 0);  // spared by (1, 3)
    EXPECT_FALSE(r.entries[0].separated);
    EXPECT_EQ(r.entries[1].tests, 1);
    const std::vector<std::pair<std::int32_t, std::int32_t>> removed = {{1, 3}, {2, 5}};
    EXPECT_EQ(r.removed, removed);
    const auto s13 = r.sepsets.get(1, 3), s25 = r.sepsets.get(2, 5);
    EXPECT_EQ(Set(s13.begin(), s13.end()), Set{0});
    EXPECT_EQ(Set(s25.begin(), s25.end()), Set{6});
    ASSERT_EQ(r.pmax.size(), 2u);
    EXPECT_EQ(r.pmax[0], (skeleton::PairP{1, 3, 0.3}));
    EXPECT_EQ(r.pmax[1], (skeleton::PairP{2, 5, 0.4}));
    EXPECT_EQ(r.tests, 3);

    // Exhaustive: both sides are tested and their sets united.
    ScriptedEngine ex(7);
    ex.script = eng.script;
    ex.script[{3, 1, {4}}] = 0.6;
    const auto e = skeleton::test_candidate_sets(ex, 1, entries, policy(true));
    EXPECT_EQ(e.entries[0].tests, 2);
    const auto u = e.sepsets.get(1, 3);
    EXPECT_EQ(Set(u.begin(), u.end()), (Set{0, 4}));
    EXPECT_EQ(e.pmax[0], (skeleton::PairP{1, 3, 0.9}));
}

TEST(CandidateTests, TooFewCandidatesTestNothingAndLevelZeroTestsTheEmptySet) {
    ScriptedEngine eng(5);
    const std::vector<skeleton::CandidateEntry> entries = {{0, 1, {1, 2}}, {3, 4, {}}};
    const auto r = skeleton::test_candidate_sets(eng, 2, entries, policy());
    EXPECT_EQ(r.tests, 0);
    EXPECT_TRUE(r.pmax.empty());
    EXPECT_TRUE(eng.calls.empty());
    const auto z = skeleton::test_candidate_sets(eng, 0, entries, policy());
    EXPECT_EQ(z.tests, 2);
    const std::vector<ScriptedEngine::Call> want = {{0, 1, {}}, {3, 4, {}}};
    EXPECT_EQ(eng.calls, want);
}

TEST(CandidateTests, MalformedEntriesAreRefused) {
    ScriptedEngine eng(4);
    using E = std::vector<skeleton::CandidateEntry>;
    const auto run = [&](const E& e) { return skeleton::test_candidate_sets(eng, 1, e, policy()); };
    EXPECT_THROW(run(E{{0, 1, {2}}, {0, 1, {3}}}), LogicError);  // an entry twice
    EXPECT_THROW(run(E{{2, 2, {1}}}), LogicError);               // x == y
    EXPECT_THROW(run(E{{0, 4, {1}}}), LogicError);               // y out of range
    EXPECT_THROW(run(E{{0, 1, {2, 2}}}), LogicError);            // a candidate twice
    EXPECT_THROW(run(E{{0, 1, {-1}}}), LogicError);              // a candidate out of range
    EXPECT_THROW(skeleton::test_candidate_sets(eng, -1, E{}, policy()), LogicError);
    EXPECT_TRUE(eng.calls.empty());
}
