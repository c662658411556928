// SPDX-License-Identifier: Apache-2.0
// The CUDA Fisher engine's host-side decisions (kernels/fisher_level_planner.hpp) on
// small hand-checked cases: which kernels run a level, their launch shapes and items, the
// entry scan's rounds, how C is held and cut, and the tunables' checks. No GPU needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/graph.hpp"
#include "kernels/fisher_level_planner.hpp"

using namespace cudag;
using namespace cudag::cuda;

namespace {

constexpr std::int64_t kBigGpu = 132 * 2048;  // resident threads of an H100-sized GPU
constexpr std::size_t kMiB = std::size_t(1) << 20;

/// Edges 0-1, 1-2, 0-3, 1-3, 2-3, 3-4, 4-5: degrees 2, 3, 2, 4, 2, 1.
Adjacency small_snapshot() {
    Graph g(6);
    for (auto [i, j] : {std::pair{0, 1}, {1, 2}, {0, 3}, {1, 3}, {2, 3}, {3, 4}, {4, 5}}) g.add(i, j);
    return Adjacency::from_graph(g);
}

LevelRows rows_of(std::vector<std::int32_t> rows, std::int64_t max_sets, std::int64_t max_degree) {
    LevelRows r;
    r.rows = std::move(rows);
    r.max_sets = max_sets;
    r.max_degree = max_degree;
    return r;
}

}  // namespace

// ---- which kernels ----------------------------------------------------------------------

TEST(LevelPlanner, ScanRunsOnASymmetricCAtEveryLevelByDefault) {
    const FisherLevelPlanner plan({}, kBigGpu);  // every level scans, deep from level 5
    for (int l = 1; l <= kDeepMaxLevel; ++l) EXPECT_EQ(plan.path(l, true, true), LevelPath::Scan) << l;
    for (int l = 1; l <= 4; ++l) EXPECT_FALSE(plan.deep(l)) << l;
    for (int l = 5; l <= kDeepMaxLevel; ++l) EXPECT_TRUE(plan.deep(l)) << l;
    // Beyond the deep scan's shared memory: the variant.
    EXPECT_EQ(plan.path(kDeepMaxLevel + 1, true, true), LevelPath::SetParallel);
    FisherTunables t;
    t.scan_levels = 4;
    EXPECT_EQ(FisherLevelPlanner(t, kBigGpu).path(5, true, true), LevelPath::SetParallel);
    t = {};
    t.scan_deep_from = 2;
    EXPECT_FALSE(FisherLevelPlanner(t, kBigGpu).deep(1));
    EXPECT_TRUE(FisherLevelPlanner(t, kBigGpu).deep(2));
    t.scan_deep_from = 50;  // the templates stop at kMaxTemplateLevel
    EXPECT_FALSE(FisherLevelPlanner(t, kBigGpu).deep(kMaxTemplateLevel));
    EXPECT_TRUE(FisherLevelPlanner(t, kBigGpu).deep(kMaxTemplateLevel + 1));
    // Not exactly symmetric: never the scan.
    EXPECT_EQ(plan.path(1, false, true), LevelPath::SetParallel);
    // C not held whole: the scan reads rows of C directly from level 2 on.
    EXPECT_EQ(plan.path(1, true, false), LevelPath::Scan);
    EXPECT_EQ(plan.path(2, true, false), LevelPath::SetParallel);
}

TEST(LevelPlanner, VariantEWithoutTheScanIsEdgeParallel) {
    FisherTunables t;
    t.variant = 'e';
    t.scan_levels = 0;
    const FisherLevelPlanner plan(t, kBigGpu);
    EXPECT_EQ(plan.path(1, true, true), LevelPath::EdgeParallel);
    EXPECT_EQ(plan.path(3, false, false), LevelPath::EdgeParallel);
}

TEST(LevelPlanner, RuntimeLevelKernelsAboveTheTemplatesOrFromTheKnob) {
    EXPECT_FALSE(FisherLevelPlanner({}, kBigGpu).generic(kMaxTemplateLevel));
    EXPECT_TRUE(FisherLevelPlanner({}, kBigGpu).generic(kMaxTemplateLevel + 1));
    FisherTunables t;
    t.generic_from_level = 2;
    EXPECT_FALSE(FisherLevelPlanner(t, kBigGpu).generic(1));
    EXPECT_TRUE(FisherLevelPlanner(t, kBigGpu).generic(2));
    // Scratch for 256 MiB of per-thread workspace, at least 1024 threads.
    EXPECT_EQ(FisherLevelPlanner::max_slots(1), (std::int64_t{256} << 20) / 48);  // (3 + 2) doubles + 2 ints
    EXPECT_EQ(FisherLevelPlanner::max_slots(128), 1024);
}

// ---- the rows of a level ----------------------------------------------------------------

TEST(LevelPlanner, RowsAreThoseWithSetsHeaviestFirst) {
    const Adjacency snap = small_snapshot();
    // Level 1, cuPC-S work C(d, 1) × d: rows 0..4 weigh 4, 9, 4, 16, 4; row 5 has no set.
    const LevelRows l1 = FisherLevelPlanner::rows(snap, 0, 6, 1, LevelPath::SetParallel);
    EXPECT_EQ(l1.rows, (std::vector<std::int32_t>{3, 1, 0, 2, 4}));  // ties in row order
    EXPECT_EQ(l1.max_sets, 4);
    EXPECT_EQ(l1.max_degree, 4);
    // A block of rows: only its rows.
    EXPECT_EQ(FisherLevelPlanner::rows(snap, 1, 5, 1, LevelPath::Scan).rows, (std::vector<std::int32_t>{3, 1, 2, 4}));
    // Level 2: rows of degree >= 3; cuPC-E counts C(d - 1, l) sets.
    const LevelRows s2 = FisherLevelPlanner::rows(snap, 0, 6, 2, LevelPath::SetParallel);
    EXPECT_EQ(s2.rows, (std::vector<std::int32_t>{3, 1}));
    EXPECT_EQ(s2.max_sets, 6);
    const LevelRows e2 = FisherLevelPlanner::rows(snap, 0, 6, 2, LevelPath::EdgeParallel);
    EXPECT_EQ(e2.rows, (std::vector<std::int32_t>{3, 1}));
    EXPECT_EQ(e2.max_sets, 3);
    EXPECT_TRUE(FisherLevelPlanner::rows(snap, 0, 6, 4, LevelPath::SetParallel).rows.empty());
}

// ---- launch shapes ----------------------------------------------------------------------

TEST(LevelPlanner, SetParallelShrinksToTheSetsAndTheGpu) {
    const FisherLevelPlanner plan({}, kBigGpu);  // θ = 64, δ = 2
    // Six sets at most: one block of 32 threads per row.
    SetParallelShape sp = plan.set_parallel(rows_of({3, 1}, 6, 4));
    EXPECT_EQ(sp.theta, 32);
    EXPECT_EQ(sp.delta, 1);
    EXPECT_EQ(sp.shared_entries, 4);
    // Enough sets: the tunables' shape.
    sp = plan.set_parallel(rows_of({3, 1}, 1000, 40));
    EXPECT_EQ(sp.theta, 64);
    EXPECT_EQ(sp.delta, 2);
    // 1000 rows on a GPU of 1024 resident threads: δ, then θ, halved down to 32 × 1.
    const FisherLevelPlanner small({}, 1024);
    sp = small.set_parallel(rows_of(std::vector<std::int32_t>(1000, 0), 1000, 40));
    EXPECT_EQ(sp.theta, 32);
    EXPECT_EQ(sp.delta, 1);
}

TEST(LevelPlanner, SetParallelRunsWideRowsInOneLargeBlock) {
    const FisherLevelPlanner plan({}, kBigGpu);
    const SetParallelShape sp = plan.set_parallel(rows_of({0}, 300, 500));
    EXPECT_EQ(sp.theta, 256);
    EXPECT_EQ(sp.delta, 1);
    EXPECT_EQ(sp.shared_entries, 500);
    EXPECT_EQ(plan.set_parallel(rows_of({0}, 300, 5000)).shared_entries, 2048);  // the shared-memory cap
    FisherTunables fixed;
    fixed.auto_tune = false;
    const SetParallelShape f = FisherLevelPlanner(fixed, kBigGpu).set_parallel(rows_of({0}, 3, 500));
    EXPECT_EQ(f.theta, 64);
    EXPECT_EQ(f.delta, 2);
    EXPECT_EQ(f.shared_entries, 500);
}

TEST(LevelPlanner, EdgeParallelShrinksGammaAndGrowsBeta) {
    const Adjacency snap = small_snapshot();
    FisherTunables t;
    t.variant = 'e';
    const LevelRows rows = FisherLevelPlanner::rows(snap, 0, 6, 2, LevelPath::EdgeParallel);  // rows 3, 1; 3 sets
    // γ: the power of two reaching the 3 sets (4); β = 64 / 4 so that blocks keep 64 threads.
    EdgeParallelShape ep = FisherLevelPlanner(t, kBigGpu).edge_parallel(rows, snap);
    EXPECT_EQ(ep.gamma, 4);
    EXPECT_EQ(ep.beta, 16);
    ASSERT_EQ(ep.items.size(), 2u);  // one item per row: 16 entries cover both
    EXPECT_EQ(ep.items[0].row, 3);
    EXPECT_EQ(ep.items[1].row, 1);
    // 7 entries × γ over 4 × the resident threads (4 × 4): γ halves to 2.
    ep = FisherLevelPlanner(t, 4).edge_parallel(rows, snap);
    EXPECT_EQ(ep.gamma, 2);
    EXPECT_EQ(ep.beta, 32);
    // The tunables as given: β = 2 entries per item.
    t.auto_tune = false;
    ep = FisherLevelPlanner(t, kBigGpu).edge_parallel(rows, snap);
    EXPECT_EQ(ep.gamma, 32);
    EXPECT_EQ(ep.beta, 2);
    ASSERT_EQ(ep.items.size(), 4u);
    const std::pair<int, int> want[] = {{3, 0}, {3, 2}, {1, 0}, {1, 2}};
    for (std::size_t k = 0; k < 4; ++k) {
        EXPECT_EQ(ep.items[k].row, want[k].first) << k;
        EXPECT_EQ(ep.items[k].q0, want[k].second) << k;
    }
}

// ---- the entry scan ---------------------------------------------------------------------

TEST(LevelPlanner, ScanRunsSplitEachRowIntoItsTwoSides) {
    const Adjacency snap = small_snapshot();
    // Row 3's neighbours 0, 1, 2, 4: three upper entries (j < 3), one lower (j = 4).
    const std::vector<ScanRun> lower = FisherLevelPlanner::scan_runs(snap, {3, 1}, 1, false);
    ASSERT_EQ(lower.size(), 2u);
    EXPECT_EQ(lower[0].row, 3);
    EXPECT_EQ(lower[0].first, 3);
    EXPECT_EQ(lower[0].count, 1);
    EXPECT_EQ(lower[0].sets, 4);  // C(4, 1)
    EXPECT_EQ(lower[1].row, 1);   // row 1: neighbours 0, 2, 3 -> lower 2, 3
    EXPECT_EQ(lower[1].first, 1);
    EXPECT_EQ(lower[1].count, 2);
    const std::vector<ScanRun> upper = FisherLevelPlanner::scan_runs(snap, {3, 1}, 1, true);
    ASSERT_EQ(upper.size(), 2u);
    EXPECT_EQ(upper[0].first, 0);
    EXPECT_EQ(upper[0].count, 3);
    EXPECT_EQ(upper[1].count, 1);
    // A row without upper entries has no upper run.
    EXPECT_TRUE(FisherLevelPlanner::scan_runs(snap, {0}, 1, true).empty());
}

TEST(LevelPlanner, ScanRoundsGrowFromTheFirstRound) {
    const FisherLevelPlanner plan({}, kBigGpu);  // rounds at levels 1-2, first round 64 sets
    EXPECT_EQ(plan.first_scan_range(1).lo, 0);
    EXPECT_EQ(plan.first_scan_range(1).hi, 64);
    EXPECT_EQ(plan.first_scan_range(3).hi, std::numeric_limits<std::int64_t>::max());  // one round
    FisherTunables t;
    t.scan_round_levels = 8;  // rounds at template levels only: the deep scan takes no lane items
    const FisherLevelPlanner rounds(t, kBigGpu);
    EXPECT_EQ(rounds.first_scan_range(4).hi, 64);
    EXPECT_EQ(rounds.first_scan_range(5).hi, std::numeric_limits<std::int64_t>::max());
    const ScanRange second = FisherLevelPlanner::next_scan_range({0, 64});
    EXPECT_EQ(second.lo, 64);
    EXPECT_EQ(second.hi, 1024);
    const std::int64_t near_max = std::numeric_limits<std::int64_t>::max() / 8;
    EXPECT_EQ(FisherLevelPlanner::next_scan_range({0, near_max}).hi, std::numeric_limits<std::int64_t>::max());
    // Rows with ranks beyond the round go on, over their survivors (none: dropped).
    const std::vector<ScanRun> live = {{5, 3, 40, 100}, {6, 0, 10, 50}, {7, 0, 4, 2000}};
    const std::vector<ScanRun> next = FisherLevelPlanner::runs_beyond(live, {0, 64});
    ASSERT_EQ(next.size(), 2u);
    EXPECT_EQ(next[0].row, 5);
    EXPECT_EQ(next[1].row, 7);
    const std::vector<ScanRun> survivors = FisherLevelPlanner::surviving_runs(next, {0, 3});
    ASSERT_EQ(survivors.size(), 1u);
    EXPECT_EQ(survivors[0].row, 7);
    EXPECT_EQ(survivors[0].first, 0);  // survivor lists start at 0
    EXPECT_EQ(survivors[0].count, 3);
    EXPECT_EQ(survivors[0].sets, 2000);
}

TEST(LevelPlanner, ASmallLevelScansInOneRound) {
    const FisherLevelPlanner plan({}, kBigGpu);
    const std::int64_t bound = FisherTunables{}.scan_one_round_tests * kBigGpu;  // tests of the whole walk
    constexpr std::int64_t kAll = std::numeric_limits<std::int64_t>::max();
    // cuPC's example at level 2: ~600 entries over rows of ~100 sets: one round.
    EXPECT_EQ(plan.first_scan_range(2, {{5, 0, 600, 100}}).hi, kAll);
    // At the bound one round, past it the rounds of first_scan_range(l).
    EXPECT_EQ(plan.first_scan_range(1, {{0, 0, 1, bound}}).hi, kAll);
    EXPECT_EQ(plan.first_scan_range(1, {{0, 0, 1, bound}, {1, 0, 1, 1}}).hi, 64);
    EXPECT_EQ(plan.first_scan_range(3, {{0, 0, 2, bound}}).hi, kAll);  // level 3: one round anyway
    EXPECT_EQ(plan.first_scan_range(1, {}).hi, kAll);
    FisherTunables t;
    t.scan_one_round_tests = 0;  // rounds however small
    const FisherLevelPlanner rounds(t, kBigGpu);
    EXPECT_EQ(rounds.first_scan_range(2, {{5, 0, 600, 100}}).hi, 64);
    t.scan_one_round_tests = -1;
    EXPECT_THROW(FisherLevelPlanner::check({}, t), InputError);
}

TEST(LevelPlanner, ScanItemsAreWarpsOfEntriesOrLanesOfOneEntry) {
    const FisherLevelPlanner plan({}, kBigGpu);
    // First round: 40 entries of a row with 100 sets, ranks [0, 64): two warps (32 + 8).
    std::vector<ScanItem> items = plan.scan_items({{5, 3, 40, 100}}, {0, 64}, false);
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(items[0].row, 5);
    EXPECT_EQ(items[0].q0, 3);
    EXPECT_EQ(items[0].q1, 35);
    EXPECT_EQ(items[1].q0, 35);
    EXPECT_EQ(items[1].q1, 43);
    EXPECT_EQ(items[0].r0, 0);
    EXPECT_EQ(items[0].r1, 64);
    EXPECT_EQ(items[0].flags, kItemSplit);  // not all of the 100 ranks
    // A later round with 5 survivors: a warp per entry, its lanes splitting ranks [64, 100).
    items = plan.scan_items({{5, 0, 5, 100}}, {64, 1024}, true);
    ASSERT_EQ(items.size(), 5u);
    for (int k = 0; k < 5; ++k) {
        EXPECT_EQ(items[k].q0, k);
        EXPECT_EQ(items[k].q1, k + 1);
        EXPECT_EQ(items[k].r0, 64);
        EXPECT_EQ(items[k].r1, 100);
        EXPECT_EQ(items[k].flags, kItemSplit | kItemLanes);
    }
    // All ranks of a row in one item: no split flag.
    items = plan.scan_items({{2, 0, 3, 10}}, {0, std::numeric_limits<std::int64_t>::max()}, false);
    ASSERT_EQ(items.size(), 1u);
    EXPECT_EQ(items[0].r1, 10);
    EXPECT_EQ(items[0].flags, 0);
}

TEST(LevelPlanner, ScanCutsALongRowIntoRankRanges) {
    // 1,000,000 sets on a GPU of 32 warps: spans of 1e6 / (4 × 32) = 7812 ranks, 129 items
    // covering [0, 1e6) without gaps.
    const FisherLevelPlanner plan({}, 32 * 32);
    const std::vector<ScanItem> items =
        plan.scan_items({{9, 0, 32, 1000000}}, {0, std::numeric_limits<std::int64_t>::max()}, false);
    ASSERT_EQ(items.size(), 129u);
    EXPECT_EQ(items.front().r0, 0);
    EXPECT_EQ(items.back().r1, 1000000);
    for (std::size_t k = 0; k < items.size(); ++k) {
        EXPECT_EQ(items[k].flags, kItemSplit) << k;
        if (k > 0) {
            EXPECT_EQ(items[k].r0, items[k - 1].r1) << k;
        }
    }
    // A level too small to fill a quarter of the warps in items of 1024 ranks (2,000 sets on 32
    // warps: 2 items) is cut into about one item a warp: spans of 2000 / 32 -> 63 ranks, 32 items.
    const std::vector<ScanItem> small =
        plan.scan_items({{9, 0, 32, 2000}}, {0, std::numeric_limits<std::int64_t>::max()}, false);
    ASSERT_EQ(small.size(), 32u);
    EXPECT_EQ(small.front().r1 - small.front().r0, 62);
    EXPECT_EQ(small.back().r1, 2000);
    // Never shorter than 16 ranks: 200 sets on a big GPU, 13 items (ranges of 15-16).
    EXPECT_EQ(plan.scan_items({{9, 0, 32, 200}}, {0, std::numeric_limits<std::int64_t>::max()}, false).size(), 13u);
    // Not in a round over part of the ranks (the rounds of a big level), nor on survivors.
    EXPECT_EQ(plan.scan_items({{9, 0, 32, 2000}}, {0, 1024}, false).size(), 1u);
    // The deep scan keeps its own rule: spans of 2000 / (4 x 32 warps) -> 15 ranks, 134 items.
    EXPECT_EQ(plan.scan_items({{9, 0, 32, 2000}}, {0, std::numeric_limits<std::int64_t>::max()}, false, true).size(),
              134u);
}

// ---- how C is held ----------------------------------------------------------------------

TEST(LevelPlanner, CorrelationIsWholeWhenItFitsBesideTheDataAndTheLimit) {
    // n = 1000, m = 100: C 8 MB, data and z 1.6 MB, plus a 64 MiB margin.
    const FisherLevelPlanner plan({}, kBigGpu);
    EXPECT_TRUE(plan.correlation_fits(1000, 100, 100 * kMiB));
    EXPECT_FALSE(plan.correlation_fits(1000, 100, 70 * kMiB));
    FisherTunables t;
    t.corr_limit_bytes = 4000000;  // C's 8 MB over the limit
    EXPECT_FALSE(FisherLevelPlanner(t, kBigGpu).correlation_fits(1000, 100, 100 * kMiB));
}

TEST(LevelPlanner, HeldRowsFitBesideTheReserveAndTheLimit) {
    const FisherLevelPlanner plan({}, kBigGpu);
    const std::size_t reserve = FisherLevelPlanner::held_rows_reserve(1000);
    EXPECT_EQ(reserve, (std::size_t(1) << 30) + 64000);
    // Plenty of memory: every row of the block.
    EXPECT_EQ(plan.held_rows(1000, 200, 700, 4 * reserve, reserve), (std::pair<std::int64_t, std::int64_t>{200, 700}));
    // Less free than the reserve: none.
    EXPECT_EQ(plan.held_rows(1000, 200, 700, reserve / 2, reserve), (std::pair<std::int64_t, std::int64_t>{200, 200}));
    // The limit: 80,000 bytes are 10 rows of 1000 doubles.
    FisherTunables t;
    t.corr_limit_bytes = 80000;
    EXPECT_EQ(FisherLevelPlanner(t, kBigGpu).held_rows(1000, 200, 700, 4 * reserve, reserve),
              (std::pair<std::int64_t, std::int64_t>{200, 210}));
}

TEST(LevelPlanner, Level0BlocksAreMultiplesOf64RowsInAQuarterOfFreeMemory) {
    const FisherLevelPlanner plan({}, kBigGpu);
    // A quarter of 400 MB is 1250 rows of 80,000 bytes (n = 10,000): 1216 (19 × 64).
    EXPECT_EQ(plan.level0_rows_per_block(10000, 0, 10000, 400000000), 1216);
    EXPECT_EQ(plan.level0_rows_per_block(1000, 0, 1000, 40000000), 1000);  // the block has 1000 rows
    EXPECT_EQ(plan.level0_rows_per_block(1000, 0, 1000, 1000), 64);        // at least 64 rows
    FisherTunables t;
    t.corr_limit_bytes = 64 * 8000 * 2;  // 128 rows
    EXPECT_EQ(FisherLevelPlanner(t, kBigGpu).level0_rows_per_block(1000, 0, 1000, 40000000), 128);
}

TEST(LevelPlanner, CorrelationBlocksCutTilesOfEqualWork) {
    // n = 200: tiles of 64 rows weigh 200, 136, 72, 8; two ranks cut after the first tile.
    const CorrelationBlocks r0 = FisherLevelPlanner::correlation_blocks(200, 0, 2);
    const CorrelationBlocks r1 = FisherLevelPlanner::correlation_blocks(200, 1, 2);
    EXPECT_EQ(r0.row0, 0);
    EXPECT_EQ(r0.row1, 64);
    EXPECT_EQ(r1.row0, 64);
    EXPECT_EQ(r1.row1, 200);
    EXPECT_EQ(r0.counts, (std::vector<std::size_t>{64 * 200, 136 * 200}));
    EXPECT_EQ(r1.counts, r0.counts);
    const CorrelationBlocks one = FisherLevelPlanner::correlation_blocks(200, 0, 1);
    EXPECT_EQ(one.row1, 200);
    EXPECT_EQ(one.counts, (std::vector<std::size_t>{200 * 200}));
}

// ---- what the engine refuses ------------------------------------------------------------

TEST(LevelPlanner, BadPolicyOrTunablesAreInputErrors) {
    EXPECT_NO_THROW(FisherLevelPlanner::check({}, {}));
    skeleton::TestPolicy exhaustive;
    exhaustive.exhaustive = true;
    EXPECT_THROW(FisherLevelPlanner::check(exhaustive, {}), InputError);
    const auto bad = [](auto change) {
        FisherTunables t;
        change(t);
        return t;
    };
    EXPECT_THROW(FisherLevelPlanner::check({}, bad([](FisherTunables& t) { t.variant = 'x'; })), InputError);
    EXPECT_THROW(FisherLevelPlanner::check({}, bad([](FisherTunables& t) { t.theta = 512; })), InputError);
    EXPECT_THROW(FisherLevelPlanner::check({}, bad([](FisherTunables& t) { t.beta = 0; })), InputError);
    EXPECT_THROW(FisherLevelPlanner::check({}, bad([](FisherTunables& t) { t.beta = 16, t.gamma = 32; })), InputError);
    EXPECT_THROW(FisherLevelPlanner::check({}, bad([](FisherTunables& t) { t.delta = 70000; })), InputError);
    EXPECT_THROW(FisherLevelPlanner::check({}, bad([](FisherTunables& t) { t.scan_levels = -1; })), InputError);
    EXPECT_THROW(FisherLevelPlanner::check({}, bad([](FisherTunables& t) { t.scan_deep_from = 1; })), InputError);
    EXPECT_THROW(FisherLevelPlanner::check({}, bad([](FisherTunables& t) { t.scan_round_levels = -1; })), InputError);
    EXPECT_THROW(FisherLevelPlanner::check({}, bad([](FisherTunables& t) { t.scan_first_round = 0; })), InputError);
    EXPECT_THROW(FisherLevelPlanner::check({}, bad([](FisherTunables& t) { t.deep_min_span = 0; })), InputError);
}

TEST(LevelPlanner, DeepScanCutsSmallLevelsIntoShortRanges) {
    const FisherLevelPlanner plan({}, kBigGpu);
    const std::vector<ScanRun> live = {{3, 0, 10, 10000}};  // one warp of entries, 10,000 sets
    const ScanRange all{0, std::numeric_limits<std::int64_t>::max()};
    const std::vector<ScanItem> scan = plan.scan_items(live, all, false);
    const std::vector<ScanItem> deep = plan.scan_items(live, all, false, true);
    EXPECT_EQ(scan.size(), 625u);  // a level this small: ranges of 16 sets (kScanSmallSpan)
    const std::int64_t span = FisherTunables{}.deep_min_span;
    EXPECT_EQ(static_cast<std::int64_t>(deep.size()), (10000 + span - 1) / span);  // of at least deep_min_span
    FisherTunables t;
    t.deep_min_span = 64;
    EXPECT_EQ(FisherLevelPlanner(t, kBigGpu).scan_items(live, all, false, true).size(), 157u);
    std::int64_t covered = 0;
    for (const ScanItem& it : deep) {
        EXPECT_EQ(it.row, 3);
        EXPECT_EQ(it.flags, kItemSplit);
        EXPECT_EQ(it.r0, covered);
        covered = it.r1;
    }
    EXPECT_EQ(covered, 10000);
}
