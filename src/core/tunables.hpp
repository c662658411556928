// SPDX-License-Identifier: Apache-2.0
// The one set of kernel tuning knobs: launch shapes and path choices of the GPU engines.
// Users never need them (the automatic choice is the default); the hidden `--tune
// key=value` option sets them for measurements (docs/performance.md). Plain types only,
// so kernels, host code and tests share them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudag {

/// FisherTunables::scan_levels: the entry scan at every level.
constexpr int kScanAllLevels = 1 << 30;

/// FisherTunables::corr_tile's values: the correlation kernel's tiles.
enum CorrTiles : int {
    kCorrTilesAuto = 0,     ///< one thread an entry for a small block of C (kCorrEntries), else 128 x 128 where
                            ///< C is written, 128 x 64 where level 0 tests in the kernel
    kCorrEntries = 1,       ///< one thread an entry (its samples summed in order by the thread)
    kCorrTiles64 = 64,      ///< 64 x 64, the first kernel
    kCorrTiles128x64 = 65,  ///< 128 x 64 of the wide kernel, two blocks an SM
    kCorrTiles128 = 128,    ///< 128 x 128 of the wide kernel
};

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
    /// Levels 1..scan_levels run the entry scan (kernels/pc_gaussian_scan.cu and, from
    /// scan_deep_from on, pc_gaussian_deep.cu: a lane per entry, the lanes of a warp sharing
    /// the set walk) instead of the variant; 0: the variant at every level. Default: every
    /// level (the variant then runs only where the scan cannot: C not held whole above
    /// level 1, or levels beyond the deep scan's shared memory).
    int scan_levels = kScanAllLevels;
    /// Levels >= scan_deep_from run the deep scan (exact arithmetic shared by the lanes and
    /// along the walk) instead of the template scan kernels; >= 2.
    int scan_deep_from = 5;
    /// The deep scan's smallest item (set ranks per warp) where a level has too little work
    /// to fill the GPU: each item pays a prefix factorisation, a few walk steps' worth, but
    /// a warp walking a row's sets alone waits on one dependent load after another.
    std::int64_t deep_min_span = 4;
    /// Levels 1..scan_round_levels run the entry scan in rounds over growing rank ranges
    /// (survivors compacted between rounds); the levels above run it in one launch.
    int scan_round_levels = 2;
    /// Testing knob: set ranks [0, scan_first_round) form the first round (64: most entries
    /// that a level separates do so within their first sets).
    std::int64_t scan_first_round = 64;
    /// A level whose whole walk (the entries to scan times their rows' sets) is at most this
    /// many tests per resident GPU thread runs its scan in one round at any level: its
    /// speculative tests (past an entry's first separating set, in later rank ranges) cost
    /// less than a round's host sync and launches (cuPC's 60-variable example: level 2's two
    /// rounds a side). Testing knob: 0 keeps the rounds of scan_round_levels everywhere.
    std::int64_t scan_one_round_tests = 16;
    /// Testing knob: run levels >= this value on the runtime-l kernels (scratch in
    /// global memory) instead of the template<int L> ones. 0: only above the
    /// largest compiled L (kMaxTemplateLevel).
    int generic_from_level = 0;
    /// Host threads for unpacking a level's results (the CPU side of run_level).
    int host_threads = 1;
    /// Not a --tune key: BackendContext::own_stream, as the engine's factory passes it.
    bool own_stream = false;
    /// Most device memory (bytes) the correlation matrix may take (0: the free memory).
    /// When C (n² doubles) does not fit, the engine holds the standardised data instead:
    /// level 0 computes C in row blocks, levels >= 1 hold the rows of C that the rank's
    /// first block of rows needs (as many as fit) and sum any other entry again from the
    /// data, equal bit for bit, so results do not change (SkeletonEngine::setup_note says
    /// which mode was chosen and why).
    std::int64_t corr_limit_bytes = 0;
    /// Most device memory (bytes) level 0's bit rows may take: every row at once (with the
    /// mirror bits and the whole adjacency built on the GPU) while the n x n bits fit in it,
    /// else row blocks of this size compacted one by one (issue 35; the same kept pairs).
    /// `--tune level0-bits=GiB` (>= 1/1024).
    std::int64_t level0_bits_bytes = std::int64_t{1} << 30;
    /// C not held whole: levels >= 2 run the entry scan on each tested row's neighbourhood
    /// block of C ((d+1)^2 entries summed once a level; the same values), instead of
    /// cuPC-S summing entries again from the data test by test. `--tune row-blocks=0` turns
    /// it off (to compare the two).
    bool row_blocks = true;
    /// The correlation kernel's tiles (CorrTiles). Automatic: 128 x 128 where C is written,
    /// 128 x 64 where level 0 tests the entries in the kernel (its epilogue then overlaps the
    /// other block's sums; one H100, ER 400,000: level 0 4.44 s against 4.67 s). The entries
    /// are the same. `--tune corr-tile=128|128x64|64`.
    int corr_tile = kCorrTilesAuto;
    /// C not held whole: level 0 tests each entry in the correlation kernel as it sums it
    /// (wide tiles; no dense p-values), instead of writing row blocks of C for the level-0
    /// kernel to read. `--tune level0-fused=0` turns it off (to compare).
    bool level0_fused = true;
    /// Levels l >= 1 whose snapshot has at most this many entries run as resident levels
    /// (kernels/fisher_resident.cuh: no host step between them) on one rank with C held
    /// whole. Testing knob (`--tune resident-entries=0`): 0 runs every level through the
    /// level loop's kernels.
    std::int64_t resident_entries = std::int64_t{1} << 16;
};

/// gpuPC launch shape for the discrete tests (Hagedorn & Huegle, SDM'21 §3.5: δ = 64,
/// γ = 2, β = 1).
struct DiscreteTunables {
    int delta = 64;  ///< threads building one contingency table
    int gamma = 2;   ///< tests (tables) of one pair in flight per block
};

/// Every engine's knobs, carried by BackendContext (core/backend.hpp).
struct Tunables {
    FisherTunables fisher;
    DiscreteTunables discrete;
    /// Bootstrap replicates run at once on each GPU (0: the automatic choice, pc/bootstrap.cpp).
    /// `--tune replicates-at-once=N`.
    int replicates_at_once = 0;
};

/// Applies hidden `--tune` items ("key=value", several per item separated by commas) to
/// `t`. Unknown keys and bad values are one-line InputErrors naming the key.
void apply_tunes(const std::vector<std::string>& items, Tunables& t);

}  // namespace cudag
