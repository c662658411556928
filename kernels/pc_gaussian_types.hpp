// SPDX-License-Identifier: Apache-2.0
// Parameter types shared by the Gaussian (Fisher-z) kernels, their host-side planner
// (fisher_level_planner.hpp) and host code: plain types only (g++-safe, no CUDA headers).
#pragma once

#include <cstdint>

#include "core/hd.hpp"
#include "core/tunables.hpp"

namespace cudag::cuda {

/// Levels 1..kMaxTemplateLevel run template<int L> kernels (workspace in registers /
/// local memory); higher levels run the runtime-l kernels (workspace in global memory).
constexpr int kMaxTemplateLevel = 6;

/// Largest level the deep entry scan runs (its shared memory per warp, ~180 KiB at l = 100,
/// must fit a block); above it the variant runs.
constexpr int kDeepMaxLevel = 100;

/// The launch shape and kernel choices (core/tunables.hpp), as the kernels name them.
using cudag::FisherTunables;

/// Entry scan work item (launch_entry_scan): a warp over the entries q in [q0, q1) of
/// `row`, walking the set ranks [r0, r1). flags: kItemSplit, [r0, r1) is not all of
/// C(d, l) (lanes watch for a smaller rank found elsewhere); kItemLanes, the item is one
/// entry (q1 = q0 + 1) whose ranks the 32 lanes split into consecutive blocks, instead
/// of 32 entries sharing the ranks.
constexpr std::int32_t kItemSplit = 1, kItemLanes = 2;
struct ScanItem {
    std::int32_t row = 0;
    std::int32_t q0 = 0, q1 = 0;  ///< entry positions in the row, q1 - q0 <= 32
    std::int32_t flags = 0;       ///< kItemSplit, kItemLanes
    std::int64_t r0 = 0, r1 = 0;  ///< set ranks
};

/// cuPC-E work item (the layout of CUDA's int2: x = row, y = q0): entries q0 ..
/// q0 + β - 1 of the row.
struct alignas(8) EdgeItem {
    std::int32_t row = 0;
    std::int32_t q0 = 0;
};

/// Per-thread workspace of the runtime-l kernels: L (l×l), Jacobi scratch (2 l×l), y_i, y_j.
CUDAG_HD constexpr std::int64_t workspace_doubles(int l) { return 3ll * l * l + 2ll * l; }
/// Combination positions and the set's nodes.
CUDAG_HD constexpr std::int64_t workspace_ints(int l) { return 2ll * l; }

}  // namespace cudag::cuda
