// SPDX-License-Identifier: Apache-2.0
// The local-score table computed a block of nodes at a time (bn/table_split.hpp): the node
// blocks (balanced by entries, deterministic, more parts than nodes), blocks filled one by
// one (with and without a filler, whose per-node reports decide what the host computes)
// equal to the table built whole bit for bit, sorted lists built per block equal to the
// whole table's, and the one-process collectives. The same over real ranks:
// tests/mpi/test_mpi_mcmc_table.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "bn/score_table.hpp"
#include "bn/table_split.hpp"
#include "mpi/communicator.hpp"
#include "support/bn_sim.hpp"

namespace {

using cudag::bn::NodeRange;
using cudag::bn::ScoreTable;

using cudag::test::UnevenSpace;

testing::AssertionResult same_entries(const ScoreTable& a, const ScoreTable& b) {
    if (a.total_entries() != b.total_entries())
        return testing::AssertionFailure() << a.total_entries() << " entries vs " << b.total_entries();
    for (std::int32_t v = 0; v < a.n_nodes(); ++v) {
        const auto x = a.node_scores(v), y = b.node_scores(v);
        if (std::memcmp(x.data(), y.data(), x.size_bytes()) != 0)
            return testing::AssertionFailure() << "node " << v << "'s entries differ";
    }
    return testing::AssertionSuccess();
}

testing::AssertionResult same_sorted(const ScoreTable& a, const ScoreTable& b, NodeRange nodes) {
    if (!a.has_sorted() || !b.has_sorted()) return testing::AssertionFailure() << "no sorted lists";
    for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
        const auto oa = a.sorted_offsets(v), ob = b.sorted_offsets(v);
        const auto pa = a.sorted_parents(v), pb = b.sorted_parents(v);
        const auto sa = a.sorted_scores(v), sb = b.sorted_scores(v);
        if (!std::equal(oa.begin(), oa.end(), ob.begin(), ob.end()) ||
            !std::equal(pa.begin(), pa.end(), pb.begin(), pb.end()) || sa.size() != sb.size() ||
            std::memcmp(sa.data(), sb.data(), sb.size_bytes()) != 0)
            return testing::AssertionFailure() << "node " << v << "'s sorted list differs";
    }
    return testing::AssertionSuccess();
}

TEST(TableNodeBlocks, CutByEntriesNotByNodeCount) {
    // Twelve nodes of one entry and one of twelve: two parts of 12 entries each.
    std::vector<std::int64_t> entries(12, 1);
    entries.push_back(12);
    const auto p = cudag::bn::table_node_blocks(entries, 2);
    EXPECT_EQ(p.bounds, (std::vector<std::int64_t>{0, 12, 13}));
    EXPECT_DOUBLE_EQ(p.imbalance, 1.0);
    const NodeRange second = cudag::bn::node_block(p, 1);
    EXPECT_EQ(second.begin, 12);
    EXPECT_EQ(second.end, 13);
}

TEST(TableNodeBlocks, BalancedDeterministicAndCoveringOnATable) {
    const ScoreTable t = UnevenSpace(23, 20, 3).layout(true, 3);
    std::int64_t most = 0;
    for (std::int32_t v = 0; v < 23; ++v) most = std::max(most, t.node_entries(v));
    for (const int parts : {1, 2, 3, 4, 7}) {
        SCOPED_TRACE(parts);
        const auto p = cudag::bn::table_node_blocks(t, parts);
        ASSERT_EQ(p.parts(), parts);
        EXPECT_EQ(cudag::bn::table_node_blocks(t, parts).bounds, p.bounds);  // the same cut every time
        EXPECT_EQ(p.bounds.front(), 0);
        EXPECT_EQ(p.bounds.back(), 23);
        std::int64_t covered = 0;
        for (int r = 0; r < parts; ++r) {
            const NodeRange b = cudag::bn::node_block(p, r);
            ASSERT_LE(b.begin, b.end);
            const std::int64_t e = t.block_entries(b);
            covered += e;
            // Each cut lies within one node of its target: no block exceeds the mean by more
            // than a node's entries.
            EXPECT_LE(static_cast<double>(e),
                      static_cast<double>(t.total_entries()) / parts + static_cast<double>(most))
                << "block " << r;
        }
        EXPECT_EQ(covered, t.total_entries());
    }
}

TEST(TableNodeBlocks, MorePartsThanNodesLeavesEmptyBlocks) {
    const auto p = cudag::bn::table_node_blocks(std::vector<std::int64_t>{4, 4, 4}, 5);
    EXPECT_EQ(p.bounds, (std::vector<std::int64_t>{0, 1, 1, 2, 2, 3}));
    int empty = 0;
    for (int r = 0; r < 5; ++r) empty += cudag::bn::node_block(p, r).empty();
    EXPECT_EQ(empty, 2);
}

TEST(ScoreTable, BlocksFilledOneByOneEqualTheWholeBuild) {
    const UnevenSpace space(13, 200, 8);
    for (const bool plus1 : {false, true}) {
        SCOPED_TRACE(plus1 ? "plus1" : "all");
        const ScoreTable whole = space.build(plus1, 3, 2);
        for (const int parts : {2, 3, 4}) {
            ScoreTable t = space.layout(plus1, 3);
            const auto blocks = cudag::bn::table_node_blocks(t, parts);
            // Backwards, so that no block relies on an earlier one's memory.
            for (int r = parts - 1; r >= 0; --r)
                t.fill_nodes(space.scorer, cudag::bn::node_block(blocks, r), 1 + r % 2);
            EXPECT_TRUE(same_entries(t, whole)) << parts << " blocks";
        }
    }
}

TEST(ScoreTable, AFillerGetsItsBlockAndNoOtherNodeIsWritten) {
    // A stand-in for the GPU filler: the scorer's value for every other entry of the nodes
    // it is given, NaN for the rest (left to the CPU), each node reported Written.
    const auto scorer = cudag::test::simulated_scorer(11, 150, 21);
    const ScoreTable whole = ScoreTable::build(scorer, 3, 2);
    ScoreTable t = ScoreTable::layout(11, 3);
    const auto all = t.mutable_block_scores(t.all_nodes());
    std::fill(all.begin(), all.end(), 7.0);  // a mark: entries not written yet
    const auto blocks = cudag::bn::table_node_blocks(t, 3);
    std::vector<NodeRange> seen;
    std::int64_t marks_seen = 0;
    const ScoreTable::Filler filler = [&](ScoreTable& table, NodeRange nodes) {
        seen.push_back(nodes);
        EXPECT_EQ(table.fill_threads(), 2);
        for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
            const auto out = table.mutable_node_scores(v);
            for (std::size_t i = 0; i < out.size(); ++i) {
                marks_seen += out[i] == 7.0;
                out[i] = i % 2 == 0 ? scorer.local(v, table.entry_parents(v, static_cast<std::int64_t>(i)))
                                    : std::numeric_limits<double>::quiet_NaN();
            }
            table.report_filled(v, ScoreTable::NodeFill::Written);
        }
    };
    for (int r = 0; r < 3; ++r) {
        const NodeRange b = cudag::bn::node_block(blocks, r);
        t.fill_nodes(scorer, b, 2, filler);
        ASSERT_EQ(seen.size(), static_cast<std::size_t>(r + 1));
        EXPECT_EQ(seen.back().begin, b.begin);
        EXPECT_EQ(seen.back().end, b.end);
        for (std::int32_t v = b.end; v < 11; ++v)
            for (const double x : t.node_scores(v)) ASSERT_EQ(x, 7.0) << "node " << v << " written too early";
    }
    // Nothing is written before the filler comes (issue 37: no NaN pre-fill of the table).
    EXPECT_EQ(marks_seen, whole.total_entries());
    EXPECT_TRUE(same_entries(t, whole));
    EXPECT_EQ(t.fill_times().host_nodes, 11);  // every node had NaN entries to compute
    t.fill_nodes(scorer, NodeRange{4, 4}, 1, [](ScoreTable&, NodeRange) { FAIL() << "called for no nodes"; });
    EXPECT_THROW(t.fill_nodes(cudag::test::simulated_scorer(5, 50, 1), t.all_nodes(), 1), cudag::InputError);
}

TEST(ScoreTable, AFillersReportSaysWhatTheHostComputesAndChecks) {
    // Issue 37: a filler that writes every entry reports each node, and the host reads only
    // what it must. None (or no report): the scorer computes the node whole, whatever the
    // filler wrote; Written: the NaN entries; Finite: nothing (its entries are taken as they
    // are), unless the node has mandatory parents, whose lacking sets still become -inf.
    const auto scorer = cudag::test::simulated_scorer(9, 150, 5);
    const ScoreTable whole = ScoreTable::build(scorer, 3, 2);
    const auto filler = [&](ScoreTable& table, NodeRange nodes) {
        for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
            const auto out = table.mutable_node_scores(v);
            for (std::size_t i = 0; i < out.size(); ++i)
                out[i] = v % 3 == 0 ? -5.0  // not the scorer's: to be ignored (None, v = 0, 3, 6)
                                    : scorer.local(v, table.entry_parents(v, static_cast<std::int64_t>(i)));
            if (v % 3 == 1) out[out.size() / 2] = std::numeric_limits<double>::quiet_NaN();
            if (v == 3) continue;  // not reported: None
            table.report_filled(v, v % 3 == 0   ? ScoreTable::NodeFill::None
                                   : v % 3 == 1 ? ScoreTable::NodeFill::Written
                                                : ScoreTable::NodeFill::Finite);
        }
    };
    ScoreTable t = ScoreTable::layout(9, 3);
    t.fill_nodes(scorer, t.all_nodes(), 2, filler);
    EXPECT_TRUE(same_entries(t, whole));
    EXPECT_EQ(t.fill_times().host_nodes, 6);  // the Finite nodes 2, 5, 8 are not visited
    for (std::int32_t v = 0; v < 9; ++v) EXPECT_EQ(t.scored(v), t.node_entries(v)) << "node " << v;

    // Finite is taken at its word: a finite entry that is not the scorer's stays.
    const auto liar = [&](ScoreTable& table, NodeRange nodes) {
        for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
            const auto out = table.mutable_node_scores(v);
            std::fill(out.begin(), out.end(), 1.5);
            table.report_filled(v, ScoreTable::NodeFill::Finite);
        }
    };
    ScoreTable u = ScoreTable::layout(9, 3);
    u.fill_nodes(scorer, u.all_nodes(), 2, liar);
    for (std::int32_t v = 0; v < 9; ++v)
        for (const double x : u.node_scores(v)) ASSERT_EQ(x, 1.5) << "node " << v;
    EXPECT_EQ(u.fill_times().host_nodes, 0);

    // Mandatory parents: a Finite node still has its lacking sets set to -inf, as the CPU does.
    std::vector<std::vector<std::int32_t>> required(9);
    required[4] = {1};
    required[7] = {2, 5};
    ScoreTable cpu = ScoreTable::layout(9, 3);
    cpu.require_parents(required);
    cpu.fill_nodes(scorer, cpu.all_nodes(), 2);
    ScoreTable gpu = ScoreTable::layout(9, 3);
    gpu.require_parents(required);
    gpu.fill_nodes(scorer, gpu.all_nodes(), 2, [&](ScoreTable& table, NodeRange nodes) {
        for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
            const auto out = table.mutable_node_scores(v);
            for (std::size_t i = 0; i < out.size(); ++i)
                out[i] = scorer.local(v, table.entry_parents(v, static_cast<std::int64_t>(i)));
            table.report_filled(v, ScoreTable::NodeFill::Finite);
        }
    });
    EXPECT_TRUE(same_entries(cpu, gpu));
    EXPECT_EQ(gpu.fill_times().host_nodes, 2);  // the two nodes with mandatory parents
    EXPECT_THROW(gpu.report_filled(0, ScoreTable::NodeFill::Finite), cudag::LogicError);  // outside fill_nodes
}

TEST(ScoreTable, SortedListsBuiltPerBlockEqualTheWholeTables) {
    const UnevenSpace space(12, 180, 14);
    for (const bool plus1 : {false, true}) {
        SCOPED_TRACE(plus1 ? "plus1" : "all");
        ScoreTable whole = space.build(plus1, 3, 2);
        ASSERT_TRUE(whole.build_sorted(2));
        const auto blocks = cudag::bn::table_node_blocks(whole, 3);
        std::int64_t kept = 0;
        for (int r = 0; r < 3; ++r) {
            const NodeRange b = cudag::bn::node_block(blocks, r);
            ScoreTable part = space.build(plus1, 3, 1);
            ASSERT_TRUE(part.build_sorted(1, -1.0, {}, b));
            EXPECT_TRUE(same_sorted(part, whole, b));
            for (std::int32_t v = 0; v < 12; ++v)
                if (!b.contains(v)) {
                    EXPECT_TRUE(part.sorted_offsets(v).empty()) << "node " << v;
                }
            kept += part.sorted_entries();
        }
        EXPECT_EQ(kept, whole.sorted_entries());
        EXPECT_LT(kept, whole.total_entries());  // pruning dropped some sets
        // Over the budget: not built, whatever the block.
        ScoreTable small = space.build(false, 2, 1);
        EXPECT_FALSE(small.build_sorted(1, 10.0, {}, cudag::bn::node_block(blocks, 1)));
        EXPECT_FALSE(small.has_sorted());
    }
}

TEST(ScoreTable, SplitOverOneProcessEqualsTheWholeBuild) {
    const auto scorer = cudag::test::simulated_scorer(9, 120, 30);
    cudag::mpi::SerialCommunicator comm;
    ScoreTable whole = ScoreTable::build(scorer, 3, 1);
    ASSERT_TRUE(whole.build_sorted(1));
    ScoreTable t = ScoreTable::layout(9, 3);
    const cudag::bn::TableShare share = cudag::bn::fill_table_split(t, scorer, 2, {}, comm);
    EXPECT_EQ(share.ranks, 1);
    EXPECT_EQ(share.nodes.begin, 0);
    EXPECT_EQ(share.nodes.end, 9);
    EXPECT_EQ(share.entries, whole.total_entries());
    EXPECT_EQ(share.heaviest, whole.total_entries());
    EXPECT_TRUE(same_entries(t, whole));
    ASSERT_TRUE(cudag::bn::build_sorted_split(t, 2, -1.0, {}, comm));
    EXPECT_TRUE(same_sorted(t, whole, t.all_nodes()));
    ScoreTable u = ScoreTable::layout(9, 3);
    (void)cudag::bn::fill_table_split(u, scorer, 1, {}, comm);
    EXPECT_FALSE(cudag::bn::build_sorted_split(u, 1, 10.0, {}, comm));
}

}  // namespace
