// SPDX-License-Identifier: Apache-2.0
// skeleton::BatchTestEngine (a ci::BatchTest asked in large batches, each row's answers
// replayed in search_row's order) against the CPU engine of single tests and the dedicated
// CPU engines: every level's output (flags, pMax, separating sets or their unions, tests)
// is the same to the bit, for whole rows and for blocks cutting rows, exhaustive or not,
// with batches of any size (tiny ones exercise the chunking), and so is a whole search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/graph.hpp"
#include "core/pair_index.hpp"
#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"
#include "skeleton/batch_test_engine.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/cpu/ci_test_engine.hpp"
#include "skeleton/cpu/discrete_engine.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/skeleton.hpp"
#include "support/pcalg_reference.hpp"
#include "support/skeleton_compare.hpp"
#include "support/test_specs.hpp"

namespace cudag {
namespace {

using skeleton::BatchTestEngine;
using skeleton::LevelBlock;
using skeleton::LevelOutput;
using skeleton::TestKind;
using skeleton::TestPolicy;

/// What a CountingBatch saw.
struct BatchStats {
    std::int64_t queries = 0, batches = 0, largest = 0;
};

/// A BatchTest passing its batches on and counting them.
class CountingBatch final : public ci::BatchTest {
public:
    CountingBatch(std::unique_ptr<ci::BatchTest> inner, BatchStats& stats) : inner_(std::move(inner)), stats_(stats) {}
    std::string name() const override { return inner_->name(); }
    std::string where() const override { return inner_->where(); }
    void run(const ci::Queries& q, std::span<double> statistic, std::span<double> p) override {
        const auto size = static_cast<std::int64_t>(q.size());
        stats_.queries += size;
        ++stats_.batches;
        stats_.largest = std::max(stats_.largest, size);
        inner_->run(q, statistic, p);
    }

private:
    std::unique_ptr<ci::BatchTest> inner_;
    BatchStats& stats_;
};

/// The two engines of one test on one data set.
struct Engines {
    const Dataset& data;
    skeleton::TestSpec spec;

    skeleton::CiTestFactory factory(int threads) const {
        return skeleton::ci_test_factory(data, spec, skeleton::Compat::Pcalg, threads);
    }
    skeleton::CpuCiTestEngine cpu(const TestPolicy& policy, int threads = 1) const {
        return skeleton::CpuCiTestEngine(data.n_vars, factory(1), policy, threads);
    }
    std::unique_ptr<BatchTestEngine> batch(const TestPolicy& policy, int threads, std::int64_t batch_queries,
                                           BatchStats* stats = nullptr) const {
        // Tiny batches on one worker: waking a second for every query only costs time.
        const int workers = batch_queries < 64 ? 1 : 2;
        std::unique_ptr<ci::BatchTest> b = std::make_unique<ci::CpuBatchTest>(factory(workers), workers);
        if (stats) b = std::make_unique<CountingBatch>(std::move(b), *stats);
        return std::make_unique<BatchTestEngine>(data.n_vars, std::move(b), policy, threads, batch_queries);
    }
};

/// A snapshot: each pair adjacent with probability `density`.
Adjacency random_snapshot(std::int64_t n, double density, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::bernoulli_distribution edge(density);
    Graph g(n);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j)
            if (edge(rng)) g.add(i, j);
    return Adjacency::from_graph(g);
}

/// The block of the entries [eb, ee) of `snap` (rows cut where the range cuts them).
LevelBlock entry_block(const Adjacency& snap, std::int64_t eb, std::int64_t ee) {
    const auto& o = snap.offsets;
    LevelBlock b;
    b.row_begin = std::upper_bound(o.begin(), o.end(), eb) - o.begin() - 1;
    b.row_end = std::lower_bound(o.begin(), o.end(), ee) - o.begin();
    b.entry_begin = eb;
    b.entry_end = ee;
    return b;
}

/// Blocks of `snap` to test: whole rows, a middle run of rows, runs cut inside their first
/// and last rows, one row cut on both sides.
std::vector<LevelBlock> blocks_of(const Adjacency& snap) {
    const std::int64_t n = snap.n, entries = snap.offsets[static_cast<std::size_t>(n)];
    std::vector<LevelBlock> b{LevelBlock::rows(snap, 0, n), LevelBlock::rows(snap, 2, n - 3)};
    for (const auto& [x, y] : {std::pair{0.31, 0.77}, std::pair{0.05, 0.4}, std::pair{0.5, 1.0}})
        b.push_back(entry_block(snap, static_cast<std::int64_t>(x * static_cast<double>(entries)),
                                static_cast<std::int64_t>(y * static_cast<double>(entries))));
    for (std::int64_t i = 0; i < n; ++i)
        if (snap.degree(i) >= 5) {
            b.push_back(entry_block(snap, snap.offsets[i] + 1, snap.offsets[i + 1] - 2));
            break;
        }
    return b;
}

testing::AssertionResult same_level(const LevelOutput& got, const LevelOutput& want) {
    if (got.tests != want.tests)
        return testing::AssertionFailure() << "tests: batch " << got.tests << ", cpu " << want.tests;
    for (std::size_t e = 0; e < want.flags.size(); ++e) {
        if (got.flags[e] != want.flags[e])
            return testing::AssertionFailure()
                   << "entry " << e << " flags: batch " << int{got.flags[e]} << ", cpu " << int{want.flags[e]};
        if (got.pmax[e] != want.pmax[e])
            return testing::AssertionFailure()
                   << "entry " << e << " pmax: batch " << got.pmax[e] << ", cpu " << want.pmax[e];
        if (!(want.flags[e] & skeleton::kSeparated)) continue;
        const auto a = got.set(e), b = want.set(e);
        if (!std::equal(a.begin(), a.end(), b.begin(), b.end()))
            return testing::AssertionFailure() << "entry " << e << ": separating sets differ";
    }
    return testing::AssertionSuccess();
}

/// For each level 1..3, block, exhaustiveness, batch size and thread count: the batch
/// engine's LevelOutput is the CPU engine's. Returns the separated and tested entries seen,
/// for checks that the case separates something.
void expect_levels_equal(const Engines& en, const Adjacency& snap, double alpha, const std::vector<std::int64_t>& sizes,
                         std::int64_t* separated_out) {
    std::int64_t separated = 0, queued = 0, run = 0;
    for (const bool exhaustive : {false, true}) {
        TestPolicy policy;
        policy.alpha = alpha;
        policy.exhaustive = exhaustive;
        skeleton::CpuCiTestEngine cpu = en.cpu(policy);
        for (int l = 1; l <= 3; ++l)
            for (const LevelBlock& block : blocks_of(snap)) {
                LevelOutput want;
                want.reset(snap.nbrs.size(), l, exhaustive);
                cpu.run_level(l, snap, block, want);
                for (std::size_t e = 0; e < want.flags.size(); ++e)
                    separated += (want.flags[e] & skeleton::kSeparated) != 0;
                for (const std::int64_t bq : sizes)
                    for (const int threads : {1, 3}) {
                        if (threads == 3 && bq != sizes.back()) continue;  // threads: with full batches
                        SCOPED_TRACE(std::string(exhaustive ? "exhaustive" : "first set") + ", level " +
                                     std::to_string(l) + ", entries [" + std::to_string(block.entry_begin) + ", " +
                                     std::to_string(block.entry_end) + "), batch " + std::to_string(bq) + ", " +
                                     std::to_string(threads) + " threads");
                        BatchStats stats;
                        auto eng = en.batch(policy, threads, bq, &stats);
                        LevelOutput got;
                        got.reset(snap.nbrs.size(), l, exhaustive);
                        eng->run_level(l, snap, block, got);
                        EXPECT_TRUE(same_level(got, want));
                        // A batch holds at most the size asked plus one set's tests.
                        EXPECT_LE(stats.largest, bq + snap.max_degree());
                        EXPECT_EQ(stats.batches, eng->batches());
                        // Every test counted was asked; only a search stopping at the first
                        // separating set drops tests (queued after it in the same chunk).
                        if (exhaustive) {
                            EXPECT_EQ(stats.queries, got.tests);
                        }
                        EXPECT_GE(stats.queries, got.tests);
                        if (!exhaustive) {
                            queued += stats.queries;
                            run += got.tests;
                        }
                    }
            }
    }
    EXPECT_GT(queued, run) << "no chunk dropped a test: the replay's discarding went untested";
    *separated_out = separated;
}

TEST(BatchTestEngine, FisherZLevelsAreTheCpuEnginesForAnyBlockAndBatch) {
    const Dataset data = sim::simulate_gaussian({14, 300, 0.2, 11}).data;
    const Engines en{data, test::spec_for(TestKind::FisherZ, data)};
    const Adjacency snap = random_snapshot(data.n_vars, 0.55, 3);
    std::int64_t separated = 0;
    expect_levels_equal(en, snap, 0.05, {1, 2, 7, 64, BatchTestEngine::kBatchQueries}, &separated);
    EXPECT_GT(separated, 20);
}

TEST(BatchTestEngine, ChiSquareLevelsAreTheCpuEnginesForAnyBlockAndBatch) {
    const Dataset data = sim::forward_sample(sim::random_network({11, 400, 0.3, 3, 4}), 400, 6, 1);
    const Engines en{data, test::spec_for(TestKind::ChiSquare, data)};
    const Adjacency snap = random_snapshot(data.n_vars, 0.5, 5);
    std::int64_t separated = 0;
    expect_levels_equal(en, snap, 0.01, {1, BatchTestEngine::kBatchQueries}, &separated);
    EXPECT_GT(separated, 20);
}

TEST(BatchTestEngine, LevelZeroIsTheCpuEngines) {
    const Dataset data = sim::simulate_gaussian({17, 200, 0.2, 4}).data;
    const Engines en{data, test::spec_for(TestKind::FisherZ, data)};
    const std::int64_t n = data.n_vars;
    TestPolicy policy;
    policy.alpha = 0.05;
    skeleton::CpuCiTestEngine cpu = en.cpu(policy);
    for (const bool dense : {false, true})
        for (const auto& [rb, re] : {std::pair<std::int64_t, std::int64_t>{0, n}, {3, 9}, {n - 1, n}})
            for (const std::int64_t bq : {std::int64_t{1}, std::int64_t{20}, BatchTestEngine::kBatchQueries})
                for (const int threads : {1, 3}) {
                    SCOPED_TRACE((dense ? "dense, rows " : "kept, rows ") + std::to_string(rb) + ".." +
                                 std::to_string(re) + ", batch " + std::to_string(bq));
                    Graph gw(n), gg(n);
                    skeleton::Level0Output want, got;
                    if (dense) {
                        want.dense_p.assign(static_cast<std::size_t>(pair_count(n)), -7.0);
                        got.dense_p.assign(static_cast<std::size_t>(pair_count(n)), -7.0);
                    }
                    cpu.level0(rb, re, dense, gw, want);
                    auto eng = en.batch(policy, threads, bq);
                    eng->level0(rb, re, dense, gg, got);
                    EXPECT_TRUE(gg == gw);
                    EXPECT_EQ(got.tests, want.tests);
                    EXPECT_EQ(got.kept_p, want.kept_p);  // one CPU thread: row by row as well
                    EXPECT_EQ(std::vector<double>(got.dense_p.begin(), got.dense_p.end()),
                              std::vector<double>(want.dense_p.begin(), want.dense_p.end()));
                    EXPECT_TRUE(got.kept_offsets.empty());
                    if (!dense && re - rb > 3) {
                        EXPECT_FALSE(want.kept_p.empty());
                    }
                }
}

TEST(BatchTestEngine, SingleTestsAndBatchesAreTheCpuEngines) {
    const Dataset data = sim::simulate_gaussian({9, 250, 0.3, 8}).data;
    const Engines en{data, test::spec_for(TestKind::FisherZ, data)};
    skeleton::CpuCiTestEngine cpu = en.cpu(TestPolicy{});
    auto eng = en.batch(TestPolicy{}, 2, 4);
    EXPECT_NE(eng->setup_note().find("fisher-z"), std::string::npos) << eng->setup_note();
    ci::QueryList q;
    q.add(0, 1, {});
    q.add(2, 5, std::vector<std::int32_t>{1});
    q.add(3, 4, std::vector<std::int32_t>{0, 6, 8});
    std::vector<double> stat(q.size()), p(q.size());
    const std::int64_t none = 0;
    EXPECT_TRUE(eng->test_batch(ci::Queries{{}, {}, {&none, 1}, {}}, {}, {}));  // asks, tests nothing
    EXPECT_EQ(eng->batches(), 0);
    ASSERT_TRUE(eng->test_batch(q.view(), stat, p));
    for (std::size_t k = 0; k < q.size(); ++k) {
        const std::vector<std::int32_t> s(q.set(k).begin(), q.set(k).end());
        EXPECT_EQ(p[k], cpu.p_value(q.x[k], q.y[k], s));
        EXPECT_EQ(eng->p_value(q.x[k], q.y[k], s), cpu.p_value(q.x[k], q.y[k], s));
    }
}

TEST(BatchTestEngine, FisherZSearchIsTheCpuFisherEngines) {
    const Dataset data = test::random_sem(30, 400, 0.15, 7);
    const Engines en{data, test::spec_for(TestKind::FisherZ, data)};
    for (const double alpha : {0.01, 0.2}) {
        TestPolicy policy;
        policy.alpha = alpha;
        skeleton::CpuFisherEngine cpu(data, policy, 2);
        skeleton::CpuFisherEngine cpu_exhaustive(data, TestPolicy{alpha, false, true}, 2);
        SCOPED_TRACE("alpha " + std::to_string(alpha));
        // The search hands the engine its policy; each run below uses the matching one.
        for (const bool exhaustive : {false, true}) {
            skeleton::SkeletonOptions opt;
            opt.policy = TestPolicy{alpha, false, exhaustive};
            opt.threads = 2;
            const auto want = skeleton::learn_skeleton(exhaustive ? cpu_exhaustive : cpu, opt);
            ASSERT_GE(want.levels.size(), 3u);
            EXPECT_GT(want.sepsets.size(), 100u);
            for (const std::int64_t bq : {std::int64_t{5}, BatchTestEngine::kBatchQueries}) {
                SCOPED_TRACE(std::string(exhaustive ? "exhaustive" : "first set") + ", batch " + std::to_string(bq));
                auto eng = en.batch(opt.policy, 2, bq);
                const auto got = skeleton::learn_skeleton(*eng, opt);
                EXPECT_TRUE(test::same_result(got, want, 0.0));
                EXPECT_TRUE(got.sepsets == want.sepsets);
                EXPECT_EQ(got.pmax, want.pmax);
                ASSERT_EQ(got.levels.size(), want.levels.size());
                for (std::size_t l = 0; l < want.levels.size(); ++l)
                    EXPECT_EQ(got.levels[l].tests, want.levels[l].tests) << "level " << l;
            }
        }
    }
}

TEST(BatchTestEngine, ChiSquareSearchIsTheCpuDiscreteEngines) {
    const Dataset data = sim::forward_sample(sim::random_network({16, 1500, 0.25, 3, 9}), 1500, 3, 1);
    const Engines en{data, test::spec_for(TestKind::ChiSquare, data)};
    for (const bool exhaustive : {false, true}) {
        const TestPolicy policy{0.05, false, exhaustive};
        skeleton::CpuDiscreteEngine cpu(data, policy, en.spec.discrete, 2);
        skeleton::SkeletonOptions opt;
        opt.policy = policy;
        opt.threads = 2;
        const auto want = skeleton::learn_skeleton(cpu, opt);
        ASSERT_GE(want.levels.size(), 3u);
        EXPECT_GT(want.sepsets.size(), 30u);
        for (const std::int64_t bq : {std::int64_t{3}, BatchTestEngine::kBatchQueries}) {
            SCOPED_TRACE(std::string(exhaustive ? "exhaustive" : "first set") + ", batch " + std::to_string(bq));
            auto eng = en.batch(policy, 3, bq);
            const auto got = skeleton::learn_skeleton(*eng, opt);
            EXPECT_TRUE(test::same_result(got, want, 0.0));
            EXPECT_TRUE(got.sepsets == want.sepsets);
            EXPECT_EQ(got.pmax, want.pmax);
            ASSERT_EQ(got.levels.size(), want.levels.size());
            for (std::size_t l = 0; l < want.levels.size(); ++l)
                EXPECT_EQ(got.levels[l].tests, want.levels[l].tests) << "level " << l;
        }
    }
}

TEST(BatchTestEngine, AHubRowOfAstronomicallyManySetsIsWalkedInChunks) {
    // Row 0 is adjacent to every other of 300 independent variables: C(299, 5) ≈ 2·10^10 sets
    // at level 5. The entries of a block from position 5 on are all out of the first set and
    // separated by it, so the walk stops there: the row's sets are never laid out ahead.
    const Dataset data = test::random_sem(300, 120, 0.0, 2);
    const Engines en{data, test::spec_for(TestKind::FisherZ, data)};
    Graph g(data.n_vars);
    for (std::int64_t j = 1; j < data.n_vars; ++j) g.add(0, j);
    const Adjacency snap = Adjacency::from_graph(g);
    TestPolicy policy;
    policy.alpha = 1e-6;
    skeleton::CpuCiTestEngine cpu = en.cpu(policy);
    for (const LevelBlock& block : {entry_block(snap, 5, 299), entry_block(snap, 17, 250)}) {
        LevelOutput want;
        want.reset(snap.nbrs.size(), 5, false);
        cpu.run_level(5, snap, block, want);
        EXPECT_EQ(want.tests, block.entry_end - block.entry_begin);
        for (const std::int64_t bq : {std::int64_t{100}, BatchTestEngine::kBatchQueries}) {
            BatchStats stats;
            auto eng = en.batch(policy, 2, bq, &stats);
            LevelOutput got;
            got.reset(snap.nbrs.size(), 5, false);
            eng->run_level(5, snap, block, got);
            EXPECT_TRUE(same_level(got, want));
            EXPECT_LE(stats.largest, bq + snap.max_degree());
            EXPECT_EQ(stats.queries, got.tests);
        }
    }
}

TEST(BatchTestEngine, AHubRowDropsFewTestsAndFillsItsBatches) {
    // A whole hub row at level 3: the entries at the first positions are in every set of the
    // first thousand and wait for the sets without them; the chunks of queries grow from one
    // set's, so the tests dropped (queued after an entry's separating set) stay few.
    const Dataset data = test::random_sem(49, 200, 0.0, 3);
    const Engines en{data, test::spec_for(TestKind::FisherZ, data)};
    Graph g(data.n_vars);
    for (std::int64_t j = 1; j < data.n_vars; ++j) g.add(0, j);
    for (std::int64_t j = 2; j < data.n_vars; j += 3) g.add(1, j);
    const Adjacency snap = Adjacency::from_graph(g);
    for (const bool exhaustive : {false, true}) {
        const TestPolicy policy{0.01, false, exhaustive};
        skeleton::CpuCiTestEngine cpu = en.cpu(policy);
        LevelOutput want;
        want.reset(snap.nbrs.size(), 3, exhaustive);
        cpu.run_level(3, snap, LevelBlock::rows(snap, 0, snap.n), want);
        for (const std::int64_t bq :
             {std::int64_t{1}, std::int64_t{50}, std::int64_t{4096}, BatchTestEngine::kBatchQueries}) {
            SCOPED_TRACE(std::string(exhaustive ? "exhaustive" : "first set") + ", batch " + std::to_string(bq));
            BatchStats stats;
            auto eng = en.batch(policy, 2, bq, &stats);
            LevelOutput got;
            got.reset(snap.nbrs.size(), 3, exhaustive);
            eng->run_level(3, snap, LevelBlock::rows(snap, 0, snap.n), got);
            EXPECT_TRUE(same_level(got, want));
            EXPECT_LE(stats.largest, bq + snap.max_degree());
            if (exhaustive) {
                EXPECT_EQ(stats.queries, got.tests);
            } else {
                EXPECT_LE(stats.queries, 2 * got.tests);
            }
        }
    }
}

}  // namespace
}  // namespace cudag
