// SPDX-License-Identifier: Apache-2.0
// The level runner of the CUDA Fisher-z engine: level 0 and each level l >= 1 carried out
// on the device as FisherLevelPlanner decides (kernels, launch shapes, items), reading C
// from the CorrelationStore and leaving what stays on the device with FisherResults. Owns
// the per-level work buffers (RAII); work goes on the context's stream.
//
// Results equal the CPU engine's (skeleton::CpuFisherEngine) for the same correlation matrix:
// the same kept pairs at level 0, and at every level l >= 1 the same per-entry
// kSeparated/kTested flags, the same (lexicographically smallest) separating sets and
// pMax, up to the last bits of p (GPU and glibc differ by ulps in erfc/log1p; the
// level kernels are built without FMA contraction to stay closest to the host code).
// LevelOutput::tests / Level0Output::tests count the tests the GPU actually ran: at
// level 0 exactly the CPU's number; at levels run by the entry scan (--scan-levels) the
// lower sides' sequential tests plus the upper sides of edges the lower side kept — fewer
// than the CPU engine, which also runs the upper side of edges already separated, and
// reproducible unless a row was cut into rank ranges; at levels run by cuPC-S/E usually
// more than the CPU (threads test sets of higher rank before a lower-rank separating set
// is published) and not reproducible from run to run.
//
// Host synchronisation points: the end of each call, plus one mid-call read of a count
// (kept pairs at level 0 without dense p-values; separated entries at level l, to size
// the winner pass; each later round's survivors of the entry scan).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "compact.cuh"
#include "core/graph.hpp"
#include "core/trace.hpp"
#include "device_memory.hpp"
#include "fisher_context.cuh"
#include "fisher_correlation.cuh"
#include "fisher_level_planner.hpp"
#include "fisher_resident.cuh"
#include "fisher_results.cuh"
#include "pc_gaussian.cuh"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::cuda {

class FisherLevels {
public:
    FisherLevels(FisherContext& ctx, const FisherLevelPlanner& plan, const skeleton::TestPolicy& policy,
                 CorrelationStore& corr, FisherResults& results)
        : ctx_(ctx), plan_(plan), policy_(policy), corr_(corr), results_(results) {}

    /// skeleton::SkeletonEngine::level0: the kept pairs as an upper CSR (and, over every row, the
    /// adjacency) or, with `dense`, the bits into `g` and every p into out.dense_p; the
    /// p-values stay on the device when out.p_may_stay and every row runs.
    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, skeleton::Level0Output& out);
    /// skeleton::SkeletonEngine::run_level: a packed `out` gets the removal bits (the rest stays
    /// with FisherResults for settle_level), any other the per-entry results.
    void run_level(int l, const Adjacency& snap, const skeleton::LevelBlock& block, skeleton::LevelOutput& out);
    /// skeleton::SkeletonEngine::run_levels on the resident kernels (fisher_resident.cuh): C held
    /// whole, the snapshot within FisherTunables::resident_entries entries and kResidentMaxRows
    /// rows, levels up to kResidentMaxLevel, each entry's walk within kResidentMaxSets sets.
    int run_resident(int first, int last, const Adjacency& snap, skeleton::SepSetLog& log,
                     std::vector<skeleton::SkeletonEngine::ResidentLevel>& levels, Adjacency& next);

private:
    /// Level 0 of the rows [row_begin, row_end) in blocks of `block_rows` rows, each
    /// block's bits compacted into `out`'s kept CSR before the next (no mirror bits, no
    /// whole adjacency): device memory O(block_rows · n / 8 + kept pairs), for n whose bit
    /// matrix would not fit (issue 35). The same pairs and p-values as one pass.
    void level0_in_blocks(std::int64_t row_begin, std::int64_t row_end, std::int64_t block_rows,
                          skeleton::Level0Output& out);
    /// Level 0's kernel arguments for the rows [row_begin, row_end) (bits: every row).
    Level0Args level0_args(std::int64_t row_begin, std::int64_t row_end);
    /// The level-0 kernel over a's rows, C whole or in the store's row blocks.
    void launch_level0_rows(Level0Args a, cudaStream_t s);
    /// The `kept` pairs of the bit rows [r0, r1) of `view` (their starts in
    /// Level0Buffers::koffsets) listed into kcols, with their p-values in kp.
    void list_kept(const BitRowsView& view, std::int64_t r0, std::int64_t r1, std::int64_t kept);
    /// The entry scan of level a.l over `rows`: lower entries, then upper ones, each side
    /// in rounds over growing rank ranges (FisherLevelPlanner's items).
    void launch_scan(const LevelArgs& a, const Adjacency& snap, const std::vector<std::int32_t>& rows, cudaStream_t s);
    /// C not whole, levels >= 2: each listed row's neighbourhood block of C (launch_row_blocks)
    /// handed to `a` (LevelArgs::blocks), the held rows given back first where the blocks
    /// would not fit beside them. false (nothing changed) when they do not fit at all.
    bool use_row_blocks(LevelArgs& a, const Adjacency& snap, const std::vector<std::int32_t>& rows);
    /// A level's end once its kernels are queued: separated entries, winners, and the
    /// results packed for the search or unpacked into `out`.
    void finish_run(const Adjacency& snap, skeleton::LevelOutput& out);
    /// The runtime-l kernels' workspace for `threads` threads, allocated and handed to `a`.
    void use_scratch(LevelArgs& a, std::int64_t threads) {
        a.slots = threads;
        scratch_.resize_discard(static_cast<std::size_t>(threads * workspace_doubles(a.l)));
        iscratch_.resize_discard(static_cast<std::size_t>(threads * workspace_ints(a.l)));
        a.scratch = scratch_.data();
        a.iscratch = iscratch_.data();
    }

    FisherContext& ctx_;
    const FisherLevelPlanner& plan_;
    const skeleton::TestPolicy policy_;
    CorrelationStore& corr_;
    FisherResults& results_;
    bool trace_ = trace_enabled();  ///< CUDAG_TRACE: per-level kernel and host timings
    // level 0
    DeviceBuffer<std::uint64_t> bits_;
    DeviceBuffer<std::int64_t> counts_;
    // levels >= 1
    DeviceBuffer<unsigned long long> best_, pmax_, tests_;
    DeviceBuffer<std::int64_t> mirror_;
    DeviceBuffer<std::int32_t> rows_;
    DeviceBuffer<int2> items_;
    DeviceBuffer<ScanItem> scan_items_;
    DeviceBuffer<std::int32_t> survivors_, survivor_rows_, survivor_counts_;  ///< scan rounds
    DeviceBuffer<std::int64_t> sel_, count_;
    DeviceBuffer<double> pwin_;
    DeviceBuffer<std::int32_t> sets_;
    DeviceBuffer<double> scratch_;
    DeviceBuffer<int> iscratch_;
    DeviceBuffer<std::uint8_t> eflags_;  ///< a level's per-entry flags, laid out like LevelOutput
    DeviceBuffer<std::int32_t> enodes_;  ///< a level's per-entry winning sets
    DeviceBuffer<std::uint8_t> rbits_;   ///< a level's removal bits (packed)
    // C not whole, levels >= 2: the listed rows' neighbourhood blocks (use_row_blocks)
    DeviceBuffer<double> blocks_;
    DeviceBuffer<std::int64_t> block_at_, row_block_;
    DeviceBuffer<std::int32_t> iota_;
    // resident levels (run_resident)
    struct Resident {
        DeviceBuffer<std::int64_t> off[2], rev0, rev[2], newpos;
        DeviceBuffer<std::int32_t> nbrs[2], row0, row[2], pairs, nodes;
        DeviceBuffer<std::uint8_t> sep, pack;
        DeviceBuffer<ResidentOutcome> outcome;
        /// The packed results as read back: pageable (a page-locked buffer would be made and
        /// freed with each engine, ~0.5 ms of a small call).
        std::vector<unsigned char> host;
    } res_;
    /// The level in flight (run_level to finish_run).
    struct LevelRun {
        LevelArgs a;
        std::vector<std::int32_t> rows;
        skeleton::LevelBlock block;
        std::int64_t n_entries = 0;
        LevelPath path = LevelPath::SetParallel;
        std::chrono::steady_clock::time_point t_start, t_launch;
        std::unique_ptr<Event> ev_start, ev_end;
    } run_;
};

}  // namespace cudag::cuda
