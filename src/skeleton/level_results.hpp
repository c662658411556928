// SPDX-License-Identifier: Apache-2.0
// The two ways the level loop (skeleton/search.hpp) turns a level's outcome into pMax and
// separating sets: on the host from the engine's per-entry LevelOutput (HostResults), or
// kept by the engine's DeviceResults extension, the host handling only the removal map
// (DeviceResidentResults). The loop picks one per search; the results are the same.
// Internal to the level loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/trace.hpp"
#include "mpi/communicator.hpp"
#include "skeleton/merge.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::skeleton::detail {

/// Row boundaries cutting [rb, re) of `a` into runs of about equal entry counts, for
/// `threads` workers (8 runs per worker at most, one run per row at least).
std::vector<std::int64_t> row_runs(const Adjacency& a, std::int64_t rb, std::int64_t re, int threads);

/// One level as every rank sees it: the snapshot, this rank's entries and the rows holding
/// them, and the layout of the level's removal map. A bit of the map <=> entry e = (a, b)
/// separated from a's side; rank r packs the entries of its block from bit 0 of its own
/// byte block [first_byte[r], first_byte[r] + counts[r]) of `total` bytes. The block is
/// whole rows, and entry e of row a is bit bit0[a] + (e - snap.offsets[a]) of the gathered
/// map; or, for an engine that splits rows (by_entry), entries whose first and last rows
/// may be shared with the neighbouring ranks, and the gathered blocks are laid out again by
/// entry (to_entry_layout: bit e <=> entry e, bit0[a] = offsets[a]).
struct LevelFrame {
    int level = 0;
    const Adjacency* snap = nullptr;
    std::int64_t rb = 0, re = 0;  ///< the rows holding this rank's entries
    std::int64_t eb = 0, ee = 0;  ///< this rank's entries
    int threads = 1;              ///< host threads of this level
    std::vector<std::size_t> counts, first_byte;
    std::size_t total = 0;
    std::vector<std::int64_t> bit0;
    bool by_entry = false;
    std::vector<std::int64_t> entry_cut;  ///< rank r's entries [entry_cut[r], entry_cut[r + 1])

    LevelBlock block() const { return {rb, re, eb, ee}; }

    bool separated(std::span<const std::byte> removal, std::int64_t a, std::int64_t e) const {
        const std::int64_t k = bit0[static_cast<std::size_t>(a)] + (e - snap->offsets[static_cast<std::size_t>(a)]);
        return (removal[static_cast<std::size_t>(k >> 3)] & (std::byte{1} << (k & 7))) != std::byte{0};
    }
};

/// by_entry: the gathered map (rank r's bits from byte first_byte[r]) laid out by entry,
/// bit e <=> entry e, in place (a no-op otherwise).
void to_entry_layout(const LevelFrame& f, std::vector<std::byte>& removal);

/// Where this rank's pMax and separating sets come from, level by level. Every rank of a
/// search runs the same strategy; calls that touch `comm` are collective.
class LevelResults {
public:
    virtual ~LevelResults() = default;

    /// Level 0: whether its p-values may stay with the engine (Level0Output::p_may_stay);
    /// `everywhere`: this rank runs every row.
    virtual bool p_may_stay(bool everywhere) const = 0;
    /// Level 0 done and the host table built. `from_level0`: the table is exactly the
    /// engine's level-0 output over every row; `p_stayed`: the engine kept its values.
    virtual void level0_done(bool from_level0, bool p_stayed) = 0;
    /// Before the engine runs the level (inside the loop's agreed part): `out` made ready.
    virtual void prepare(const LevelFrame& f, LevelOutput& out) = 0;
    /// The level's removal map over all ranks, from this rank's `out`, into `removal`.
    virtual void merge_removals(const LevelFrame& f, const LevelOutput& out, std::vector<std::byte>& removal) = 0;
    /// This rank's share of the level's pMax and separating sets, given the merged map.
    virtual void settle(const LevelFrame& f, const LevelOutput& out, std::span<const std::byte> removal) = 0;
    /// The next level's snapshot built by the engine (the pairs removed), or -1 when the
    /// loop builds it.
    virtual std::int64_t next_snapshot(const LevelFrame& f, std::span<const std::byte> removal, Adjacency& next) = 0;
    /// pMax by an element-wise max over ranks; `take`: the host table must hold the result
    /// (on rank 0 at least; on every rank with `every_rank`, for records kept distributed).
    virtual void gather_pmax(bool take, bool every_rank = false) = 0;
    /// At the end: whether the engine's table is the answer (then the loop gathers with
    /// take = false and rank 0 lists it with engine_pairs(), on a worker thread).
    virtual bool engine_lists_pairs() = 0;
    virtual PairPList engine_pairs() = 0;
    /// Before levels the engine runs by itself (SkeletonEngine::run_levels): the engine holds
    /// the pMax table (adopted now if not yet). False: results kept on the host, which
    /// such levels cannot raise.
    virtual bool hand_table_to_engine() { return false; }
};

/// The host-results strategy: the engine fills the per-entry LevelOutput; this rank packs
/// its removal bits, raises its pMax table and logs its separating sets (O(entries) of
/// its rows per level); tables merge by an allreduce of the host tables.
class HostResults final : public LevelResults {
public:
    HostResults(const TestPolicy& policy, std::int64_t n, mpi::Communicator& comm, PmaxTable& pmax, SepSetLog& log,
                StepTrace& trace);
    ~HostResults() override;
    bool p_may_stay(bool) const override { return false; }
    void level0_done(bool from_level0, bool p_stayed) override;
    void prepare(const LevelFrame& f, LevelOutput& out) override;
    void merge_removals(const LevelFrame& f, const LevelOutput& out, std::vector<std::byte>& removal) override;
    void settle(const LevelFrame& f, const LevelOutput& out, std::span<const std::byte> removal) override;
    std::int64_t next_snapshot(const LevelFrame&, std::span<const std::byte>, Adjacency&) override { return -1; }
    void gather_pmax(bool take, bool every_rank = false) override;
    bool engine_lists_pairs() override { return false; }
    PairPList engine_pairs() override { return {}; }

private:
    /// Positions of a in row b of a CSR, by a cursor per row (see level_results.cpp).
    class RowCursors;

    const TestPolicy& pol_;
    const std::int64_t n_;
    mpi::Communicator& comm_;
    PmaxTable& pmax_;
    SepSetLog& log_;
    StepTrace& trace_;
    std::vector<RowCursors> cursors_;  ///< one per worker thread
    std::vector<SepSetLog> run_logs_;  ///< a level's separating sets, per run of rows
};

/// The device-results strategy (DeviceResults): the engine keeps pMax and the separating
/// sets and builds the snapshots; this rank merges the engine's removal bits, and the
/// tables meet at gathers, reduced in the engines where they offer their memory.
class DeviceResidentResults final : public LevelResults {
public:
    DeviceResidentResults(DeviceResults& dev, mpi::Communicator& comm, PmaxTable& pmax, SepSetLog& log,
                          StepTrace& trace);
    bool p_may_stay(bool everywhere) const override { return everywhere; }
    void level0_done(bool from_level0, bool p_stayed) override;
    void prepare(const LevelFrame& f, LevelOutput& out) override;
    void merge_removals(const LevelFrame& f, const LevelOutput& out, std::vector<std::byte>& removal) override;
    void settle(const LevelFrame& f, const LevelOutput& out, std::span<const std::byte> removal) override;
    std::int64_t next_snapshot(const LevelFrame& f, std::span<const std::byte> removal, Adjacency& next) override;
    void gather_pmax(bool take, bool every_rank = false) override;
    bool engine_lists_pairs() override;
    bool hand_table_to_engine() override;
    PairPList engine_pairs() override { return dev_.pmax_pairs(); }

private:
    /// Whether the ranks reduce their engines' tables in place (DeviceResults::pmax_buffer():
    /// every rank's engine offers memory that this communicator takes, e.g. GPU memory to
    /// NCCL). Decided once, by all ranks alike.
    bool reduce_in_engines();

    DeviceResults& dev_;
    mpi::Communicator& comm_;
    PmaxTable& pmax_;
    SepSetLog& log_;
    StepTrace& trace_;
    bool from_level0_ = false;    ///< pmax_ is exactly the engine's level-0 output
    bool adopted_ = false;        ///< the engine holds the table (adopt_pmax ran)
    bool changed_ = false;        ///< pmax_ changed since the engine adopted or returned it
    int reduce_in_engines_ = -1;  ///< reduce_in_engines(), once decided (0 or 1)
};

}  // namespace cudag::skeleton::detail
