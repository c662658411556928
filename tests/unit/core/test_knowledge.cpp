// SPDX-License-Identifier: Apache-2.0
// Background knowledge (issue 23): the files, the contradiction checks, the skeleton search
// with forbidden and required pairs (against a serial pcalg skeleton(fixedGaps, fixedEdges)
// written here, on both result strategies and any thread count) and the orientation rules
// with knowledge on small graphs whose answers are worked out by hand.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/combinations.hpp"
#include "core/error.hpp"
#include "core/knowledge.hpp"
#include "pc/orient.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/skeleton.hpp"
#include "support/keeping_engine.hpp"
#include "support/pcalg_reference.hpp"

using namespace cudag;

namespace {

namespace fs = std::filesystem;

class Files : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cudag_knowledge_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string write(const std::string& name, const std::string& text) {
        const fs::path p = dir_ / name;
        std::ofstream(p) << text;
        return p.string();
    }
    /// The one-line message read_knowledge throws.
    std::string error_of(const KnowledgeFiles& f, const std::vector<std::string>& names) {
        try {
            read_knowledge(f, names);
        } catch (const InputError& e) {
            return e.what();
        }
        return "(no error)";
    }
    fs::path dir_;
};

const std::vector<std::string> kNames = {"A", "B", "C", "D", "E"};

TEST_F(Files, PairsDirectionsIndicesAndComments) {
    KnowledgeFiles f;
    f.forbid = write("f.txt", "# forbidden\nA -> B\n\nC -- D  # a pair\nE\t0\n");
    f.require = write("r.txt", "B -> C\n  # nothing\n3 4\n");
    const Knowledge k = read_knowledge(f, kNames);
    EXPECT_TRUE(k.forbidden(0, 1));
    EXPECT_FALSE(k.forbidden(1, 0));
    EXPECT_TRUE(k.forbidden(2, 3));
    EXPECT_TRUE(k.forbidden(3, 2));
    EXPECT_TRUE(k.adjacency_forbidden(4, 0));
    EXPECT_FALSE(k.adjacency_forbidden(0, 1));  // only A -> B
    EXPECT_TRUE(k.required(1, 2));
    EXPECT_FALSE(k.required(2, 1));
    EXPECT_TRUE(k.adjacency_required(3, 4));
    EXPECT_FALSE(k.required(3, 4));
    using P = Knowledge::Pair;
    EXPECT_EQ(k.forbidden_pairs(), (std::vector<P>{{0, 4}, {2, 3}}));
    EXPECT_EQ(k.required_pairs(), (std::vector<P>{{1, 2}, {3, 4}}));
    EXPECT_TRUE(k.has_directions());
}

TEST_F(Files, TiersForbidBackwardEdgesOnly) {
    KnowledgeFiles f;
    f.tiers = write("t.txt", "A B\n# middle\nC\nD\n");
    f.forbid = write("f.txt", "D -> A\n");
    const Knowledge k = read_knowledge(f, kNames);
    EXPECT_EQ(k.tier(0), 0);
    EXPECT_EQ(k.tier(2), 1);
    EXPECT_EQ(k.tier(3), 2);
    EXPECT_EQ(k.tier(4), -1);
    EXPECT_TRUE(k.forbidden(2, 0));  // C (tier 1) -> A (tier 0)
    EXPECT_FALSE(k.forbidden(0, 2));
    EXPECT_FALSE(k.forbidden(0, 1));  // within a tier
    EXPECT_FALSE(k.forbidden(4, 0));  // E has no tier
    // D -> A forbidden, A -> D allowed: the pair may be adjacent; C -> A by the tiers plus
    // nothing for A -> C: adjacent too. Tiers alone forbid no pair.
    EXPECT_TRUE(k.forbidden_pairs().empty());
    EXPECT_FALSE(k.adjacency_forbidden(0, 3));
}

TEST_F(Files, ADirectionForbiddenBothWaysForbidsThePair) {
    KnowledgeFiles f;
    f.tiers = write("t.txt", "A\nB\n");
    f.forbid = write("f.txt", "A -> B\n");  // and B -> A by the tiers
    const Knowledge k = read_knowledge(f, kNames);
    EXPECT_EQ(k.forbidden_pairs(), (std::vector<Knowledge::Pair>{{0, 1}}));
}

TEST_F(Files, BadFilesAreOneLineErrorsNamingFileAndLine) {
    KnowledgeFiles f;
    f.forbid = write("f.txt", "A -> B\nA -> Q\n");
    std::string e = error_of(f, kNames);
    EXPECT_NE(e.find("f.txt:2: unknown variable 'Q'"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
    f.forbid = write("f.txt", "A -> B -> C\n");
    EXPECT_NE(error_of(f, kNames).find("f.txt:1: expected 'a -> b', 'a -- b' or 'a b'"), std::string::npos);
    f.forbid = write("f.txt", "A A\n");
    EXPECT_NE(error_of(f, kNames).find("f.txt:1: a pair needs two different variables"), std::string::npos);
    f.forbid = write("f.txt", "A 5\n");  // 5 is no column index of 5 variables
    EXPECT_NE(error_of(f, kNames).find("unknown variable '5'"), std::string::npos);
    f.forbid = (dir_ / "missing.txt").string();
    EXPECT_NE(error_of(f, kNames).find("cannot open knowledge file"), std::string::npos);
    f = {};
    f.tiers = write("t.txt", "A B\nC A\n");
    EXPECT_NE(error_of(f, kNames).find("t.txt:2: 'A' is already in the tier of line 1"), std::string::npos);
}

TEST_F(Files, ContradictionsAreRefused) {
    KnowledgeFiles f;
    f.forbid = write("f.txt", "A B\n");
    f.require = write("r.txt", "B -> A\n");
    EXPECT_NE(error_of(f, kNames).find("'A' and 'B' are both required and forbidden"), std::string::npos);
    f.forbid = write("f.txt", "A -> B\n");
    f.require = write("r.txt", "A -> B\n");
    EXPECT_NE(error_of(f, kNames).find("'A' -> 'B' is required but forbidden"), std::string::npos);
    f.forbid.clear();
    f.require = write("r.txt", "A -> B\nB -> A\n");
    EXPECT_NE(error_of(f, kNames).find("are both required"), std::string::npos);
    f.require = write("r.txt", "A -> B\nB -> C\nC -> A\n");
    EXPECT_NE(error_of(f, kNames).find("form a cycle"), std::string::npos);
    f.require = write("r.txt", "C -> A\n");
    f.tiers = write("t.txt", "A\nC\n");
    EXPECT_NE(error_of(f, kNames).find("runs from tier 1 to the earlier tier 0"), std::string::npos);
}

TEST(Knowledge, DigestChangesWithTheKnowledgeAndNotWithoutIt) {
    Digest none, empty, one, other;
    Knowledge(4).add_to(empty);
    EXPECT_EQ(none.value(), empty.value());
    Knowledge a(4), b(4);
    a.forbid_pair(0, 1);
    b.forbid_direction(0, 1);
    a.add_to(one);
    b.add_to(other);
    EXPECT_NE(one.value(), none.value());
    EXPECT_NE(one.value(), other.value());
}

// ---- skeleton --------------------------------------------------------------------------

using test::random_sem;
using test::Reference;

/// `all_pmax`: the result lists every pair's pMax (dense table), else those of the pairs
/// still adjacent after level 0 (each must match).
::testing::AssertionResult same(const skeleton::SkeletonResult& got, const Reference& want, int n, bool all_pmax) {
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            if (got.skeleton.has(i, j) != static_cast<bool>(want.adj[i][j]))
                return ::testing::AssertionFailure() << "edge " << i << "-" << j << " differs";
            const auto it = want.sepsets.find({i, j});
            const auto& s = got.sepsets.get(i, j);
            const std::vector<int> gs(s.begin(), s.end());
            const std::vector<int> ws = it != want.sepsets.end() ? it->second : std::vector<int>{};
            if (gs != ws) return ::testing::AssertionFailure() << "sepset of " << i << "-" << j << " differs";
        }
    std::map<std::pair<int, int>, double> gp;
    for (const auto& q : got.pmax) {
        gp[{q.i, q.j}] = q.p;
        const auto it = want.pmax.find({q.i, q.j});
        if (it == want.pmax.end() || it->second != q.p)
            return ::testing::AssertionFailure() << "pmax of " << q.i << "-" << q.j << " differs";
    }
    if (all_pmax && gp.size() != want.pmax.size())
        return ::testing::AssertionFailure() << "pmax has " << gp.size() << " pairs, not " << want.pmax.size();
    return ::testing::AssertionSuccess();
}

/// Knowledge pairs over a random SEM: some adjacent pairs of an unconstrained run
/// forbidden, some removed pairs (at level 0 and later) required.
struct Pairs {
    std::set<std::pair<int, int>> forbidden, required;
};
Pairs pick_pairs(const skeleton::SkeletonResult& free_run, int n) {
    Pairs p;
    int adjacent = 0, removed = 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            if (free_run.skeleton.has(i, j)) {
                if (adjacent++ % 3 == 0) p.forbidden.insert({i, j});
            } else if (removed++ % 7 == 0) {
                p.required.insert({i, j});
            }
        }
    return p;
}

skeleton::SkeletonOptions with_pairs(skeleton::SkeletonOptions opt, const Pairs& p) {
    opt.forbidden_pairs.assign(p.forbidden.begin(), p.forbidden.end());
    opt.required_pairs.assign(p.required.begin(), p.required.end());
    return opt;
}

TEST(SkeletonKnowledge, MatchesPcalgFixedGapsAndFixedEdges) {
    for (unsigned seed : {3u, 8u}) {
        const int n = 24;
        const Dataset d = random_sem(n, 400, 0.2, seed);
        for (const bool sparse : {false, true}) {
            SCOPED_TRACE(std::to_string(seed) + (sparse ? " sparse" : " dense"));
            skeleton::SkeletonOptions opt;
            opt.policy.alpha = 0.01;
            opt.threads = 2;
            if (sparse) opt.dense_pmax_limit = 0;
            skeleton::CpuFisherEngine eng(d, opt.policy, 2);
            const Pairs p = pick_pairs(skeleton::learn_skeleton(eng, opt), n);
            ASSERT_FALSE(p.forbidden.empty());
            ASSERT_FALSE(p.required.empty());
            const skeleton::SkeletonOptions ko = with_pairs(opt, p);
            const auto got = skeleton::learn_skeleton(eng, ko);
            EXPECT_TRUE(same(got, test::pcalg_stable(eng, n, 0.01, -1, p.forbidden, p.required), n, !sparse));
            for (auto [i, j] : p.forbidden) EXPECT_FALSE(got.skeleton.has(i, j));
            for (auto [i, j] : p.required) EXPECT_TRUE(got.skeleton.has(i, j));
            // The device-results strategy (an engine keeping pMax and the sets, building
            // the snapshots) and other thread counts give the same search.
            test::KeepingEngine keeping(eng, false, true);
            const auto kept = skeleton::learn_skeleton(keeping, ko);
            EXPECT_TRUE(same(kept, test::pcalg_stable(eng, n, 0.01, -1, p.forbidden, p.required), n, !sparse));
            skeleton::SkeletonOptions one = ko;
            one.threads = 1;
            skeleton::CpuFisherEngine eng1(d, one.policy, 1);
            EXPECT_TRUE(skeleton::learn_skeleton(eng1, one).sepsets == got.sepsets);
        }
    }
}

TEST(SkeletonKnowledge, ExhaustiveSearchKeepsTheKnowledgeToo) {
    const int n = 20;
    const Dataset d = random_sem(n, 300, 0.25, 5);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.01;
    opt.policy.strict = opt.policy.exhaustive = true;
    skeleton::CpuFisherEngine eng(d, opt.policy, 2);
    const Pairs p = pick_pairs(skeleton::learn_skeleton(eng, opt), n);
    const auto got = skeleton::learn_skeleton(eng, with_pairs(opt, p));
    for (auto [i, j] : p.forbidden) EXPECT_FALSE(got.skeleton.has(i, j));
    for (auto [i, j] : p.required) {
        EXPECT_TRUE(got.skeleton.has(i, j));
        EXPECT_TRUE(got.sepsets.get(i, j).empty());
    }
    for (const auto& q : got.pmax) EXPECT_FALSE(p.forbidden.count({q.i, q.j}) || p.required.count({q.i, q.j}));
}

TEST(SkeletonKnowledge, ChainWithRequiredEndsAndForbiddenLink) {
    // Population correlations of X0 -> X1 -> X2: X0 and X2 are separated by X1.
    std::vector<double> c = {1, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 1};
    skeleton::SkeletonOptions opt;
    opt.required_pairs = {{0, 2}};
    skeleton::CpuFisherEngine eng(c, 3, 1000, opt.policy, 1);
    auto got = skeleton::learn_skeleton(eng, opt);
    EXPECT_TRUE(got.skeleton.has(0, 2));  // kept although X1 separates it
    EXPECT_TRUE(got.skeleton.has(0, 1));
    EXPECT_TRUE(got.skeleton.has(1, 2));
    EXPECT_EQ(got.sepsets.size(), 0u);
    for (const auto& q : got.pmax) EXPECT_FALSE(q.i == 0 && q.j == 2);
    // Forbidding X0 - X1 removes it before level 1, but X1 is still X2's neighbour: X0 - X2
    // is tested from X2's side given {X1} at level 1 and removed.
    opt.required_pairs.clear();
    opt.forbidden_pairs = {{0, 1}};
    got = skeleton::learn_skeleton(eng, opt);
    EXPECT_FALSE(got.skeleton.has(0, 1));
    EXPECT_FALSE(got.skeleton.has(0, 2));
    EXPECT_TRUE(got.skeleton.has(1, 2));
    EXPECT_EQ(got.sepsets.get(0, 2), std::vector<std::int32_t>{1});
    EXPECT_TRUE(got.sepsets.get(0, 1).empty());  // never separated
    for (const auto& q : got.pmax) EXPECT_FALSE(q.i == 0 && q.j == 1);
}

// ---- orientation ---------------------------------------------------------------------

Graph make_graph(int n, const std::vector<std::pair<int, int>>& edges) {
    Graph g(n);
    for (auto [a, b] : edges) g.add(a, b);
    return g;
}

pc::OrientOptions options(pc::UcRule rule, const Knowledge* k) {
    pc::OrientOptions o;
    o.rule = rule;
    o.uc_priority = 2;
    o.knowledge = k;
    return o;
}

constexpr pc::UcRule kRules[] = {pc::UcRule::Pcalg, pc::UcRule::Sepset};

TEST(OrientKnowledge, TiersOrientAChain) {
    // 0 - 1 - 2, separated by 1: no collider; tiers 0 < 1 < 2 give 0 -> 1 -> 2.
    const Graph g = make_graph(3, {{0, 1}, {1, 2}});
    SepSets s;
    s.set(0, 2, {1});
    Knowledge k(3);
    for (int v = 0; v < 3; ++v) k.set_tier(v, v);
    for (const auto rule : kRules) {
        const Pdag p = pc::orient(g, s, options(rule, &k), {});
        EXPECT_TRUE(p.is_directed(0, 1));
        EXPECT_TRUE(p.is_directed(1, 2));
        const Pdag none = pc::orient(g, s, options(rule, nullptr), {});
        EXPECT_TRUE(none.is_undirected(0, 1));
    }
}

TEST(OrientKnowledge, RequiredDirectionPropagatesByRule1Only) {
    const Graph g = make_graph(3, {{0, 1}, {1, 2}});
    SepSets s;
    s.set(0, 2, {1});
    for (const auto rule : kRules) {
        Knowledge k(3);
        k.require_direction(0, 1);  // 0 -> 1 - 2, 0 and 2 apart: rule 1 gives 1 -> 2
        Pdag p = pc::orient(g, s, options(rule, &k), {});
        EXPECT_TRUE(p.is_directed(0, 1));
        EXPECT_TRUE(p.is_directed(1, 2));
        Knowledge back(3);
        back.require_direction(1, 0);  // 1 -> 0 says nothing about 1 - 2
        p = pc::orient(g, s, options(rule, &back), {});
        EXPECT_TRUE(p.is_directed(1, 0));
        EXPECT_TRUE(p.is_undirected(1, 2));
    }
}

TEST(OrientKnowledge, ColliderAgainstTheKnowledgeIsSkipped) {
    // 0 - 1 - 2 with 0 and 2 separated by the empty set: the collider 0 -> 1 <- 2, but
    // 0 -> 1 is forbidden: 1 -> 0, and 1 - 2 stays undirected.
    const Graph g = make_graph(3, {{0, 1}, {1, 2}});
    SepSets s;
    s.set(0, 2, {});
    Knowledge k(3);
    k.forbid_direction(0, 1);
    for (const auto rule : kRules) {
        const Pdag p = pc::orient(g, s, options(rule, &k), {});
        EXPECT_TRUE(p.is_directed(1, 0));
        EXPECT_TRUE(p.is_undirected(1, 2));
        const Pdag free = pc::orient(g, s, options(rule, nullptr), {});
        EXPECT_TRUE(free.is_directed(0, 1));
        EXPECT_TRUE(free.is_directed(2, 1));
    }
}

TEST(OrientKnowledge, MeekRule4WhereKnowledgeNeedsIt) {
    // a=0, b=1, c=2, d=3: a - b, a - c, a - d, c - d, d - b; c and b apart, separated by
    // {a, d} (no collider). Knowledge c -> d and d -> b. Rules 1-3 orient nothing more;
    // rule 4 (a - c -> d -> b, a adjacent to d, c and b apart) gives a -> b.
    const Graph g = make_graph(4, {{0, 1}, {0, 2}, {0, 3}, {2, 3}, {3, 1}});
    SepSets s;
    s.set(1, 2, {0, 3});
    Knowledge k(4);
    k.require_direction(2, 3);
    k.require_direction(3, 1);
    const Pdag p = pc::orient(g, s, options(pc::UcRule::Pcalg, &k), {});
    EXPECT_TRUE(p.is_directed(2, 3));
    EXPECT_TRUE(p.is_directed(3, 1));
    EXPECT_TRUE(p.is_directed(0, 1));
    EXPECT_TRUE(p.is_undirected(0, 2));
    EXPECT_TRUE(p.is_undirected(0, 3));
    // causal-learn's meek() has no rule 4: a - b stays.
    const Pdag cl = pc::orient(g, s, options(pc::UcRule::Sepset, &k), {});
    EXPECT_TRUE(cl.is_directed(2, 3));
    EXPECT_TRUE(cl.is_directed(3, 1));
    EXPECT_TRUE(cl.is_undirected(0, 1));
}

TEST(OrientKnowledge, PairsOnlyKeepPcalgsOrientation) {
    // Knowledge of pairs only (fixedGaps / fixedEdges) orients as pcalg does without it.
    const Graph g = make_graph(4, {{0, 2}, {1, 2}, {2, 3}});
    SepSets s;
    s.set(0, 1, {});
    s.set(0, 3, {2});
    s.set(1, 3, {2});
    Knowledge k(4);
    k.require_pair(0, 2);
    k.forbid_pair(0, 1);
    ASSERT_FALSE(k.has_directions());
    const Pdag with = pc::orient(g, s, options(pc::UcRule::Pcalg, &k), {});
    const Pdag without = pc::orient(g, s, options(pc::UcRule::Pcalg, nullptr), {});
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) EXPECT_EQ(with.end(i, j), without.end(i, j));
    EXPECT_TRUE(with.is_directed(0, 2));
    EXPECT_TRUE(with.is_directed(2, 3));
}

}  // namespace
