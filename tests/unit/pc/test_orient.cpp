// SPDX-License-Identifier: Apache-2.0
// Orientation phase: hand-made skeletons with exactly known outputs for both
// families, causal-learn's own fixture (data_linear_10, every uc_rule /
// uc_priority it ships), and, when CUDAG_ORIENT_CASES names a folder written by
// scripts/dev/orient_vs_causal_learn.py, the peers' outputs on many random cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "pc/orient.hpp"
#include "tests/support/cl_matrix.hpp"
#include "tests/support/orient_reference.hpp"
#include "tests/support/paths.hpp"

namespace {

using cudag::Graph;
using cudag::Mark;
using cudag::Pdag;
using cudag::SepSets;
using cudag::pc::OrientOptions;
using cudag::pc::PValueFn;
using cudag::pc::UcRule;
using cudag::test::cl_matrices_equal;
using cudag::test::ClMatrix;
using cudag::test::to_cl_matrix;

using Edge = std::pair<int, int>;
using Set = std::vector<std::int32_t>;

Graph make_graph(int n, const std::vector<Edge>& edges) {
    Graph g(n);
    for (auto [a, b] : edges) g.add(a, b);
    return g;
}

/// Expected CPDAG in causal-learn encoding from directed, undirected and
/// bidirected edge lists.
ClMatrix expect(int n, const std::vector<Edge>& directed, const std::vector<Edge>& undirected = {},
                const std::vector<Edge>& bidirected = {}) {
    ClMatrix m(n, std::vector<int>(n, 0));
    for (auto [a, b] : directed) m[a][b] = -1, m[b][a] = 1;
    for (auto [a, b] : undirected) m[a][b] = m[b][a] = -1;
    for (auto [a, b] : bidirected) m[a][b] = m[b][a] = 1;
    return m;
}

OrientOptions opts(UcRule rule, int priority = -1, double alpha = 0.05, bool strict = true) {
    OrientOptions o;
    o.rule = rule;
    o.uc_priority = priority;
    o.alpha = alpha;
    o.independence_strict = strict;
    return o;
}

/// p-values from a rule over (x, y, S); records what was asked.
struct FakeTest {
    using Rule = std::function<double(std::int32_t, std::int32_t, const Set&)>;
    explicit FakeTest(Rule r) : rule(std::move(r)) {}
    Rule rule;
    std::vector<std::tuple<std::int32_t, std::int32_t, Set>> calls;
    PValueFn fn() {
        return [this](std::int32_t x, std::int32_t y, const Set& s) {
            calls.emplace_back(x, y, s);
            return rule(x, y, s);
        };
    }
};

bool has(const Set& s, std::int32_t v) { return std::find(s.begin(), s.end(), v) != s.end(); }

/// Every causal-learn (rule, priority) pair that accepts the given p-values.
std::vector<OrientOptions> all_causal_learn_options() {
    std::vector<OrientOptions> out;
    for (int p = -1; p <= 4; ++p) out.push_back(opts(UcRule::Sepset, p));
    for (int p = -1; p <= 4; ++p) out.push_back(opts(UcRule::MaxP, p));
    for (int p : {-1, 2, 3, 4}) out.push_back(opts(UcRule::DefiniteMaxP, p));
    return out;
}

std::string describe(const OrientOptions& o) {
    return "rule " + std::to_string(static_cast<int>(o.rule)) + " priority " + std::to_string(o.uc_priority);
}

// ---- hand-made graphs: every family agrees ---------------------------------

TEST(Orient, ColliderIsOriented) {
    // a=0 -> c=2 <- b=1; a and b separated by the empty set.
    const Graph g = make_graph(3, {{0, 2}, {1, 2}});
    SepSets s;
    s.set(0, 1, {});
    FakeTest t{[](auto, auto, const Set& S) { return has(S, 2) ? 0.001 : 0.5; }};
    const ClMatrix want = expect(3, {{0, 2}, {1, 2}});
    EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(cudag::pc::orient(g, s, opts(UcRule::Pcalg), {})), want));
    for (const auto& o : all_causal_learn_options())
        EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(cudag::pc::orient(g, s, o, t.fn())), want)) << describe(o);
}

TEST(Orient, ChainStaysUndirected) {
    const Graph g = make_graph(3, {{0, 1}, {1, 2}});
    SepSets s;
    s.set(0, 2, {1});
    FakeTest t{[](auto, auto, const Set& S) { return has(S, 1) ? 0.5 : 0.001; }};
    const ClMatrix want = expect(3, {}, {{0, 1}, {1, 2}});
    const Pdag p = cudag::pc::orient(g, s, opts(UcRule::Pcalg), {});
    EXPECT_TRUE(p.is_undirected(0, 1));
    EXPECT_TRUE(p.is_undirected(1, 2));
    EXPECT_FALSE(p.adjacent(0, 2));
    for (const auto& o : all_causal_learn_options())
        EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(cudag::pc::orient(g, s, o, t.fn())), want)) << describe(o);
}

TEST(Orient, MeekRule1Propagates) {
    // a=0 -> b=2 <- d=1 (collider), b - c=3 with c adjacent to neither a nor d.
    const Graph g = make_graph(4, {{0, 2}, {1, 2}, {2, 3}});
    SepSets s;
    s.set(0, 1, {});
    s.set(0, 3, {2});
    s.set(1, 3, {2});
    FakeTest t{[](std::int32_t x, std::int32_t y, const Set& S) {
        if (x == 0 && y == 1) return has(S, 2) ? 0.001 : 0.5;
        return has(S, 2) ? 0.5 : 0.001;
    }};
    const ClMatrix want = expect(4, {{0, 2}, {1, 2}, {2, 3}});
    EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(cudag::pc::orient(g, s, opts(UcRule::Pcalg), {})), want));
    for (const auto& o : all_causal_learn_options())
        EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(cudag::pc::orient(g, s, o, t.fn())), want)) << describe(o);
}

TEST(Orient, MeekRule2AvoidsCycle) {
    // x=3 -> b=1 <- a=0 (collider), R1 gives b -> c=2, then a -> b -> c with
    // a - c gives a -> c.
    const Graph g = make_graph(4, {{0, 1}, {0, 2}, {1, 2}, {1, 3}});
    SepSets s;
    s.set(0, 3, {});
    s.set(2, 3, {1});
    FakeTest t{[](std::int32_t x, std::int32_t y, const Set& S) {
        if (x == 0 && y == 3) return has(S, 1) ? 0.001 : 0.5;
        return has(S, 1) ? 0.5 : 0.001;
    }};
    const ClMatrix want = expect(4, {{3, 1}, {0, 1}, {1, 2}, {0, 2}});
    EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(cudag::pc::orient(g, s, opts(UcRule::Pcalg), {})), want));
    for (const auto& o : all_causal_learn_options())
        EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(cudag::pc::orient(g, s, o, t.fn())), want)) << describe(o);
}

TEST(Orient, MeekRule3Kite) {
    // a=0 adjacent to b=1, c1=2, c2=3; c1 -> b <- c2; c1, c2 separated by {a}.
    const Graph g = make_graph(4, {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}});
    SepSets s;
    s.set(2, 3, {0});
    FakeTest t{[](auto, auto, const Set& S) { return has(S, 0) && !has(S, 1) ? 0.5 : 0.001; }};
    const ClMatrix want = expect(4, {{2, 1}, {3, 1}, {0, 1}}, {{0, 2}, {0, 3}});
    EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(cudag::pc::orient(g, s, opts(UcRule::Pcalg), {})), want));
    for (const auto& o : all_causal_learn_options())
        EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(cudag::pc::orient(g, s, o, t.fn())), want)) << describe(o);
}

TEST(Orient, EmptyAndEdgelessGraphs) {
    SepSets s;
    EXPECT_EQ(cudag::pc::orient(Graph(0), s, opts(UcRule::Pcalg), {}).n(), 0);
    const Pdag p = cudag::pc::orient(Graph(3), s, opts(UcRule::Sepset, 2), {});
    EXPECT_EQ(p.n(), 3);
    EXPECT_EQ(p.n_edges(), 0);
}

// ---- conflicting colliders: the rules differ -------------------------------

/// Chain 0 - 1 - 2 - 3 whose separating sets make both 1 and 2 colliders:
/// 0 -> 1 <- 2 and 1 -> 2 <- 3 disagree on the edge 1 - 2.
struct Conflict {
    Graph g = make_graph(4, {{0, 1}, {1, 2}, {2, 3}});
    SepSets s;
    /// Both pairs dependent given any set holding the middle node, independent
    /// otherwise; (0, 2) has the weaker collider evidence (larger p with the
    /// middle node) and the stronger non-collider evidence.
    FakeTest t{[](std::int32_t x, std::int32_t y, const Set& S) {
        if (x == 0 && y == 2) return has(S, 1) ? 0.02 : 0.5;
        if (x == 1 && y == 3) return has(S, 2) ? 0.01 : 0.4;
        ADD_FAILURE() << "unexpected test " << x << " " << y;
        return 0.0;
    }};
    Conflict() {
        s.set(0, 2, {});
        s.set(1, 3, {});
        s.set(0, 3, {1});
    }
    ClMatrix run(const OrientOptions& o) { return to_cl_matrix(cudag::pc::orient(g, s, o, t.fn())); }
};

TEST(OrientConflict, PcalgLastColliderWins) {
    // pcalg overwrites in column order: the collider at 2 is written last.
    Conflict c;
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::Pcalg)), expect(4, {{0, 1}, {1, 2}, {3, 2}})));
}

TEST(OrientConflict, Priority0Overwrites) {
    Conflict c;
    const ClMatrix want = expect(4, {{0, 1}, {1, 2}, {3, 2}});
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::Sepset, 0)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::MaxP, 0)), want));
}

TEST(OrientConflict, Priority1Bidirects) {
    Conflict c;
    const ClMatrix want = expect(4, {{0, 1}, {3, 2}}, {}, {{1, 2}});
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::Sepset, 1)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::MaxP, 1)), want));
    const Pdag p = cudag::pc::orient(c.g, c.s, opts(UcRule::Sepset, 1), {});
    EXPECT_TRUE(p.is_bidirected(1, 2));
}

TEST(OrientConflict, Priority2KeepsExisting) {
    Conflict c;
    const ClMatrix want = expect(4, {{0, 1}, {2, 1}}, {{2, 3}});
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::Sepset, 2)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::MaxP, 2)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::DefiniteMaxP, 2)), want));
}

TEST(OrientConflict, Priority3StrongerColliderFirst) {
    // Smallest max p over sets with the middle node first: (1, 2, 3) at 0.01.
    Conflict c;
    const ClMatrix want = expect(4, {{1, 2}, {3, 2}}, {{0, 1}});
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::Sepset, 3)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::Sepset, -1)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::MaxP, 3)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::MaxP, -1)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::DefiniteMaxP, 3)), want));
}

TEST(OrientConflict, Priority4StrongerStarColliderFirst) {
    // Largest max p over sets without the middle node first: (0, 1, 2) at 0.5.
    Conflict c;
    const ClMatrix want = expect(4, {{0, 1}, {2, 1}}, {{2, 3}});
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::Sepset, 4)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::MaxP, 4)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::DefiniteMaxP, 4)), want));
    EXPECT_TRUE(cl_matrices_equal(c.run(opts(UcRule::DefiniteMaxP, -1)), want));
}

TEST(OrientConflict, PValuesAreCachedAndSorted) {
    Conflict c;
    c.run(opts(UcRule::MaxP, 3));
    std::map<std::tuple<std::int32_t, std::int32_t, Set>, int> seen;
    for (const auto& call : c.t.calls) {
        const auto& [x, y, s] = call;
        EXPECT_LT(x, y);
        EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
        EXPECT_EQ(++seen[call], 1) << "asked twice";
    }
    // (0, 2): subsets of adj(0) = {1} and adj(2) = {1, 3}; (1, 3): of {0, 2} and {2}.
    EXPECT_EQ(seen.size(), 8u);
}

TEST(OrientDefiniteMaxP, AlphaBoundaryFollowsStrictness) {
    // The set holding the middle node gives p == alpha, the empty set p = 0.3.
    // Strict (p > alpha): only the empty set separates -> definite collider.
    // Not strict (p >= alpha): both separate -> ambiguous, left undirected.
    const Graph g = make_graph(3, {{0, 1}, {1, 2}});
    SepSets s;
    s.set(0, 2, {});
    FakeTest t{[](auto, auto, const Set& S) { return has(S, 1) ? 0.05 : 0.3; }};
    const auto run = [&](bool strict) {
        return to_cl_matrix(cudag::pc::orient(g, s, opts(UcRule::DefiniteMaxP, 4, 0.05, strict), t.fn()));
    };
    EXPECT_TRUE(cl_matrices_equal(run(true), expect(3, {{0, 1}, {2, 1}})));
    EXPECT_TRUE(cl_matrices_equal(run(false), expect(3, {}, {{0, 1}, {1, 2}})));
}

TEST(OrientDefiniteMaxP, DefiniteKiteOrientsTheDiagonal) {
    // Kite 0 - 1, 0 - 2, 1 - 3, 2 - 3, diagonal 0 - 3. {0} separates 1 and 2,
    // nothing else does: 1 -> 3 <- 2 is a definite collider and 1 - 0 - 2 a
    // definite non-collider, so definite_meek's rule 3 orients 0 -> 3.
    const Graph g = make_graph(4, {{0, 1}, {0, 2}, {0, 3}, {1, 3}, {2, 3}});
    FakeTest t{[](auto, auto, const Set& S) { return S == Set{0} ? 0.5 : 0.01; }};
    const auto got = to_cl_matrix(cudag::pc::orient(g, SepSets(), opts(UcRule::DefiniteMaxP, 2), t.fn()));
    EXPECT_TRUE(cl_matrices_equal(got, expect(4, {{1, 3}, {2, 3}, {0, 3}}, {{0, 1}, {0, 2}})));
}

TEST(OrientOptions, InvalidInputsThrow) {
    Conflict c;
    EXPECT_THROW(c.run(opts(UcRule::Sepset, 5)), cudag::InputError);
    EXPECT_THROW(c.run(opts(UcRule::Sepset, -2)), cudag::InputError);
    EXPECT_THROW(c.run(opts(UcRule::DefiniteMaxP, 1)), cudag::InputError);
    EXPECT_THROW(c.run(opts(UcRule::DefiniteMaxP, 4, 1.0)), cudag::InputError);
    EXPECT_THROW(c.run(opts(static_cast<UcRule>(7))), cudag::InputError);
    EXPECT_THROW(cudag::pc::orient(c.g, c.s, opts(UcRule::MaxP, 2), {}), cudag::InputError);
    EXPECT_THROW(cudag::pc::orient(c.g, c.s, opts(UcRule::Sepset, 3), {}), cudag::InputError);
    EXPECT_NO_THROW(cudag::pc::orient(c.g, c.s, opts(UcRule::Sepset, 2), {}));
}

// ---- random graphs against the plain reference (tests/support) --------------

/// The skeleton of a random DAG with the separating sets an oracle PC could find: pa(j) for i < j
/// not adjacent, which holds every common neighbour that is not a collider.
/// With probability `noise` a common neighbour's membership is flipped (wrong
/// and conflicting colliders), and with probability noise / 4 a pair has no
/// record (read as empty).
struct RandomCase {
    Graph skel;
    SepSets sepsets;
};

/// The DAG's arcs are i -> j for i < j: with probability `near` when i is one
/// of the `window` nodes before j (with `near` = 1 the parents of a node are
/// adjacent: no v-structures, long undirected runs), with probability `remote`
/// otherwise.
struct Shape {
    int window;
    double near;
    double remote;
};

RandomCase random_case(int n, const Shape& shape, double noise, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    RandomCase c{Graph(n), SepSets()};
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (u(rng) < (j - i <= shape.window ? shape.near : shape.remote)) c.skel.add(i, j);
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            if (c.skel.has(i, j) || u(rng) < noise / 4) continue;
            Set s;
            for (int k = 0; k < j; ++k) {
                const bool parent = c.skel.has(k, j);  // k < j: k -> j
                const bool common = c.skel.has(i, k) && c.skel.has(j, k);
                if (parent != (common && u(rng) < noise)) s.push_back(k);
            }
            for (int k = j + 1; k < n; ++k)  // children of both: colliders
                if (c.skel.has(i, k) && c.skel.has(j, k) && u(rng) < noise) s.push_back(k);
            c.sepsets.append_sorted(i, j, s);
        }
    return c;
}

std::uint64_t mix(std::uint64_t h) {  // splitmix64's finaliser
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

/// Deterministic p-values with structure: each pair (x, z) has a separator r,
/// half the time one of its common neighbours; p is large when S holds r, small
/// otherwise, and one set in ten gets the other kind.
PValueFn random_p_values(const Graph& skel, std::uint64_t seed) {
    return [&skel, seed](std::int32_t x, std::int32_t z, const Set& s) {
        const std::uint64_t pair = mix(seed ^ mix(static_cast<std::uint64_t>(x) * 1000003u + z));
        Set common;
        for (std::int32_t k = 0; k < skel.n(); ++k)
            if (skel.has(x, k) && skel.has(z, k)) common.push_back(k);
        std::int32_t r = -1;
        if (!common.empty() && (pair & 1u)) r = common[(pair >> 1) % common.size()];
        std::uint64_t h = pair;
        for (std::int32_t v : s) h = mix(h ^ static_cast<std::uint64_t>(v));
        const double unit = static_cast<double>(h >> 11) * 0x1.0p-53;
        const bool separated = has(s, r) != (unit < 0.1);
        return separated ? 0.05 + 0.95 * unit : 0.049 * unit;
    };
}

/// Edge counts of an orientation: directed, undirected, bidirected.
std::array<int, 3> kinds(const Pdag& p) {
    std::array<int, 3> k{0, 0, 0};
    for (std::int32_t i = 0; i < p.n(); ++i)
        for (std::int32_t j : p.neighbours(i)) {
            if (j < i) continue;
            k[0] += p.is_directed(i, j) || p.is_directed(j, i);
            k[1] += p.is_undirected(i, j);
            k[2] += p.is_bidirected(i, j);
        }
    return k;
}

TEST(OrientReference, PcalgMatchesOnRandomGraphs) {
    std::array<int, 3> total{0, 0, 0};
    int cases = 0;
    const Shape shapes[] = {{3, 1.0, 0.0}, {8, 1.0, 0.01}, {8, 0.7, 0.0}, {30, 0.9, 0.02}};
    for (int n : {30, 90, 200})
        for (const Shape& shape : shapes)
            for (double noise : {0.0, 0.02, 0.2}) {
                const auto seed = static_cast<std::uint64_t>(n * 1000 + shape.window * 10 + noise * 10);
                const RandomCase c = random_case(n, shape, noise, seed);
                const Pdag want = cudag::test::reference::orient_pcalg(c.skel, c.sepsets);
                for (int threads : {1, 3}) {
                    auto o = opts(UcRule::Pcalg);
                    o.threads = threads;
                    const Pdag got = cudag::pc::orient(c.skel, c.sepsets, o, {});
                    EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(got), to_cl_matrix(want)))
                        << "n " << n << " window " << shape.window << " near " << shape.near << " noise " << noise
                        << " threads " << threads;
                }
                const auto k = kinds(want);
                for (int q = 0; q < 3; ++q) total[q] += k[q];
                ++cases;
            }
    EXPECT_EQ(cases, 36);
    // The cases orient edges and leave some undirected (no <-> in pcalg mode).
    EXPECT_GT(total[0], 1000);
    EXPECT_GT(total[1], 100);
    EXPECT_EQ(total[2], 0);
}

/// Every causal-learn option set on random graphs small enough for the
/// reference (its kites come from all pairs of triangles) and for maxP's
/// subsets; strict and non-strict independence for definiteMaxP.
TEST(OrientReference, CausalLearnMatchesOnRandomGraphs) {
    std::array<int, 3> total{0, 0, 0};
    int compared = 0;
    const Shape shapes[] = {{3, 1.0, 0.05}, {4, 0.8, 0.02}};
    for (int n : {12, 25, 40})
        for (const Shape& shape : shapes)
            for (double noise : {0.0, 0.05, 0.3}) {
                const auto seed = static_cast<std::uint64_t>(7 + n * 1000 + shape.window * 10 + noise * 10);
                const RandomCase c = random_case(n, shape, noise, seed);
                if (c.skel.max_degree() > 8) continue;  // 2^degree conditioning sets per side
                const PValueFn pv = random_p_values(c.skel, seed);
                auto options = all_causal_learn_options();
                for (int p : {-1, 2, 3, 4}) options.push_back(opts(UcRule::DefiniteMaxP, p, 0.05, false));
                for (const auto& o : options) {
                    const Pdag want = cudag::test::reference::orient_causal_learn(c.skel, c.sepsets, o, pv);
                    const Pdag got = cudag::pc::orient(c.skel, c.sepsets, o, pv);
                    EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(got), to_cl_matrix(want)))
                        << "n " << n << " window " << shape.window << " noise " << noise << " " << describe(o)
                        << " strict " << o.independence_strict;
                    const auto k = kinds(want);
                    for (int q = 0; q < 3; ++q) total[q] += k[q];
                    ++compared;
                }
            }
    EXPECT_GE(compared, 200);
    EXPECT_GT(total[0], 1000);
    EXPECT_GT(total[1], 100);
    EXPECT_GT(total[2], 0);  // uc_priority 1 makes some <->
}

/// A denser graph for the rules that need no p-values (Sepset with priorities
/// 0-2): many triangles and kites, so Meek's rules 2 and 3 have work.
TEST(OrientReference, CausalLearnSepsetMatchesOnDenseGraphs) {
    int compared = 0;
    for (double noise : {0.0, 0.2})
        for (int p : {0, 1, 2}) {
            const RandomCase c = random_case(36, {12, 0.9, 0.05}, noise, 11 + static_cast<std::uint64_t>(noise * 10));
            const auto o = opts(UcRule::Sepset, p);
            const Pdag want = cudag::test::reference::orient_causal_learn(c.skel, c.sepsets, o, {});
            const Pdag got = cudag::pc::orient(c.skel, c.sepsets, o, {});
            EXPECT_TRUE(cl_matrices_equal(to_cl_matrix(got), to_cl_matrix(want)))
                << "noise " << noise << " priority " << p;
            EXPECT_GT(kinds(want)[0], 0);
            ++compared;
        }
    EXPECT_EQ(compared, 6);
}

// ---- causal-learn's fixture -------------------------------------------------

/// Data columns and causal-learn's Fisher-z (np.corrcoef, inverse of the
/// correlation block, p = 2 (1 - Phi(sqrt(n - |S| - 3) |atanh r|))).
class ClFisherZ {
public:
    explicit ClFisherZ(const std::string& path) {
        std::ifstream in(path);
        std::string header;
        std::getline(in, header);
        std::istringstream hs(header);
        for (std::string name; hs >> name;) names_.push_back(name);
        const std::size_t p = names_.size();
        std::vector<std::vector<double>> cols(p);
        for (double v; in >> v;) cols[(m_++) % p].push_back(v);
        m_ /= static_cast<std::int64_t>(p);
        corr_.assign(p * p, 0.0);
        for (auto& c : cols) {
            const double mean = std::accumulate(c.begin(), c.end(), 0.0) / static_cast<double>(m_);
            for (double& v : c) v -= mean;
        }
        for (std::size_t i = 0; i < p; ++i)
            for (std::size_t j = 0; j < p; ++j)
                corr_[i * p + j] = std::inner_product(cols[i].begin(), cols[i].end(), cols[j].begin(), 0.0);
        std::vector<double> d(p);
        for (std::size_t i = 0; i < p; ++i) d[i] = corr_[i * p + i];
        for (std::size_t i = 0; i < p; ++i)
            for (std::size_t j = 0; j < p; ++j)
                corr_[i * p + j] = std::clamp(corr_[i * p + j] / std::sqrt(d[i] * d[j]), -1.0, 1.0);
    }
    std::size_t n() const { return names_.size(); }
    const std::vector<std::string>& names() const { return names_; }

    double operator()(std::int32_t x, std::int32_t y, const Set& s) const {
        std::vector<std::int32_t> var{x, y};
        var.insert(var.end(), s.begin(), s.end());
        const std::size_t k = var.size();
        const std::size_t p = names_.size();
        // Gauss-Jordan inverse of the k×k block with partial pivoting.
        std::vector<double> a(k * 2 * k, 0.0);
        for (std::size_t r = 0; r < k; ++r) {
            for (std::size_t c = 0; c < k; ++c) a[r * 2 * k + c] = corr_[var[r] * p + var[c]];
            a[r * 2 * k + k + r] = 1.0;
        }
        for (std::size_t c = 0; c < k; ++c) {
            std::size_t piv = c;
            for (std::size_t r = c + 1; r < k; ++r)
                if (std::fabs(a[r * 2 * k + c]) > std::fabs(a[piv * 2 * k + c])) piv = r;
            for (std::size_t q = 0; q < 2 * k; ++q) std::swap(a[c * 2 * k + q], a[piv * 2 * k + q]);
            const double d = a[c * 2 * k + c];
            for (std::size_t q = 0; q < 2 * k; ++q) a[c * 2 * k + q] /= d;
            for (std::size_t r = 0; r < k; ++r) {
                if (r == c) continue;
                const double f = a[r * 2 * k + c];
                for (std::size_t q = 0; q < 2 * k; ++q) a[r * 2 * k + q] -= f * a[c * 2 * k + q];
            }
        }
        const auto inv = [&](std::size_t r, std::size_t c) { return a[r * 2 * k + k + c]; };
        double r = -inv(0, 1) / std::sqrt(std::fabs(inv(0, 0) * inv(1, 1)));
        if (std::fabs(r) >= 1.0) r = (1.0 - 2.220446049250313e-16) * (r > 0 ? 1.0 : -1.0);
        const double z = 0.5 * std::log((1.0 + r) / (1.0 - r));
        const double stat = std::sqrt(static_cast<double>(m_ - static_cast<std::int64_t>(s.size()) - 3)) * std::fabs(z);
        const double phi = 0.5 * std::erfc(-stat / std::sqrt(2.0));
        return 2.0 * (1.0 - phi);
    }

private:
    std::vector<std::string> names_;
    std::int64_t m_ = 0;
    std::vector<double> corr_;
};

/// causal-learn's skeleton_discovery(stable=True) on a p-value function: per
/// depth every pair is tested from both ends on the depth's snapshot against
/// every subset, removals happen at the depth's end, and the separating set kept
/// is the union of all separating subsets' nodes.
std::pair<Graph, SepSets> cl_skeleton(std::int64_t n, const PValueFn& pv, double alpha) {
    Graph g(n, true);
    SepSets sepsets;
    for (std::int64_t depth = 0; g.max_degree() - 1 >= depth; ++depth) {
        std::map<std::pair<std::int32_t, std::int32_t>, Set> removed;  // i < j -> union
        for (std::int64_t x = 0; x < n; ++x) {
            const auto nx = g.neighbours(x);
            for (std::int32_t y : nx) {
                Set rest;
                for (std::int32_t v : nx)
                    if (v != y) rest.push_back(v);
                if (static_cast<std::int64_t>(rest.size()) < depth) continue;
                // combinations(rest, depth) in lexicographic order.
                std::vector<int> pick(static_cast<std::size_t>(depth));
                std::iota(pick.begin(), pick.end(), 0);
                const auto xi = static_cast<std::int32_t>(x);
                const std::pair<std::int32_t, std::int32_t> key{std::min(xi, y), std::max(xi, y)};
                while (true) {
                    Set s;
                    for (int q : pick) s.push_back(rest[q]);
                    if (pv(std::min(xi, y), std::max(xi, y), s) > alpha) {
                        auto& u = removed[key];
                        u.insert(u.end(), s.begin(), s.end());
                    }
                    int q = static_cast<int>(depth) - 1;
                    while (q >= 0 && pick[q] == static_cast<int>(rest.size()) - depth + q) --q;
                    if (q < 0) break;
                    ++pick[q];
                    for (int r = q + 1; r < depth; ++r) pick[r] = pick[r - 1] + 1;
                }
            }
        }
        for (auto& [key, u] : removed) {
            std::sort(u.begin(), u.end());
            u.erase(std::unique(u.begin(), u.end()), u.end());
            g.remove(key.first, key.second);
            sepsets.set(key.first, key.second, u);
        }
    }
    return {g, sepsets};
}

TEST(OrientFixture, MatchesCausalLearnLinear10) {
    const std::string root = cudag::test::shared_data_dir();
    if (root.empty()) GTEST_SKIP() << "../shared/data/causal-learn absent";
    const std::string dir = root + "/causal-learn/";
    const ClFisherZ fz(dir + "data_linear_10.txt");
    ASSERT_EQ(fz.n(), 20u);
    const PValueFn pv = [&fz](std::int32_t x, std::int32_t y, const Set& s) { return fz(x, y, s); };
    const auto [skel, sepsets] = cl_skeleton(20, pv, 0.05);
    int compared = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "benchmark_returned_results")) {
        const std::string name = entry.path().filename().string();
        const std::string prefix = "linear_10_pc_fisherz_0.05_stable_";
        if (name.rfind(prefix, 0) != 0) continue;
        int rule = 0, priority = 0;
        ASSERT_EQ(std::sscanf(name.c_str() + prefix.size(), "%d_%d.txt", &rule, &priority), 2);
        const auto o = opts(static_cast<UcRule>(rule), priority, 0.05, true);
        const auto got = to_cl_matrix(cudag::pc::orient(skel, sepsets, o, pv));
        EXPECT_TRUE(cl_matrices_equal(got, cudag::test::read_cl_matrix(entry.path().string()), fz.names())) << name;
        ++compared;
    }
    EXPECT_EQ(compared, 7);
}

// ---- peer cases written by scripts/dev/orient_vs_causal_learn.py ---------------

/// One case file: skeleton, separating sets, a p-value table and the peers'
/// outputs for several option sets (format: see the dev script).
struct PeerCase {
    int n = 0;
    Graph skel;
    SepSets sepsets;
    std::map<std::tuple<std::int32_t, std::int32_t, Set>, double> pvalues;
    std::vector<std::pair<OrientOptions, ClMatrix>> expected;
};

PeerCase read_peer_case(const std::string& path) {
    std::ifstream in(path);
    PeerCase c;
    std::string tag;
    in >> tag >> c.n;
    EXPECT_EQ(tag, "n");
    c.skel = Graph(c.n);
    std::size_t count = 0;
    in >> tag >> count;
    for (std::size_t e = 0; e < count; ++e) {
        int a = 0, b = 0;
        in >> a >> b;
        c.skel.add(a, b);
    }
    in >> tag >> count;
    for (std::size_t e = 0; e < count; ++e) {
        int a = 0, b = 0, k = 0;
        in >> a >> b >> k;
        Set s(static_cast<std::size_t>(k));
        for (auto& v : s) in >> v;
        c.sepsets.set(a, b, s);
    }
    in >> tag >> count;
    for (std::size_t e = 0; e < count; ++e) {
        int a = 0, b = 0, k = 0;
        in >> a >> b >> k;
        Set s(static_cast<std::size_t>(k));
        for (auto& v : s) in >> v;
        std::string p;
        in >> p;
        c.pvalues[{a, b, s}] = std::strtod(p.c_str(), nullptr);  // hex float: exact
    }
    while (in >> tag && tag == "expect") {
        int rule = 0, priority = 0, strict = 0;
        std::string alpha;
        in >> rule >> priority >> alpha >> strict;
        auto o = opts(static_cast<UcRule>(rule), priority, std::strtod(alpha.c_str(), nullptr), strict != 0);
        ClMatrix m(c.n, std::vector<int>(c.n));
        for (auto& row : m)
            for (int& v : row) in >> v;
        c.expected.emplace_back(o, std::move(m));
    }
    EXPECT_EQ(tag, "end") << path;
    return c;
}

TEST(OrientPeerCases, MatchCellForCell) {
    const char* dir = std::getenv("CUDAG_ORIENT_CASES");
    if (!dir) GTEST_SKIP() << "set CUDAG_ORIENT_CASES (scripts/dev/orient_vs_causal_learn.py)";
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".case") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    ASSERT_FALSE(files.empty());
    int configs = 0, mismatches = 0;
    std::map<std::string, int> by_option;
    for (const auto& f : files) {
        const PeerCase c = read_peer_case(f);
        const PValueFn pv = [&c, &f](std::int32_t x, std::int32_t y, const Set& s) {
            const auto it = c.pvalues.find({x, y, s});
            if (it == c.pvalues.end()) throw cudag::LogicError(f + ": no p-value for a query");
            return it->second;
        };
        for (const auto& [o, want] : c.expected) {
            ++configs;
            const auto got = to_cl_matrix(cudag::pc::orient(c.skel, c.sepsets, o, pv));
            const auto eq = cl_matrices_equal(got, want);
            if (!eq) {
                ++by_option[describe(o)];
                if (++mismatches <= 10) ADD_FAILURE() << f << " " << describe(o) << ": " << eq.message();
            }
        }
    }
    std::printf("%zu cases, %d orientations compared, %d mismatches\n", files.size(), configs, mismatches);
    for (const auto& [k, v] : by_option) std::printf("  %s: %d mismatches\n", k.c_str(), v);
    EXPECT_EQ(mismatches, 0);
}

}  // namespace
