// SPDX-License-Identifier: Apache-2.0
// The device results store of the CUDA Fisher-z engine (skeleton::DeviceResults): what stays in
// GPU memory between levels. Level 0's outputs (dense p-values, or the kept pairs as an
// upper CSR with their p-values, and the adjacency), which become the pMax table without
// a copy; the pMax table itself; the level's snapshot and the next one built here; the
// merged removal map; and the separating-set records listed for the host's log. Every
// device buffer is a member (RAII); work goes on the context's stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "device_memory.hpp"
#include "fisher_context.cuh"
#include "pc_gaussian.cuh"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::cuda {

/// Level 0's device outputs (filled by FisherLevels::level0).
struct Level0Buffers {
    DeviceBuffer<double> dense;           ///< every pair's p (upper triangle, row by row)
    DeviceBuffer<std::int64_t> koffsets;  ///< kept pairs: rows' starts (block-relative)
    DeviceBuffer<std::int32_t> kcols;     ///< kept pairs: columns j > i
    DeviceBuffer<double> kp;              ///< kept pairs: p-values
    DeviceBuffer<std::int64_t> aoffsets;  ///< every row ran: the whole adjacency's CSR
    DeviceBuffer<std::int32_t> anbrs;
};

/// A level l >= 1 run for the device-results strategy, as settle_level() needs it: device
/// pointers into the level's buffers (FisherLevels), valid until the next run_level().
struct LevelOnDevice {
    int l = 0;
    std::int64_t rows = 0;                  ///< rows tested (0: nothing to settle)
    std::int64_t n_sel = 0;                 ///< entries separated
    const std::int32_t* row_ids = nullptr;  ///< the tested rows
    std::int64_t e_begin = 0, e_end = 0;    ///< of their entries, the ones tested here
    const unsigned long long* p = nullptr;  ///< per entry: the level's pMax (bits of a double)
    const std::int64_t* sel = nullptr;      ///< the separated entries
    const std::int32_t* sets = nullptr;     ///< their winning sets (l nodes each)
    const std::int64_t* mirror = nullptr;   ///< per entry: the mirror entry (-1 on lower entries)
};

class FisherResults final : public skeleton::DeviceResults {
public:
    explicit FisherResults(FisherContext& ctx) : ctx_(ctx) {}

    // ---- the level loop's extension (skeleton::DeviceResults) -----------------------------------
    void adopt_pmax(const skeleton::PmaxTable& pmax, bool from_level0) override;
    void settle_level(const Adjacency& snap, std::span<const std::byte> removal, std::span<const std::int64_t> bit0,
                      skeleton::SepSetLog& log) override;
    std::int64_t next_snapshot(const Adjacency& snap, std::span<const std::byte> removal,
                               std::span<const std::int64_t> bit0, Adjacency& next) override;
    void return_pmax(skeleton::PmaxTable& pmax, bool overwrite) override;
    skeleton::PairPList pmax_pairs() override;
    PmaxBuffer pmax_buffer() override;

    // ---- for the level runner (FisherLevels) -----------------------------------------------
    /// Level 0 of a new search starts: nothing built or held for it yet.
    void begin_search();
    Level0Buffers& level0_buffers() { return l0_; }
    /// Level 0 ran; `whole`: over every row (its buffers hold the whole table); `p_stayed`:
    /// its p-values were left here (Level0Output::p_stayed).
    void level0_done(bool whole, bool p_stayed) {
        level0_whole_ = whole;
        p_stayed_ = p_stayed;
    }
    /// Level 0's adjacency (Level0Buffers::aoffsets/anbrs, host offsets `host_offsets`) is
    /// level 1's snapshot: hold_snapshot() takes it without an upload.
    void keep_level0_adjacency(const std::vector<std::int64_t>& host_offsets, std::size_t entries) {
        keep_pending(l0_.aoffsets, l0_.anbrs, host_offsets, entries);
    }
    /// Make the device snapshot hold `snap`: the CSR built here for it (level 0's adjacency
    /// or next_snapshot's output, recognised by its offsets) or an upload.
    void hold_snapshot(const Adjacency& snap);
    /// A level starts: the snapshot held is no longer known to be this level's.
    void forget_snapshot() { uploaded_ = nullptr; }
    const std::int64_t* offsets() const { return offsets_.data(); }  ///< device, n + 1
    const std::int32_t* nbrs() const { return nbrs_.data(); }        ///< device
    /// The level run for the device-results strategy, to settle (LevelOnDevice{}: none).
    void set_level(const LevelOnDevice& level) { level_ = level; }
    /// The adopted pMax table where kernels raise it (held false: none adopted).
    struct TableView {
        bool held = false, dense = true;
        const std::int64_t* poff = nullptr;
        const std::int32_t* pcol = nullptr;
        unsigned long long* values = nullptr;
    };
    /// A dense table of at most kHostTableSlots slots is read to the host with the resident
    /// levels' results (their packed read-back: host_table_slots() values, handed over by
    /// take_host_table), so that pmax_pairs() lists it without the device; anything that
    /// changes the table drops it (drop_host_table).
    static constexpr std::size_t kHostTableSlots = std::size_t{1} << 16;
    /// The dense table's slot count when it is small enough to be read to the host (0: not so).
    std::size_t host_table_slots() const {
        return dp_held_ && dp_dense_ && dp_count_ > 0 && dp_count_ <= kHostTableSlots ? dp_count_ : 0;
    }
    void take_host_table(const double* values, std::size_t count) {
        CUDAG_ASSERT(count == host_table_slots());
        host_values_.assign(values, values + count);
        host_valid_ = true;
    }
    void drop_host_table() { host_valid_ = false; }
    TableView table() {
        return {dp_held_, dp_dense_, dpoff_.data(), dpcol_.data(),
                reinterpret_cast<unsigned long long*>(dpmax_.data())};
    }

private:
    /// Keep a CSR just built on the device (in `off`/`nbrs`, with host offsets
    /// `host_offsets`) for the next hold_snapshot().
    void keep_pending(DeviceBuffer<std::int64_t>& off, DeviceBuffer<std::int32_t>& nbrs,
                      const std::vector<std::int64_t>& host_offsets, std::size_t entries) {
        std::swap(pend_offsets_, off);
        std::swap(pend_nbrs_, nbrs);
        pending_offsets_ = host_offsets;
        pending_entries_ = entries;
    }
    /// Upload the merged removal map (and bit0) unless this level's is already here.
    void hold_removal(std::span<const std::byte> removal, std::span<const std::int64_t> bit0);

    FisherContext& ctx_;
    Level0Buffers l0_;
    bool level0_whole_ = false;  ///< the last level0() ran every row: l0_ holds the whole table
    bool p_stayed_ = false;      ///< the last level0() left its p-values here (Level0Output::p_stayed)
    // The pMax table.
    bool dp_held_ = false, dp_dense_ = true;
    std::size_t dp_count_ = 0;          ///< the table's slots
    std::vector<double> host_values_;   ///< the table's values as last read (take_host_table)
    bool host_valid_ = false;           ///< host_values_ equal to the table
    DeviceBuffer<double> dpmax_;        ///< the pMax table's values by slot
    DeviceBuffer<std::int64_t> dpoff_;  ///< sparse: row starts
    DeviceBuffer<std::int32_t> dpcol_;  ///< sparse: columns
    // Snapshots.
    DeviceBuffer<std::int64_t> offsets_;  ///< the snapshot held (this level's, see uploaded_)
    DeviceBuffer<std::int32_t> nbrs_;
    const Adjacency* uploaded_ = nullptr;      ///< the snapshot in offsets_/nbrs_ (this level's)
    DeviceBuffer<std::int64_t> pend_offsets_;  ///< the next snapshot, built here (see keep_pending)
    DeviceBuffer<std::int32_t> pend_nbrs_;
    std::vector<std::int64_t> pending_offsets_;  ///< its offsets on the host; empty: none
    std::size_t pending_entries_ = 0;
    DeviceBuffer<std::uint8_t> keep_;
    DeviceBuffer<std::int64_t> pos_, next_offsets_;
    DeviceBuffer<std::int32_t> next_nbrs_;
    DeviceBuffer<unsigned long long> removed_;
    // The merged removal map.
    DeviceBuffer<std::uint8_t> removal_;
    DeviceBuffer<std::int64_t> bit0_;
    const std::byte* removal_held_ = nullptr;  ///< the host map in removal_ (set by settle_level)
    // The level to settle, and the records listed from it (and the table's pairs).
    LevelOnDevice level_;
    DeviceBuffer<std::uint8_t> wkeep_;
    DeviceBuffer<std::int64_t> wpos_;
    DeviceBuffer<std::int32_t> wpairs_, wnodes_;
    DeviceBuffer<TablePair> table_pairs_;
};

}  // namespace cudag::cuda
