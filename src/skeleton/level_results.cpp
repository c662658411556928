// SPDX-License-Identifier: Apache-2.0
#include "skeleton/level_results.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag::skeleton::detail {

using mpi::ReduceOp;

std::vector<std::int64_t> row_runs(const Adjacency& a, std::int64_t rb, std::int64_t re, int threads) {
    const int pieces = static_cast<int>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(re - rb, 8 * static_cast<std::int64_t>(threads))));
    std::vector<std::int64_t> cut(static_cast<std::size_t>(pieces) + 1, rb);
    const std::int64_t e0 = a.offsets[rb], e1 = a.offsets[re];
    for (int k = 1; k < pieces; ++k) {
        const std::int64_t target = e0 + (e1 - e0) * k / pieces;
        const std::int64_t r =
            std::lower_bound(a.offsets.begin() + rb, a.offsets.begin() + re, target) - a.offsets.begin();
        cut[static_cast<std::size_t>(k)] = std::max(r, cut[static_cast<std::size_t>(k) - 1]);
    }
    cut.back() = re;
    return cut;
}

void to_entry_layout(const LevelFrame& f, std::vector<std::byte>& removal) {
    if (!f.by_entry) return;
    const std::int64_t entries = f.entry_cut.back();
    bool aligned = true;  // every block starts on a byte: the layouts are the same
    for (std::int64_t e : f.entry_cut) aligned = aligned && (e % 8 == 0 || e == entries);
    if (aligned) {
        removal.resize(static_cast<std::size_t>((entries + 7) / 8));
        return;
    }
    std::vector<std::byte> out(static_cast<std::size_t>((entries + 7) / 8), std::byte{0});
    for (std::size_t r = 0; r + 1 < f.entry_cut.size(); ++r) {
        const std::int64_t e0 = f.entry_cut[r], count = f.entry_cut[r + 1] - e0;
        const int shift = static_cast<int>(e0 % 8);
        const std::byte* src = removal.data() + f.first_byte[r];
        std::byte* dst = out.data() + e0 / 8;
        // Bits past the block's end are zero in its last byte: OR in whole bytes.
        for (std::int64_t k = 0; k < (count + 7) / 8; ++k) {
            const auto v = static_cast<unsigned>(src[k]);
            if (v == 0) continue;
            dst[k] |= static_cast<std::byte>((v << shift) & 0xffu);
            if (shift > 0 && (v >> (8 - shift)) != 0) dst[k + 1] |= static_cast<std::byte>(v >> (8 - shift));
        }
    }
    removal.swap(out);
}

// ---- host results ---------------------------------------------------------------------

/// Positions of a in row b of a CSR (rows sorted), for a worker that asks, within one
/// run of rows a visited in increasing order, for (b, a) pairs with a increasing per b:
/// a cursor per row b moves forward from one binary search at its first use in the run.
/// Two independent tables (`t`: 0 and 1) share the run stamps.
class HostResults::RowCursors {
public:
    void size(std::int64_t n) {
        if (static_cast<std::int64_t>(seen_[0].size()) == n) return;
        for (int t = 0; t < 2; ++t) {
            seen_[t].assign(static_cast<std::size_t>(n), 0);
            at_[t].assign(static_cast<std::size_t>(n), 0);
        }
        run_ = 0;
    }
    void new_run() { ++run_; }
    std::int64_t find(int t, const std::int64_t* offsets, const std::int32_t* cols, std::int32_t b, std::int32_t a) {
        std::int64_t& c = at_[t][static_cast<std::size_t>(b)];
        if (seen_[t][static_cast<std::size_t>(b)] != run_) {
            seen_[t][static_cast<std::size_t>(b)] = run_;
            c = std::lower_bound(cols + offsets[b], cols + offsets[b + 1], a) - cols;
        }
        while (cols[c] < a) ++c;
        CUDAG_ASSERT(c < offsets[b + 1] && cols[c] == a);
        return c;
    }

private:
    std::vector<std::uint64_t> seen_[2];
    std::vector<std::int64_t> at_[2];
    std::uint64_t run_ = 0;
};

HostResults::HostResults(const TestPolicy& policy, std::int64_t n, mpi::Communicator& comm, PmaxTable& pmax,
                         SepSetLog& log, StepTrace& trace)
    : pol_(policy), n_(n), comm_(comm), pmax_(pmax), log_(log), trace_(trace) {}

HostResults::~HostResults() = default;

void HostResults::level0_done(bool, bool p_stayed) {
    CUDAG_ASSERT(!p_stayed);  // p_may_stay() is false
}

void HostResults::prepare(const LevelFrame& f, LevelOutput& out) {
    out.reset(f.snap->nbrs.size(), f.level, pol_.exhaustive, f.eb, f.ee, f.threads);
}

void HostResults::merge_removals(const LevelFrame& f, const LevelOutput& out, std::vector<std::byte>& removal) {
    removal.resize(f.total);
    std::byte* mine = removal.data() + f.first_byte[static_cast<std::size_t>(comm_.rank())];
    const std::int64_t bytes = (f.ee - f.eb + 7) / 8;
    parallel_for(0, bytes, f.threads, 1 << 16, [&](std::int64_t k, int) {
        std::uint8_t bits = 0;
        for (std::int64_t e = f.eb + 8 * k, t = 0; t < 8 && e < f.ee; ++e, ++t)
            if (out.flags[static_cast<std::size_t>(e)] & kSeparated) bits |= static_cast<std::uint8_t>(1u << t);
        mine[k] = std::byte{bits};
    });
    if (comm_.size() > 1) comm_.allgatherv(mine, removal.data(), f.counts, mpi::DataType::Byte);
    to_entry_layout(f, removal);
}

void HostResults::settle(const LevelFrame& f, const LevelOutput& out, std::span<const std::byte> removal) {
    // This rank's share of pMax and separating sets. For i < j the lower endpoint's
    // separating set wins (pcalg tests the u-side first and skips the v-side once
    // removed); the upper side counts only when the lower side did not separate, or
    // always when exhaustive (its set is then united with the lower side's).
    // Two passes, so that no two threads raise one pair's pMax: the lower entries
    // (slot (a, b) in row a), then the upper ones (slot (b, a), one entry per pair).
    // A row b's position of a (the mirror of entry (a, b), or a pMax slot) comes from
    // a cursor per row b that walks forward, since a run visits rows a in order.
    const Adjacency& snap = *f.snap;
    const int lt = f.threads;
    const std::vector<std::int64_t> cut = row_runs(snap, f.rb, f.re, lt);
    const std::size_t runs = cut.size() - 1;
    run_logs_.resize(2 * runs);
    for (SepSetLog& lg : run_logs_) lg.clear();
    if (cursors_.size() < static_cast<std::size_t>(lt)) cursors_.resize(static_cast<std::size_t>(lt));
    for (RowCursors& c : cursors_) c.size(n_);
    const bool sparse = !pmax_.is_dense();
    const std::int64_t* poff = pmax_.row_offsets();
    const std::int32_t* pcol = pmax_.cols();
    const auto slot_of = [&](RowCursors& cur, std::int32_t i, std::int32_t j) {
        return sparse ? cur.find(1, poff, pcol, i, j) : pmax_.slot(i, j);
    };
    for (int upper = 0; upper < 2; ++upper) {
        parallel_for(0, static_cast<std::int64_t>(runs), lt, 1, [&](std::int64_t k, int w) {
            RowCursors& cur = cursors_[static_cast<std::size_t>(w)];
            cur.new_run();
            SepSetLog& lg = run_logs_[static_cast<std::size_t>(upper) * runs + static_cast<std::size_t>(k)];
            for (std::int64_t a = cut[static_cast<std::size_t>(k)]; a < cut[static_cast<std::size_t>(k) + 1]; ++a) {
                const std::int32_t* row = snap.row(a);
                const std::int64_t d = snap.degree(a);
                const auto ia = static_cast<std::int32_t>(a);
                const std::int64_t split = std::upper_bound(row, row + d, ia) - row;  // first b > a
                // Only this rank's entries of a row cut between ranks.
                const auto [pb, pe] = f.block().positions(snap, a);
                const std::int64_t qb = std::max(pb, upper ? 0 : split), qe = std::min(pe, upper ? split : d);
                for (std::int64_t q = qb; q < qe; ++q) {
                    const std::int64_t e = snap.offsets[a] + q;
                    const std::uint8_t fl = out.flags[static_cast<std::size_t>(e)];
                    if (!fl) continue;
                    const std::int32_t b = row[q];
                    if (upper && !pol_.exhaustive &&
                        f.separated(removal, b, cur.find(0, snap.offsets.data(), snap.nbrs.data(), b, ia)))
                        continue;
                    const std::int32_t i = upper ? b : ia, j = upper ? ia : b;
                    if (fl & kTested) pmax_.raise_slot(slot_of(cur, i, j), out.pmax[static_cast<std::size_t>(e)]);
                    if (fl & kSeparated) lg.add(i, j, out.set(static_cast<std::size_t>(e)));
                }
            }
        });
    }
    trace_.mark("pmax+sepsets");
    log_.append(run_logs_, lt);
    if (log_.size() > (1u << 20)) run_logs_ = {};  // a heavy level: give the copies back
    trace_.mark("log append");
}

void HostResults::gather_pmax(bool, bool) {
    if (comm_.size() > 1) {
        comm_.allreduce(std::span<double>(pmax_.values()), ReduceOp::Max);
        trace_.mark("pmax allreduce");
    }
}

// ---- device-resident results ------------------------------------------------------------

DeviceResidentResults::DeviceResidentResults(DeviceResults& dev, mpi::Communicator& comm, PmaxTable& pmax,
                                             SepSetLog& log, StepTrace& trace)
    : dev_(dev), comm_(comm), pmax_(pmax), log_(log), trace_(trace) {}

void DeviceResidentResults::level0_done(bool from_level0, bool p_stayed) {
    from_level0_ = from_level0;
    if (!p_stayed) return;
    // The values are the engine's: it keeps the table from here on.
    CUDAG_ASSERT(from_level0);
    mpi::run_agreed(comm_, [&] { dev_.adopt_pmax(pmax_, true); });
    adopted_ = true;
    changed_ = false;
}

void DeviceResidentResults::prepare(const LevelFrame& f, LevelOutput& out) {
    hand_table_to_engine();
    out.reset_packed(f.ee - f.eb, f.level);
}

bool DeviceResidentResults::hand_table_to_engine() {
    if (!adopted_) {
        dev_.adopt_pmax(pmax_, from_level0_);
        adopted_ = true;
        changed_ = false;
    }
    return true;
}

void DeviceResidentResults::merge_removals(const LevelFrame& f, const LevelOutput& out,
                                           std::vector<std::byte>& removal) {
    const auto rank = static_cast<std::size_t>(comm_.rank());
    removal.resize(f.total);
    std::copy_n(out.removal_bits.data(), f.counts[rank], removal.data() + f.first_byte[rank]);
    if (comm_.size() > 1)
        comm_.allgatherv(removal.data() + f.first_byte[rank], removal.data(), f.counts, mpi::DataType::Byte);
    to_entry_layout(f, removal);
}

void DeviceResidentResults::settle(const LevelFrame& f, const LevelOutput&, std::span<const std::byte> removal) {
    mpi::run_agreed(comm_, [&] { dev_.settle_level(*f.snap, removal, f.bit0, log_); });
    trace_.mark("settled (engine)");
}

std::int64_t DeviceResidentResults::next_snapshot(const LevelFrame& f, std::span<const std::byte> removal,
                                                  Adjacency& next) {
    std::int64_t removed = -1;
    mpi::run_agreed(comm_, [&] { removed = dev_.next_snapshot(*f.snap, removal, f.bit0, next); });
    return removed;
}

bool DeviceResidentResults::reduce_in_engines() {
    if (!adopted_ || comm_.size() == 1) return false;
    if (reduce_in_engines_ < 0) {
        std::int32_t ok = 0;
        mpi::run_agreed(comm_, [&] {
            const DeviceResults::PmaxBuffer b = dev_.pmax_buffer();
            ok = !b.values.empty() && b.values.size() == pmax_.values().size() && (!b.device || comm_.device_buffers());
        });
        reduce_in_engines_ = comm_.allreduce(ok, ReduceOp::Min);
    }
    return reduce_in_engines_ == 1;
}

void DeviceResidentResults::gather_pmax(bool take, bool every_rank) {
    const bool in_engines = reduce_in_engines();
    if (in_engines) {
        DeviceResults::PmaxBuffer b;
        mpi::run_agreed(comm_, [&] { b = dev_.pmax_buffer(); });
        comm_.allreduce(b.values, ReduceOp::Max);
        trace_.mark("pmax allreduce (engines)");
    }
    if (adopted_ && take) {
        // After an in-place reduction every engine holds the maximum, which the host
        // tables never exceed; only rank 0 reads its host table (checkpoints), unless
        // every rank lists its own rows (distributed records).
        mpi::run_agreed(comm_, [&] {
            if (!in_engines || comm_.rank() == 0 || every_rank) dev_.return_pmax(pmax_, in_engines || !changed_);
        });
        trace_.mark("pmax returned (engine)");
    }
    if (comm_.size() > 1 && !in_engines) {
        comm_.allreduce(std::span<double>(pmax_.values()), ReduceOp::Max);
        changed_ = true;
        trace_.mark("pmax allreduce");
    }
}

bool DeviceResidentResults::engine_lists_pairs() {
    // The engine lists the pairs when its table is the answer: one rank's table that the
    // host has not changed, or the ranks' tables reduced in place.
    const bool in_engines = reduce_in_engines();
    return adopted_ && (comm_.size() == 1 ? !changed_ : in_engines);
}

}  // namespace cudag::skeleton::detail
