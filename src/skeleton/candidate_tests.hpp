// SPDX-License-Identifier: Apache-2.0
// The skeleton search's tests on given candidate sets instead of the adjacency: for each
// entry x–y, the l-subsets of a candidate list the caller chooses (FCI's Possible-D-SEP
// stage draws them from Possible-D-SEP(x), not adj(x)). The outcome is merged as a level
// of learn_skeleton merges its entries, so that a learner can run such a stage between or
// after the levels and fold its removals, separating sets and pMax into the search's.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/sepsets.hpp"
#include "skeleton/skeleton_engine.hpp"
#include "skeleton/types.hpp"

namespace cudag::skeleton {

/// One entry to test: x ⟂ y | S from x's side, for every l-subset S of `candidates`.
struct CandidateEntry {
    std::int32_t x = 0;
    std::int32_t y = 0;
    /// The nodes the conditioning sets are drawn from; their order ranks the sets (x and
    /// y, where listed, are left out). No node twice.
    std::vector<std::int32_t> candidates;
};

/// What test_candidate_sets found.
struct CandidateResult {
    /// One entry's outcome, from its own side.
    struct Outcome {
        /// Tests run (0: fewer than l candidates besides x and y, or not run because the
        /// pair's lower side separated it first; see test_candidate_sets).
        std::int64_t tests = 0;
        bool separated = false;
        double pmax = -1.0;  ///< the largest p of its tests (-1: none)
        /// Separated: the first separating set (not exhaustive) or the union of the
        /// separating sets' nodes (exhaustive); sorted nodes.
        std::vector<std::int32_t> set;
    };
    std::vector<Outcome> entries;  ///< by input entry
    /// The pairs (i < j) separated from either side, sorted: the edges a level removes.
    std::vector<std::pair<std::int32_t, std::int32_t>> removed;
    /// The removed pairs' separating sets as the level records them: the lower endpoint's
    /// set wins; exhaustive: both sides' sets united.
    SepSets sepsets;
    /// pMax contributions, sorted by (i, j): per pair, the largest p over the tests that
    /// count (both sides', but not the upper side's once the lower side separated the
    /// pair, unless exhaustive); only pairs with such a test. Raise the search's table by
    /// them (PmaxTable::raise_all) as a level raises it.
    PairPList pmax;
    std::int64_t tests = 0;  ///< all tests run
};

/// Tests each entry x–y against every l-subset S (l = `level`) of its candidates, as a
/// level l of learn_skeleton tests an entry against the l-subsets of adj(x) \ {y}, and
/// returns removals, separating sets and pMax exactly as that level would merge them
/// (lower endpoint first, DESIGN.md's determinism rule). The sets are walked in
/// lexicographic order of their positions in the candidate list; each is passed to
/// engine.p_value sorted by node; an entry stops at its first separating set unless
/// policy.exhaustive (then every set is tested and the separating sets united).
/// Independence is policy.independent(p). With candidates sorted by node (as adj(x) is),
/// an entry's tests are those of the level, in the same order.
///
/// Pairs: an entry with x > y is the upper side of pair (y, x). Without exhaustive, when
/// the same call also holds the lower entry (y, x) and that one separated the pair, the
/// upper entry is not tested (a level tests it and drops its outcome: the result is the
/// same). No entry may be listed twice; x != y and every node lies in [0, n_vars);
/// otherwise LogicError.
///
/// On the host, one p_value call at a time, in entry order (lower sides first), so the
/// outcome is deterministic for any engine whose p_value is. Runs on one process: the
/// caller splits the entries over ranks if it wants to.
CandidateResult test_candidate_sets(SkeletonEngine& engine, int level, std::span<const CandidateEntry> entries,
                                    const TestPolicy& policy);

}  // namespace cudag::skeleton
