// SPDX-License-Identifier: Apache-2.0
#include "skeleton/skeleton.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <string>
#include <numeric>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "core/pair_index.hpp"
#include "core/parallel.hpp"
#include "core/trace.hpp"
#include "mpi/partition.hpp"
#include "skeleton/level_results.hpp"
#include "skeleton/merge.hpp"
#include "skeleton/row_work.hpp"

namespace cudag::skeleton {
namespace {

using mpi::Communicator;
using mpi::ReduceOp;
using mpi::RowPartition;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Call fn(i, j) for every edge (i, j) of the rows [row_begin, row_end) of `g`.
template <class Fn>
void for_each_bit(const Graph& g, std::int64_t row_begin, std::int64_t row_end, Fn&& fn) {
    for (std::int64_t i = row_begin; i < row_end; ++i)
        g.for_each_neighbour(i, [&](std::int32_t j) { fn(static_cast<std::int32_t>(i), j); });
}

/// The distributed search: state that lives across levels on every rank.
class Search {
public:
    Search(SkeletonEngine& engine, const SkeletonOptions& opt, Communicator& comm, const LevelCallback& on_level,
           const SkeletonHooks& hooks)
        : engine_(engine),
          opt_(opt),
          pol_(opt.policy),
          comm_(comm),
          on_level_(on_level),
          hooks_(hooks),
          n_(engine.n_vars()),
          dense_(n_ <= opt.dense_pmax_limit),
          g_(n_),
          threads_(std::max(1, opt.threads)) {
        // Device-resident results for an engine that offers them, unless every set of a
        // level is tested (exhaustive: the host unites the sets).
        DeviceResults* dev = opt.policy.exhaustive ? nullptr : engine.device_results();
        if (dev)
            results_ = std::make_unique<detail::DeviceResidentResults>(*dev, comm_, pmax_, log_, trace_);
        else
            results_ = std::make_unique<detail::HostResults>(pol_, n_, comm_, pmax_, log_, trace_);
        distributed_ = opt.distributed_records && comm_.size() > 1;
        if (distributed_) {
            // Record rows: blocks of equal pair counts (row i has the n - 1 - i pairs i < j),
            // the same cut on every rank and at every checkpoint.
            std::vector<double> pairs(static_cast<std::size_t>(n_));
            for (std::int64_t i = 0; i < n_; ++i) pairs[static_cast<std::size_t>(i)] = static_cast<double>(n_ - 1 - i);
            record_cut_ = mpi::partition_rows(pairs, comm_.size()).bounds;
            rows_ = {record_cut_[static_cast<std::size_t>(comm_.rank())],
                     record_cut_[static_cast<std::size_t>(comm_.rank()) + 1]};
        }
    }

    SkeletonResult run() {
        int first = 1;
        if (!resume(first)) level0();
        for (int l = first;; ++l) {
            if (opt_.max_level >= 0 && l > opt_.max_level) break;
            if ((have_next_ ? next_max_degree_ : g_.max_degree()) - 1 < l) break;
            mpi::run_agreed(comm_, [&] {
                if (opt_.max_supported_level >= 0 && l > opt_.max_supported_level)
                    throw InputError("level " + std::to_string(l) + " needs more than " + std::to_string(l + 3) +
                                     " samples (" + opt_.supported_level_reason + "); rerun with --max-level " +
                                     std::to_string(l - 1));
            });
            level(l);
        }
        return finish();
    }

private:
    struct TestCount {
        std::int64_t total = 0;
        double imbalance = 1.0;  ///< busiest rank over the mean
    };
    /// Every rank's test count of the level (one allgather): the sum and the imbalance.
    TestCount count_tests(std::int64_t mine) {
        if (comm_.size() == 1) return {mine, 1.0};
        const std::vector<std::int64_t> all = comm_.allgather(mine);
        TestCount c;
        std::int64_t busiest = 0;
        for (std::int64_t t : all) {
            c.total += t;
            busiest = std::max(busiest, t);
        }
        if (c.total > 0) c.imbalance = static_cast<double>(busiest) * comm_.size() / static_cast<double>(c.total);
        return c;
    }

    // ---- level 0 -------------------------------------------------------------------
    /// Add the pairs (i, j) listed by an upper-triangle CSR (row i's j at
    /// [start[i], start[i + 1]) of cols) to g_ in both directions, rows on the threads.
    void add_upper_pairs(const std::int64_t* start, const std::int32_t* cols) {
        g_.add_upper_pairs(start, cols, threads_);
    }

    /// Level 0 split over the ranks: each rank's rows hold the pairs (i, j > i) it kept;
    /// share those upper halves as neighbour lists (the graph after level 0 is sparse: this
    /// moves 4 bytes per kept pair, not n²/8 bytes of bit map) and build the graph from
    /// them. From an engine that lists its rows (`csr`) with a sparse pMax table, the table
    /// is made from the shared lists too, with this rank's p-values in its rows (returns
    /// true); otherwise the caller fills it.
    bool share_level0_rows(const RowPartition& part, std::int64_t rb, std::int64_t re, bool csr, Level0Output& out) {
        const int parts = part.parts();
        std::vector<std::int64_t> row_len(static_cast<std::size_t>(n_), 0);
        std::vector<std::int32_t> mine;      // this rank's upper lists, from the graph
        const std::int32_t* send = nullptr;  // ... or straight from the engine's CSR
        if (csr) {
            const std::int64_t* o = out.kept_offsets.data();
            for (std::int64_t i = rb; i < re; ++i) row_len[static_cast<std::size_t>(i)] = o[i + 1] - o[i];
            send = out.kept_cols.data() + o[rb];
        } else {
            for_each_bit(g_, rb, re, [&](std::int32_t i, std::int32_t j) {
                if (j <= i) return;
                mine.push_back(j);
                ++row_len[static_cast<std::size_t>(i)];
            });
        }
        std::vector<std::size_t> rows(static_cast<std::size_t>(parts)), kept(rows.size());
        for (int r = 0; r < parts; ++r)
            rows[static_cast<std::size_t>(r)] = static_cast<std::size_t>(part.end(r) - part.begin(r));
        comm_.allgatherv(row_len.data() + rb, row_len.data(), rows, mpi::DataType::Int64);
        for (int r = 0; r < parts; ++r)
            for (std::int64_t i = part.begin(r); i < part.end(r); ++i)
                kept[static_cast<std::size_t>(r)] += static_cast<std::size_t>(row_len[static_cast<std::size_t>(i)]);
        BulkVector<std::int32_t> all(std::accumulate(kept.begin(), kept.end(), std::size_t{0}));
        comm_.allgatherv(csr ? send : mine.data(), all.data(), kept, mpi::DataType::Int32);
        std::vector<std::int32_t>().swap(mine);
        trace_.mark("lists shared");
        // The graph again from the shared lists.
        BulkVector<std::int64_t> start(static_cast<std::size_t>(n_) + 1);
        start[0] = 0;
        std::partial_sum(row_len.begin(), row_len.end(), start.begin() + 1);
        g_ = Graph(n_);
        add_upper_pairs(start.data(), all.data());
        trace_.mark("graph rebuilt");
        if (!csr || dense_) return false;
        // The sparse table holds exactly the shared pairs; this rank's rows get their p
        // (row i's at kept_offsets[i].. in the engine's lists, at start[i].. in the table).
        CUDAG_ASSERT(!out.p_stayed);
        BulkVector<double> values(all.size());
        parallel_for(0, n_, threads_, 1 << 14, [&](std::int64_t i, int) {
            const auto b = static_cast<std::ptrdiff_t>(start[static_cast<std::size_t>(i)]);
            const auto e = static_cast<std::ptrdiff_t>(start[static_cast<std::size_t>(i) + 1]);
            if (i >= rb && i < re)
                std::copy_n(out.kept_pvals.begin() + out.kept_offsets[static_cast<std::size_t>(i)], e - b,
                            values.begin() + b);
            else
                std::fill(values.begin() + b, values.begin() + e, -1.0);
        });
        pmax_ = PmaxTable::from_upper_csr(n_, std::move(start), std::move(all), std::move(values));
        return true;
    }

    void level0() {
        const auto t0 = std::chrono::steady_clock::now();
        trace_.start();
        // Every rank runs all rows when the engine finds that cheaper than sharing.
        const bool everywhere = comm_.size() == 1 || (opt_.level0_on_every_rank < 0 ? engine_.level0_on_every_rank()
                                                                                    : opt_.level0_on_every_rank != 0);
        Adjacency empty;
        empty.n = n_;
        const RowPartition part = mpi::partition_rows(row_work(empty, 0), everywhere ? 1 : comm_.size());
        const std::int64_t rb = everywhere ? 0 : part.begin(comm_.rank());
        const std::int64_t re = everywhere ? n_ : part.end(comm_.rank());
        Level0Output out;
        // Knowledge changes level 0's outcome on the host: the p-values come back.
        out.p_may_stay = results_->p_may_stay(everywhere) && !has_knowledge();
        out.adjacency_is_next = !has_knowledge();
        if (dense_) {
            pmax_ = PmaxTable::dense(n_, threads_);
            out.dense_p = std::move(pmax_.values());
        }
        mpi::run_agreed(comm_, [&] { engine_.level0(rb, re, dense_, g_, out); });
        trace_.mark("engine");
        const auto t_merge = std::chrono::steady_clock::now();
        const TestCount tests = everywhere ? TestCount{out.tests, 1.0} : count_tests(out.tests);
        const bool csr = !out.kept_offsets.empty();
        if (everywhere && out.adjacency.n == n_) {
            // Level 1 starts from the engine's CSR; the graph catches up when needed.
            next_ = std::move(out.adjacency);
            next_max_degree_ = next_.max_degree();
            have_next_ = true;
            graph_stale_ = true;
        } else if (csr && everywhere) {
            add_upper_pairs(out.kept_offsets.data(), out.kept_cols.data());
            trace_.mark("graph");
        }
        bool pmax_shared = false;
        if (!everywhere) pmax_shared = share_level0_rows(part, rb, re, csr, out);
        // The CSR of all rows counts the edges without a scan of the n² bits.
        std::int64_t edges = csr && everywhere ? out.kept_offsets.back() : g_.n_edges();
        bool from_level0 = everywhere && (dense_ || csr);
        if (dense_) {
            pmax_.values() = std::move(out.dense_p);
        } else if (csr && everywhere) {
            // The kept pairs are exactly the table's pairs, with their p-values.
            pmax_ = PmaxTable::from_upper_csr(n_, std::move(out.kept_offsets), std::move(out.kept_cols),
                                              std::move(out.kept_pvals));
        } else if (!pmax_shared) {
            for (std::int64_t i = rb; csr && i < re; ++i)
                for (std::int64_t k = out.kept_offsets[static_cast<std::size_t>(i)];
                     k < out.kept_offsets[static_cast<std::size_t>(i) + 1]; ++k)
                    out.kept_p.push_back({static_cast<std::int32_t>(i), out.kept_cols[static_cast<std::size_t>(k)],
                                          out.kept_pvals[static_cast<std::size_t>(k)]});
            pmax_ = PmaxTable::sparse(g_, threads_);
            pmax_.raise_all(std::move(out.kept_p), threads_);
        }
        if (has_knowledge()) {
            edges = apply_knowledge_level0();
            from_level0 = false;
        }
        CUDAG_ASSERT(!out.p_stayed || out.p_may_stay);
        results_->level0_done(from_level0, out.p_stayed);
        trace_.mark("pmax");
        trace_.print("host level 0");
        LevelStats st;
        st.level = 0;
        st.tests = tests.total;
        st.tests_imbalance = tests.imbalance;
        st.edges_after = edges;
        st.removed = pair_count(n_) - st.edges_after;
        st.imbalance = everywhere ? 1.0 : part.imbalance;
        st.seconds = seconds_since(t0);
        if (!everywhere) st.merge_seconds = seconds_since(t_merge);
        end_level(st);
    }

    // ---- background knowledge ---------------------------------------------------------
    bool has_knowledge() const { return !opt_.forbidden_pairs.empty() || !opt_.required_pairs.empty(); }
    static bool listed(const std::vector<std::pair<std::int32_t, std::int32_t>>& pairs, std::int32_t i,
                       std::int32_t j) {
        const std::pair<std::int32_t, std::int32_t> key(std::min(i, j), std::max(i, j));
        return std::binary_search(pairs.begin(), pairs.end(), key);
    }
    bool knowledge_pair(std::int32_t i, std::int32_t j) const {
        return listed(opt_.forbidden_pairs, i, j) || listed(opt_.required_pairs, i, j);
    }

    /// After level 0 (every rank alike): forbidden pairs out of the graph, required pairs
    /// in, the next level's snapshot from the graph, and a sparse pMax table over the
    /// pairs now adjacent (the knowledge pairs' values are dropped at the end). Returns
    /// the edges left.
    std::int64_t apply_knowledge_level0() {
        if (graph_stale_) sync_graph(next_);
        have_next_ = false;
        for (const auto& [i, j] : opt_.forbidden_pairs) g_.remove(i, j);
        for (const auto& [i, j] : opt_.required_pairs) g_.add(i, j);
        if (!dense_) {
            PairPList kept = pmax_.pairs(threads_);
            std::erase_if(kept, [this](const PairP& q) { return !g_.has(q.i, q.j); });
            pmax_ = PmaxTable::sparse(g_, threads_);
            pmax_.raise_all(std::move(kept), threads_);
        }
        trace_.mark("knowledge");
        return g_.n_edges();
    }

    /// A level's outcome on this rank's rows, before the merge: no entry of a required
    /// pair counts as separated (nor, with host results, as tested).
    void keep_required(const detail::LevelFrame& f) {
        const Adjacency& snap = *f.snap;
        for (const auto& [i, j] : opt_.required_pairs)
            for (const auto& [a, b] : {std::pair{i, j}, std::pair{j, i}}) {
                const std::int64_t e = snap.find(a, b);
                CUDAG_ASSERT(e >= 0);
                if (e < f.eb || e >= f.ee) continue;  // another rank's entry
                if (out_.packed) {
                    const std::int64_t k = e - f.eb;
                    out_.removal_bits[static_cast<std::size_t>(k >> 3)] &= ~(std::byte{1} << (k & 7));
                } else {
                    out_.flags[static_cast<std::size_t>(e)] = 0;
                }
            }
    }

    /// The final tables without the knowledge pairs (an engine that keeps its own results
    /// may have logged or raised them).
    void drop_knowledge_pairs(SkeletonResult& res) const {
        if (!has_knowledge()) return;
        std::erase_if(res.pmax, [this](const PairP& q) { return knowledge_pair(q.i, q.j); });
        bool any = false;
        for (const std::uint64_t k : res.sepsets.keys()) {
            const auto [i, j] = SepSets::unpack(k);
            any = any || knowledge_pair(i, j);
        }
        if (!any) return;
        SepSets kept;
        const auto keys = res.sepsets.keys();
        const auto offs = res.sepsets.offsets();
        const auto nodes = res.sepsets.nodes();
        for (std::size_t r = 0; r < keys.size(); ++r) {
            const auto [i, j] = SepSets::unpack(keys[r]);
            if (knowledge_pair(i, j)) continue;
            kept.append_sorted(
                i, j,
                nodes.subspan(static_cast<std::size_t>(offs[r]), static_cast<std::size_t>(offs[r + 1] - offs[r])));
        }
        res.sepsets = std::move(kept);
    }

    // ---- level l >= 1 ---------------------------------------------------------------
    // The host work of a level is O(entries) and runs on opt_.threads threads, in passes
    // over runs of rows with about equal entry counts; every pass writes disjoint data, so
    // the outcome is the same for any thread count.

    /// Row boundaries cutting [rb, re) of `a` into runs of about equal entry counts.
    std::vector<std::int64_t> runs_of(const Adjacency& a, std::int64_t rb, std::int64_t re) const {
        return detail::row_runs(a, rb, re, lt_);
    }
    /// fn(first row, end row, worker) for every run of `cut`, on the worker threads.
    template <class Fn>
    void for_runs(const std::vector<std::int64_t>& cut, Fn&& fn) const {
        parallel_for(0, static_cast<std::int64_t>(cut.size()) - 1, lt_, 1, [&](std::int64_t k, int w) {
            fn(cut[static_cast<std::size_t>(k)], cut[static_cast<std::size_t>(k) + 1], w);
        });
    }

    /// This rank's part of level `f.level` and the layout of the level's removal map (see
    /// detail::LevelFrame); returns the estimated imbalance. An engine that splits rows gets
    /// entries of equal estimated work (a hub row's entries spread over the ranks; the
    /// merged map is then laid out by entry: bit e <=> entry e), any other contiguous whole
    /// rows of equal work (row a's entries from bit bit0[a] of its owner's block).
    double cut_level(const Adjacency& snap, const std::vector<double>& work, detail::LevelFrame& f) const {
        const int parts = comm_.size(), me = comm_.rank();
        std::vector<std::int64_t> entry_cut(static_cast<std::size_t>(parts) + 1);
        double imbalance = 1.0;
        const bool split = parts > 1 && engine_.splits_rows();
        if (split) {
            std::vector<double> per_entry(static_cast<std::size_t>(n_), 0.0);
            for (std::int64_t i = 0; i < n_; ++i)
                if (const std::int64_t d = snap.degree(i); d > 0)
                    per_entry[static_cast<std::size_t>(i)] = work[static_cast<std::size_t>(i)] / static_cast<double>(d);
            const mpi::EntryPartition part = mpi::partition_entries(snap.offsets, per_entry, parts, 1);
            entry_cut = part.bounds;
            imbalance = part.imbalance;
            f.eb = part.begin(me);
            f.ee = part.end(me);
            // The rows holding the block's entries (none when it is empty).
            const auto row_of = [&](std::int64_t e) {
                return static_cast<std::int64_t>(std::upper_bound(snap.offsets.begin(), snap.offsets.end(), e) -
                                                 snap.offsets.begin()) -
                       1;
            };
            f.rb = f.ee > f.eb ? row_of(f.eb) : 0;
            f.re = f.ee > f.eb ? row_of(f.ee - 1) + 1 : 0;
        } else {
            const RowPartition part = mpi::partition_rows(work, parts);
            for (int r = 0; r <= parts; ++r)
                entry_cut[static_cast<std::size_t>(r)] =
                    snap.offsets[static_cast<std::size_t>(part.bounds[static_cast<std::size_t>(r)])];
            imbalance = part.imbalance;
            f.rb = part.begin(me);
            f.re = part.end(me);
            f.eb = snap.offsets[f.rb];
            f.ee = snap.offsets[f.re];
        }
        // Removal map: rank r packs the entries of its block from bit 0 of its own byte
        // block; one allgatherv gives every rank the whole map. Its size follows the edges
        // left (entries / 8 bytes), not n² / 8.
        f.by_entry = split;
        f.entry_cut = entry_cut;
        f.counts.resize(static_cast<std::size_t>(parts));
        f.first_byte.resize(f.counts.size());
        f.total = 0;
        for (int r = 0; r < parts; ++r) {
            const std::int64_t entries =
                entry_cut[static_cast<std::size_t>(r) + 1] - entry_cut[static_cast<std::size_t>(r)];
            f.first_byte[static_cast<std::size_t>(r)] = f.total;
            f.counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>((entries + 7) / 8);
            f.total += f.counts[static_cast<std::size_t>(r)];
        }
        // Bit of entry e of row a: bit0[a] + (e - offsets[a]): by entry, offsets[a]; else
        // from the start of the block of the part holding row a.
        f.bit0.resize(static_cast<std::size_t>(n_));
        if (split) {
            std::copy(snap.offsets.begin(), snap.offsets.begin() + n_, f.bit0.begin());
            return imbalance;
        }
        int r = 0;
        for (std::int64_t a = 0; a < n_; ++a) {
            const std::int64_t e = snap.offsets[static_cast<std::size_t>(a)];
            while (r + 1 < parts && e >= entry_cut[static_cast<std::size_t>(r) + 1]) ++r;
            f.bit0[static_cast<std::size_t>(a)] =
                static_cast<std::int64_t>(8 * f.first_byte[static_cast<std::size_t>(r)]) + e -
                entry_cut[static_cast<std::size_t>(r)];
        }
        return imbalance;
    }

    void level(int l) {
        const auto t0 = std::chrono::steady_clock::now();
        trace_.start();
        // The snapshot: the previous level's, less its removals (built at its end, in
        // O(entries)), or level 0's from the engine, or from the bit set (level 1 of an
        // engine that hands no adjacency over, after a resume).
        const Adjacency snap = have_next_ ? std::move(next_) : Adjacency::from_graph(g_, threads_);
        have_next_ = false;
        // Threads by the level's size: a small level is done before threads would start.
        lt_ = static_cast<int>(
            std::clamp<std::int64_t>(static_cast<std::int64_t>(snap.nbrs.size()) / kEntriesPerThread, 1, threads_));
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
        detail::LevelFrame f;
        f.level = l;
        f.snap = &snap;
        f.threads = lt_;
        const double imbalance = cut_level(snap, work, f);
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

    /// Apply a level's removals to the graph (both bits of a pair; every rank alike) and
    /// build the next snapshot from `snap` less them; returns the pairs removed.
    template <class Separated>
    std::int64_t host_next_snapshot(const Adjacency& snap, const Separated& separated) {
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
        filter_into_next(snap, all, [&](std::int64_t a, std::int64_t e) {
            return g_.has(a, snap.nbrs[static_cast<std::size_t>(e)]);
        });
        trace_.mark("next snapshot");
        return removed;
    }

    /// next_ = the entries e of rows a of `snap` for which keep(a, e) holds (rows in the runs `all`).
    template <class Keep>
    void filter_into_next(const Adjacency& snap, const std::vector<std::int64_t>& all, const Keep& keep) {
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

    /// host_next_snapshot for a graph held sparse: a pair goes when either of its entries
    /// was separated (the mirror entry found by a search of its row); the next snapshot is
    /// `snap` less those pairs, and the graph follows it (every rank alike).
    template <class Separated>
    std::int64_t sparse_next_snapshot(const Adjacency& snap, const std::vector<std::int64_t>& all,
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

    /// Bring g_ up to the snapshot `a` (after levels whose next snapshot the engine built).
    void sync_graph(const Adjacency& a) {
        g_.assign(a, threads_);
        graph_stale_ = false;
    }

    void end_level(const LevelStats& st) {
        levels_.push_back(st);
        if (on_level_) on_level_(st);
        if (hooks_.on_checkpoint && distributed_) {
            if (graph_stale_) sync_graph(next_);
            results_->gather_pmax(true, true);
            exchange();
            SkeletonState s;
            mpi::run_agreed(comm_, [&] {
                s.next_level = st.level + 1;
                s.levels = levels_;
                s.pmax = pmax_.pairs(threads_, rows_.begin, rows_.end);
                s.record_rows = rows_;
            });
            s.sepsets = std::move(owned_);
            s.skeleton = std::move(g_);
            struct Restore {  // hand the graph and the records back even when the write throws
                Graph& g;
                SepSets& owned;
                SkeletonState& s;
                ~Restore() {
                    g = std::move(s.skeleton);
                    owned = std::move(s.sepsets);
                }
            } restore{g_, owned_, s};
            hooks_.on_checkpoint(s);  // every rank: a collective write that agrees itself
        } else if (hooks_.on_checkpoint) {
            if (graph_stale_) sync_graph(next_);
            gather();
            mpi::run_agreed(comm_, [&] {
                if (comm_.rank() != 0) return;
                SkeletonState s;
                s.next_level = st.level + 1;
                s.levels = levels_;
                s.pmax = pmax_.pairs(threads_);
                s.sepsets = gathered_.to_sepsets(threads_);
                s.skeleton = std::move(g_);
                struct Restore {  // hand the graph back even when the callback throws
                    Graph& g;
                    SkeletonState& s;
                    ~Restore() { g = std::move(s.skeleton); }
                } restore{g_, s};
                hooks_.on_checkpoint(s);
            });
        }
        if (hooks_.stop_after_level == st.level) throw StoppedAfterLevel(st.level);
    }

    /// The records logged so far sorted into a table on a worker thread while the next
    /// levels run (their kernels leave the host idle), once, when there are many; finish()
    /// merges that table with the later records. Every rank (each sends rank 0 its records
    /// sorted), but not with checkpoints (they gather every level).
    void sort_early() {
        if (early_.valid() || hooks_.on_checkpoint || opt_.early_sort_records == 0 ||
            log_.size() < opt_.early_sort_records)
            return;
        early_ = std::async(std::launch::async,
                            [log = std::move(log_), threads = threads_] { return log.to_sepsets(threads); });
        log_ = SepSetLog();
    }

    /// pMax by an element-wise max over ranks (LevelResults::gather_pmax, the host table
    /// holding it when `take_pmax`); separating sets to rank 0.
    void gather(bool take_pmax = true) {
        results_->gather_pmax(take_pmax);
        std::vector<SepSetLog> parts;  // rank 0: the logs to add to gathered_
        if (comm_.size() > 1) {
            // Rank 0 keeps its own log (not sent: no serialised copy of it).
            const auto blobs = comm_.gatherv(comm_.rank() == 0 ? std::vector<std::byte>{} : log_.serialize(), 0);
            trace_.mark("logs gathered");
            for (std::size_t r = 1; r < blobs.size(); ++r) parts.push_back(SepSetLog::deserialize(blobs[r]));
        }
        if (comm_.rank() == 0) {
            // The record order does not matter (to_sepsets sorts): take rank 0's own log
            // over when nothing was gathered yet, and copy the rest on the threads.
            if (gathered_.size() == 0)
                std::swap(gathered_, log_);
            else
                parts.push_back(std::move(log_));
            gathered_.append(parts, threads_);
        }
        log_.clear();
    }

    /// Distributed records: this rank's records since the last exchange (its log and
    /// early table) sent to the ranks owning their rows, and merged with the records this
    /// rank owns (owned_). Each rank then holds every record of its rows_, in one table.
    void exchange() {
        std::vector<SepSets> tables;
        SepSets mine;
        mpi::run_agreed(comm_, [&] { mine = merge_tables(own_tables()); });
        std::vector<std::size_t> cut(static_cast<std::size_t>(comm_.size()) + 1);
        const auto keys = mine.keys();
        for (int q = 0; q <= comm_.size(); ++q) {
            const std::int64_t row = record_cut_[static_cast<std::size_t>(q)];
            cut[static_cast<std::size_t>(q)] =
                q == comm_.size()
                    ? keys.size()
                    : static_cast<std::size_t>(
                          std::lower_bound(keys.begin(), keys.end(), SepSets::pack(static_cast<std::int32_t>(row), 0)) -
                          keys.begin());
        }
        if (owned_.size() > 0) tables.push_back(std::move(owned_));
        owned_ = SepSets();
        for (int from = 0; from < comm_.size(); ++from)
            for (int to = 0; to < comm_.size(); ++to) {
                const auto t = static_cast<std::size_t>(to);
                SepSets part =
                    transfer_sepsets(comm_, comm_.rank() == from ? &mine : nullptr, comm_.rank() == from ? cut[t] : 0,
                                     comm_.rank() == from ? cut[t + 1] : 0, from, to, threads_);
                if (comm_.rank() == to && part.size() > 0) tables.push_back(std::move(part));
            }
        mine = SepSets();
        trace_.mark("records exchanged");
        mpi::run_agreed(comm_, [&] {
            if (!tables.empty()) owned_ = merge_tables(std::move(tables));
        });
        trace_.mark("records merged");
    }

    // ---- resume -------------------------------------------------------------------
    /// Continue from hooks.resume (rank 0's state, broadcast): true and the next level
    /// in `first`; false when starting afresh.
    bool resume(int& first) {
        std::int32_t have = hooks_.resume.has_value() ? 1 : 0;
        if (comm_.size() > 1) have = comm_.allreduce(have, ReduceOp::Max);
        if (!have) return false;
        std::vector<std::byte> blob;
        if (comm_.rank() == 0) {
            const SkeletonState& s = *hooks_.resume;
            CUDAG_ASSERT(s.skeleton.n() == n_);
            ByteWriter w;
            w.put(std::int32_t{s.next_level});
            w.put_vector(s.levels);
            w.put_vector(s.pmax);
            w.put_vector(s.skeleton.serialize());
            blob = w.take();
            // Distributed records: rank 0's to hand to their rows' owners at the next exchange.
            if (distributed_)
                log_ = SepSetLog::from_sepsets(s.sepsets);
            else
                gathered_ = SepSetLog::from_sepsets(s.sepsets);
        }
        comm_.bcast_blob(blob, 0);
        ByteReader r(blob);
        first = r.get<std::int32_t>();
        levels_ = r.get_vector<LevelStats>();
        pmax_ = PmaxTable::from_pairs(n_, dense_, r.get_vector<PairP>(), threads_);
        g_ = Graph::deserialize(r.get_vector<std::int64_t>());
        CUDAG_ASSERT(g_.n() == n_);
        return true;
    }

    /// This rank's records sorted into tables: the part sorted early (if any), then the rest.
    std::vector<SepSets> own_tables() {
        std::vector<SepSets> t;
        if (early_.valid()) t.push_back(early_.get());
        t.push_back(log_.to_sepsets(threads_));
        log_.clear();
        return t;
    }

    /// The tables' records in one table: one merge by pair while no pair is in two of
    /// them; otherwise united as to_sepsets does (exhaustive runs on several ranks log
    /// both endpoints' sets of a pair, from different ranks' rows).
    SepSets merge_tables(std::vector<SepSets> tables) const {
        if (tables.size() == 1) return std::move(tables[0]);
        std::vector<const SepSets*> views;
        for (const SepSets& t : tables) views.push_back(&t);
        SepSets all;
        if (SepSets::merge_disjoint(std::span<const SepSets* const>(views), all, threads_)) return all;
        SepSetLog log;
        for (const SepSets& t : tables) log.append(SepSetLog::from_sepsets(t));
        return log.to_sepsets(threads_);
    }

    /// Every rank's separating sets in one table on rank 0 (empty elsewhere). Each rank
    /// sorts its own records (most of them early, beside the GPU levels); rank 0 receives
    /// the others' sorted arrays straight into the tables they become (no serialised
    /// copy) and merges all tables by pair in one pass.
    SepSets collect_sepsets() {
        std::vector<SepSets> tables;
        mpi::run_agreed(comm_, [&] { tables = own_tables(); });
        trace_.mark("own sepsets sorted");
        if (comm_.rank() == 0 && gathered_.size() > 0) tables.push_back(gathered_.to_sepsets(threads_));
        gathered_.clear();
        const std::vector<std::int64_t> counts = comm_.allgather(static_cast<std::int64_t>(tables.size()));
        // Point to point: only rank r and rank 0 take part in rank r's tables (sizes first,
        // so that both make the same calls).
        for (int r = 1; r < comm_.size(); ++r) {
            const bool from = comm_.rank() == r, to = comm_.rank() == 0;
            if (!from && !to) continue;
            for (std::int64_t t = 0; t < counts[static_cast<std::size_t>(r)]; ++t) {
                const SepSets* mine = from ? &tables[static_cast<std::size_t>(t)] : nullptr;
                std::int64_t size[2] = {mine ? static_cast<std::int64_t>(mine->size()) : 0,
                                        mine ? static_cast<std::int64_t>(mine->nodes().size()) : 0};
                comm_.transfer(size, 2, mpi::DataType::Int64, r, 0);
                const auto k = static_cast<std::size_t>(size[0]), v = static_cast<std::size_t>(size[1]);
                if (from) {
                    comm_.transfer(const_cast<std::uint64_t*>(mine->keys().data()), k, mpi::DataType::Int64, r, 0);
                    comm_.transfer(const_cast<std::int64_t*>(mine->offsets().data()), k + 1, mpi::DataType::Int64, r,
                                   0);
                    comm_.transfer(const_cast<std::int32_t*>(mine->nodes().data()), v, mpi::DataType::Int32, r, 0);
                    continue;
                }
                // Rank 0 receives into fresh arrays, faulted in on threads first.
                BulkVector<std::uint64_t> keys(k);
                BulkVector<std::int64_t> offs(k + 1);
                BulkVector<std::int32_t> nds(v);
                first_touch(keys.data(), keys.size() * sizeof(std::uint64_t), threads_);
                first_touch(offs.data(), offs.size() * sizeof(std::int64_t), threads_);
                first_touch(nds.data(), nds.size() * sizeof(std::int32_t), threads_);
                comm_.transfer(keys.data(), k, mpi::DataType::Int64, r, 0);
                comm_.transfer(offs.data(), k + 1, mpi::DataType::Int64, r, 0);
                comm_.transfer(nds.data(), v, mpi::DataType::Int32, r, 0);
                tables.push_back(SepSets::adopt(std::move(keys), std::move(offs), std::move(nds)));
            }
        }
        trace_.mark("sepsets gathered");
        SepSets all;
        mpi::run_agreed(comm_, [&] {
            if (comm_.rank() == 0) all = merge_tables(std::move(tables));
        });
        trace_.mark("sepsets merged");
        return all;
    }

    /// Distributed records: each rank keeps its rows' separating sets and pMax.
    SkeletonResult finish_distributed() {
        trace_.start();
        results_->gather_pmax(true, true);
        trace_.mark("pmax gathered");
        SkeletonResult res;
        if (graph_stale_) sync_graph(next_);
        res.skeleton = std::move(g_);
        res.levels = std::move(levels_);
        exchange();
        res.sepsets = std::move(owned_);
        mpi::run_agreed(comm_, [&] { res.pmax = pmax_.pairs(threads_, rows_.begin, rows_.end); });
        res.record_rows = rows_;
        trace_.mark("pmax");
        trace_.print("host after the levels");
        return res;
    }

    SkeletonResult finish() {
        if (distributed_) return finish_distributed();
        trace_.start();
        // One rank may leave pMax out (a bootstrap replicate): neither gathered nor listed.
        const bool want_pmax = opt_.keep_pmax || comm_.size() > 1;
        // The engine lists the pairs when its table is the answer.
        const bool pairs_from_engine = want_pmax && results_->engine_lists_pairs();
        if (want_pmax) {
            results_->gather_pmax(!pairs_from_engine);
            trace_.mark("pmax gathered");
        }
        SkeletonResult res;
        if (graph_stale_) sync_graph(next_);
        res.skeleton = std::move(g_);
        res.levels = std::move(levels_);
        // Rank 0 lists pMax (mostly a copy of fresh memory) beside the separating sets.
        std::future<PairPList> listed;
        if (pairs_from_engine && comm_.rank() == 0)
            listed = std::async(std::launch::async, [this] { return results_->engine_pairs(); });
        res.sepsets = collect_sepsets();
        if (want_pmax) {
            mpi::run_agreed(comm_, [&] {
                if (comm_.rank() != 0) return;
                if (pairs_from_engine)
                    res.pmax = listed.get();  // rethrows the engine's error
                else
                    res.pmax = pmax_.pairs(threads_);
            });
            trace_.mark(pairs_from_engine ? "pmax pairs (engine)" : "pmax");
        }
        if (comm_.rank() == 0) drop_knowledge_pairs(res);
        trace_.print("host after the levels");
        return res;
    }

    SkeletonEngine& engine_;
    const SkeletonOptions& opt_;
    const TestPolicy& pol_;
    Communicator& comm_;
    const LevelCallback& on_level_;
    const SkeletonHooks& hooks_;
    const std::int64_t n_;
    const bool dense_;
    Graph g_;         ///< current adjacency (same on every rank)
    Adjacency next_;  ///< the next level's snapshot, when have_next_
    bool have_next_ = false;
    bool graph_stale_ = false;          ///< g_ lags behind next_ (the engine built the snapshots)
    std::int64_t next_max_degree_ = 0;  ///< next_'s largest degree
    const int threads_;                 ///< host threads for a level's bookkeeping
    int lt_ = 1;                        ///< the threads the current level uses
    static constexpr std::int64_t kEntriesPerThread = 1 << 15;
    std::vector<std::byte> removal_;  ///< levels >= 1: the removal map over adjacency entries
    LevelOutput out_;
    StepTrace trace_;             ///< CUDAG_TRACE: where a level's host time goes
    PmaxTable pmax_;              ///< this rank's pMax contributions (merged at gather())
    SepSetLog log_;               ///< this rank's separating sets since the last gather()
    SepSetLog gathered_;          ///< rank 0: every rank's sets up to the last gather()
    std::future<SepSets> early_;  ///< this rank's records up to a heavy level, sorted (sort_early)
    std::vector<LevelStats> levels_;
    /// How level results reach pMax and the separating sets: host results, or device-
    /// resident results for an engine with DeviceResults (not exhaustive). Set once.
    std::unique_ptr<detail::LevelResults> results_;
    bool distributed_ = false;              ///< SkeletonOptions::distributed_records on several ranks
    std::vector<std::int64_t> record_cut_;  ///< distributed: rank r's rows [cut[r], cut[r + 1])
    RecordRows rows_;                       ///< distributed: this rank's record rows
    SepSets owned_;                         ///< distributed: every record of rows_ up to the last exchange()
};

}  // namespace

SkeletonResult learn_skeleton(SkeletonEngine& engine, const SkeletonOptions& opt, mpi::Communicator& comm,
                              const LevelCallback& on_level, const SkeletonHooks& hooks) {
    return Search(engine, opt, comm, on_level, hooks).run();
}

SkeletonResult learn_skeleton(SkeletonEngine& engine, const SkeletonOptions& opt, const LevelCallback& on_level) {
    mpi::SerialCommunicator serial;
    return learn_skeleton(engine, opt, serial, on_level);
}

}  // namespace cudag::skeleton
