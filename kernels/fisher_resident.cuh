// SPDX-License-Identifier: Apache-2.0
// Resident levels of the Gaussian (Fisher-z) skeleton search (fisher_resident.cu): levels
// l >= 1 run one after another on the device with no host step between them. A level is one
// launch, queued up front for every level: its warps walk the level's pairs (each raising its
// pair's pMax and recording its separating set), and the last of its blocks to finish settles
// the level (the next snapshot compacted, the next level planned); a last kernel packs the
// outcome of all of them, and the host reads it in one copy.
// For searches whose levels are small (cuPC's 60-variable example: ~0.2 ms of host steps and
// CUDA calls a level against 0.06-0.1 ms of kernels); the level loop takes the path through
// SkeletonEngine::run_levels (skeleton/skeleton_engine.hpp).
//
// The same results as the level kernels and the CPU engine: an entry (i, j) walks the sets
// S of adj(i) \ {j} in lexicographic order (the ranks of C(d - 1, l), cuPC-E's convention),
// the 32 lanes of a warp on 32 consecutive ranks at a time; the first rank whose test is
// independent wins, an entry with none reports the p of its smallest |r|; every test is the
// CPU's exact sequence (ci::ConditioningBlock), decided as independent_r decides. A pair's
// upper entry (j, i), j < i, is walked by its lower entry's warp after it, and only where the
// lower entry found no separating set (the lower endpoint's set wins: DESIGN.md). Tests are counted as the CPU's walk
// runs them (up to an entry's first separating set), not as the warps ran them. The warp that
// walks a pair also raises its pMax (from the r of the test it decided on) and writes its record,
// so that the settling block passes over flags and rows only (one scan over the entries).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "pc_gaussian.cuh"

namespace cudag::cuda {

/// Levels a resident run covers at most (the template levels of the exact test).
constexpr int kResidentMaxLevel = kMaxTemplateLevel;
/// The most rows a resident run takes (its settling block's passes over the rows).
constexpr std::int64_t kResidentMaxRows = std::int64_t{1} << 15;
/// The longest walk of one entry a resident level runs (a warp walks it alone, 32 sets a
/// round): beyond, the level loop's kernels split the walk over many warps.
constexpr std::int64_t kResidentMaxSets = 1024;

/// One level's outcome, written by its settle block.
struct ResidentLevelInfo {
    unsigned long long tests = 0;   ///< the CPU walk's count
    long long entries = 0;          ///< of the level's snapshot
    long long rows = 0;             ///< rows tested (degree - 1 >= l)
    long long max_degree = 0;       ///< of the level's snapshot
    double planned = 0.0;           ///< sum over tested rows of d C(d - 1, l)
    long long removed = 0;          ///< pairs
    long long records = 0;          ///< separating sets recorded at this level
    long long record_begin = 0;     ///< its first record
    long long node_begin = 0;       ///< its first record's first node
    unsigned long long end_ns = 0;  ///< %globaltimer when the level was settled
    int ran = 0;
};

/// The run's state on the device.
struct ResidentState {
    unsigned long long start_ns = 0;   ///< %globaltimer at the start
    long long entries = 0;             ///< the current snapshot's entries
    long long records = 0, nodes = 0;  ///< recorded so far
    int levels_run = 0;
    unsigned blocks_done = 0;  ///< the level kernel's blocks that finished their walks
    int stop = 0;              ///< no further level runs (its kernels return at once)
    int final_buf = -1;        ///< the snapshot after the last level run: -1 the initial one, else 0/1
};

/// What the host reads after the run, in one copy.
struct ResidentOutcome {
    ResidentState state;
    ResidentLevelInfo info[kResidentMaxLevel + 1];
};

struct ResidentArgs {
    CorrSource corr;  ///< held whole
    std::int64_t n = 0, m = 0;
    double alpha = 0.01;
    bool strict = false;
    int first = 1, last = 1;  ///< the levels queued
    /// decision_band of each level l (index l).
    double r_lo[kResidentMaxLevel + 1] = {};
    double r_hi[kResidentMaxLevel + 1] = {};
    /// The snapshot of level `first` (device), then two buffers the levels alternate
    /// between: level first + k writes buffer k % 2 and reads buffer (k - 1) % 2.
    const std::int64_t* off0 = nullptr;
    const std::int32_t* nbrs0 = nullptr;
    std::int64_t* off[2] = {nullptr, nullptr};
    std::int32_t* nbrs[2] = {nullptr, nullptr};
    std::int64_t capacity = 0;  ///< entries of level first's snapshot (every buffer holds them)
    /// Per entry of each snapshot (capacity), alongside off/nbrs: its row and its reverse
    /// entry (row0/rev0 for level first's snapshot, made by the start kernel; row[b]/rev[b]
    /// beside off[b]/nbrs[b], made as the snapshot is compacted).
    std::int32_t* row0 = nullptr;
    std::int64_t* rev0 = nullptr;
    std::int32_t* row[2] = {nullptr, nullptr};
    std::int64_t* rev[2] = {nullptr, nullptr};
    /// Per entry of the level (capacity): its place in the next snapshot (a removed entry:
    /// -1 - the count of kept entries before it) and whether its pair was removed (written on
    /// both entries by the warp that walked the pair).
    std::int64_t* newpos = nullptr;
    std::uint8_t* sep = nullptr;
    /// The pMax table (FisherResults): dense, or sparse rows poff/pcol; double bits.
    bool dense = true;
    const std::int64_t* poff = nullptr;
    const std::int32_t* pcol = nullptr;
    unsigned long long* table = nullptr;
    /// Records: pair (min, max) at 2r, a level-l record's l nodes from its level's node_begin.
    std::int32_t* pairs = nullptr;
    std::int32_t* nodes = nullptr;
    /// A level runs only while its largest entry walk is at most this many sets; beyond,
    /// the run stops and the host's level loop takes over (the level kernels split a hub
    /// row's sets over many warps; a warp here walks an entry alone).
    std::int64_t max_sets = 0;
    ResidentState* state = nullptr;
    ResidentLevelInfo* info = nullptr;  ///< index l
    /// The run's results packed for one read-back (resident_pack's layout): the outcome
    /// (state and info, which `outcome` holds), the records, the snapshot after the last
    /// level and, with table_slots > 0, the dense pMax table's first table_slots values.
    const ResidentOutcome* outcome = nullptr;
    unsigned char* pack = nullptr;
    std::int64_t table_slots = 0;
};

/// Byte offsets of the packed read-back (ResidentArgs::pack): the outcome at 0, then the
/// records' pairs (2 int32 a record) and nodes (int32), the last snapshot's offsets (int64,
/// n + 1) and neighbours (int32), the pMax table's values (double); `end` its size.
struct ResidentPack {
    std::size_t pairs = 0, nodes = 0, off = 0, nbrs = 0, table = 0, end = 0;
};
__host__ __device__ inline std::size_t resident_align8(std::size_t b) { return (b + 7) & ~std::size_t{7}; }
__host__ __device__ inline ResidentPack resident_pack(std::int64_t records, std::int64_t nodes, std::int64_t n,
                                                      std::int64_t entries, std::int64_t table_slots) {
    ResidentPack p;
    p.pairs = resident_align8(sizeof(ResidentOutcome));
    p.nodes = p.pairs + static_cast<std::size_t>(2 * records) * sizeof(std::int32_t);
    p.off = resident_align8(p.nodes + static_cast<std::size_t>(nodes) * sizeof(std::int32_t));
    p.nbrs = p.off + static_cast<std::size_t>(n + 1) * sizeof(std::int64_t);
    p.table = resident_align8(p.nbrs + static_cast<std::size_t>(entries) * sizeof(std::int32_t));
    p.end = p.table + static_cast<std::size_t>(table_slots) * sizeof(double);
    return p;
}

/// Queue levels a.first .. a.last on `stream`, then the packing of their results into a.pack
/// (nothing is read back).
void launch_resident_levels(const ResidentArgs& a, cudaStream_t stream);

/// The resident kernels, loaded ahead (kernel_preload.cuh); returns how many.
int preload_resident_kernels(int max_level);

}  // namespace cudag::cuda
