// SPDX-License-Identifier: Apache-2.0
// bootstrap/table.hpp: a PAG table's kinds' columns (issue 54), the consensus PAG and a CPDAG
// table's consensus graph by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/pag.hpp"
#include "bootstrap/table.hpp"

namespace {

using namespace cudag;
using namespace cudag::marks;

TEST(BootstrapPag, KindsAreEdgeKindsReadFromIToJ) {
    EXPECT_EQ(edge_kinds(), (std::vector<std::string>{"o->", "<-o", "o-o", "-->", "<--", "<->", "---", "o--", "--o"}));
    Pag g(3);
    g.add(0, 2, kCircle, kArrow);  // 0 o-> 2
    g.add(1, 2, kArrow, kTail);    // 1 <-- 2
    EXPECT_EQ(bootstrap::pag_kind(g, 0, 1), 0);
    EXPECT_EQ(bootstrap::pag_kind(g, 0, 2), 1);
    EXPECT_EQ(bootstrap::pag_kind(g, 1, 2), 5);
}

TEST(BootstrapPag, ConsensusTakesTheCommonestKindTiesToTheLessCommittal) {
    bootstrap::Table t;
    t.replicates = 10;
    t.consensus = 0.4;
    t.pag = true;
    // Columns: none, o->, <-o, o-o, -->, <--, <->, ---, o--, --o.
    const std::vector<std::vector<std::int32_t>> rows{
        {6, 0, 0, 0, 4, 0, 0, 0, 0, 0},  // (0, 1): adjacent 0.4, --> alone
        {7, 3, 0, 0, 0, 0, 0, 0, 0, 0},  // (0, 2): adjacent 0.3 < 0.4: out
        {0, 3, 0, 3, 4, 0, 0, 0, 0, 0},  // (0, 3): --> most often
        {2, 4, 0, 4, 0, 0, 0, 0, 0, 0},  // (1, 2): o-> and o-o tie: o-o
        {0, 0, 0, 0, 3, 0, 3, 3, 1, 0},  // (1, 3): -->, <->, --- tie: -->
        {4, 0, 3, 0, 0, 0, 0, 0, 0, 3},  // (2, 3): <-o and --o tie: <-o
    };
    t.pairs = {0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3};
    for (const auto& row : rows) t.counts.insert(t.counts.end(), row.begin(), row.end());
    const Pag g = bootstrap::consensus_pag(t, 4);
    EXPECT_EQ(g.n_edges(), 5);
    EXPECT_EQ(edge_string(g, 0, 1), "-->");
    EXPECT_FALSE(g.adjacent(0, 2));
    EXPECT_EQ(edge_string(g, 0, 3), "-->");
    EXPECT_EQ(edge_string(g, 1, 2), "o-o");
    EXPECT_EQ(edge_string(g, 1, 3), "-->");
    EXPECT_EQ(edge_string(g, 2, 3), "<-o");
    // A PC table is refused.
    bootstrap::Table pc_table = t;
    pc_table.pag = false;
    EXPECT_ANY_THROW(bootstrap::consensus_pag(pc_table, 4));
}

TEST(BootstrapCpdag, ConsensusFollowsTheThresholdAndTheTieOrder) {
    bootstrap::Table t;
    t.replicates = 10;
    t.consensus = 0.3;
    // (0,1): adjacent 3 of 10 (= 0.3 exactly), 2 forward, 1 backward -> 0 --> 1.
    // (0,2): adjacent 2 of 10 -> absent.
    // (1,2): 2 forward, 2 undirected -> tie: undirected.
    // (1,3): 3 backward, 3 forward -> tie: forward (1 --> 3).
    // (2,3): 5 bidirected, 1 undirected -> bidirected.
    t.pairs = {0, 1, 0, 2, 1, 2, 1, 3, 2, 3};
    t.counts = {7, 2, 1, 0, 0, 8, 1, 1, 0, 0, 6, 2, 0, 2, 0, 4, 3, 3, 0, 0, 4, 0, 0, 1, 5};
    const Pdag g = bootstrap::consensus_graph(t, 4);
    EXPECT_EQ(g.n_edges(), 4);
    EXPECT_TRUE(g.is_directed(0, 1));
    EXPECT_FALSE(g.adjacent(0, 2));
    EXPECT_TRUE(g.is_undirected(1, 2));
    EXPECT_TRUE(g.is_directed(1, 3));
    EXPECT_TRUE(g.is_bidirected(2, 3));
    t.consensus = 0.31;
    EXPECT_FALSE(bootstrap::consensus_graph(t, 4).adjacent(0, 1));
}

}  // namespace
