// SPDX-License-Identifier: Apache-2.0
#include "fisher_results.cuh"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "compact.cuh"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/trace.hpp"

namespace cudag::cuda {

void FisherResults::begin_search() {
    host_valid_ = false;
    pending_offsets_.clear();  // a new search: nothing built for it yet
    level0_whole_ = false;
    dp_held_ = false;
    p_stayed_ = false;
}

void FisherResults::hold_snapshot(const Adjacency& snap) {
    if (uploaded_ == &snap) return;
    cudaStream_t s = ctx_.stream();
    if (!pending_offsets_.empty() && pending_entries_ == snap.nbrs.size() && pending_offsets_ == snap.offsets) {
        std::swap(offsets_, pend_offsets_);  // built here: no upload
        std::swap(nbrs_, pend_nbrs_);
    } else {
        offsets_.resize_discard(snap.offsets.size());
        offsets_.upload(snap.offsets.data(), snap.offsets.size(), s);
        nbrs_.resize_discard(std::max<std::size_t>(snap.nbrs.size(), 1));
        nbrs_.upload(snap.nbrs.data(), snap.nbrs.size(), s);
    }
    pending_offsets_.clear();
    uploaded_ = &snap;
}

void FisherResults::hold_removal(std::span<const std::byte> removal, std::span<const std::int64_t> bit0) {
    if (removal_held_ == removal.data() && removal_.size() == std::max<std::size_t>(removal.size(), 1)) return;
    cudaStream_t s = ctx_.stream();
    removal_.resize_discard(std::max<std::size_t>(removal.size(), 1));
    removal_.upload(reinterpret_cast<const std::uint8_t*>(removal.data()), removal.size(), s);
    bit0_.resize_discard(bit0.size());
    bit0_.upload(bit0.data(), bit0.size(), s);
}

std::int64_t FisherResults::next_snapshot(const Adjacency& snap, std::span<const std::byte> removal,
                                          std::span<const std::int64_t> bit0, Adjacency& next) {
    const std::int64_t n = ctx_.n;
    CUDAG_EXPECTS(snap.n == n && static_cast<std::int64_t>(bit0.size()) == n,
                  "cuda next_snapshot: sizes differ from the engine's");
    DeviceGuard guard(ctx_.device);
    cudaStream_t s = ctx_.stream();
    const std::int64_t entries = static_cast<std::int64_t>(snap.nbrs.size());
    hold_snapshot(snap);  // a no-op unless run_level had nothing to test on this rank's rows
    uploaded_ = nullptr;
    hold_removal(removal, bit0);
    removal_held_ = nullptr;  // the next level's map is another
    keep_.resize_discard(static_cast<std::size_t>(entries + 1));
    pos_.resize_discard(static_cast<std::size_t>(entries + 1));
    removed_.resize_discard(1);
    removed_.fill_bytes(0, s);
    launch_next_keep(offsets_.data(), nbrs_.data(), n, removal_.data(), bit0_.data(), keep_.data(), removed_.data(), s);
    exclusive_sum_flags(keep_.data(), pos_.data(), entries, ctx_.cub, s);
    std::int64_t total = 0;
    unsigned long long removed = 0;
    pos_.download(&total, 1, s, static_cast<std::size_t>(entries));
    removed_.download(&removed, 1, s);
    ctx_.synchronize();
    next_offsets_.resize_discard(static_cast<std::size_t>(n + 1));
    next_nbrs_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(total, 1)));
    launch_next_gather(offsets_.data(), nbrs_.data(), n, keep_.data(), pos_.data(), next_offsets_.data(),
                       next_nbrs_.data(), s);
    next.n = n;
    next.offsets.resize(static_cast<std::size_t>(n + 1));
    next.nbrs.resize(static_cast<std::size_t>(total));
    next_offsets_.download(next.offsets.data(), next.offsets.size(), s);
    next_nbrs_.download(next.nbrs.data(), next.nbrs.size(), s);
    ctx_.synchronize();
    keep_pending(next_offsets_, next_nbrs_, next.offsets, next.nbrs.size());
    return static_cast<std::int64_t>(removed);
}

void FisherResults::adopt_pmax(const skeleton::PmaxTable& pmax, bool from_level0) {
    host_valid_ = false;
    const std::int64_t n = ctx_.n;
    DeviceGuard guard(ctx_.device);
    cudaStream_t s = ctx_.stream();
    const std::size_t count = pmax.values().size();
    dp_dense_ = pmax.is_dense();
    if (from_level0 && level0_whole_ && dp_dense_ && l0_.dense.size() == count) {
        std::swap(dpmax_, l0_.dense);  // level 0's p-values are the table: no copy
    } else if (from_level0 && level0_whole_ && !dp_dense_ && count > 0 && l0_.kp.size() == count &&
               l0_.koffsets.size() == static_cast<std::size_t>(n + 1)) {
        std::swap(dpmax_, l0_.kp);  // level 0's kept pairs (upper CSR) are the sparse table
        std::swap(dpoff_, l0_.koffsets);
        std::swap(dpcol_, l0_.kcols);
    } else {
        CUDAG_ASSERT(!p_stayed_);  // the host table has no values to read
        dpmax_.resize_discard(std::max<std::size_t>(count, 1));
        dpmax_.upload(pmax.values().data(), count, s);
        if (!dp_dense_) {
            dpoff_.resize_discard(static_cast<std::size_t>(n + 1));
            dpoff_.upload(pmax.row_offsets(), static_cast<std::size_t>(n + 1), s);
            dpcol_.resize_discard(std::max<std::size_t>(count, 1));
            dpcol_.upload(pmax.cols(), count, s);
        }
        ctx_.synchronize();  // the host table may change once this returns
    }
    dp_held_ = true;
    p_stayed_ = false;
    dp_count_ = count;
}

void FisherResults::settle_level(const Adjacency& snap, std::span<const std::byte> removal,
                                 std::span<const std::int64_t> bit0, skeleton::SepSetLog& log) {
    const std::int64_t n = ctx_.n;
    CUDAG_EXPECTS(snap.n == n && static_cast<std::int64_t>(bit0.size()) == n,
                  "cuda settle_level: sizes differ from the engine's");
    host_valid_ = false;  // the level raises the table
    DeviceGuard guard(ctx_.device);
    cudaStream_t s = ctx_.stream();
    hold_removal(removal, bit0);
    removal_held_ = removal.data();
    if (level_.rows == 0) return;  // nothing tested on this rank's rows
    StepTrace tr;
    tr.start();
    struct Print {  // every return path
        StepTrace& t;
        ~Print() { t.print("cuda settle"); }
    } print{tr};
    CUDAG_ASSERT(dp_held_ && uploaded_ == &snap);
    SettleArgs a;
    a.n = n;
    a.offsets = offsets_.data();
    a.nbrs = nbrs_.data();
    a.mirror = level_.mirror;
    a.removal = removal_.data();
    a.bit0 = bit0_.data();
    a.rows = level_.row_ids;
    a.n_rows = level_.rows;
    a.e_begin = level_.e_begin;
    a.e_end = level_.e_end;
    a.p = level_.p;
    a.dense = dp_dense_;
    a.poff = dpoff_.data();
    a.pcol = dpcol_.data();
    a.table = reinterpret_cast<unsigned long long*>(dpmax_.data());
    a.sel = level_.sel;
    a.n_sel = level_.n_sel;
    a.sets = level_.sets;
    a.l = level_.l;
    launch_settle_pmax(a, s);
    if (level_.n_sel == 0) return;
    wkeep_.resize_discard(static_cast<std::size_t>(level_.n_sel + 1));
    wpos_.resize_discard(static_cast<std::size_t>(level_.n_sel + 1));
    a.keep = wkeep_.data();
    a.pos = wpos_.data();
    launch_settle_keep(a, s);
    exclusive_sum_flags(wkeep_.data(), wpos_.data(), level_.n_sel, ctx_.cub, s);
    std::int64_t count = 0;
    wpos_.download(&count, 1, s, static_cast<std::size_t>(level_.n_sel));
    ctx_.synchronize();
    tr.mark("pmax raised, winners counted");
    if (count == 0) return;
    const auto l = static_cast<std::size_t>(level_.l);
    wpairs_.resize_discard(static_cast<std::size_t>(2 * count));
    wnodes_.resize_discard(static_cast<std::size_t>(count) * l);
    a.pairs_out = wpairs_.data();
    a.nodes_out = wnodes_.data();
    launch_settle_records(a, s);
    // The log's room, faulted in on threads while the records are written.
    const skeleton::SepSetLog::Slots room =
        log.append_uniform(static_cast<std::size_t>(count), level_.l, ctx_.host_threads);
    first_touch(room.pairs, static_cast<std::size_t>(2 * count) * sizeof(std::int32_t), ctx_.host_threads);
    first_touch(room.nodes, static_cast<std::size_t>(count) * l * sizeof(std::int32_t), ctx_.host_threads);
    tr.mark("log room");
    wpairs_.download(room.pairs, static_cast<std::size_t>(2 * count), s);
    wnodes_.download(room.nodes, static_cast<std::size_t>(count) * l, s);
    ctx_.synchronize();
    tr.mark("records downloaded");
}

void FisherResults::return_pmax(skeleton::PmaxTable& pmax, bool overwrite) {
    const std::size_t count = pmax.values().size();
    CUDAG_EXPECTS(dp_held_ && (count == dpmax_.size() || (count == 0 && dpmax_.size() == 1)),
                  "cuda return_pmax: the table differs from the one adopted");
    DeviceGuard guard(ctx_.device);
    cudaStream_t s = ctx_.stream();
    if (overwrite) {
        // After level 0's p-values stayed here the host table is fresh memory: fault it
        // in on threads, not page by page inside the copy (n100000: 383 ms for 414 MB).
        first_touch(pmax.values().data(), count * sizeof(double), ctx_.host_threads);
        dpmax_.download(pmax.values().data(), count, s);
        ctx_.synchronize();
        return;
    }
    BulkVector<double> mine(count);
    first_touch(mine.data(), count * sizeof(double), ctx_.host_threads);
    dpmax_.download(mine.data(), count, s);
    ctx_.synchronize();
    double* v = pmax.values().data();
    parallel_for(0, static_cast<std::int64_t>(count), std::max(1, ctx_.host_threads), 1 << 16,
                 [&](std::int64_t k, int) { v[k] = std::max(v[k], mine[static_cast<std::size_t>(k)]); });
}

FisherResults::PmaxBuffer FisherResults::pmax_buffer() {
    if (!dp_held_ || dp_count_ == 0) return {};
    host_valid_ = false;  // the ranks reduce it in place
    DeviceGuard guard(ctx_.device);
    ctx_.synchronize();  // the settle kernels that raised it have finished
    return {std::span<double>(dpmax_.data(), dp_count_), true};
}

skeleton::PairPList FisherResults::pmax_pairs() {
    CUDAG_EXPECTS(dp_held_, "cuda pmax_pairs: no table adopted");
    static_assert(sizeof(skeleton::PairP) == sizeof(TablePair) &&
                  offsetof(skeleton::PairP, p) == offsetof(TablePair, p));
    if (host_valid_) {  // read with the resident levels' results, unchanged since: listed here
        CUDAG_ASSERT(dp_dense_ && host_values_.size() == dp_count_);
        const std::int64_t n = ctx_.n;
        std::size_t have = 0;
        for (const double v : host_values_) have += v >= 0.0;
        skeleton::PairPList out(have);
        std::size_t slot = 0, k = 0;
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = i + 1; j < n; ++j, ++slot)
                if (const double v = host_values_[slot]; v >= 0.0)
                    out[k++] = {static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), v};
        return out;
    }
    DeviceGuard guard(ctx_.device);
    cudaStream_t s = ctx_.stream();
    StepTrace tr;
    tr.start();
    const auto count = static_cast<std::int64_t>(dp_count_);
    wkeep_.resize_discard(static_cast<std::size_t>(count + 1));
    wpos_.resize_discard(static_cast<std::size_t>(count + 1));
    TablePairsArgs a;
    a.n = ctx_.n;
    a.dense = dp_dense_;
    a.poff = dpoff_.data();
    a.pcol = dpcol_.data();
    a.values = dpmax_.data();
    a.count = count;
    a.flag = wkeep_.data();
    a.pos = wpos_.data();
    launch_table_flags(a, s);
    exclusive_sum_flags(wkeep_.data(), wpos_.data(), count, ctx_.cub, s);
    std::int64_t total = 0;
    wpos_.download(&total, 1, s, static_cast<std::size_t>(count));
    ctx_.synchronize();
    tr.mark("counted");
    skeleton::PairPList out(static_cast<std::size_t>(total));
    if (total == 0) return out;
    table_pairs_.resize_discard(static_cast<std::size_t>(total));
    a.out = table_pairs_.data();
    launch_table_pairs(a, s);
    first_touch(out.data(), static_cast<std::size_t>(total) * sizeof(skeleton::PairP), ctx_.host_threads);
    tr.mark("listed+touched");
    table_pairs_.download(reinterpret_cast<TablePair*>(out.data()), static_cast<std::size_t>(total), s);
    ctx_.synchronize();
    tr.mark("downloaded");
    tr.print("cuda pmax pairs");
    return out;
}

}  // namespace cudag::cuda
