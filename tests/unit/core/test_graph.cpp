// SPDX-License-Identifier: Apache-2.0
// core/graph.hpp's two forms (issue 35): a graph held sparse answers every call as the
// dense bit matrix does, through the same random edits, bulk builds, CSR conversions and
// broadcasts; the form follows the size limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/graph.hpp"
#include "core/rng.hpp"

namespace cudag {
namespace {

void expect_same(const Graph& a, const Graph& b) {
    ASSERT_EQ(a.n(), b.n());
    for (std::int64_t i = 0; i < a.n(); ++i) {
        EXPECT_EQ(a.neighbours(i), b.neighbours(i)) << "row " << i;
        EXPECT_EQ(a.degree(i), b.degree(i)) << "row " << i;
        for (std::int64_t j = 0; j < a.n(); ++j) ASSERT_EQ(a.has(i, j), b.has(i, j)) << i << ", " << j;
    }
    EXPECT_EQ(a.n_edges(), b.n_edges());
    EXPECT_EQ(a.max_degree(), b.max_degree());
    EXPECT_TRUE(a == b);
}

TEST(Graph, SparseFormAnswersAsTheDenseOneThroughRandomEdits) {
    const std::int64_t n = 150;  // three words per dense row and a partial one
    Graph dense = Graph::with_form(n, true), sparse = Graph::with_form(n, false);
    ASSERT_TRUE(dense.dense());
    ASSERT_FALSE(sparse.dense());
    CounterRng rng(11, 0);
    std::int64_t adds = 0;
    for (int k = 0; k < 6000; ++k) {
        const std::uint64_t r = (std::uint64_t{rng.next_u32()} << 32) | rng.next_u32();
        const auto i = static_cast<std::int64_t>(r % n), j = static_cast<std::int64_t>((r >> 20) % n);
        if (i == j) continue;
        if ((r >> 40) % 3 == 0) {
            dense.remove(i, j);
            sparse.remove(i, j);
        } else {
            dense.add(i, j);
            sparse.add(i, j);
            ++adds;
        }
    }
    ASSERT_GT(adds, 1000);
    ASSERT_GT(dense.n_edges(), 500);
    expect_same(dense, sparse);
    // Neighbours from a starting node, as the upper-triangle walks use them.
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<std::int32_t> a, b;
        dense.for_each_neighbour(
            i, [&](std::int32_t j) { a.push_back(j); }, i + 1);
        sparse.for_each_neighbour(
            i, [&](std::int32_t j) { b.push_back(j); }, i + 1);
        EXPECT_EQ(a, b) << "row " << i;
        for (const std::int32_t j : a) EXPECT_GT(j, i);
    }
    // CSR both ways, and the broadcast form.
    const Adjacency ad = Adjacency::from_graph(dense, 2), as = Adjacency::from_graph(sparse, 2);
    EXPECT_EQ(ad.offsets, as.offsets);
    EXPECT_TRUE(std::equal(ad.nbrs.begin(), ad.nbrs.end(), as.nbrs.begin(), as.nbrs.end()));
    Graph from_csr = Graph::with_form(n, false);
    from_csr.assign(ad, 2);
    expect_same(dense, from_csr);
    expect_same(dense, Graph::deserialize(sparse.serialize()));
    expect_same(sparse, Graph::deserialize(dense.serialize()));
    EXPECT_TRUE(Graph::deserialize(sparse.serialize()).dense() == false);
}

TEST(Graph, UpperPairsAddBothDirectionsInEitherForm) {
    const std::int64_t n = 70;
    // Row i's upper neighbours: i + 1 .. and every 7th node above it.
    std::vector<std::int64_t> start{0};
    std::vector<std::int32_t> cols;
    for (std::int32_t i = 0; i < n; ++i) {
        for (std::int32_t j = i + 1; j < n; ++j)
            if (j == i + 1 || (j - i) % 7 == 0) cols.push_back(j);
        start.push_back(static_cast<std::int64_t>(cols.size()));
    }
    Graph dense = Graph::with_form(n, true), sparse = Graph::with_form(n, false);
    dense.add(3, 40);  // an edge held before, kept
    sparse.add(3, 40);
    dense.add_upper_pairs(start.data(), cols.data(), 2);
    sparse.add_upper_pairs(start.data(), cols.data(), 2);
    expect_same(dense, sparse);
    EXPECT_TRUE(sparse.has(40, 3));
    EXPECT_TRUE(sparse.has(8, 1));  // mirror of (1, 8)
    EXPECT_EQ(sparse.n_edges(), static_cast<std::int64_t>(cols.size()) + 1);
}

TEST(Graph, UpperPairsInSeveralBlocksEqualTheDenseForm) {
    // Enough pairs for the sparse form's transposition to cut the rows into several blocks
    // (>= 64 Ki entries each), with hub columns that every block writes to.
    const std::int64_t n = 3000;
    std::vector<std::int64_t> start{0};
    std::vector<std::int32_t> cols;
    for (std::int32_t i = 0; i < n; ++i) {
        for (std::int32_t j = i + 1; j < n; ++j)
            if (j % 29 == 0 || j % 31 == 0 || (j - i) % 53 == 1 || j > n - 40) cols.push_back(j);
        start.push_back(static_cast<std::int64_t>(cols.size()));
    }
    ASSERT_GT(cols.size(), std::size_t(4) << 16);
    for (int threads : {1, 3, 8}) {
        Graph dense = Graph::with_form(n, true), sparse = Graph::with_form(n, false);
        dense.add(5, 7);  // an edge held before, kept
        sparse.add(5, 7);
        dense.add_upper_pairs(start.data(), cols.data(), threads);
        sparse.add_upper_pairs(start.data(), cols.data(), threads);
        expect_same(dense, sparse);
        EXPECT_EQ(sparse.n_edges(), static_cast<std::int64_t>(cols.size()) + 1) << threads << " threads";
    }
}

TEST(Graph, FormFollowsTheSizeLimit) {
    EXPECT_TRUE(Graph(Graph::dense_limit()).dense());
    EXPECT_FALSE(Graph(Graph::dense_limit() + 1).dense());
    EXPECT_FALSE(Graph::with_form(1'000'000, false).dense());  // no n² allocation
}

}  // namespace
}  // namespace cudag
