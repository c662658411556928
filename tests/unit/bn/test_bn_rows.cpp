// SPDX-License-Identifier: Apache-2.0
// Sum mode's subset rows (bn/subset_rows.hpp, ScoreTable::build_subset_rows; issue 37):
// node log-sums and edge columns read from the rows against the enumeration of the same
// table, over random orders, spaces with and without plus1 extras, mandatory parents and
// pruned (-inf) entries; exact edge posteriors both ways; the rows' plan under a budget; the
// same bits for any thread count; log_add's edge cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bn/score_table.hpp"
#include "bn/subset_rows.hpp"
#include "core/error.hpp"
#include "support/bn_sim.hpp"

namespace {

using cudag::bn::ScoreTable;

/// For `orders` random orders (seeded), every node's log-sum and column from the rows of
/// `with` and by enumeration in `without` (the same table without rows).
void expect_rows_equal_enumeration(const ScoreTable& with, const ScoreTable& without, int orders, unsigned seed) {
    const std::int64_t n = with.n_nodes();
    std::mt19937 rng(seed);
    std::vector<std::int32_t> order(static_cast<std::size_t>(n));
    std::vector<std::int64_t> pos(static_cast<std::size_t>(n));
    std::vector<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    double worst_score = 0.0, worst_prob = 0.0;
    std::int64_t finite = 0;
    for (int o = 0; o < orders; ++o) {
        for (std::int32_t v = 0; v < n; ++v) order[v] = v;
        std::shuffle(order.begin(), order.end(), rng);
        for (std::int64_t i = 0; i < n; ++i) pos[order[i]] = i;
        for (std::int32_t v = 0; v < n; ++v) {
            const double x = cudag::bn::node_score_sum(with, v, pos, a);
            const double y = cudag::bn::node_score_sum(without, v, pos, b);
            if (std::isinf(y)) {
                EXPECT_EQ(x, y) << "node " << v;
                continue;
            }
            ++finite;
            ASSERT_TRUE(std::isfinite(x)) << "node " << v;
            worst_score = std::max(worst_score, std::abs(x - y) / std::max(1.0, std::abs(y)));
            for (std::int64_t p = 0; p < n; ++p) {
                worst_prob = std::max(worst_prob, std::abs(a[p] - b[p]));
                // Both are 0 exactly for nodes that are not allowed predecessors.
                if (b[p] == 0.0 && pos[p] > pos[v]) {
                    EXPECT_EQ(a[p], 0.0) << "node " << v << ", parent " << p;
                }
            }
        }
    }
    EXPECT_GT(finite, 0);
    EXPECT_LT(worst_score, 1e-13);
    EXPECT_LT(worst_prob, 1e-11);
}

TEST(SubsetRows, LogSumsAndColumnsEqualTheEnumeration) {
    const cudag::test::UnevenSpace space(9, 300, 3);
    for (const bool plus1 : {false, true})
        for (const int s : {1, 2, 3}) {
            SCOPED_TRACE(std::string(plus1 ? "plus1" : "every set") + ", s = " + std::to_string(s));
            ScoreTable with = space.build(plus1, s, 1);
            const ScoreTable without = space.build(plus1, s, 1);
            EXPECT_EQ(with.build_subset_rows(2), 9);
            EXPECT_FALSE(without.has_any_rows());
            for (std::int32_t v = 0; v < 9; ++v) EXPECT_TRUE(with.has_rows(v));
            expect_rows_equal_enumeration(with, without, 60, 11);
        }
}

TEST(SubsetRows, RequiredParentsAndPrunedEntriesWeighNothing) {
    const cudag::test::UnevenSpace space(9, 200, 8);
    for (const bool plus1 : {false, true}) {
        SCOPED_TRACE(plus1 ? "plus1" : "every set");
        std::vector<ScoreTable> tables;
        for (int k = 0; k < 2; ++k) {
            ScoreTable t = space.layout(plus1, 3);
            std::vector<std::vector<std::int32_t>> req(9);
            req[4] = {t.candidates(4)[0]};
            req[8] = {t.candidates(8)[1]};
            t.require_parents(req);
            t.fill_nodes(space.scorer, t.all_nodes(), 1);
            EXPECT_GT(t.prune_sum(3.0, 1), 0);  // -inf entries besides the required-lacking ones
            tables.push_back(std::move(t));
        }
        EXPECT_EQ(tables[0].build_subset_rows(1), 9);
        expect_rows_equal_enumeration(tables[0], tables[1], 80, 5);
    }
}

TEST(SubsetRows, ExactPosteriorsEqualTheEnumeration) {
    const cudag::test::UnevenSpace space(7, 300, 4);
    for (const bool plus1 : {false, true}) {
        ScoreTable with = space.build(plus1, 3, 1);
        const ScoreTable without = space.build(plus1, 3, 1);
        ASSERT_EQ(with.build_subset_rows(1), 7);
        const auto a = cudag::bn::exact_edge_posteriors(with), b = cudag::bn::exact_edge_posteriors(without);
        EXPECT_NEAR(a.log_evidence, b.log_evidence, 1e-10 * std::abs(b.log_evidence));
        ASSERT_EQ(a.edge_prob.size(), b.edge_prob.size());
        for (std::size_t i = 0; i < a.edge_prob.size(); ++i) EXPECT_NEAR(a.edge_prob[i], b.edge_prob[i], 1e-11) << i;
    }
}

TEST(SubsetRows, TheSameBitsOnAnyThreadCount) {
    // Nodes 0 and 1 with 16 candidates and 3 extras (2^18 values: built by every thread),
    // the others with a few candidates (a thread each).
    const int n = 20;
    const auto scorer = cudag::test::simulated_scorer(n, 200, 6);
    std::vector<std::vector<std::int32_t>> cands(n), extras(n);
    for (std::int32_t v = 0; v < n; ++v)
        for (std::int32_t u = 0; u < n; ++u)
            if (u != v)
                (static_cast<std::int64_t>(cands[v].size()) < (v < 2 ? 16 : v % 5 + 1) ? cands[v] : extras[v])
                    .push_back(u);
    std::vector<ScoreTable> t;
    for (const int threads : {1, 3}) {
        t.push_back(ScoreTable::build(scorer, cands, 2, 1, extras));
        ASSERT_EQ(t.back().build_subset_rows(threads), n);
    }
    EXPECT_EQ(t[0].row_width(0) << t[0].candidates(0).size(), std::int64_t{1} << 18);
    ASSERT_EQ(t[0].all_rows().size(), t[1].all_rows().size());
    EXPECT_TRUE(std::ranges::equal(t[0].all_rows(), t[1].all_rows()));
    for (std::int32_t v = 0; v < n; ++v) EXPECT_EQ(t[0].row_offset(v), t[1].row_offset(v));
    const ScoreTable without = ScoreTable::build(scorer, cands, 2, 1, extras);
    expect_rows_equal_enumeration(t[1], without, 10, 3);
}

TEST(SubsetRows, BudgetGivesRowsToTheSmallestNodesFirst) {
    const cudag::test::UnevenSpace space(9, 200, 2);
    ScoreTable t = space.build(true, 2, 1);  // node v: v % 6 + 1 candidates at most, 8 - that extras
    // Each node's row values: 2^m (1 + extras).
    std::vector<double> bytes;
    for (std::int32_t v = 0; v < 9; ++v)
        bytes.push_back(8.0 *
                        std::ldexp(static_cast<double>(t.row_width(v)), static_cast<int>(t.candidates(v).size())));
    EXPECT_EQ(t.build_subset_rows(1, 0.0), 0);
    EXPECT_FALSE(t.has_any_rows());
    std::vector<double> sorted = bytes;
    std::sort(sorted.begin(), sorted.end());
    // Room for the three smallest exactly: those three nodes, no other.
    const double room = sorted[0] + sorted[1] + sorted[2];
    ASSERT_LT(room, room + sorted[3]);
    EXPECT_EQ(t.build_subset_rows(1, room), 3);
    int given = 0;
    for (std::int32_t v = 0; v < 9; ++v)
        if (t.has_rows(v)) {
            ++given;
            EXPECT_LE(bytes[v], sorted[2]) << "node " << v;
        }
    EXPECT_EQ(given, 3);
    // Nodes with more than kMaxRowBits candidates never get rows.
    const cudag::test::UnevenSpace wide(cudag::bn::kMaxRowBits + 2, 60, 1);
    ScoreTable w = wide.build(false, 1, 1);
    EXPECT_EQ(w.build_subset_rows(1), 0);
}

TEST(SubsetRows, LogAddEdgeCases) {
    using cudag::bn::log_add;
    const double ninf = -std::numeric_limits<double>::infinity();
    EXPECT_EQ(log_add(ninf, ninf), ninf);
    EXPECT_EQ(log_add(-3.5, ninf), -3.5);
    EXPECT_EQ(log_add(ninf, -3.5), -3.5);
    EXPECT_NEAR(log_add(0.0, 0.0), std::log(2.0), 1e-15);
    EXPECT_NEAR(log_add(-1000.0, -1001.0), -1000.0 + std::log1p(std::exp(-1.0)), 1e-12);
    EXPECT_EQ(log_add(-10.0, -60.0), -10.0);  // a weight below 2^-54 of the other
    EXPECT_EQ(log_add(2.0, 1.0), log_add(1.0, 2.0));
}

}  // namespace
