// SPDX-License-Identifier: Apache-2.0
// The skeleton search's plain types, shared by every learner built on it (PC's PcResult,
// FCI's result): what a level plans and did, pMax pairs, and which rows of the records a
// rank holds.
#pragma once

#include <cstdint>

#include "core/bulk_vector.hpp"

namespace cudag::skeleton {

/// pMax is kept for every pair when n is at most this (SkeletonOptions::dense_pmax_limit's
/// default; PcResult::dense_pmax_limit), else for the pairs adjacent after level 0.
inline constexpr std::int64_t dense_pmax_limit = 4096;

/// What a level l >= 1 is about to run (SkeletonHooks::on_level_start), from its snapshot:
/// at most sum over rows of a_i * C(a_i - 1, l) tests (each entry against every l-subset
/// of its row's other neighbours; fewer when entries separate early).
struct LevelPlan {
    int level = 0;
    double planned_tests = 0.0;   ///< the upper bound above (saturates near 9.2e18 per row)
    std::int64_t rows = 0;        ///< rows with something to test (a_i - 1 >= l)
    std::int64_t max_degree = 0;  ///< the largest a_i
};

/// What happened at one level of the skeleton search.
struct LevelStats {
    int level = 0;
    std::int64_t tests = 0;        ///< CI tests performed (all ranks, both endpoints)
    std::int64_t removed = 0;      ///< edges removed at this level
    std::int64_t edges_after = 0;  ///< edges left after the level
    double seconds = 0.0;          ///< wall time of the level
    /// Estimated work of the busiest rank over the mean (1: balanced, or one rank): what
    /// the partition saw before the level.
    double imbalance = 1.0;
    /// Tests the busiest rank ran over the mean per rank: what happened (early
    /// termination makes it differ from the estimate). 1 on one rank.
    double tests_imbalance = 1.0;
    /// Seconds from the end of the level's tests on every rank to the level's end: the
    /// removal-map exchange and its application (0 on one rank: nothing to exchange).
    double merge_seconds = 0.0;
};

/// pcalg's pMax for one pair: the largest p-value over the tests the canonical
/// (pcalg-stable) procedure runs on that pair, over all levels.
/// Trivial (no member initialisers), so that a PairPList of millions of pairs is sized
/// without a serial zeroing pass and filled on threads; PairP{} is still all zero.
struct PairP {
    std::int32_t i;  ///< i < j
    std::int32_t j;
    double p;
    bool operator==(const PairP& o) const { return i == o.i && j == o.j && p == o.p; }
};
using PairPList = BulkVector<PairP>;

/// The rows (lower endpoints i of pairs i < j) whose separating sets and pMax a rank
/// holds. A run that keeps its records distributed (SkeletonOptions::distributed_records)
/// gives each rank one contiguous block, in rank order, so that the ranks' parts laid
/// end to end are the sorted whole; otherwise a rank holds every row (end < 0).
struct RecordRows {
    std::int64_t begin = 0;
    std::int64_t end = -1;
    bool all() const { return end < 0; }
};

}  // namespace cudag::skeleton
