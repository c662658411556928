// SPDX-License-Identifier: Apache-2.0
// The order-MCMC learner's one parity body: every engine it can pick (bn/engines.hpp) runs
// the whole library call (bn::run_order_mcmc) and must give the CPU reference's chains bit
// for bit: traces, best orders and DAGs, edge probabilities. The reference is the CPU
// engine on one thread; the CPU on two threads and, when a GPU is visible, the CUDA table
// filler, sorter and chains follow. BDeu and BGe, max and sum mode, the full space and a
// plus1 space.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "bn/bge.hpp"
#include "bn/pipeline.hpp"
#include "bn/prior.hpp"
#include "bn/space.hpp"
#include "core/backend.hpp"
#include "core/knowledge.hpp"
#include "mpi/communicator.hpp"
#include "sim/gaussian.hpp"
#include "support/bn_sim.hpp"

namespace cudag {
namespace {

struct McmcEngineCase {
    std::string label;
    bool gpu = false;
    int threads = 1;
    bool prune = true;  ///< max mode's pruned table (the GPU's filler scores every entry regardless)
};

std::vector<McmcEngineCase> mcmc_engines() {
    std::vector<McmcEngineCase> out{
        {"cpu, 1 thread", false, 1}, {"cpu, 2 threads", false, 2}, {"cpu, full table", false, 2, false}};
    if (visible_gpus() > 0) out.push_back({"cuda, GPU 0", true, 2});
    return out;
}

bn::McmcConfig config(bn::OrderScoreMode mode, int threads, bool gpu) {
    bn::McmcConfig cfg;
    cfg.opts.mode = mode;
    cfg.opts.chains = 3;
    cfg.opts.iterations = 500;
    cfg.opts.burn_in = 100;
    cfg.opts.thin = 3;
    cfg.opts.seed = 17;
    cfg.opts.threads = threads;
    cfg.max_parents = 3;
    cfg.gpu = gpu;
    return cfg;
}

/// Runs every engine on `scorer` and compares each with the first, field by field.
void expect_same_on_every_engine(const bn::LocalScorer& scorer, bn::OrderScoreMode mode, const bn::ParentSpace* space,
                                 bool iterative = false, bool subset_rows = true) {
    bn::StructurePrior prior;
    prior.edge_penalty = 1.5;
    const std::vector<McmcEngineCase> cases = mcmc_engines();
    std::vector<bn::McmcOutcome> runs;
    for (const McmcEngineCase& c : cases) {
        bn::McmcConfig cfg = config(mode, c.threads, c.gpu);
        if (space) cfg.space = *space;
        cfg.table_prune = c.prune;
        cfg.iterative = iterative;
        cfg.hard_limit = 3;
        if (!subset_rows) cfg.sum_rows_bytes = 0.0;  // sum mode enumerates every node's sets
        mpi::SerialCommunicator serial;
        runs.push_back(bn::run_order_mcmc(scorer, prior, cfg, serial));
        std::cout << "[ engines  ] " << c.label << ": " << runs.back().engines << '\n';
    }
    if (visible_gpus() == 0) std::cout << "[ engines  ] no GPU: CPU only\n";
    const bn::McmcOutcome& want = runs.front();
    ASSERT_FALSE(want.result.chains.empty());
    for (std::size_t k = 1; k < runs.size(); ++k) {
        SCOPED_TRACE(cases[k].label + " vs " + cases.front().label);
        const bn::McmcOutcome& got = runs[k];
        EXPECT_EQ(got.table_entries, want.table_entries);
        ASSERT_EQ(got.result.chains.size(), want.result.chains.size());
        for (std::size_t c = 0; c < want.result.chains.size(); ++c) {
            const auto &g = got.result.chains[c], &w = want.result.chains[c];
            EXPECT_EQ(g.trace, w.trace) << "chain " << c;
            EXPECT_EQ(g.best_order, w.best_order) << "chain " << c;
            EXPECT_EQ(g.best_parents, w.best_parents) << "chain " << c;
            EXPECT_EQ(g.best_dag_score, w.best_dag_score) << "chain " << c;
            EXPECT_EQ(g.final_order, w.final_order) << "chain " << c;
            EXPECT_EQ(g.acceptance_rate, w.acceptance_rate) << "chain " << c;
        }
        EXPECT_EQ(got.result.edge_prob, want.result.edge_prob);
        EXPECT_EQ(got.best_chain, want.best_chain);
        EXPECT_EQ(got.best_local, want.best_local);
        EXPECT_EQ(got.space.candidates, want.space.candidates);
    }
    // A run that learnt nothing would pass the comparison: the reference must have moved.
    std::int64_t moved = 0;
    for (const auto& c : want.result.chains) moved += c.acceptance_rate > 0.0;
    EXPECT_GT(moved, 0);
}

const char* mode_name(bn::OrderScoreMode mode) { return mode == bn::OrderScoreMode::Max ? "max" : "sum"; }

TEST(McmcParity, BdeuChainsAreEqualOnEveryEngine) {
    const bn::DiscreteScorer scorer = test::simulated_scorer(10, 400, 3);
    for (const auto mode : {bn::OrderScoreMode::Max, bn::OrderScoreMode::Sum}) {
        SCOPED_TRACE(mode_name(mode));
        expect_same_on_every_engine(scorer, mode, nullptr);
    }
}

TEST(McmcParity, BdeuOnAPlus1SpaceIsEqualOnEveryEngine) {
    const bn::DiscreteScorer scorer = test::simulated_scorer(11, 300, 8);
    const std::vector<bn::SkeletonEdge> skeleton = {{0, 1, 0.001}, {1, 2, 0.0},  {2, 3, 0.02}, {3, 4, 0.0},
                                                    {0, 5, 0.003}, {5, 6, 0.0},  {6, 7, 0.01}, {7, 8, 0.0},
                                                    {1, 8, 0.004}, {8, 9, 0.03}, {9, 10, 0.0}};
    const bn::ParentSpace space = bn::space_from_skeleton(11, skeleton, 2, "pc (parity test)");
    for (const auto mode : {bn::OrderScoreMode::Max, bn::OrderScoreMode::Sum}) {
        SCOPED_TRACE(mode_name(mode));
        expect_same_on_every_engine(scorer, mode, &space);
    }
}

TEST(McmcParity, BdeuIterativeSpaceIsEqualOnEveryEngine) {
    const bn::DiscreteScorer scorer = test::simulated_scorer(11, 300, 8);
    const std::vector<bn::SkeletonEdge> skeleton = {{0, 1, 0.001}, {2, 3, 0.0}, {5, 6, 0.0}, {8, 9, 0.03}};
    const bn::ParentSpace space = bn::space_from_skeleton(11, skeleton, 3, "pc (parity test)");
    for (const auto mode : {bn::OrderScoreMode::Max, bn::OrderScoreMode::Sum}) {
        SCOPED_TRACE(mode_name(mode));
        expect_same_on_every_engine(scorer, mode, &space, true);
    }
}

TEST(McmcParity, BdeuOnFewSamplesPrunedTableIsEqualOnEveryEngine) {
    // 40 samples: the pruning bounds skip sets (test_bn_prune counts them), the GPU scores all.
    const bn::DiscreteScorer scorer = test::simulated_scorer(10, 40, 3);
    expect_same_on_every_engine(scorer, bn::OrderScoreMode::Max, nullptr);
}

TEST(McmcParity, BdeuWithRequiredParentsIsEqualOnEveryEngine) {
    const bn::DiscreteScorer scorer = test::simulated_scorer(10, 400, 3);
    Knowledge k(10);
    k.require_direction(0, 3);
    k.require_direction(5, 3);
    k.require_direction(3, 7);
    const bn::ParentSpace space = bn::restrict_space(bn::ParentSpace{}, k, 10);
    for (const auto mode : {bn::OrderScoreMode::Max, bn::OrderScoreMode::Sum}) {
        SCOPED_TRACE(mode_name(mode));
        expect_same_on_every_engine(scorer, mode, &space);
    }
}

TEST(McmcParity, SumModeWithoutSubsetRowsIsEqualOnEveryEngine) {
    // The enumeration that nodes past the rows' limits take (bn/subset_rows.hpp), every node.
    const bn::DiscreteScorer scorer = test::simulated_scorer(11, 300, 8);
    const std::vector<bn::SkeletonEdge> skeleton = {{0, 1, 0.001}, {1, 2, 0.0}, {2, 3, 0.02}, {3, 4, 0.0},
                                                    {0, 5, 0.003}, {5, 6, 0.0}, {6, 7, 0.01}, {7, 8, 0.0}};
    const bn::ParentSpace space = bn::space_from_skeleton(11, skeleton, 2, "pc (parity test)");
    expect_same_on_every_engine(scorer, bn::OrderScoreMode::Sum, nullptr, false, false);
    expect_same_on_every_engine(scorer, bn::OrderScoreMode::Sum, &space, false, false);
}

TEST(McmcParity, BgeChainsAreEqualOnEveryEngine) {
    const Dataset data = sim::simulate_gaussian({9, 300, 0.3, 5}).data;
    bn::BgeSpec spec;
    const bn::BgeScorer scorer(data, spec);
    for (const auto mode : {bn::OrderScoreMode::Max, bn::OrderScoreMode::Sum}) {
        SCOPED_TRACE(mode_name(mode));
        expect_same_on_every_engine(scorer, mode, nullptr);
    }
}

}  // namespace
}  // namespace cudag
