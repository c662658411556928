// SPDX-License-Identifier: Apache-2.0
// The correlation store of the CUDA Fisher-z engine: the n×n correlation matrix C held
// whole on the device, or, when it does not fit, the standardised data z with C computed
// in row blocks at level 0 and the rows a rank's first level needs held from then on (any
// other entry summed again from z, equal bit for bit). The kernels read it through
// CorrSource. Every device buffer is a member (RAII); work goes on the context's stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/dataset.hpp"
#include "device_memory.hpp"
#include "fisher_context.cuh"
#include "fisher_level_planner.hpp"
#include "mpi/communicator.hpp"
#include "pc_gaussian.cuh"

namespace cudag::cuda {

class CorrelationStore {
public:
    CorrelationStore(FisherContext& ctx, const FisherLevelPlanner& plan) : ctx_(ctx), plan_(plan) {}

    /// Upload a host correlation matrix (n×n row-major), held whole.
    void load(const std::vector<double>& corr);
    /// Whether C can be held whole: n² doubles (with the data and z while it is computed)
    /// within the free device memory and FisherTunables::corr_limit_bytes (the planner's
    /// rule). Checks the columns; allocates nothing; when it does not fit, note() says why.
    bool fits(const Dataset& data);
    /// Hold C whole (`whole`) or, when it does not fit, the standardised data; for
    /// `whole`, allocate C (OutOfMemory when it does not fit).
    void choose_mode(bool whole);
    /// Compute C of `data` on the device (or, when C is not held whole, the standardised
    /// columns it is computed from).
    void compute(const Dataset& data);
    /// This rank's block of C's rows, upper triangle only (FisherLevelPlanner::
    /// correlation_blocks, the same cut on every rank); share_blocks() completes C.
    void compute_block(const Dataset& data, int rank, int ranks);
    /// Collective: every rank's block to every rank (over the GPUs with NCCL), then the
    /// lower triangle from the upper.
    void share_blocks(mpi::Communicator& comm);
    /// C copied back (n×n row-major); C must be held whole.
    std::vector<double> download();

    bool whole() const { return whole_; }
    /// C is exactly symmetric (the entry scan reads C[S, j] for C[j, S]).
    bool symmetric() const { return symmetric_; }
    /// Whether C is held whole with a diagonal of exactly 1 (read from the device once).
    bool unit_diagonal();
    /// Where the kernels read C: whole, or the held rows and z.
    CorrSource source() const;
    /// How C is held and why, when not whole (SkeletonEngine::setup_note); else empty.
    const std::string& note() const { return note_; }

    /// A search starts (level 0): C not whole, the rows held by the last search go.
    void new_search();
    /// C not whole: level 0 over rows [row_begin, row_end) in blocks of rows of C (upper
    /// triangle) computed from z: fn(source of the block, first row, end row) per block.
    /// The blocks are gone when this returns (the stream is synchronised first).
    void in_row_blocks(std::int64_t row_begin, std::int64_t row_end,
                       const std::function<void(const CorrSource&, std::int64_t, std::int64_t)>& fn);
    /// C not whole, once per search: hold rows [row_begin, ...) of C, as many as fit
    /// beside `reserve` bytes (later levels read their other rows' entries from z).
    void hold_rows_once(std::int64_t row_begin, std::int64_t row_end, std::size_t reserve);

    /// C not whole: give the held rows' device memory back for the rest of the search
    /// (every entry is then summed again from z: the same values).
    void release_held();

    /// The k×k block C[nodes, nodes] (k = nodes.size()), row-major, on the host.
    std::vector<double> gather_block(const std::vector<std::int32_t>& nodes);

private:
    std::string dims() const { return std::to_string(ctx_.n) + "x" + std::to_string(ctx_.n); }

    FisherContext& ctx_;
    const FisherLevelPlanner& plan_;
    bool symmetric_ = true;    ///< C is exactly symmetric (the entry scan needs it)
    bool diag_known_ = false;  ///< unit_diag_ holds for the current C
    bool unit_diag_ = false;   ///< C's diagonal is exactly 1 (see unit_diagonal())
    bool whole_ = true;
    DeviceBuffer<double> corr_;  ///< C whole, or rows [held_lo_, held_hi_) of it
    DeviceBuffer<double> z_;     ///< C not whole: the standardised columns (n×m)
    std::int64_t held_lo_ = 0, held_hi_ = 0;
    bool held_ready_ = false;  ///< C not whole: hold_rows_once() ran for this search
    std::string note_;
    /// compute_block: every rank's block (entries) and this rank's first row.
    std::vector<std::size_t> block_counts_;
    std::int64_t block_row0_ = 0;
    // gather_block
    DeviceBuffer<std::int32_t> nodes_;
    DeviceBuffer<double> block_;
};

}  // namespace cudag::cuda
