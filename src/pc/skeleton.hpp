// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pc/result.hpp"
#include "pc/skeleton_engine.hpp"

namespace cudag::pc {

struct SkeletonOptions {
    TestPolicy policy;
    int max_level = -1;  ///< -1: no cap
    /// Highest level the test can run (Fisher-z: m - 4); reaching a higher one is
    /// an input error naming supported_level_reason. -1: unlimited.
    int max_supported_level = -1;
    std::string supported_level_reason;
};

/// Called after each level (for progress reports).
using LevelCallback = std::function<void(const LevelStats&)>;

/// Skeleton, separating sets, pMax and per-level statistics of a PC-stable run.
struct SkeletonResult {
    Graph skeleton;
    SepSets sepsets;
    std::vector<PairP> pmax;  ///< see PcResult::pmax
    std::vector<LevelStats> levels;
};

/// PC-stable adjacency search (cuPC Algorithm 1, pcalg skeleton(method="stable")):
/// per-level snapshot, each edge tested from both endpoints, removals applied at
/// the level end, canonical separating sets (DESIGN.md determinism rule).
SkeletonResult learn_skeleton(SkeletonEngine& engine, const SkeletonOptions& opt,
                              const LevelCallback& on_level = {});

}  // namespace cudag::pc
