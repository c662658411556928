// SPDX-License-Identifier: Apache-2.0
#include "fisher_levels.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <vector>

#include "compact.cuh"
#include "core/combinations.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "correlation.cuh"
#include "core/parallel.hpp"

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;

std::int64_t pair_base(std::int64_t i, std::int64_t n) { return i * n - i * (i + 1) / 2; }

/// Rows per block of level 0's bit rows: every row (0) while the n x n bit matrix takes at
/// most `budget` bytes, else as many rows as `budget` holds.
std::int64_t level0_block_rows(std::int64_t n, std::int64_t budget) {
    const std::int64_t row_bytes = (n + 63) / 64 * 8;
    if (row_bytes * n <= budget) return 0;
    return std::max<std::int64_t>(1, budget / row_bytes);
}

// The planner's cuPC-E items go to the kernels as int2 (x = row, y = q0).
static_assert(sizeof(EdgeItem) == sizeof(int2) && alignof(EdgeItem) == alignof(int2) &&
              offsetof(EdgeItem, row) == offsetof(int2, x) && offsetof(EdgeItem, q0) == offsetof(int2, y));

}  // namespace

void FisherLevels::level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g,
                          skeleton::Level0Output& out) {
    const std::int64_t n = ctx_.n;
    if (row_end <= row_begin) return;
    CUDAG_EXPECTS(g.n() == n, "cuda level0: graph size differs from the engine's");
    DeviceGuard guard(ctx_.device);
    results_.begin_search();
    Level0Buffers& l0 = results_.level0_buffers();
    // The p-values may stay here (the search hands the table over right after).
    const bool keep_p = out.p_may_stay && row_begin == 0 && row_end == n;
    StepTrace tr;
    tr.start();
    cudaStream_t s = ctx_.stream();
    const std::int64_t words = (n + 63) / 64;
    if (const std::int64_t block_rows = level0_block_rows(n, plan_.tunables().level0_bits_bytes);
        !dense && block_rows > 0) {
        corr_.new_search();
        level0_in_blocks(row_begin, row_end, block_rows, out);
        for (std::int64_t i = row_begin; i < row_end; ++i) out.tests += n - 1 - i;
        results_.level0_done(false, false);  // the device buffers hold the last block only
        out.p_stayed = false;
        tr.mark("blocks");
        tr.print("cuda level 0");
        return;
    }
    bits_.resize_discard(static_cast<std::size_t>(n * words));
    bits_.fill_bytes(0, s);

    corr_.new_search();
    Level0Args a = level0_args(row_begin, row_end);
    const std::int64_t dense_count = pair_base(row_end, n) - pair_base(row_begin, n);
    if (dense) {
        CUDAG_ASSERT(static_cast<std::int64_t>(out.dense_p.size()) >= pair_base(row_end, n));
        l0.dense.resize_discard(static_cast<std::size_t>(dense_count));
        a.dense_p = l0.dense.data();
        a.dense_base = pair_base(row_begin, n);
    }
    launch_level0_rows(a, s);
    if (!corr_.whole()) tr.mark("C blocks+kernel");

    if (!dense) {
        // The kept pairs with their p-values as an upper-triangle CSR (compaction of the
        // block's bit rows), copied straight into `out`; `g` is built from it by the caller.
        const std::int64_t rows = row_end - row_begin;
        counts_.resize_discard(static_cast<std::size_t>(rows + 1));
        l0.koffsets.resize_discard(static_cast<std::size_t>(rows + 1));
        const BitRowsView view{bits_.data(), words};
        launch_row_degrees(view, row_begin, row_end, true, counts_.data(), s);
        exclusive_sum(counts_.data(), l0.koffsets.data(), rows + 1, ctx_.cub, s);
        std::int64_t total = 0;
        l0.koffsets.download(&total, 1, s, static_cast<std::size_t>(rows));
        ctx_.synchronize();
        tr.mark("kernel+count");
        out.kept_offsets.resize(static_cast<std::size_t>(n + 1));
        out.kept_cols.resize(static_cast<std::size_t>(total));
        out.kept_pvals.resize(static_cast<std::size_t>(total));
        if (total > 0) {
            list_kept(view, row_begin, row_end, total);
            // Fault the host pages in on threads while the GPU lists the pairs.
            first_touch(out.kept_cols.data(), out.kept_cols.size() * sizeof(std::int32_t), ctx_.host_threads);
            l0.kcols.download(out.kept_cols.data(), out.kept_cols.size(), s);
            if (!keep_p) {
                first_touch(out.kept_pvals.data(), out.kept_pvals.size() * sizeof(double), ctx_.host_threads);
                l0.kp.download(out.kept_pvals.data(), out.kept_pvals.size(), s);
            }
        }
        l0.koffsets.download(out.kept_offsets.data() + row_begin, static_cast<std::size_t>(rows + 1), s);
        if (row_begin == 0 && row_end == n) {
            // Every row ran, so the bits are symmetric: their full CSR is level 1's snapshot.
            l0.aoffsets.resize_discard(static_cast<std::size_t>(n + 1));
            l0.anbrs.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(2 * total, 1)));
            launch_row_degrees(view, 0, n, false, counts_.data(), s);
            exclusive_sum(counts_.data(), l0.aoffsets.data(), n + 1, ctx_.cub, s);
            launch_row_neighbours(view, 0, n, false, l0.aoffsets.data(), l0.anbrs.data(), s);
            out.adjacency.n = n;
            out.adjacency.offsets.resize(static_cast<std::size_t>(n + 1));
            out.adjacency.nbrs.resize(static_cast<std::size_t>(2 * total));
            first_touch(out.adjacency.nbrs.data(), out.adjacency.nbrs.size() * sizeof(std::int32_t), ctx_.host_threads);
            l0.aoffsets.download(out.adjacency.offsets.data(), out.adjacency.offsets.size(), s);
            l0.anbrs.download(out.adjacency.nbrs.data(), out.adjacency.nbrs.size(), s);
        }
        ctx_.synchronize();
        if (out.adjacency.n == n && out.adjacency_is_next)
            results_.keep_level0_adjacency(out.adjacency.offsets, out.adjacency.nbrs.size());
        // Block-relative starts to absolute ones over all n rows (empty outside the block).
        std::int64_t* o = out.kept_offsets.data();
        std::fill(o, o + row_begin, 0);
        std::fill(o + row_end + 1, o + n + 1, total);
        tr.mark("kept pairs");
    } else {
        // Every p is wanted: the bits go to `g` and the p-values to out.dense_p.
        const std::size_t n_words = static_cast<std::size_t>(n * words);
        std::unique_ptr<std::uint64_t[]> bits(new std::uint64_t[n_words]);
        bits_.download(bits.get(), n_words, s);
        if (!keep_p)
            l0.dense.download(out.dense_p.data() + pair_base(row_begin, n), static_cast<std::size_t>(dense_count), s);
        ctx_.synchronize();
        tr.mark("bits downloaded");
        if (!g.dense()) {  // a graph held sparse (tests of that form on small n)
            for (std::int64_t i = row_begin; i < row_end; ++i)
                for (std::int64_t j = i + 1; j < n; ++j)
                    if ((bits[static_cast<std::size_t>(i * words + (j >> 6))] >> (j & 63)) & 1u) g.add(i, j);
        } else {
            auto& gw = g.words();
            constexpr std::int64_t kWords = 1 << 16;
            parallel_for(0, (static_cast<std::int64_t>(n_words) + kWords - 1) / kWords, std::max(1, ctx_.host_threads),
                         1, [&](std::int64_t c, int) {
                             const std::size_t b = static_cast<std::size_t>(c * kWords);
                             const std::size_t e = std::min(n_words, b + static_cast<std::size_t>(kWords));
                             for (std::size_t k = b; k < e; ++k) gw[k] |= bits[k];
                         });
        }
    }
    for (std::int64_t i = row_begin; i < row_end; ++i) out.tests += n - 1 - i;
    results_.level0_done(row_begin == 0 && row_end == n, keep_p);
    out.p_stayed = keep_p;
    tr.mark("graph+pairs");
    tr.print("cuda level 0");
}

Level0Args FisherLevels::level0_args(std::int64_t row_begin, std::int64_t row_end) {
    Level0Args a;
    a.corr = corr_.source();
    a.n = ctx_.n;
    a.m = ctx_.m;
    a.alpha = policy_.alpha;
    a.strict = policy_.strict;
    std::tie(a.r_lo, a.r_hi) = decision_band(ctx_.m, 0, policy_.alpha, policy_.strict);
    a.row_begin = row_begin;
    a.row_end = row_end;
    a.bits = reinterpret_cast<std::uint32_t*>(bits_.data());
    a.words32 = 2 * ((ctx_.n + 63) / 64);
    return a;
}

void FisherLevels::launch_level0_rows(Level0Args a, cudaStream_t s) {
    if (corr_.whole()) {
        launch_gaussian_level0(a, s);
        return;
    }
    // C not whole: each entry tested where the correlation kernel sums it (no row blocks of
    // C written and read again), unless dense p-values are wanted.
    if (const int tile = plan_.tunables().corr_tile; plan_.tunables().level0_fused && level0_fuses(a, tile)) {
        launch_level0_fused(a, tile, s);
        return;
    }
    corr_.in_row_blocks(a.row_begin, a.row_end, [&](const CorrSource& c, std::int64_t b0, std::int64_t b1) {
        a.corr = c;
        a.row_begin = b0;
        a.row_end = b1;
        launch_gaussian_level0(a, s);
    });
}

void FisherLevels::list_kept(const BitRowsView& view, std::int64_t r0, std::int64_t r1, std::int64_t kept) {
    cudaStream_t s = ctx_.stream();
    Level0Buffers& l0 = results_.level0_buffers();
    l0.kcols.resize_discard(static_cast<std::size_t>(kept));
    l0.kp.resize_discard(static_cast<std::size_t>(kept));
    launch_row_neighbours(view, r0, r1, true, l0.koffsets.data(), l0.kcols.data(), s);
    PairPArgs pa;
    pa.corr = corr_.source();  // C not whole: entries summed again from z
    pa.n = ctx_.n;
    pa.m = ctx_.m;
    pa.row_begin = r0;
    pa.n_rows = r1 - r0;
    pa.offsets = l0.koffsets.data();
    pa.cols = l0.kcols.data();
    pa.count = kept;
    pa.p_out = l0.kp.data();
    launch_pair_pvalues(pa, s);
}

void FisherLevels::level0_in_blocks(std::int64_t row_begin, std::int64_t row_end, std::int64_t block_rows,
                                    skeleton::Level0Output& out) {
    const std::int64_t n = ctx_.n, words = (n + 63) / 64;
    cudaStream_t s = ctx_.stream();
    Level0Buffers& l0 = results_.level0_buffers();
    bits_.resize_discard(static_cast<std::size_t>(std::min(block_rows, row_end - row_begin) * words));
    out.kept_offsets.assign(static_cast<std::size_t>(n + 1), 0);
    out.kept_cols.clear();
    out.kept_pvals.clear();
    std::vector<std::int64_t> starts;
    std::int64_t total = 0;
    for (std::int64_t b0 = row_begin; b0 < row_end; b0 += block_rows) {
        const std::int64_t b1 = std::min(row_end, b0 + block_rows), rows = b1 - b0;
        bits_.fill_bytes(0, s, static_cast<std::size_t>(rows * words));
        Level0Args a = level0_args(b0, b1);
        a.bits_row0 = b0;
        a.mirror = false;
        launch_level0_rows(a, s);
        // The block's kept pairs (upper bits only) as CSR rows, their p-values again.
        counts_.resize_discard(static_cast<std::size_t>(rows + 1));
        l0.koffsets.resize_discard(static_cast<std::size_t>(rows + 1));
        const BitRowsView view{bits_.data(), words, b0};
        launch_row_degrees(view, b0, b1, true, counts_.data(), s);
        exclusive_sum(counts_.data(), l0.koffsets.data(), rows + 1, ctx_.cub, s);
        starts.resize(static_cast<std::size_t>(rows + 1));
        l0.koffsets.download(starts.data(), starts.size(), s);
        ctx_.synchronize();
        const std::int64_t kept = starts.back();
        for (std::int64_t r = 0; r <= rows; ++r)
            out.kept_offsets[static_cast<std::size_t>(b0 + r)] = total + starts[static_cast<std::size_t>(r)];
        if (kept > 0) {
            list_kept(view, b0, b1, kept);
            out.kept_cols.resize(static_cast<std::size_t>(total + kept));
            out.kept_pvals.resize(static_cast<std::size_t>(total + kept));
            l0.kcols.download(out.kept_cols.data() + total, static_cast<std::size_t>(kept), s);
            l0.kp.download(out.kept_pvals.data() + total, static_cast<std::size_t>(kept), s);
            ctx_.synchronize();
        }
        total += kept;
    }
    std::fill(out.kept_offsets.begin() + row_end + 1, out.kept_offsets.end(), total);
}

void FisherLevels::run_level(int l, const Adjacency& snap, const skeleton::LevelBlock& block,
                             skeleton::LevelOutput& out) {
    const std::int64_t row_begin = block.row_begin, row_end = block.row_end;
    const std::int64_t n = ctx_.n;
    CUDAG_ASSERT(l >= 1);
    CUDAG_EXPECTS(snap.n == n, "cuda run_level: snapshot size differs from the engine's");
    const auto t_start = std::chrono::steady_clock::now();
    const std::int64_t n_entries = static_cast<std::int64_t>(snap.nbrs.size());
    results_.forget_snapshot();
    results_.set_level({});
    // C not whole: levels >= 2 read each row's neighbourhood block of C (use_row_blocks)
    // as the entry scan reads C held whole, unless the blocks do not fit.
    const bool try_blocks = !corr_.whole() && l >= 2 && corr_.symmetric() && plan_.tunables().row_blocks;
    LevelPath path = plan_.path(l, corr_.symmetric(), corr_.whole() || try_blocks);

    LevelRows lr = FisherLevelPlanner::rows(snap, row_begin, row_end, l, path);
    if (lr.rows.empty()) return;
    std::vector<std::int32_t>& rows = lr.rows;

    DeviceGuard guard(ctx_.device);
    cudaStream_t s = ctx_.stream();
    results_.hold_snapshot(snap);
    best_.resize_discard(static_cast<std::size_t>(n_entries));
    pmax_.resize_discard(static_cast<std::size_t>(n_entries));
    tests_.resize_discard(1);
    best_.fill_bytes(0xff, s);
    pmax_.fill_bytes(kNoCorrelationByte, s);
    tests_.fill_bytes(0, s);
    rows_.resize_discard(rows.size());  // cuPC-S's grid and the result unpacking
    rows_.upload(rows.data(), rows.size(), s);
    mirror_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(n_entries, 1)));
    launch_mirror(results_.offsets(), results_.nbrs(), n, mirror_.data(), s);

    LevelArgs a;
    if (path == LevelPath::Scan && try_blocks && !use_row_blocks(a, snap, rows)) {
        path = plan_.path(l, corr_.symmetric(), false);  // cuPC-S/E on the held rows and z
        if (path == LevelPath::EdgeParallel) {
            lr = FisherLevelPlanner::rows(snap, row_begin, row_end, l, path);
            rows_.upload(rows.data(), rows.size(), s);
        }
    }
    if (!a.blocks) {
        blocks_.release();
        corr_.hold_rows_once(row_begin, row_end, FisherLevelPlanner::held_rows_reserve(n_entries));
    }
    const bool scan = path == LevelPath::Scan;
    a.corr = corr_.source();
    a.n = n;
    a.m = ctx_.m;
    a.l = l;
    a.alpha = policy_.alpha;
    a.strict = policy_.strict;
    a.offsets = results_.offsets();
    a.nbrs = results_.nbrs();
    a.best = best_.data();
    a.pmax = pmax_.data();
    a.tests = tests_.data();
    a.mirror = mirror_.data();
    std::tie(a.r_lo, a.r_hi) = decision_band(ctx_.m, l, policy_.alpha, policy_.strict);
    a.generic = plan_.generic(l);
    a.unit_diag = scan && corr_.unit_diagonal();
    a.e_begin = block.entry_begin;
    a.e_end = block.entry_end;

    if (!run_.ev_start) {
        run_.ev_start = std::make_unique<Event>();
        run_.ev_end = std::make_unique<Event>();
    }
    run_.ev_start->record(s);
    const auto t_launch = std::chrono::steady_clock::now();
    if (scan) {
        launch_scan(a, snap, rows, s);
    } else if (path == LevelPath::SetParallel) {
        const SetParallelShape shape = plan_.set_parallel(lr);
        SetParallelLaunch sp;
        sp.theta = shape.theta;
        sp.delta = shape.delta;
        sp.shared_entries = shape.shared_entries;
        sp.rows = rows_.data();
        sp.n_rows = static_cast<std::int64_t>(rows.size());
        if (a.generic) {
            use_scratch(a, cupc_s_generic_threads(sp, FisherLevelPlanner::max_slots(l)));
        }
        launch_cupc_s(a, sp, s);
    } else {
        const EdgeParallelShape shape = plan_.edge_parallel(lr, snap);
        EdgeParallelLaunch ep;
        ep.beta = shape.beta;
        ep.gamma = shape.gamma;
        items_.resize_discard(shape.items.size());
        items_.upload(reinterpret_cast<const int2*>(shape.items.data()), shape.items.size(), s);
        ep.items = items_.data();
        ep.n_items = static_cast<std::int64_t>(shape.items.size());
        if (a.generic) {
            use_scratch(a, cupc_e_generic_threads(ep, FisherLevelPlanner::max_slots(l)));
        }
        launch_cupc_e(a, ep, s);
    }
    run_.a = a;
    run_.rows = std::move(rows);
    run_.block = block;
    run_.n_entries = n_entries;
    run_.path = path;
    run_.t_start = t_start;
    run_.t_launch = t_launch;
    finish_run(snap, out);
}

bool FisherLevels::use_row_blocks(LevelArgs& a, const Adjacency& snap, const std::vector<std::int32_t>& rows) {
    const std::int64_t n = ctx_.n;
    const auto n_entries = static_cast<std::int64_t>(snap.nbrs.size());
    std::vector<std::int64_t> at(rows.size() + 1, 0);
    std::int64_t max_d = 1;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const std::int64_t d = snap.degree(rows[k]);
        max_d = std::max(max_d, d);
        at[k + 1] = at[k] + (d + 1) * (d + 1);
    }
    const std::size_t need = static_cast<std::size_t>(at.back()) * sizeof(double) +
                             static_cast<std::size_t>(n + static_cast<std::int64_t>(at.size())) * sizeof(std::int64_t) +
                             static_cast<std::size_t>(max_d) * sizeof(std::int32_t) +
                             FisherLevelPlanner::held_rows_reserve(n_entries);  // the level's own buffers
    const std::size_t have = blocks_.size() * sizeof(double);  // this search's last blocks, given back below
    if (need > device_memory_info().first + have) {
        corr_.release_held();
        if (need > device_memory_info().first + have) return false;
    }
    cudaStream_t s = ctx_.stream();
    blocks_.release();
    blocks_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(at.back(), 1)));
    block_at_.resize_discard(at.size());
    block_at_.upload(at.data(), at.size(), s);
    std::vector<std::int64_t> where(static_cast<std::size_t>(n), 0);
    for (std::size_t k = 0; k < rows.size(); ++k) where[static_cast<std::size_t>(rows[k])] = at[k];
    row_block_.resize_discard(where.size());
    row_block_.upload(where.data(), where.size(), s);
    std::vector<std::int32_t> ids(static_cast<std::size_t>(max_d));
    for (std::size_t p = 0; p < ids.size(); ++p) ids[p] = static_cast<std::int32_t>(p);
    iota_.resize_discard(ids.size());
    iota_.upload(ids.data(), ids.size(), s);
    RowBlocksArgs b;
    b.corr = corr_.source();
    b.offsets = results_.offsets();
    b.nbrs = results_.nbrs();
    b.rows = rows_.data();
    b.n_rows = static_cast<std::int64_t>(rows.size());
    b.at = block_at_.data();
    b.total = at.back();
    b.out = blocks_.data();
    launch_row_blocks(b, s);
    // The uploads read host vectors that end here.
    ctx_.synchronize();
    a.blocks = blocks_.data();
    a.row_block = row_block_.data();
    a.iota = iota_.data();
    return true;
}

void FisherLevels::finish_run(const Adjacency& snap, skeleton::LevelOutput& out) {
    cudaStream_t s = ctx_.stream();
    LevelArgs& a = run_.a;
    const int l = a.l;
    const std::vector<std::int32_t>& rows = run_.rows;
    const bool scan = run_.path == LevelPath::Scan, edge_parallel = run_.path == LevelPath::EdgeParallel;
    const std::int64_t n_entries = run_.n_entries;
    const auto t_start = run_.t_start, t_launch = run_.t_launch;
    run_.ev_end->record(s);
    // Separated entries of the block's rows, then their winning sets and p-values.
    // cuPC-S/E run the cut rows whole (their kernels share a row's work); only the block's
    // entries are read out.
    const std::int64_t eb = run_.block.entry_begin, ee = run_.block.entry_end;
    sel_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(ee - eb, 1)));
    count_.resize_discard(1);
    launch_finish_level(a, eb, ee, s);
    select_separated(best_.data(), eb, ee, sel_.data(), count_.data(), ctx_.cub, s);
    std::int64_t n_sel = 0;
    u64 tests = 0;
    count_.download(&n_sel, 1, s);
    tests_.download(&tests, 1, s);
    ctx_.synchronize();
    const auto t_selected = std::chrono::steady_clock::now();

    if (n_sel > 0) {
        pwin_.resize_discard(static_cast<std::size_t>(n_sel));
        sets_.resize_discard(static_cast<std::size_t>(n_sel * l));
        WinnerArgs w;
        w.entries = sel_.data();
        w.count = n_sel;
        w.ranks_exclude_entry = edge_parallel;
        w.p_out = pwin_.data();
        w.set_out = sets_.data();
        if (a.generic) {
            use_scratch(a, winners_generic_threads(n_sel, FisherLevelPlanner::max_slots(l)));
        }
        launch_gaussian_winners(a, w, s);
    }
    const auto trace_level = [&](std::chrono::steady_clock::time_point t_downloaded) {
        if (!trace_) return;
        const auto ms = [](auto a0, auto b0) { return std::chrono::duration<double, std::milli>(b0 - a0).count(); };
        std::fprintf(stderr,
                     "cuda level %d: %s, %zu rows, %lld entries, %lld separated: host before launch %.3f ms, "
                     "kernels %.3f ms, until selected %.3f ms, winners+%s %.3f ms\n",
                     l, scan ? "scan" : (edge_parallel ? "E" : "S"), rows.size(), static_cast<long long>(n_entries),
                     static_cast<long long>(n_sel), ms(t_start, t_launch),
                     static_cast<double>(run_.ev_end->elapsed_ms_since(*run_.ev_start)), ms(t_launch, t_selected),
                     out.packed ? "removal bits" : "unpack+downloads", ms(t_selected, t_downloaded));
    };
    if (out.packed) {
        // Results stay on the device for settle_level(); the host gets the removal bits.
        const auto block = static_cast<std::size_t>(ee - eb);
        rbits_.resize_discard(std::max<std::size_t>((block + 31) / 32 * 4, 4));
        launch_pack_level(best_.data(), eb, ee, sel_.data(), pwin_.data(), n_sel, pmax_.data(),
                          reinterpret_cast<std::uint32_t*>(rbits_.data()), s);
        CUDAG_ASSERT(out.removal_bits.size() == (block + 7) / 8);
        rbits_.download(reinterpret_cast<std::uint8_t*>(out.removal_bits.data()), out.removal_bits.size(), s);
        ctx_.synchronize();
        LevelOnDevice level;
        level.l = l;
        level.rows = static_cast<std::int64_t>(rows.size());
        level.n_sel = n_sel;
        level.row_ids = rows_.data();
        level.e_begin = eb;
        level.e_end = ee;
        level.p = pmax_.data();
        level.sel = sel_.data();
        level.sets = sets_.data();
        level.mirror = mirror_.data();
        results_.set_level(level);
        out.tests += static_cast<std::int64_t>(tests);
        trace_level(std::chrono::steady_clock::now());
        return;
    }
    // The block's results laid out like `out` on the device, then three straight copies
    // (no pinned staging buffers to allocate, no host loop over the entries).
    const auto block = static_cast<std::size_t>(ee - eb);
    eflags_.resize_discard(std::max<std::size_t>(block, 1));
    eflags_.fill_bytes(0, s);
    UnpackArgs u;
    u.rows = rows_.data();
    u.n_rows = static_cast<std::int64_t>(rows.size());
    u.offsets = results_.offsets();
    u.sel = sel_.data();
    u.pwin = pwin_.data();
    u.sets = sets_.data();
    u.n_sel = n_sel;
    u.l = l;
    u.e_begin = eb;
    u.e_end = ee;
    u.tested = skeleton::kTested;
    u.separated = skeleton::kSeparated;
    u.flags = eflags_.data();
    u.pmax = pmax_.data();
    if (n_sel > 0) {
        enodes_.resize_discard(block * static_cast<std::size_t>(l));
        u.nodes = enodes_.data();
    }
    launch_unpack_level(u, static_cast<std::int64_t>(block), s);
    if (n_sel > 0)  // flags and pmax were touched by LevelOutput::reset; the sets were not
        first_touch(out.set_slot(static_cast<std::size_t>(eb)),
                    block * static_cast<std::size_t>(l) * sizeof(std::int32_t), ctx_.host_threads);
    eflags_.download(out.flags.data() + eb, block, s);
    static_assert(sizeof(double) == sizeof(u64));
    pmax_.download(reinterpret_cast<u64*>(out.pmax.data() + eb), block, s, static_cast<std::size_t>(eb));
    if (n_sel > 0) enodes_.download(out.set_slot(static_cast<std::size_t>(eb)), block * static_cast<std::size_t>(l), s);
    ctx_.synchronize();
    const auto t_downloaded = std::chrono::steady_clock::now();
    out.tests += static_cast<std::int64_t>(tests);
    trace_level(t_downloaded);
}

void FisherLevels::launch_scan(const LevelArgs& a, const Adjacency& snap, const std::vector<std::int32_t>& rows,
                               cudaStream_t s) {
    const int l = a.l;
    const bool deep = plan_.deep(l);
    LevelArgs da = a;  // the deep scan's scratch (sets whose factorisation fails), once for both sides
    if (deep) use_scratch(da, deep_scan_threads(std::int64_t(1) << 40, FisherLevelPlanner::max_slots(l)));
    survivors_.resize_discard(std::max<std::size_t>(snap.nbrs.size(), 1));
    for (int upper = 0; upper < 2; ++upper) {
        std::vector<ScanRun> live = FisherLevelPlanner::scan_runs(snap, rows, l, upper != 0, a.e_begin, a.e_end);
        ScanRange range = plan_.first_scan_range(l, live);
        bool on_survivors = false;
        while (!live.empty()) {
            const std::vector<ScanItem> items = plan_.scan_items(live, range, on_survivors, deep);
            scan_items_.resize_discard(items.size());
            scan_items_.upload(items.data(), items.size(), s);
            EntryScanLaunch launch;
            launch.items = scan_items_.data();
            launch.n_items = static_cast<std::int64_t>(items.size());
            launch.upper = upper != 0;
            launch.survivors = on_survivors ? survivors_.data() : nullptr;
            if (deep) {
                launch_deep_scan(da, launch, s);
            } else {
                launch_entry_scan(a, launch, s);
            }
            // The next round: the rows with ranks beyond this one, over their surviving entries.
            const std::vector<ScanRun> next = FisherLevelPlanner::runs_beyond(live, range);
            if (next.empty()) break;
            std::vector<std::int32_t> ids(next.size()), counts(next.size());
            for (std::size_t k = 0; k < next.size(); ++k) ids[k] = next[k].row;
            survivor_rows_.resize_discard(ids.size());
            survivor_counts_.resize_discard(ids.size());
            survivor_rows_.upload(ids.data(), ids.size(), s);
            launch_scan_survivors(a, survivor_rows_.data(), static_cast<std::int64_t>(ids.size()), upper != 0,
                                  survivors_.data(), survivor_counts_.data(), s);
            survivor_counts_.download(counts.data(), counts.size(), s);
            ctx_.synchronize();
            interrupt::poll();  // Ctrl-C in a binding, between rounds (core/interrupt.hpp)
            live = FisherLevelPlanner::surviving_runs(next, counts);
            range = FisherLevelPlanner::next_scan_range(range);
            on_survivors = true;
        }
    }
}

}  // namespace cudag::cuda

namespace cudag::cuda {

int FisherLevels::run_resident(int first, int last, const Adjacency& snap, skeleton::SepSetLog& log,
                               std::vector<skeleton::SkeletonEngine::ResidentLevel>& levels, Adjacency& next) {
    const std::int64_t n = ctx_.n;
    const auto entries = static_cast<std::int64_t>(snap.nbrs.size());
    const FisherResults::TableView table = results_.table();
    if (entries == 0 || entries > plan_.tunables().resident_entries || n > kResidentMaxRows || !corr_.whole() ||
        !table.held || policy_.exhaustive || policy_.causal_learn_pvalue || snap.n != n)
        return 0;
    const std::int64_t max_degree = snap.max_degree();
    last = static_cast<int>(std::min<std::int64_t>({last, kResidentMaxLevel, max_degree - 1}));
    if (first < 1 || first > last || binomial(max_degree - 1, first) > kResidentMaxSets) return 0;
    StepTrace tr;
    tr.start();
    DeviceGuard guard(ctx_.device);
    cudaStream_t s = ctx_.stream();
    results_.forget_snapshot();
    results_.set_level({});
    results_.hold_snapshot(snap);
    Resident& r = res_;
    const auto cap = static_cast<std::size_t>(entries);
    for (int b = 0; b < 2; ++b) {
        r.off[b].resize_discard(static_cast<std::size_t>(n + 1));
        r.nbrs[b].resize_discard(cap);
        r.row[b].resize_discard(cap);
        r.rev[b].resize_discard(cap);
    }
    r.row0.resize_discard(cap);
    r.rev0.resize_discard(cap);
    r.newpos.resize_discard(cap);
    r.sep.resize_discard(cap);
    // Each pair is removed once: at most entries / 2 records, of at most `last` nodes.
    r.pairs.resize_discard(cap);
    r.nodes.resize_discard(std::max<std::size_t>(cap / 2 * static_cast<std::size_t>(last), 1));
    r.outcome.resize_discard(1);
    const auto table_slots = static_cast<std::int64_t>(results_.host_table_slots());
    // The packed read-back at its largest: every pair removed, each with `last` nodes.
    const ResidentPack most = resident_pack(entries / 2, entries / 2 * last, n, entries, table_slots);
    r.pack.resize_discard(most.end);
    if (r.host.size() < most.end) r.host.resize(most.end);
    ResidentArgs a;
    a.corr = corr_.source();
    a.n = n;
    a.m = ctx_.m;
    a.alpha = policy_.alpha;
    a.strict = policy_.strict;
    a.first = first;
    a.last = last;
    for (int l = first; l <= last; ++l) std::tie(a.r_lo[l], a.r_hi[l]) = decision_band(ctx_.m, l, a.alpha, a.strict);
    a.off0 = results_.offsets();
    a.nbrs0 = results_.nbrs();
    a.row0 = r.row0.data();
    a.rev0 = r.rev0.data();
    for (int b = 0; b < 2; ++b) {
        a.off[b] = r.off[b].data();
        a.nbrs[b] = r.nbrs[b].data();
        a.row[b] = r.row[b].data();
        a.rev[b] = r.rev[b].data();
    }
    a.capacity = entries;
    a.newpos = r.newpos.data();
    a.sep = r.sep.data();
    a.dense = table.dense;
    a.poff = table.poff;
    a.pcol = table.pcol;
    a.table = table.values;
    a.pairs = r.pairs.data();
    a.nodes = r.nodes.data();
    a.max_sets = kResidentMaxSets;
    ResidentOutcome* dev = r.outcome.data();
    a.state = reinterpret_cast<ResidentState*>(reinterpret_cast<char*>(dev) + offsetof(ResidentOutcome, state));
    a.info = reinterpret_cast<ResidentLevelInfo*>(reinterpret_cast<char*>(dev) + offsetof(ResidentOutcome, info));
    a.outcome = dev;
    a.pack = r.pack.data();
    a.table_slots = table_slots;
    launch_resident_levels(a, s);
    // One copy of what a small run produced (the packed results up to kPackFirstCopy bytes),
    // a second for the rest of a larger one.
    constexpr std::size_t kPackFirstCopy = std::size_t{1} << 17;
    const std::size_t first_copy = std::min(most.end, kPackFirstCopy);
    CUDAG_CUDA_CHECK(cudaMemcpyAsync(r.host.data(), r.pack.data(), first_copy, cudaMemcpyDeviceToHost, s));
    ctx_.synchronize();
    ResidentOutcome got;
    std::memcpy(&got, r.host.data(), sizeof got);
    const ResidentState& st = got.state;
    const ResidentLevelInfo* info = got.info;
    CUDAG_ASSERT(st.levels_run >= 1 && st.final_buf >= 0);
    const ResidentPack at = resident_pack(st.records, st.nodes, n, st.entries, table_slots);
    CUDAG_ASSERT(at.end <= most.end);
    if (at.end > first_copy) {
        CUDAG_CUDA_CHECK(cudaMemcpyAsync(r.host.data() + first_copy, r.pack.data() + first_copy, at.end - first_copy,
                                         cudaMemcpyDeviceToHost, s));
        ctx_.synchronize();
    }
    tr.mark("levels");
    // The records (each level's a uniform block of the log) and the snapshot after the last level.
    const unsigned char* h = r.host.data();
    const auto* pairs = reinterpret_cast<const std::int32_t*>(h + at.pairs);
    const auto* nodes = reinterpret_cast<const std::int32_t*>(h + at.nodes);
    next.n = n;
    next.offsets.assign(reinterpret_cast<const std::int64_t*>(h + at.off),
                        reinterpret_cast<const std::int64_t*>(h + at.off) + n + 1);
    next.nbrs.assign(reinterpret_cast<const std::int32_t*>(h + at.nbrs),
                     reinterpret_cast<const std::int32_t*>(h + at.nbrs) + st.entries);
    if (table_slots > 0) {  // a small table: listed at the end without the device
        results_.take_host_table(reinterpret_cast<const double*>(h + at.table), static_cast<std::size_t>(table_slots));
    } else {  // the levels raised it on the device: no copy on the host is current
        results_.drop_host_table();
    }
    for (int l = first; l < first + st.levels_run; ++l) {
        const ResidentLevelInfo& li = info[l];
        if (li.records == 0) continue;
        const skeleton::SepSetLog::Slots room = log.append_uniform(static_cast<std::size_t>(li.records), l);
        std::copy_n(pairs + 2 * li.record_begin, 2 * li.records, room.pairs);
        std::copy_n(nodes + li.node_begin, li.records * l, room.nodes);
    }
    tr.mark("records+snapshot");
    unsigned long long before = st.start_ns;
    for (int l = first; l < first + st.levels_run; ++l) {
        const ResidentLevelInfo& li = info[l];
        skeleton::SkeletonEngine::ResidentLevel out;
        out.plan.level = l;
        out.plan.planned_tests = li.planned;
        out.plan.rows = li.rows;
        out.plan.max_degree = li.max_degree;
        out.tests = static_cast<std::int64_t>(li.tests);
        out.removed = li.removed;
        out.edges_after = li.entries / 2 - li.removed;
        out.seconds = static_cast<double>(li.end_ns - before) * 1e-9;
        before = li.end_ns;
        levels.push_back(out);
        if (trace_)
            std::fprintf(stderr, "cuda resident level %d: %lld entries, %lld rows, %llu tests, %lld removed, %.3f ms\n",
                         l, li.entries, li.rows, li.tests, li.removed, out.seconds * 1e3);
    }
    results_.forget_snapshot();  // the search's next snapshot is another
    tr.print("cuda resident levels");
    interrupt::poll();  // Ctrl-C in a binding (core/interrupt.hpp)
    return st.levels_run;
}

}  // namespace cudag::cuda
