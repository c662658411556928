// SPDX-License-Identifier: Apache-2.0
// The host-side decisions of the CUDA Fisher-z engine that need no GPU: which kernels
// run a level, their launch shapes and work items, how the correlation matrix is held
// and cut into row blocks, and the device-memory budgets behind those choices. Plain
// host C++ (g++; compiled into every build), so that CI tests the decisions on the CPU
// (tests/unit/pc/test_level_planner.cpp); kernels/fisher_*.cu carry them out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.hpp"
#include "pc_gaussian_types.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::cuda {

/// How a level l >= 1 runs on the GPU.
enum class LevelPath {
    Scan,         ///< the entry scan (kernels/pc_gaussian_scan.cu)
    SetParallel,  ///< cuPC-S
    EdgeParallel  ///< cuPC-E
};

/// The rows a level tests on one rank (degree - 1 >= l), heaviest first.
struct LevelRows {
    std::vector<std::int32_t> rows;
    std::int64_t max_sets = 0;    ///< most conditioning sets of a listed row
    std::int64_t max_degree = 0;  ///< largest degree of a listed row
};

/// cuPC-S launch shape of a level (kernels' SetParallelLaunch without the device rows).
struct SetParallelShape {
    int theta = 64;  ///< threads per block
    int delta = 2;   ///< blocks per row
    /// Rows with at most this many neighbours keep their entries in shared memory.
    int shared_entries = 0;
};

/// cuPC-E launch shape of a level and its work items (kernels' EdgeParallelLaunch).
struct EdgeParallelShape {
    int beta = 2;
    int gamma = 32;
    std::vector<EdgeItem> items;
};

/// The entry scan: the entries of one row still to scan on one side.
struct ScanRun {
    std::int32_t row = 0;
    int first = 0;          ///< the side's first position (first round), or 0 (survivor lists)
    int count = 0;          ///< entries of the side still to scan
    std::int64_t sets = 0;  ///< C(d, l) of the row
};

/// The entry scan: the set ranks [lo, hi) of one round.
struct ScanRange {
    std::int64_t lo = 0;
    std::int64_t hi = std::numeric_limits<std::int64_t>::max();
};

/// Every rank's block of C's rows when the ranks compute C together (64-row tiles of
/// equal work): counts[r] entries (rows × n) of rank r, this rank's rows [row0, row1).
struct CorrelationBlocks {
    std::vector<std::size_t> counts;
    std::int64_t row0 = 0, row1 = 0;
};

/// Per-level decisions for one engine (its tunables and its GPU's resident threads).
class FisherLevelPlanner {
public:
    /// `resident_threads`: the GPU's SMs × max resident threads per SM.
    FisherLevelPlanner(const FisherTunables& t, std::int64_t resident_threads);

    /// InputError for a policy or tunables the engine cannot run (an exhaustive policy,
    /// a variant other than s/e, shapes beyond a block's threads, scan levels out of range).
    static void check(const skeleton::TestPolicy& policy, const FisherTunables& t);

    const FisherTunables& tunables() const { return t_; }
    std::int64_t resident_threads() const { return resident_threads_; }

    // ---- how C is held --------------------------------------------------------------
    /// Whether C (n² doubles) can be held whole: with the data and z while it is
    /// computed, within `free_bytes` less a margin and within FisherTunables::corr_limit_bytes.
    bool correlation_fits(std::int64_t n, std::int64_t m, std::size_t free_bytes) const;
    /// C not whole: the rows [first, second) of C held from `row_begin` on (at most to
    /// `row_end`), as many as fit in `free_bytes` less `reserve` and within the limit.
    std::pair<std::int64_t, std::int64_t> held_rows(std::int64_t n, std::int64_t row_begin, std::int64_t row_end,
                                                    std::size_t free_bytes, std::size_t reserve) const;
    /// C not whole: the device memory a level's buffers (and the winners' sets) keep free
    /// beside the held rows, for a snapshot of `entries` entries.
    static std::size_t held_rows_reserve(std::int64_t entries);
    /// C not whole: rows per block of C at level 0 over rows [row_begin, row_end), in a
    /// buffer of about a quarter of `free_bytes` (within the limit), multiples of 64.
    std::int64_t level0_rows_per_block(std::int64_t n, std::int64_t row_begin, std::int64_t row_end,
                                       std::size_t free_bytes) const;
    /// `rank`'s block of C's rows (upper triangle) when `ranks` ranks compute C together.
    static CorrelationBlocks correlation_blocks(std::int64_t n, int rank, int ranks);

    // ---- a level l >= 1 -------------------------------------------------------------------
    /// The entry scan where it can run: it reads C[S, j] for C[j, S], so only on an exactly
    /// `symmetric` C, and rows of C directly from level 2 on, so only on C held `whole`.
    /// Otherwise the variant.
    LevelPath path(int l, bool symmetric, bool whole) const;
    /// Whether a scan level runs the deep scan (kernels/pc_gaussian_deep.cu) rather than
    /// the template scan kernels.
    bool deep(int l) const;
    /// The runtime-l kernels (scratch in global memory) instead of the template<int L> ones.
    bool generic(int l) const;
    /// Most threads the runtime-l kernels' scratch is sized for at level l.
    static std::int64_t max_slots(int l);
    /// The rows of [row_begin, row_end) with something to test at level l (degree - 1 >= l),
    /// heaviest first (work: sets × degree; sets C(d - 1, l) for cuPC-E, else C(d, l)),
    /// ties in row order.
    static LevelRows rows(const Adjacency& snap, std::int64_t row_begin, std::int64_t row_end, int l, LevelPath path);
    /// cuPC-S shape: θ/δ from the tunables, shrunk (auto_tune) when the rows have too few
    /// sets to fill them or would oversubscribe the GPU; one wide block per row for rows
    /// held in shared memory with many entries.
    SetParallelShape set_parallel(const LevelRows& r) const;
    /// cuPC-E shape and items: γ shrunk (auto_tune) to a power of two no larger than the
    /// sets and small enough not to oversubscribe the GPU, β grown to keep blocks of >= 64
    /// threads; an item per β entries of each row.
    EdgeParallelShape edge_parallel(const LevelRows& r, const Adjacency& snap) const;

    // ---- the entry scan, side by side and round by round -----------------------------------
    /// Level l's runs of one side (`upper`: entries (i, j < i), else (i, j > i)) of `rows`,
    /// of their entries within [e_begin, e_end) (a row cut between ranks: only this rank's).
    static std::vector<ScanRun> scan_runs(const Adjacency& snap, const std::vector<std::int32_t>& rows, int l,
                                          bool upper, std::int64_t e_begin = 0,
                                          std::int64_t e_end = std::numeric_limits<std::int64_t>::max());
    /// The first round's ranks: [0, scan_first_round) at levels <= scan_round_levels, all
    /// ranks above (one round).
    ScanRange first_scan_range(int l) const;
    /// The first round's ranks for the runs `live` of a level l: all ranks (one round) when
    /// their whole walk is at most FisherTunables::scan_one_round_tests tests per resident
    /// thread, else first_scan_range(l).
    ScanRange first_scan_range(int l, const std::vector<ScanRun>& live) const;
    /// The round after `r`: [hi, hi × growth), saturating.
    static ScanRange next_scan_range(ScanRange r);
    /// A round's warp items over the runs `live` and ranks `r`: 32 entries of a row per
    /// warp sharing the ranks, or (`on_survivors`: a later round) a warp per entry of a
    /// row with few entries left, its lanes splitting the entry's ranks; a row whose
    /// range would keep a warp far longer than the round's average is cut into rank ranges.
    /// `deep`: the deep scan's items, cut down to FisherTunables::deep_min_span ranks where the level has few
    /// (its per-set cost is a walk step, so short ranges spread a small level over the GPU).
    std::vector<ScanItem> scan_items(const std::vector<ScanRun>& live, ScanRange r, bool on_survivors,
                                     bool deep = false) const;
    /// The runs that have ranks beyond the round `r` (the next round's rows).
    static std::vector<ScanRun> runs_beyond(const std::vector<ScanRun>& live, ScanRange r);
    /// The next round's runs: `next`'s rows over their surviving entries (`counts[k]` of
    /// next[k], listed from position 0), rows without survivors dropped.
    static std::vector<ScanRun> surviving_runs(const std::vector<ScanRun>& next,
                                               const std::vector<std::int32_t>& counts);

private:
    FisherTunables t_;
    std::int64_t resident_threads_;
};

}  // namespace cudag::cuda
