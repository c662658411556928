// SPDX-License-Identifier: Apache-2.0
// The level loop's levels l >= 1 (skeleton/search.hpp): the engine's run of this rank's
// block, the removal map, the next snapshot. The host work of a level is O(entries) and
// runs on opt_.threads threads, in passes over runs of rows with about equal entry counts;
// every pass writes disjoint data, so the outcome is the same for any thread count.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "skeleton/partition.hpp"
#include "skeleton/row_work.hpp"
#include "skeleton/search.hpp"

namespace cudag::skeleton::detail {

std::vector<std::int64_t> Search::runs_of(const Adjacency& a, std::int64_t rb, std::int64_t re) const {
    return row_runs(a, rb, re, lt_);
}

template <class Fn>
void Search::for_runs(const std::vector<std::int64_t>& cut, Fn&& fn) const {
    parallel_for(0, static_cast<std::int64_t>(cut.size()) - 1, lt_, 1, [&](std::int64_t k, int w) {
        fn(cut[static_cast<std::size_t>(k)], cut[static_cast<std::size_t>(k) + 1], w);
    });
}

void Search::level(int l) {
    const auto t0 = std::chrono::steady_clock::now();
    trace_.start();
    // The snapshot: the previous level's, less its removals (built at its end, in
    // O(entries)), or level 0's from the engine, or from the bit set (level 1 of an
    // engine that hands no adjacency over, after a resume).
    const Adjacency snap = have_next_ ? std::move(next_) : Adjacency::from_graph(g_, threads_);
    have_next_ = false;
    // Threads by the level's size: a small level is done before threads would start.
    lt_ = threads_for(static_cast<std::int64_t>(snap.nbrs.size()), kEntriesPerThread, threads_);
    const std::vector<double> work = row_work(snap, l);
    if (hooks_.on_level_start && comm_.rank() == 0) {
        LevelPlan plan;
        plan.level = l;
        for (std::int64_t i = 0; i < n_; ++i) {
            plan.planned_tests += work[static_cast<std::size_t>(i)];
            plan.rows += work[static_cast<std::size_t>(i)] > 0.0;
            plan.max_degree = std::max(plan.max_degree, snap.degree(i));
        }
        hooks_.on_level_start(plan);
    }
    LevelFrame f;
    f.level = l;
    f.snap = &snap;
    f.threads = lt_;
    const double imbalance = cut_level(snap, work, comm_.size(), comm_.rank(), engine_.splits_rows(), f);
    trace_.mark("snapshot+partition");
    mpi::run_agreed(comm_, [&] {
        results_->prepare(f, out_);
        engine_.run_level(l, snap, f.block(), out_);
        keep_required(f);
    });
    trace_.mark("engine");
    const auto t_merge = std::chrono::steady_clock::now();
    const TestCount tests = count_tests(out_.tests);

    results_->merge_removals(f, out_, removal_);
    const auto separated = [&](std::int64_t a, std::int64_t e) { return f.separated(removal_, a, e); };
    trace_.mark("removal map");
    results_->settle(f, out_, removal_);
    sort_early();

    // The next level's snapshot: this one less the removed pairs. From the engine when
    // it builds it (a GPU, on its own copy of the snapshot: every rank alike without
    // host work); the graph then catches up only when it is needed (sync_graph).
    std::int64_t removed = results_->next_snapshot(f, removal_, next_);
    if (removed >= 0) {
        graph_stale_ = true;
        trace_.mark("next snapshot (engine)");
    } else {
        if (graph_stale_ && g_.dense()) sync_graph(snap);
        removed = host_next_snapshot(snap, separated);
    }
    have_next_ = true;
    next_max_degree_ = next_.max_degree();
    if (opt_.bnlearn_pairs && l == 1) freeze_bnlearn_pairs(snap);
    trace_.print(("host level " + std::to_string(l)).c_str());
    LevelStats st;
    st.level = l;
    st.tests = tests.total;
    st.tests_imbalance = tests.imbalance;
    st.removed = removed;
    st.edges_after = static_cast<std::int64_t>(snap.nbrs.size()) / 2 - removed;
    st.imbalance = imbalance;
    st.seconds = seconds_since(t0);
    if (comm_.size() > 1) st.merge_seconds = seconds_since(t_merge);
    end_level(st);
}

int Search::engine_levels(int l) {
    // Exhaustive searches keep their results on the host: hand_table_to_engine() declines.
    if (comm_.size() != 1 || has_kept_pairs() || hooks_.on_checkpoint || hooks_.stop_after_level >= 0) return 0;
    int last = opt_.max_level >= 0 ? opt_.max_level : std::numeric_limits<int>::max();
    if (opt_.max_supported_level >= 0) last = std::min(last, opt_.max_supported_level);
    if (!results_->hand_table_to_engine()) return 0;
    const auto t0 = std::chrono::steady_clock::now();
    if (!have_next_) {  // level() takes it from next_ when the engine declines
        next_ = Adjacency::from_graph(g_, threads_);
        have_next_ = true;
        next_max_degree_ = next_.max_degree();
    }
    std::vector<SkeletonEngine::ResidentLevel> ran;
    Adjacency after;
    const int count = engine_.run_levels(l, last, next_, log_, ran, after);
    if (count == 0) return 0;
    CUDAG_ASSERT(static_cast<int>(ran.size()) == count && after.n == n_);
    next_ = std::move(after);
    next_max_degree_ = next_.max_degree();
    graph_stale_ = true;  // the graph catches up from next_ when needed
    // The levels' wall time as the device measured it, the host's part added to the first.
    double device_s = 0.0;
    for (const auto& r : ran) device_s += r.seconds;
    const double host_s = std::max(0.0, seconds_since(t0) - device_s);
    for (std::size_t k = 0; k < ran.size(); ++k) {
        const SkeletonEngine::ResidentLevel& r = ran[k];
        if (hooks_.on_level_start) hooks_.on_level_start(r.plan);
        LevelStats st;
        st.level = r.plan.level;
        st.tests = r.tests;
        st.removed = r.removed;
        st.edges_after = r.edges_after;
        st.seconds = r.seconds + (k == 0 ? host_s : 0.0);
        end_level(st);
    }
    sort_early();
    return count;
}

template <class Separated>
std::int64_t Search::host_next_snapshot(const Adjacency& snap, const Separated& separated) {
    // Apply the removals symmetrically (every rank alike): a separated entry clears
    // both bits of its pair (atomically: the mirror bit lies in another row), and the
    // thread that clears the (i < j) bit counts the pair.
    const std::vector<std::int64_t> all = runs_of(snap, 0, n_);
    if (!g_.dense()) return sparse_next_snapshot(snap, all, separated);
    std::vector<std::int64_t> removed_in(all.size() - 1, 0);
    std::uint64_t* words = g_.words().data();
    const std::int64_t wpr = g_.words_per_row();
    const auto clear = [&](std::int64_t a, std::int64_t b) {
        const std::uint64_t mask = std::uint64_t{1} << (b & 63);
        std::atomic_ref<std::uint64_t> w(words[a * wpr + (b >> 6)]);
        return (w.fetch_and(~mask, std::memory_order_relaxed) & mask) != 0;
    };
    parallel_for(0, static_cast<std::int64_t>(all.size()) - 1, lt_, 1, [&](std::int64_t k, int) {
        std::int64_t count = 0;
        for (std::int64_t a = all[static_cast<std::size_t>(k)]; a < all[static_cast<std::size_t>(k) + 1]; ++a)
            for (std::int64_t e = snap.offsets[a]; e < snap.offsets[a + 1]; ++e) {
                if (!separated(a, e)) continue;
                const std::int64_t b = snap.nbrs[static_cast<std::size_t>(e)];
                const bool was_ab = clear(a, b), was_ba = clear(b, a);
                if (a < b ? was_ab : was_ba) ++count;
            }
        removed_in[static_cast<std::size_t>(k)] = count;
    });
    const std::int64_t removed = std::accumulate(removed_in.begin(), removed_in.end(), std::int64_t{0});
    trace_.mark("removals");
    // The next level's snapshot: this one less the removed entries.
    filter_into_next(snap, all,
                     [&](std::int64_t a, std::int64_t e) { return g_.has(a, snap.nbrs[static_cast<std::size_t>(e)]); });
    trace_.mark("next snapshot");
    return removed;
}

template <class Keep>
void Search::filter_into_next(const Adjacency& snap, const std::vector<std::int64_t>& all, const Keep& keep) {
    next_.n = n_;
    next_.offsets.assign(static_cast<std::size_t>(n_ + 1), 0);
    for_runs(all, [&](std::int64_t a0, std::int64_t a1, int) {
        for (std::int64_t a = a0; a < a1; ++a) {
            std::int64_t kept = 0;
            for (std::int64_t e = snap.offsets[a]; e < snap.offsets[a + 1]; ++e) kept += keep(a, e);
            next_.offsets[static_cast<std::size_t>(a + 1)] = kept;
        }
    });
    for (std::int64_t a = 0; a < n_; ++a)
        next_.offsets[static_cast<std::size_t>(a + 1)] += next_.offsets[static_cast<std::size_t>(a)];
    next_.nbrs.resize(static_cast<std::size_t>(next_.offsets.back()));
    for_runs(all, [&](std::int64_t a0, std::int64_t a1, int) {
        for (std::int64_t a = a0; a < a1; ++a) {
            std::int64_t p = next_.offsets[static_cast<std::size_t>(a)];
            for (std::int64_t e = snap.offsets[a]; e < snap.offsets[a + 1]; ++e)
                if (keep(a, e)) next_.nbrs[static_cast<std::size_t>(p++)] = snap.nbrs[static_cast<std::size_t>(e)];
        }
    });
}

template <class Separated>
std::int64_t Search::sparse_next_snapshot(const Adjacency& snap, const std::vector<std::int64_t>& all,
                                          const Separated& separated) {
    const auto gone = [&](std::int64_t a, std::int64_t e) {
        if (separated(a, e)) return true;
        const std::int32_t b = snap.nbrs[static_cast<std::size_t>(e)];
        const std::int64_t mirror = snap.find(b, static_cast<std::int32_t>(a));
        return mirror >= 0 && separated(b, mirror);
    };
    std::vector<std::int64_t> removed_in(all.size() - 1, 0);
    parallel_for(0, static_cast<std::int64_t>(all.size()) - 1, lt_, 1, [&](std::int64_t k, int) {
        std::int64_t count = 0;
        for (std::int64_t a = all[static_cast<std::size_t>(k)]; a < all[static_cast<std::size_t>(k) + 1]; ++a)
            for (std::int64_t e = snap.offsets[a]; e < snap.offsets[a + 1]; ++e)
                count += a < snap.nbrs[static_cast<std::size_t>(e)] && gone(a, e);
        removed_in[static_cast<std::size_t>(k)] = count;
    });
    filter_into_next(snap, all, [&](std::int64_t a, std::int64_t e) { return !gone(a, e); });
    graph_stale_ = true;  // the graph catches up from next_ when needed
    trace_.mark("next snapshot (sparse)");
    return std::accumulate(removed_in.begin(), removed_in.end(), std::int64_t{0});
}

void Search::sync_graph(const Adjacency& a) {
    g_.assign(a, threads_);
    graph_stale_ = false;
}

}  // namespace cudag::skeleton::detail
