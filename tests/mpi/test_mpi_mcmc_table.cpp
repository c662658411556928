// SPDX-License-Identifier: Apache-2.0
// Under mpiexec (ctest runs it with 2, 3 and 4 ranks): the order-MCMC local-score table
// split over the ranks by node (bn/table_split.hpp) equals the table one process builds,
// entry by entry and in its sorted lists, on every rank; the ranks agree on the budget of
// the lists; max mode shares the lists alone (each rank keeps its block of entries); a
// failure on one rank ends every rank; the chains over the split table give one process's
// result; and a cg-bic table (mixed data) splits as the others.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <stdexcept>
#include <vector>

#include "bn/cg_bic.hpp"
#include "bn/mcmc_run.hpp"
#include "bn/score_table.hpp"
#include "bn/table_split.hpp"
#include "support/bn_sim.hpp"
#include "support/mpi_world.hpp"

using namespace cudag;
using bn::NodeRange;
using bn::ScoreTable;

namespace {

testing::AssertionResult same_table(const ScoreTable& got, const ScoreTable& want) {
    if (got.total_entries() != want.total_entries())
        return testing::AssertionFailure() << got.total_entries() << " entries, one process " << want.total_entries();
    for (std::int32_t v = 0; v < want.n_nodes(); ++v) {
        const auto a = got.node_scores(v), b = want.node_scores(v);
        for (std::size_t i = 0; i < b.size(); ++i)
            if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0)
                return testing::AssertionFailure() << "node " << v << " entry " << i << ": " << a[i] << " vs " << b[i];
    }
    if (got.has_sorted() != want.has_sorted()) return testing::AssertionFailure() << "sorted lists on one side only";
    if (!want.has_sorted()) return testing::AssertionSuccess();
    for (std::int32_t v = 0; v < want.n_nodes(); ++v) {
        const auto oa = got.sorted_offsets(v), ob = want.sorted_offsets(v);
        const auto pa = got.sorted_parents(v), pb = want.sorted_parents(v);
        if (!std::equal(oa.begin(), oa.end(), ob.begin(), ob.end()))
            return testing::AssertionFailure()
                   << "node " << v << ": sorted offsets differ (" << oa.size() << " vs " << ob.size() << ")";
        if (!std::equal(pa.begin(), pa.end(), pb.begin(), pb.end()))
            return testing::AssertionFailure() << "node " << v << ": sorted parents differ";
        const auto sa = got.sorted_scores(v), sb = want.sorted_scores(v);
        if (sa.size() != sb.size() || std::memcmp(sa.data(), sb.data(), sb.size_bytes()) != 0)
            return testing::AssertionFailure() << "node " << v << ": sorted scores differ";
    }
    return testing::AssertionSuccess();
}

/// The same sorted lists (offsets, parents, score bits) on every node; the entries are not
/// compared (a table split in max mode holds only its own block).
testing::AssertionResult same_lists(const ScoreTable& got, const ScoreTable& want) {
    if (!got.has_sorted() || !want.has_sorted()) return testing::AssertionFailure() << "no sorted lists";
    for (std::int32_t v = 0; v < want.n_nodes(); ++v) {
        const auto oa = got.sorted_offsets(v), ob = want.sorted_offsets(v);
        const auto pa = got.sorted_parents(v), pb = want.sorted_parents(v);
        const auto sa = got.sorted_scores(v), sb = want.sorted_scores(v);
        if (!std::equal(oa.begin(), oa.end(), ob.begin(), ob.end()) ||
            !std::equal(pa.begin(), pa.end(), pb.begin(), pb.end()) || sa.size() != sb.size() ||
            std::memcmp(sa.data(), sb.data(), sb.size_bytes()) != 0)
            return testing::AssertionFailure() << "node " << v << "'s sorted list differs";
    }
    return testing::AssertionSuccess();
}

/// Entries the ranks scored, summed over the ranks.
std::int64_t scored_by_all(mpi::Communicator& comm, const bn::TableShare& share) {
    return comm.allreduce(share.entries, mpi::ReduceOp::Sum);
}

struct Case {
    int n;
    int max_parents;
    bool plus1;
};

class MpiMcmcTable : public testing::TestWithParam<Case> {};

TEST_P(MpiMcmcTable, SplitTableEqualsOneProcessTableOnEveryRank) {
    const Case c = GetParam();
    const test::UnevenSpace space(c.n, 250, 40 + static_cast<std::uint64_t>(c.n));
    ScoreTable want = space.build(c.plus1, c.max_parents, 1);
    ASSERT_TRUE(want.build_sorted(1));
    for (mpi::Communicator* comm : test::communicators()) {
        SCOPED_TRACE(comm->name());
        ScoreTable got = space.layout(c.plus1, c.max_parents);
        const bn::TableShare share = bn::fill_table_split(got, space.scorer, 1, {}, *comm);
        // This rank scored exactly its block of the common cut, the blocks cover the table.
        const NodeRange mine = bn::node_block(bn::table_node_blocks(got, comm->size()), comm->rank());
        EXPECT_EQ(share.nodes.begin, mine.begin);
        EXPECT_EQ(share.nodes.end, mine.end);
        EXPECT_EQ(share.entries, want.block_entries(mine));
        EXPECT_EQ(share.ranks, comm->size());
        EXPECT_EQ(scored_by_all(*comm, share), want.total_entries());
        EXPECT_LE(share.entries, share.heaviest);
        ASSERT_TRUE(bn::build_sorted_split(got, 1, -1.0, {}, *comm));
        EXPECT_TRUE(same_table(got, want));
    }
}

INSTANTIATE_TEST_SUITE_P(Spaces, MpiMcmcTable,
                         testing::Values(Case{14, 3, false}, Case{17, 3, true}, Case{9, 0, true},
                                         Case{3, 2, false},  // fewer nodes than ranks at 4
                                         Case{2, 1, true}));

TEST_P(MpiMcmcTable, MaxModeSharesTheListsAloneThenGathersOnRequest) {
    // Max mode: each rank keeps the entries of its block and the sorted lists of every node
    // (offsets, parents and scores: what the chains read); the table is made whole only
    // when asked (the lists did not fit), equal to one process's.
    const Case c = GetParam();
    const test::UnevenSpace space(c.n, 250, 40 + static_cast<std::uint64_t>(c.n));
    ScoreTable want = space.build(c.plus1, c.max_parents, 1);
    ASSERT_TRUE(want.build_sorted(1));
    for (mpi::Communicator* comm : test::communicators()) {
        SCOPED_TRACE(comm->name());
        ScoreTable got = space.layout(c.plus1, c.max_parents);
        const bn::TableShare share = bn::fill_table_split(got, space.scorer, 1, {}, *comm, bn::TableGather::OwnBlock);
        EXPECT_EQ(got.holds_all(), comm->size() == 1);
        for (std::int32_t v = 0; v < c.n; ++v) EXPECT_EQ(got.holds(v), comm->size() == 1 || share.nodes.contains(v));
        ASSERT_TRUE(bn::build_sorted_split(got, 1, -1.0, {}, *comm));
        EXPECT_TRUE(same_lists(got, want));
        for (std::int32_t v = share.nodes.begin; v < share.nodes.end; ++v) {
            const auto a = got.node_scores(v), b = want.node_scores(v);
            EXPECT_EQ(std::memcmp(a.data(), b.data(), b.size_bytes()), 0) << "node " << v;
        }
        (void)bn::gather_table_split(got, *comm);
        EXPECT_TRUE(got.holds_all());
        EXPECT_TRUE(same_table(got, want));
    }
}

TEST(MpiMcmcTableSplit, CgBicSplitTableEqualsOneProcessTable) {
    // The split is score-agnostic: a cg-bic table of mixed data (bn/cg_bic.hpp) split over
    // the ranks equals one process's, entry by entry and in its sorted lists.
    const int n = 9, m = 300;
    Dataset d;
    d.n_vars = n;
    d.n_samples = m;
    d.values.resize(static_cast<std::size_t>(n) * m);
    const std::vector<int> levels = {3, 0, 0, 2, 0, 4, 0, 0, 2};
    for (int v = 0; v < n; ++v) {
        d.names.push_back("v" + std::to_string(v));
        std::vector<std::string> labels;
        for (int l = 0; l < levels[v]; ++l) labels.push_back(std::to_string(l));
        d.levels.push_back(labels);
    }
    std::uint64_t state = 99;
    const auto next = [&] {  // uniform in [0, 1), a linear congruential stream
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<double>(state >> 11) * 0x1p-53;
    };
    for (int i = 0; i < m; ++i)
        for (int v = 0; v < n; ++v) {
            double x = next() + next() - 1.0 + (v > 0 ? 0.6 * d.column(v - 1)[i] / std::max(1, levels[v - 1]) : 0.0);
            d.column(v)[i] =
                levels[v] > 0 ? std::min<double>(levels[v] - 1, std::floor((x + 1.5) / 3.0 * levels[v])) : x * (v + 1);
            if (levels[v] > 0 && d.column(v)[i] < 0) d.column(v)[i] = 0;
        }
    const bn::CgBicScorer scorer(d);
    ScoreTable want = ScoreTable::build(scorer, 3, 1);
    ASSERT_TRUE(want.build_sorted(1));
    for (mpi::Communicator* comm : test::communicators()) {
        SCOPED_TRACE(comm->name());
        ScoreTable got = ScoreTable::layout(n, 3);
        (void)bn::fill_table_split(got, scorer, 1, {}, *comm);
        ASSERT_TRUE(bn::build_sorted_split(got, 1, -1.0, {}, *comm));
        EXPECT_TRUE(same_table(got, want));
    }
}

TEST(MpiMcmcTableSplit, RanksAgreeOnTheSortedListsBudget) {
    mpi::Communicator& comm = test::world();
    const bn::DiscreteScorer scorer = test::simulated_scorer(8, 200, 3);
    ScoreTable t = ScoreTable::layout(8, 2);
    (void)bn::fill_table_split(t, scorer, 1, {}, comm);
    // Only the last rank's budget is too small: no rank builds the lists.
    const double budget = comm.rank() == comm.size() - 1 ? 10.0 : -1.0;
    EXPECT_FALSE(bn::build_sorted_split(t, 1, budget, {}, comm));
    EXPECT_FALSE(t.has_sorted());
    EXPECT_TRUE(bn::build_sorted_split(t, 1, comm.rank() == 0 ? 1e12 : -1.0, {}, comm));
}

TEST(MpiMcmcTableSplit, AFailingRankEndsEveryRank) {
    mpi::Communicator& comm = test::world();
    const bn::DiscreteScorer scorer = test::simulated_scorer(10, 100, 9);
    ScoreTable t = ScoreTable::layout(10, 2);
    const int failing = comm.size() - 1;
    const ScoreTable::Filler filler = [&](ScoreTable&, NodeRange) {
        if (comm.rank() == failing) throw std::runtime_error("filler failed on purpose");
    };
    if (comm.rank() == failing)
        EXPECT_THROW((void)bn::fill_table_split(t, scorer, 1, filler, comm), mpi::AgreedFailure);
    else
        EXPECT_THROW((void)bn::fill_table_split(t, scorer, 1, filler, comm), mpi::PeerFailed);
    // The ranks are still in step: a collective afterwards works.
    EXPECT_EQ(comm.allreduce(std::int64_t{1}, mpi::ReduceOp::Sum), comm.size());
}

TEST(MpiMcmcTableSplit, ChainsOverTheSplitTableGiveOneProcessResult) {
    mpi::Communicator& comm = test::world();
    const test::UnevenSpace space(11, 300, 12);
    for (const bn::OrderScoreMode mode : {bn::OrderScoreMode::Max, bn::OrderScoreMode::Sum}) {
        SCOPED_TRACE(mode == bn::OrderScoreMode::Max ? "max" : "sum");
        ScoreTable whole = space.build(true, 3, 1);
        ASSERT_TRUE(whole.build_sorted(1));
        ScoreTable split = space.layout(true, 3);
        // As `cudag mcmc` does: max mode keeps the own block and shares the lists only.
        (void)bn::fill_table_split(
            split, space.scorer, 1, {}, comm,
            mode == bn::OrderScoreMode::Max ? bn::TableGather::OwnBlock : bn::TableGather::Whole);
        ASSERT_TRUE(bn::build_sorted_split(split, 1, -1.0, {}, comm));
        EXPECT_EQ(split.holds_all(), mode == bn::OrderScoreMode::Sum || comm.size() == 1);
        bn::McmcRunConfig cfg;
        cfg.opts.mode = mode;
        cfg.opts.chains = 5;
        cfg.opts.iterations = 400;
        cfg.opts.burn_in = 100;
        cfg.opts.thin = 3;
        cfg.opts.seed = 77;
        cfg.opts.threads = 1;
        const bn::OrderMcmcResult got = bn::run_mcmc(split, cfg, comm);
        mpi::SerialCommunicator serial;
        const bn::OrderMcmcResult want = bn::run_mcmc(whole, cfg, serial);
        if (comm.rank() != 0) continue;  // the result is rank 0's
        ASSERT_EQ(got.chains.size(), want.chains.size());
        for (std::size_t k = 0; k < want.chains.size(); ++k) {
            EXPECT_EQ(got.chains[k].trace, want.chains[k].trace) << "chain " << k;
            EXPECT_EQ(got.chains[k].edge_sum, want.chains[k].edge_sum) << "chain " << k;
            EXPECT_EQ(got.chains[k].best_parents, want.chains[k].best_parents) << "chain " << k;
            EXPECT_EQ(got.chains[k].best_dag_score, want.chains[k].best_dag_score) << "chain " << k;
        }
        EXPECT_EQ(got.edge_prob, want.edge_prob);
        EXPECT_FALSE(want.edge_prob.empty());
    }
}

}  // namespace
