// SPDX-License-Identifier: Apache-2.0
#include "pc/skeleton.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <string>
#include <numeric>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "core/trace.hpp"
#include "mpi/partition.hpp"
#include "pc/merge.hpp"

namespace cudag::pc {
namespace {

/// With CUDAG_TRACE set (not empty): the host time of a level's steps, one line on stderr.
class HostTrace {
public:
    void start() {
        if (!on_) return;
        line_.clear();
        last_ = std::chrono::steady_clock::now();
    }
    void mark(const char* step) {
        if (!on_) return;
        const auto now = std::chrono::steady_clock::now();
        char buf[96];
        std::snprintf(buf, sizeof buf, " %s %.1f ms,", step,
                      std::chrono::duration<double, std::milli>(now - last_).count());
        line_ += buf;
        last_ = now;
    }
    void print(int level) const {
        if (on_) std::fprintf(stderr, "host level %d:%s\n", level, line_.c_str());
    }

private:
    bool on_ = trace_enabled();
    std::string line_;
    std::chrono::steady_clock::time_point last_;
};

using mpi::Communicator;
using mpi::ReduceOp;
using mpi::RowPartition;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Call fn(i, j) for every set bit (i, j) of the rows [row_begin, row_end) of `g`.
template <class Fn>
void for_each_bit(const Graph& g, std::int64_t row_begin, std::int64_t row_end, Fn&& fn) {
    const std::int64_t words = g.words_per_row();
    for (std::int64_t i = row_begin; i < row_end; ++i) {
        const std::uint64_t* r = g.row(i);
        for (std::int64_t w = 0; w < words; ++w)
            for (std::uint64_t x = r[w]; x; x &= x - 1)
                fn(static_cast<std::int32_t>(i), static_cast<std::int32_t>(w * 64 + std::countr_zero(x)));
    }
}

/// The distributed search: state that lives across levels on every rank.
class Search {
public:
    Search(SkeletonEngine& engine, const SkeletonOptions& opt, Communicator& comm,
           const LevelCallback& on_level, const SkeletonHooks& hooks)
        : engine_(engine), opt_(opt), pol_(opt.policy), comm_(comm), on_level_(on_level),
          hooks_(hooks), n_(engine.n_vars()), dense_(n_ <= opt.dense_pmax_limit),
          g_(n_) {}

    SkeletonResult run() {
        int first = 1;
        if (!resume(first)) level0();
        for (int l = first;; ++l) {
            if (opt_.max_level >= 0 && l > opt_.max_level) break;
            if (g_.max_degree() - 1 < l) break;
            mpi::run_agreed(comm_, [&] {
                if (opt_.max_supported_level >= 0 && l > opt_.max_supported_level)
                    throw InputError("level " + std::to_string(l) + " needs more than " +
                                     std::to_string(l + 3) + " samples (" +
                                     opt_.supported_level_reason + "); rerun with --max-level " +
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

    void maybe_fail(int l, bool guarded) const {
        if (hooks_.fail_rank == comm_.rank() && hooks_.fail_level == l && hooks_.fail_guarded == guarded)
            throw InputError("injected failure on rank " + std::to_string(comm_.rank()) +
                             " at level " + std::to_string(l) + " (testing)");
    }

    // ---- level 0 -------------------------------------------------------------------
    void level0() {
        const auto t0 = std::chrono::steady_clock::now();
        Adjacency empty;
        empty.n = n_;
        const RowPartition part = mpi::partition_rows(mpi::row_work(empty, 0), comm_.size());
        const std::int64_t rb = part.begin(comm_.rank()), re = part.end(comm_.rank());
        Level0Output out;
        if (dense_) {
            pmax_ = PmaxTable::dense(n_);
            out.dense_p = std::move(pmax_.values());
        }
        mpi::run_agreed(comm_, [&] {
            maybe_fail(0, true);
            engine_.level0(rb, re, dense_, g_, out);
        });
        maybe_fail(0, false);
        const auto t_merge = std::chrono::steady_clock::now();
        const TestCount tests = count_tests(out.tests);
        if (comm_.size() > 1) {
            // Each rank's rows hold the pairs (i, j > i) it kept: share those upper halves
            // as neighbour lists (the graph after level 0 is sparse: this moves 4 bytes
            // per kept pair, not n²/8 bytes of bit map), then mirror them.
            const int parts = part.parts();
            std::vector<std::int64_t> row_len(static_cast<std::size_t>(n_), 0);
            std::vector<std::int32_t> mine;
            for_each_bit(g_, rb, re, [&](std::int32_t i, std::int32_t j) {
                if (j <= i) return;
                mine.push_back(j);
                ++row_len[static_cast<std::size_t>(i)];
            });
            std::vector<std::size_t> rows(static_cast<std::size_t>(parts)), kept(rows.size());
            for (int r = 0; r < parts; ++r)
                rows[static_cast<std::size_t>(r)] = static_cast<std::size_t>(part.end(r) - part.begin(r));
            comm_.allgatherv(row_len.data() + rb, row_len.data(), rows, mpi::DataType::Int64);
            for (int r = 0; r < parts; ++r)
                for (std::int64_t i = part.begin(r); i < part.end(r); ++i)
                    kept[static_cast<std::size_t>(r)] += static_cast<std::size_t>(row_len[static_cast<std::size_t>(i)]);
            std::vector<std::int32_t> all(std::accumulate(kept.begin(), kept.end(), std::size_t{0}));
            comm_.allgatherv(mine.data(), all.data(), kept, mpi::DataType::Int32);
            g_ = Graph(n_);
            std::size_t k = 0;
            for (std::int64_t i = 0; i < n_; ++i)
                for (std::int64_t c = 0; c < row_len[static_cast<std::size_t>(i)]; ++c)
                    g_.add(static_cast<std::int32_t>(i), all[k++]);
        }
        if (dense_) {
            pmax_.values() = std::move(out.dense_p);
        } else {
            pmax_ = PmaxTable::sparse(g_);
            for (const PairP& q : out.kept_p) pmax_.raise(q.i, q.j, q.p);
        }
        LevelStats st;
        st.level = 0;
        st.tests = tests.total;
        st.tests_imbalance = tests.imbalance;
        st.edges_after = g_.n_edges();
        st.removed = n_ * (n_ - 1) / 2 - st.edges_after;
        st.imbalance = part.imbalance;
        st.seconds = seconds_since(t0);
        if (comm_.size() > 1) st.merge_seconds = seconds_since(t_merge);
        end_level(st);
    }

    // ---- level l >= 1 ---------------------------------------------------------------
    void level(int l) {
        const auto t0 = std::chrono::steady_clock::now();
        trace_.start();
        // The snapshot: the previous level's, less its removals (built at its end, in
        // O(entries)), or from the bit set (first level, after a resume).
        const Adjacency snap = have_next_ ? std::move(next_) : Adjacency::from_graph(g_);
        have_next_ = false;
        const RowPartition part = mpi::partition_rows(mpi::row_work(snap, l), comm_.size());
        const std::int64_t rb = part.begin(comm_.rank()), re = part.end(comm_.rank());
        trace_.mark("snapshot+partition");
        mpi::run_agreed(comm_, [&] {
            maybe_fail(l, true);
            out_.reset(snap.nbrs.size(), l, pol_.exhaustive);
            engine_.run_level(l, snap, rb, re, out_);
        });
        maybe_fail(l, false);
        trace_.mark("engine");
        const auto t_merge = std::chrono::steady_clock::now();
        const TestCount tests = count_tests(out_.tests);

        // Removal map over the level's adjacency entries: bit e <=> entry e = (a, b)
        // separated from a's side. Rank r packs the entries of its rows from bit 0 of its
        // own byte block; one allgatherv gives every rank the whole map. Its size follows
        // the edges left (entries / 8 bytes), not n² / 8.
        const int parts = part.parts();
        std::vector<std::size_t> counts(static_cast<std::size_t>(parts)), first_byte(counts.size());
        std::size_t total = 0;
        for (int r = 0; r < parts; ++r) {
            const std::int64_t entries = snap.offsets[part.end(r)] - snap.offsets[part.begin(r)];
            first_byte[static_cast<std::size_t>(r)] = total;
            counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>((entries + 7) / 8);
            total += counts[static_cast<std::size_t>(r)];
        }
        removal_.assign(total, std::byte{0});
        {
            const std::int64_t e0 = snap.offsets[rb];
            std::byte* mine = removal_.data() + first_byte[static_cast<std::size_t>(comm_.rank())];
            for (std::int64_t e = e0; e < snap.offsets[re]; ++e)
                if (out_.flags[e] & kSeparated) mine[(e - e0) >> 3] |= std::byte{1} << ((e - e0) & 7);
        }
        if (comm_.size() > 1)
            comm_.allgatherv(removal_.data() + first_byte[static_cast<std::size_t>(comm_.rank())],
                             removal_.data(), counts, mpi::DataType::Byte);
        // Entry e of row a, whose rows belong to block `owner`.
        std::vector<std::int32_t> owner(static_cast<std::size_t>(n_));
        for (int r = 0; r < parts; ++r)
            std::fill(owner.begin() + part.begin(r), owner.begin() + part.end(r), r);
        const auto separated = [&](std::int64_t a, std::int64_t e) {
            const auto r = static_cast<std::size_t>(owner[static_cast<std::size_t>(a)]);
            const std::int64_t k = e - snap.offsets[part.begin(static_cast<int>(r))];
            return (removal_[first_byte[r] + static_cast<std::size_t>(k >> 3)] & (std::byte{1} << (k & 7))) !=
                   std::byte{0};
        };

        trace_.mark("removal map");
        // This rank's share of pMax and separating sets. For i < j the lower endpoint's
        // separating set wins (pcalg tests the u-side first and skips the v-side once
        // removed); the upper side counts only when the lower side did not separate, or
        // always when exhaustive (its set is then united with the lower side's).
        // The mirror (b, a) of an entry (a, b), b < a, without a search: for rows a in
        // increasing order, the a's that meet row b are row b's neighbours above
        // max(b, rb - 1), in order, so a cursor per row walks them.
        std::vector<std::int64_t> cursor(static_cast<std::size_t>(n_));
        for (std::int64_t b = 0; b < std::min<std::int64_t>(re, n_); ++b) {
            const std::int32_t* row = snap.row(b);
            const std::int32_t from = static_cast<std::int32_t>(std::max<std::int64_t>(b + 1, rb));
            cursor[static_cast<std::size_t>(b)] =
                snap.offsets[b] + (std::lower_bound(row, row + snap.degree(b), from) - row);
        }
        log_.reserve(static_cast<std::size_t>(snap.offsets[re] - snap.offsets[rb]) / 2,
                     static_cast<std::size_t>(snap.offsets[re] - snap.offsets[rb]) / 2 * static_cast<std::size_t>(l));
        for (std::int64_t a = rb; a < re; ++a) {
            for (std::int64_t e = snap.offsets[a]; e < snap.offsets[a + 1]; ++e) {
                const std::int32_t b = snap.nbrs[e];
                const auto ia = static_cast<std::int32_t>(a);
                const bool lower = ia < b;
                std::int64_t mirror = -1;
                if (!lower) {
                    std::int64_t& c = cursor[static_cast<std::size_t>(b)];
                    while (snap.nbrs[c] < ia) ++c;
                    CUDAG_ASSERT(snap.nbrs[c] == ia);
                    mirror = c++;
                }
                const std::uint8_t f = out_.flags[e];
                if (!f) continue;
                if (!lower && !pol_.exhaustive && separated(b, mirror)) continue;
                const std::int32_t i = lower ? ia : b, j = lower ? b : ia;
                if (f & kTested) pmax_.raise(i, j, out_.pmax[e]);
                if (f & kSeparated) log_.add(i, j, out_.set(static_cast<std::size_t>(e)));
            }
        }

        trace_.mark("pmax+sepsets");
        // Apply the removals symmetrically (every rank alike).
        std::int64_t removed = 0;
        for (std::int64_t a = 0; a < n_; ++a)
            for (std::int64_t e = snap.offsets[a]; e < snap.offsets[a + 1]; ++e) {
                const std::int32_t b = snap.nbrs[e];
                if (!separated(a, e) || !g_.has(a, b)) continue;
                g_.remove(a, b);
                ++removed;
            }
        trace_.mark("removals");
        next_.n = n_;
        next_.offsets.assign(static_cast<std::size_t>(n_ + 1), 0);
        next_.nbrs.clear();
        next_.nbrs.reserve(snap.nbrs.size() - 2 * static_cast<std::size_t>(removed));
        for (std::int64_t a = 0; a < n_; ++a) {
            for (std::int64_t e = snap.offsets[a]; e < snap.offsets[a + 1]; ++e)
                if (g_.has(a, snap.nbrs[e])) next_.nbrs.push_back(snap.nbrs[e]);
            next_.offsets[static_cast<std::size_t>(a + 1)] = static_cast<std::int64_t>(next_.nbrs.size());
        }
        have_next_ = true;
        trace_.mark("next snapshot");
        trace_.print(l);
        LevelStats st;
        st.level = l;
        st.tests = tests.total;
        st.tests_imbalance = tests.imbalance;
        st.removed = removed;
        st.edges_after = static_cast<std::int64_t>(snap.nbrs.size()) / 2 - removed;
        st.imbalance = part.imbalance;
        st.seconds = seconds_since(t0);
        if (comm_.size() > 1) st.merge_seconds = seconds_since(t_merge);
        end_level(st);
    }

    void end_level(const LevelStats& st) {
        levels_.push_back(st);
        if (on_level_) on_level_(st);
        if (hooks_.on_checkpoint) {
            gather();
            mpi::run_agreed(comm_, [&] {
                if (comm_.rank() != 0) return;
                SkeletonState s;
                s.next_level = st.level + 1;
                s.levels = levels_;
                s.pmax = pmax_.pairs();
                s.sepsets = gathered_.to_sepsets();
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

    /// pMax by an element-wise max over ranks; separating sets to rank 0.
    void gather() {
        if (comm_.size() > 1) {
            comm_.allreduce(std::span<double>(pmax_.values()), ReduceOp::Max);
            const auto blobs = comm_.gatherv(log_.serialize(), 0);
            for (std::size_t r = 1; r < blobs.size(); ++r) gathered_.append(SepSetLog::deserialize(blobs[r]));
        }
        if (comm_.rank() == 0) gathered_.append(log_);
        log_.clear();
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
            w.put_vector(s.skeleton.words());
            blob = w.take();
            gathered_ = SepSetLog::from_sepsets(s.sepsets);
        }
        comm_.bcast_blob(blob, 0);
        ByteReader r(blob);
        first = r.get<std::int32_t>();
        levels_ = r.get_vector<LevelStats>();
        pmax_ = PmaxTable::from_pairs(n_, dense_, r.get_vector<PairP>());
        g_.words() = r.get_vector<std::uint64_t>();
        CUDAG_ASSERT(static_cast<std::int64_t>(g_.words().size()) == n_ * g_.words_per_row());
        return true;
    }

    SkeletonResult finish() {
        gather();
        SkeletonResult res;
        res.skeleton = std::move(g_);
        res.levels = std::move(levels_);
        if (comm_.rank() == 0) {
            res.sepsets = gathered_.to_sepsets();
            res.pmax = pmax_.pairs();
        }
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
    Graph g_;    ///< current adjacency (same on every rank)
    Adjacency next_;           ///< the next level's snapshot, when have_next_
    bool have_next_ = false;
    std::vector<std::byte> removal_;  ///< levels >= 1: the removal map over adjacency entries
    LevelOutput out_;
    HostTrace trace_;  ///< CUDAG_TRACE: where a level's host time goes
    PmaxTable pmax_;            ///< this rank's pMax contributions (merged at gather())
    SepSetLog log_;             ///< this rank's separating sets since the last gather()
    SepSetLog gathered_;        ///< rank 0: every rank's sets up to the last gather()
    std::vector<LevelStats> levels_;
};

}  // namespace

SkeletonResult learn_skeleton(SkeletonEngine& engine, const SkeletonOptions& opt,
                              mpi::Communicator& comm, const LevelCallback& on_level,
                              const SkeletonHooks& hooks) {
    return Search(engine, opt, comm, on_level, hooks).run();
}

SkeletonResult learn_skeleton(SkeletonEngine& engine, const SkeletonOptions& opt,
                              const LevelCallback& on_level) {
    mpi::SerialCommunicator serial;
    return learn_skeleton(engine, opt, serial, on_level);
}

}  // namespace cudag::pc
