// SPDX-License-Identifier: Apache-2.0
// Adjacency compaction (cuPC Fig. 2: A_G -> A'_G) and entry selection with CUB.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "device_memory.hpp"

namespace cudag::cuda {

/// Temporary storage for CUB device-wide calls, cached by the engine and grown on demand
/// (two-phase: size query with a null pointer, then the run).
class CubScratch {
public:
    void* get(std::size_t bytes) {
        buf_.resize_discard(bytes ? bytes : 1);
        return buf_.data();
    }

private:
    DeviceBuffer<unsigned char> buf_;
};

/// Bit-packed symmetric adjacency on the device: row i holds `words` 64-bit words, bit
/// j of row i set <=> edge i–j (the layout of cudag::Graph).
struct BitRowsView {
    const std::uint64_t* bits = nullptr;  ///< device; row r at (r - row0) * words
    std::int64_t words = 0;
    std::int64_t row0 = 0;  ///< the first row held (a block of rows)
};

/// d_counts[r - r0] = number of set bits of row r, r in [r0, r1); with `upper_only`
/// only columns > r count. d_counts must hold r1 - r0 + 1 elements; the last is set to 0
/// so that an exclusive sum over all of them ends with the total.
void launch_row_degrees(BitRowsView g, std::int64_t r0, std::int64_t r1, bool upper_only, std::int64_t* d_counts,
                        cudaStream_t stream);

/// d_out[k] = sum of d_in[0..k) for k < count (CUB DeviceScan::ExclusiveSum).
void exclusive_sum(const std::int64_t* d_in, std::int64_t* d_out, std::int64_t count, CubScratch& scratch,
                   cudaStream_t stream);

/// Compacted rows: the column indices of row r's set bits (columns > r with
/// `upper_only`), increasing, at d_cols[d_offsets[r - r0] ..). d_offsets from
/// exclusive_sum over launch_row_degrees' counts.
void launch_row_neighbours(BitRowsView g, std::int64_t r0, std::int64_t r1, bool upper_only,
                           const std::int64_t* d_offsets, std::int32_t* d_cols, cudaStream_t stream);

/// Entry indices e in [e_begin, e_end) with d_best[e] != ~0 (a separating set was
/// found), increasing, into d_out (capacity e_end - e_begin), and their number into
/// *d_count (device). CUB DeviceSelect::If over a counting iterator.
void select_separated(const unsigned long long* d_best, std::int64_t e_begin, std::int64_t e_end, std::int64_t* d_out,
                      std::int64_t* d_count, CubScratch& scratch, cudaStream_t stream);

/// The next level's snapshot from a level's CSR adjacency (offsets: n + 1, nbrs; rows
/// sorted) and its whole removal map: entry e of row a was separated from a's side when
/// bit (bit0[a] + e - offsets[a]) of `removal` is set (bit k: byte k / 8, bit k % 8); a
/// pair goes when either of its two entries was separated. Writes keep[e] (0/1) for the
/// offsets[n] entries plus keep[offsets[n]] = 0, and adds the removed pairs to *d_removed.
void launch_next_keep(const std::int64_t* offsets, const std::int32_t* nbrs, std::int64_t n,
                      const std::uint8_t* removal, const std::int64_t* bit0, std::uint8_t* keep,
                      unsigned long long* d_removed, cudaStream_t stream);

/// d_pos[k] = keep[0] + ... + keep[k - 1] for k <= count (count + 1 outputs from keep's
/// count + 1 flags, the last 0): the kept entries' new positions, and the total last.
void exclusive_sum_flags(const std::uint8_t* keep, std::int64_t* d_pos, std::int64_t count, CubScratch& scratch,
                         cudaStream_t stream);

/// The kept entries in order: next_offsets[a] = pos[offsets[a]] (a <= n) and
/// next_nbrs[pos[e]] = nbrs[e] where keep[e].
void launch_next_gather(const std::int64_t* offsets, const std::int32_t* nbrs, std::int64_t n, const std::uint8_t* keep,
                        const std::int64_t* pos, std::int64_t* next_offsets, std::int32_t* next_nbrs,
                        cudaStream_t stream);

/// Loads this file's kernels and those of the CUB routines above (each run once on one
/// element: CUB's kernels load at their first launch) and returns how many kernels and
/// routines; see kernel_preload.cuh.
int preload_compact_kernels();

}  // namespace cudag::cuda
