// SPDX-License-Identifier: Apache-2.0
// The order-MCMC library call (bn/pipeline.hpp) and the parent spaces (bn/space.hpp): the
// pipeline gives what its parts give by hand (table, sorted lists, chains, the best DAG's
// local scores) in both modes, over every space kind; its checkpoint digest moves with
// every setting and names them; the spaces keep the strongest neighbours, ties by id, and
// drop what knowledge forbids.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bn/mcmc_run.hpp"
#include "bn/order_mcmc.hpp"
#include "bn/pipeline.hpp"
#include "bn/prior.hpp"
#include "bn/score_table.hpp"
#include "bn/space.hpp"
#include "core/error.hpp"
#include "core/knowledge.hpp"
#include "mpi/communicator.hpp"
#include "support/bn_sim.hpp"

namespace {

using namespace cudag;

bn::McmcConfig config(bn::OrderScoreMode mode) {
    bn::McmcConfig cfg;
    cfg.opts.mode = mode;
    cfg.opts.chains = 3;
    cfg.opts.iterations = 600;
    cfg.opts.burn_in = 100;
    cfg.opts.thin = 2;
    cfg.opts.seed = 41;
    cfg.opts.threads = 2;
    cfg.max_parents = 3;
    return cfg;
}

TEST(McmcPipeline, EqualsItsPartsByHandInBothModesAndEverySpace) {
    const bn::DiscreteScorer scorer = test::simulated_scorer(9, 300, 5);
    bn::StructurePrior prior;
    prior.edge_penalty = 2.0;
    const bn::PriorScorer with_prior(scorer, prior);
    std::vector<bn::SkeletonEdge> skeleton = {{0, 1, 0.001}, {1, 2, 0.0},  {2, 3, 0.02}, {3, 4, 0.0},  {0, 5, 0.003},
                                              {5, 6, 0.0},   {6, 7, 0.01}, {7, 8, 0.0},  {1, 8, 0.004}};
    // Sum mode twice: with the subset rows (the default) and without them (enumeration).
    const std::pair<bn::OrderScoreMode, bool> runs[] = {
        {bn::OrderScoreMode::Max, false}, {bn::OrderScoreMode::Sum, true}, {bn::OrderScoreMode::Sum, false}};
    for (const auto& [mode, rows] : runs)
        for (const bool plus1 : {false, true}) {
            SCOPED_TRACE(std::string(mode == bn::OrderScoreMode::Max ? "max" : "sum") + (plus1 ? ", plus1" : ", all") +
                         (rows ? ", subset rows" : ""));
            bn::McmcConfig cfg = config(mode);
            if (mode == bn::OrderScoreMode::Sum && !rows) cfg.sum_rows_bytes = 0.0;
            if (plus1) cfg.space = bn::space_from_skeleton(9, skeleton, 2, "pc (test");
            mpi::SerialCommunicator serial;
            std::vector<std::string> notes;
            bn::McmcObserver obs;
            obs.note = [&](const std::string& s) { notes.push_back(s); };
            const bn::McmcOutcome got = bn::run_order_mcmc(scorer, prior, cfg, serial, obs);

            bn::ScoreTable table = plus1
                                       ? bn::ScoreTable::build(with_prior, cfg.space.candidates, 3, 1, cfg.space.extras)
                                       : bn::ScoreTable::build(with_prior, 3, 1);
            ASSERT_TRUE(table.build_sorted(1));
            if (rows) {
                EXPECT_EQ(table.build_subset_rows(1), 9);
            }
            const bn::OrderMcmcResult want = bn::run_order_mcmc(table, cfg.opts);
            ASSERT_EQ(got.result.chains.size(), want.chains.size());
            for (std::size_t c = 0; c < want.chains.size(); ++c) {
                EXPECT_EQ(got.result.chains[c].trace, want.chains[c].trace) << "chain " << c;
                EXPECT_EQ(got.result.chains[c].best_parents, want.chains[c].best_parents) << "chain " << c;
            }
            EXPECT_EQ(got.result.edge_prob, want.edge_prob);
            EXPECT_EQ(got.table_entries, table.total_entries());
            EXPECT_EQ(got.engines, "table cpu, chains cpu");
            // The best chain and its DAG's local scores, each node's looked up in the table.
            const auto& best = want.chains[static_cast<std::size_t>(got.best_chain)];
            for (const auto& c : want.chains) EXPECT_LE(c.best_dag_score, best.best_dag_score);
            ASSERT_EQ(got.best_local.size(), 9u);
            double total = 0.0;
            for (std::int32_t v = 0; v < 9; ++v) {
                EXPECT_EQ(got.best_local[v], table.lookup(v, best.best_parents[v])) << "node " << v;
                total += got.best_local[v];
            }
            EXPECT_NEAR(total, best.best_dag_score, 1e-9 * std::abs(total));
            EXPECT_FALSE(notes.empty());
        }
}

TEST(McmcPipeline, DigestMovesWithEverySettingAndNamesIt) {
    const bn::DiscreteScorer scorer = test::simulated_scorer(6, 100, 3);
    const bn::ScoreTable table = bn::ScoreTable::build(scorer, 2, 1);
    bn::StructurePrior prior;
    const bn::McmcConfig base = config(bn::OrderScoreMode::Max);
    const std::string h = base.digest(table, prior);
    EXPECT_EQ(base.digest(table, prior), h);  // a function of its inputs
    std::set<std::string> seen{h};
    auto changed = [&](auto&& change) {
        bn::McmcConfig c = base;
        bn::StructurePrior p = prior;
        change(c, p);
        return seen.insert(c.digest(table, p)).second;
    };
    EXPECT_TRUE(changed([](bn::McmcConfig& c, bn::StructurePrior&) { c.opts.seed = 42; }));
    EXPECT_TRUE(changed([](bn::McmcConfig& c, bn::StructurePrior&) { c.opts.iterations = 601; }));
    EXPECT_TRUE(changed([](bn::McmcConfig& c, bn::StructurePrior&) { c.opts.chains = 4; }));
    EXPECT_TRUE(changed([](bn::McmcConfig& c, bn::StructurePrior&) { c.opts.mode = bn::OrderScoreMode::Sum; }));
    EXPECT_TRUE(changed([](bn::McmcConfig& c, bn::StructurePrior&) { c.max_parents = 2; }));
    EXPECT_TRUE(changed([](bn::McmcConfig&, bn::StructurePrior& p) { p.edge_penalty = 3.0; }));
    EXPECT_TRUE(changed([](bn::McmcConfig& c, bn::StructurePrior&) { c.scored.add_string("other data"); }));
    // The checkpoint options are not part of it (a resume moves them).
    EXPECT_FALSE(changed([](bn::McmcConfig& c, bn::StructurePrior&) { c.checkpoint_every = 7; }));
    const io::CheckpointSettings s = base.settings(table, prior);
    std::set<std::string> names;
    for (const auto& kv : s) names.insert(kv.name);
    for (const char* name : {"--max-parents", "--edge-penalty", "--order-score", "--moves", "--chains", "--iterations",
                             "--burn-in", "--thin", "--seed"})
        EXPECT_TRUE(names.count(name)) << name;
}

// --space iterative (issue 37): from a plus1 space whose skeleton misses most edges, rounds
// of max-mode chains admit their MAP DAG's plus1 edges as candidates (both ways) until one
// admits nothing; the run then samples that space, equal to a run given it directly.
TEST(McmcPipeline, IterativeSpaceGrowsByMapDagsAndSamplesTheSpaceItEndsOn) {
    const bn::DiscreteScorer scorer = test::simulated_scorer(9, 400, 5);
    const bn::StructurePrior prior;
    const std::vector<bn::SkeletonEdge> skeleton = {{0, 1, 0.001}, {3, 4, 0.0}};
    for (const int hard_limit : {1, 3}) {
        SCOPED_TRACE("hard limit " + std::to_string(hard_limit));
        bn::McmcConfig cfg = config(bn::OrderScoreMode::Sum);
        cfg.space = bn::space_from_skeleton(9, skeleton, hard_limit, "pc (test");
        cfg.iterative = true;
        cfg.hard_limit = hard_limit;
        mpi::SerialCommunicator serial;
        const bn::McmcOutcome got = bn::run_order_mcmc(scorer, prior, cfg, serial);
        const bn::ParentSpace& s = got.space;
        std::int64_t before = 4, after = 0;  // the skeleton's two edges, both ways
        for (std::int32_t v = 0; v < 9; ++v) {
            after += static_cast<std::int64_t>(s.candidates[v].size());
            EXPECT_LE(static_cast<std::int64_t>(s.candidates[v].size()), std::max<std::int64_t>(hard_limit, 1));
            EXPECT_EQ(s.candidates[v].size() + s.extras[v].size(), 8u) << "node " << v;  // nothing lost
        }
        EXPECT_GT(after, before);
        EXPECT_NE(s.description.find(", iterative: "), std::string::npos) << s.description;
        // The run sampled that space, chain 0 from the search's MAP order (a permutation): a
        // run on it given directly, from that order, has the same chains; from a random
        // order, chain 0 differs.
        ASSERT_EQ(got.start_order.size(), 9u);
        EXPECT_TRUE(std::is_permutation(got.start_order.begin(), got.start_order.end(),
                                        std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}.begin()));
        bn::McmcConfig direct = config(bn::OrderScoreMode::Sum);
        direct.space = s;
        direct.opts.start_order = got.start_order;
        const bn::McmcOutcome want = bn::run_order_mcmc(scorer, prior, direct, serial);
        EXPECT_EQ(got.table_entries, want.table_entries);
        EXPECT_EQ(got.result.edge_prob, want.result.edge_prob);
        for (std::size_t c = 0; c < want.result.chains.size(); ++c) {
            EXPECT_EQ(got.result.chains[c].trace, want.result.chains[c].trace) << "chain " << c;
        }
        direct.opts.start_order.clear();
        const bn::McmcOutcome drawn = bn::run_order_mcmc(scorer, prior, direct, serial);
        EXPECT_NE(drawn.result.chains[0].trace, want.result.chains[0].trace);
        EXPECT_EQ(drawn.result.chains[1].trace, want.result.chains[1].trace);
        // A last round on the final space admits nothing: the MAP DAG's parents are candidates.
        bn::McmcConfig again = cfg;
        again.space = s;
        EXPECT_EQ(bn::run_order_mcmc(scorer, prior, again, serial).space.candidates, s.candidates);
    }
}

TEST(ParentSpaces, SkeletonKeepsTheStrongestNeighboursTiesByIdAndEveryOtherNodeAsExtra) {
    // Node 0's neighbours 1 (p 0.02), 2 (p 0), 3 (p 0), 4 (p 0.01): at most 3 kept, the
    // smallest p first, ties by id: 2, 3, 4; 1 becomes an extra.
    const std::vector<bn::SkeletonEdge> edges = {{0, 1, 0.02}, {0, 2, 0.0}, {3, 0, 0.0}, {0, 4, 0.01}};
    const bn::ParentSpace s = bn::space_from_skeleton(5, edges, 3, "pc (alpha 0.05");
    EXPECT_FALSE(s.all);
    EXPECT_EQ(s.candidates[0], (std::vector<std::int32_t>{2, 3, 4}));
    EXPECT_EQ(s.extras[0], (std::vector<std::int32_t>{1}));
    EXPECT_EQ(s.candidates[3], (std::vector<std::int32_t>{0}));
    EXPECT_EQ(s.extras[3], (std::vector<std::int32_t>{1, 2, 4}));
    EXPECT_EQ(s.description, "pc (alpha 0.05, 4 skeleton edges, 1 neighbours over the hard limit dropped, plus1)");
}

TEST(ParentSpaces, KnowledgeDropsForbiddenParentsAndMakesRequiredOnesMandatory) {
    Knowledge k(4);
    k.forbid_direction(1, 0);  // 1 is never a parent of 0
    const bn::ParentSpace s = bn::restrict_space(bn::ParentSpace{}, k, 4);
    EXPECT_FALSE(s.all);
    EXPECT_EQ(s.candidates[0], (std::vector<std::int32_t>{2, 3}));
    EXPECT_EQ(s.candidates[1], (std::vector<std::int32_t>{0, 2, 3}));
    EXPECT_EQ(s.description, "all less 1 parents forbidden by background knowledge");
    Knowledge r(4);
    r.require_direction(0, 1);
    const bn::ParentSpace q = bn::restrict_space(bn::ParentSpace{}, r, 4);
    EXPECT_EQ(q.candidates[1], (std::vector<std::int32_t>{0, 2, 3}));
    EXPECT_EQ(q.required, (std::vector<std::vector<std::int32_t>>{{}, {0}, {}, {}}));
    EXPECT_EQ(q.description, "all less 0 parents forbidden by background knowledge, 1 required parents");
    Knowledge pair(4);
    pair.require_pair(0, 1);  // no direction: no one node's parent sets to constrain
    EXPECT_THROW((void)bn::restrict_space(bn::ParentSpace{}, pair, 4), InputError);
}

}  // namespace
