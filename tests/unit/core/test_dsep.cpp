// SPDX-License-Identifier: Apache-2.0
// d-separation (core/dsep.hpp): textbook cases, and the linear search against the
// definition (every simple path blocked) on random small DAGs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/dsep.hpp"
#include "core/error.hpp"

namespace cudag {
namespace {

Dag make_dag(std::int64_t n, const std::vector<std::pair<std::int32_t, std::int32_t>>& arcs) {
    Dag g(n);
    for (const auto& [a, b] : arcs) g.add_edge(a, b);
    return g;
}

bool dsep(const Dag& g, std::int32_t x, std::int32_t y, std::vector<std::int32_t> z = {}) {
    return d_separated(g, x, y, z);
}

TEST(DSeparation, Chain) {
    const Dag g = make_dag(3, {{0, 1}, {1, 2}});  // 0 -> 1 -> 2
    EXPECT_FALSE(dsep(g, 0, 2));
    EXPECT_TRUE(dsep(g, 0, 2, {1}));
    EXPECT_FALSE(dsep(g, 2, 0));
    EXPECT_TRUE(dsep(g, 2, 0, {1}));
    EXPECT_FALSE(dsep(g, 0, 1, {2}));
}

TEST(DSeparation, Fork) {
    const Dag g = make_dag(3, {{1, 0}, {1, 2}});  // 0 <- 1 -> 2
    EXPECT_FALSE(dsep(g, 0, 2));
    EXPECT_TRUE(dsep(g, 0, 2, {1}));
}

TEST(DSeparation, Collider) {
    const Dag g = make_dag(3, {{0, 1}, {2, 1}});  // 0 -> 1 <- 2
    EXPECT_TRUE(dsep(g, 0, 2));
    EXPECT_FALSE(dsep(g, 0, 2, {1}));
}

TEST(DSeparation, ColliderWithAConditionedDescendant) {
    const Dag g = make_dag(5, {{0, 1}, {2, 1}, {1, 3}, {3, 4}});  // 0 -> 1 <- 2, 1 -> 3 -> 4
    EXPECT_TRUE(dsep(g, 0, 2));
    EXPECT_FALSE(dsep(g, 0, 2, {3}));
    EXPECT_FALSE(dsep(g, 0, 2, {4}));
    EXPECT_TRUE(dsep(g, 0, 4, {3}));
    EXPECT_FALSE(dsep(g, 0, 4));
}

TEST(DSeparation, TwoPaths) {
    // 0 -> 1 -> 3 and 0 -> 2 -> 3: both mediators needed.
    const Dag g = make_dag(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
    EXPECT_FALSE(dsep(g, 0, 3, {1}));
    EXPECT_FALSE(dsep(g, 0, 3, {2}));
    EXPECT_TRUE(dsep(g, 0, 3, {1, 2}));
    EXPECT_TRUE(dsep(g, 1, 2, {0}));
    EXPECT_FALSE(dsep(g, 1, 2, {0, 3}));  // 3 is a collider between them
}

TEST(DSeparation, MBiasAndConditioningOpensThenCloses) {
    // M-bias: a -> m <- b, a -> x, b -> y (0=a, 1=b, 2=m, 3=x, 4=y).
    const Dag g = make_dag(5, {{0, 2}, {1, 2}, {0, 3}, {1, 4}});
    EXPECT_TRUE(dsep(g, 3, 4));
    EXPECT_FALSE(dsep(g, 3, 4, {2}));
    EXPECT_TRUE(dsep(g, 3, 4, {2, 0}));
    EXPECT_TRUE(dsep(g, 3, 4, {2, 1}));
}

TEST(DSeparation, AdjacentNodesAreNeverSeparated) {
    const Dag g = make_dag(4, {{0, 1}, {1, 2}, {2, 3}, {0, 3}});
    EXPECT_FALSE(dsep(g, 0, 3, {1, 2}));
    EXPECT_FALSE(dsep(g, 3, 0, {1, 2}));
}

TEST(DSeparation, DisconnectedNodesAreSeparated) {
    const Dag g = make_dag(4, {{0, 1}});
    EXPECT_TRUE(dsep(g, 0, 2));
    EXPECT_TRUE(dsep(g, 2, 3, {0, 1}));
}

/// The definition: x and y are d-connected given z iff some simple path between them has
/// every collider in z or with a descendant in z and no other node in z.
class BruteForce {
public:
    explicit BruteForce(const Dag& g) : g_(g), n_(g.n()) {
        desc_.assign(static_cast<std::size_t>(n_ * n_), 0);
        for (std::int32_t v = 0; v < n_; ++v) mark_descendants(v, v);
    }

    bool separated(std::int32_t x, std::int32_t y, const std::vector<std::int32_t>& z) {
        in_z_.assign(static_cast<std::size_t>(n_), 0);
        for (std::int32_t v : z) in_z_[static_cast<std::size_t>(v)] = 1;
        on_path_.assign(static_cast<std::size_t>(n_), 0);
        path_ = {x};
        on_path_[static_cast<std::size_t>(x)] = 1;
        return !connected(y);
    }

private:
    bool edge(std::int32_t a, std::int32_t b) const {  // a -> b
        for (std::int32_t c : g_.children[static_cast<std::size_t>(a)])
            if (c == b) return true;
        return false;
    }
    void mark_descendants(std::int32_t root, std::int32_t v) {
        desc_[static_cast<std::size_t>(root * n_ + v)] = 1;
        for (std::int32_t c : g_.children[static_cast<std::size_t>(v)])
            if (!desc_[static_cast<std::size_t>(root * n_ + c)]) mark_descendants(root, c);
    }
    bool opens_collider(std::int32_t v) const {
        for (std::int32_t w = 0; w < n_; ++w)
            if (in_z_[static_cast<std::size_t>(w)] && desc_[static_cast<std::size_t>(v * n_ + w)]) return true;
        return false;
    }
    /// Whether the path so far extends to y actively.
    bool connected(std::int32_t y) {
        const std::int32_t last = path_.back();
        for (std::int32_t next = 0; next < n_; ++next) {
            if (on_path_[static_cast<std::size_t>(next)] || !(edge(last, next) || edge(next, last))) continue;
            if (path_.size() >= 2) {  // `last` becomes interior: check it
                const std::int32_t prev = path_[path_.size() - 2];
                const bool collider = edge(prev, last) && edge(next, last);
                if (collider ? !opens_collider(last) : in_z_[static_cast<std::size_t>(last)] != 0) continue;
            }
            if (next == y) return true;
            path_.push_back(next);
            on_path_[static_cast<std::size_t>(next)] = 1;
            const bool found = connected(y);
            on_path_[static_cast<std::size_t>(next)] = 0;
            path_.pop_back();
            if (found) return true;
        }
        return false;
    }

    const Dag& g_;
    std::int64_t n_;
    std::vector<char> desc_, in_z_, on_path_;
    std::vector<std::int32_t> path_;
};

TEST(DSeparation, EqualsTheDefinitionOnRandomDags) {
    std::mt19937_64 rng(20261202);
    std::int64_t queries = 0, separated = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const int n = 3 + static_cast<int>(rng() % 6);  // 3..8 nodes
        const double density = 0.15 + 0.6 * std::uniform_real_distribution<double>(0, 1)(rng);
        // A random order, edges forward along it: a DAG whose node ids are not sorted.
        std::vector<std::int32_t> order(static_cast<std::size_t>(n));
        for (int v = 0; v < n; ++v) order[static_cast<std::size_t>(v)] = v;
        std::shuffle(order.begin(), order.end(), rng);
        Dag g(n);
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b)
                if (std::uniform_real_distribution<double>(0, 1)(rng) < density)
                    g.add_edge(order[static_cast<std::size_t>(a)], order[static_cast<std::size_t>(b)]);
        ASSERT_FALSE(g.topological_order().empty());
        BruteForce brute(g);
        for (int q = 0; q < 40; ++q) {
            const auto x = static_cast<std::int32_t>(rng() % n);
            const auto y = static_cast<std::int32_t>(rng() % n);
            if (x == y) continue;
            std::vector<std::int32_t> z;
            for (std::int32_t v = 0; v < n; ++v)
                if (v != x && v != y && rng() % 3 == 0) z.push_back(v);
            const bool want = brute.separated(x, y, z);
            ASSERT_EQ(d_separated(g, x, y, z), want) << "trial " << trial << ", x " << x << ", y " << y;
            ++queries;
            separated += want;
        }
    }
    // Both answers are exercised.
    EXPECT_GT(separated, queries / 10);
    EXPECT_LT(separated, queries - queries / 10);
}

TEST(DagOrder, FindsCycles) {
    EXPECT_EQ(make_dag(3, {{0, 1}, {1, 2}}).topological_order(), (std::vector<std::int32_t>{0, 1, 2}));
    EXPECT_TRUE(make_dag(3, {{0, 1}, {1, 2}, {2, 0}}).topological_order().empty());
}

TEST(DsepOracle, AnswersOverTheObservedNodes) {
    // L -> A, L -> B, A -> C: with L latent, A and B stay dependent given anything.
    const Dag g = make_dag(4, {{0, 1}, {0, 2}, {1, 3}});
    const DsepOracle oracle(g, {"L", "A", "B", "C"}, {"L"}, "test.tsv");
    EXPECT_EQ(oracle.n_vars(), 3);
    EXPECT_EQ(oracle.var_names(), (std::vector<std::string>{"A", "B", "C"}));
    EXPECT_EQ(oracle.latent_names(), (std::vector<std::string>{"L"}));
    std::vector<std::int32_t> none, c{2}, a{0};
    EXPECT_EQ(oracle.p_value(0, 1, none), 0.0);
    EXPECT_EQ(oracle.p_value(0, 1, c), 0.0);
    EXPECT_EQ(oracle.p_value(1, 2, a), 1.0);  // B ⟂ C | A
    EXPECT_EQ(oracle.p_value(1, 2, none), 0.0);
}

TEST(DsepOracle, RefusesAnUnknownLatentAndACycle) {
    const Dag g = make_dag(2, {{0, 1}});
    try {
        DsepOracle(g, {"A", "B"}, {"Z"}, "g.tsv");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("'Z' is not a node of g.tsv"), std::string::npos) << e.what();
    }
    EXPECT_THROW(DsepOracle(make_dag(2, {{0, 1}, {1, 0}}), {"A", "B"}, {}, "c.tsv"), InputError);
}

}  // namespace
}  // namespace cudag
