// SPDX-License-Identifier: Apache-2.0
// Parameter types shared by the Gaussian (Fisher-z) kernels, their host-side planner
// (fisher_level_planner.hpp) and host code: plain types only (g++-safe, no CUDA headers).
#pragma once

#include <cstdint>

#include "core/hd.hpp"

namespace cudag::cuda {

/// Levels 1..kMaxTemplateLevel run template<int L> kernels (workspace in registers /
/// local memory); higher levels run the runtime-l kernels (workspace in global memory).
constexpr int kMaxTemplateLevel = 6;

/// Largest level the entry scan covers (FisherTunables::scan_levels).
constexpr int kScanLevelsMax = 6;
static_assert(kScanLevelsMax == kMaxTemplateLevel, "the entry scan covers the compiled levels");

/// cuPC launch shape (Zarebavani et al., TPDS 2020, §4.1 and §5.3).
struct FisherTunables {
    /// 's': cuPC-S (threads over conditioning sets, one factorisation of C[S,S] shared by
    /// every test of the row); 'e': cuPC-E (β edges per block, γ threads split an edge's sets).
    char variant = 's';
    int beta = 2;    ///< cuPC-E: edges (compacted entries) per block
    int gamma = 32;  ///< cuPC-E: threads per edge
    int theta = 64;  ///< cuPC-S: threads per block
    int delta = 2;   ///< cuPC-S: blocks per row
    /// Shrink θ/δ (S) or γ (E) per level when a level has too few sets to fill them.
    /// The variant itself is never changed here.
    bool auto_tune = true;
    /// Levels 1..scan_levels run the entry scan (kernels/pc_gaussian_scan.cu: a lane per
    /// entry, the lanes of a warp sharing the set walk) instead of the variant; 0: the
    /// variant at every level. At most kScanLevelsMax.
    int scan_levels = 4;
    /// Levels 1..scan_round_levels run the entry scan in rounds over growing rank ranges
    /// (survivors compacted between rounds); the levels above run it in one launch.
    int scan_round_levels = 2;
    /// Testing knob: set ranks [0, scan_first_round) form the first round (64: most entries
    /// that a level separates do so within their first sets).
    std::int64_t scan_first_round = 64;
    /// Testing knob: run levels >= this value on the runtime-l kernels (scratch in
    /// global memory) instead of the template<int L> ones. 0: only above the
    /// largest compiled L (kMaxTemplateLevel).
    int generic_from_level = 0;
    /// Host threads for unpacking a level's results (the CPU side of run_level).
    int host_threads = 1;
    /// Most device memory (bytes) the correlation matrix may take (0: the free memory).
    /// When C (n² doubles) does not fit, the engine holds the standardised data instead:
    /// level 0 computes C in row blocks, levels >= 1 hold the rows of C that the rank's
    /// first block of rows needs (as many as fit) and sum any other entry again from the
    /// data, equal bit for bit, so results do not change (SkeletonEngine::setup_note says
    /// which mode was chosen and why).
    std::int64_t corr_limit_bytes = 0;
};

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
