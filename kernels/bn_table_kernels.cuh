// SPDX-License-Identifier: Apache-2.0
// The order-MCMC score-table kernels (bn_table_kernels.cu): a node's BDeu/K2 entries (a
// warp per entry) or BGe entries (a thread per entry), each equal bit for bit to the CPU's
// (bn::PriorScorer over bn::DiscreteScorer or bn::BgeScorer). Launchers take device
// pointers and the stream last; bn_table_engine.cu calls them node by node.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "bn_device.cuh"
#include "bn_engines.hpp"  // kBnTableCells
#include "bn/local_score.hpp"
#include "core/hd.hpp"

namespace cudag::cuda {

inline constexpr int kTableWarps = 8;  ///< warps per block of the BDeu/K2 table kernel

struct TableArgs {
    const std::uint8_t* codes;  ///< n_vars × N, variable-major
    const std::int32_t* cards;
    const double* prior;  ///< n × n or null
    std::int64_t n_vars, samples;
    int k2;  ///< 1: K2, 0: BDeu
    double iss, per_parent;
    Binomials binom;
    int cap;  ///< cells per warp (<= table_cells(device)): larger parent tables are the CPU's
    /// bd_term_tables of the node's q = qi parent configurations at terms + slot[qi] (cell
    /// terms, then samples + 1 row terms); slot[qi] < 0 (or slot null): computed directly.
    const double* terms;
    const std::int32_t* slot;
    bn::SampleBits bits;      ///< the data's sample bitsets (launch_bitset_table)
    std::int64_t bits_words;  ///< words of all the sets
};

inline constexpr int kBitsetThreads = 128;  ///< threads per block of the bitset table kernel
/// Shared memory the bitset table kernel may take for the sample bitsets (more: read from
/// global memory).
inline constexpr std::size_t kBitsetSmemBytes = 96 * 1024;

/// Shared bytes of one warp of table_kernel for `cap` cells: counts, cell terms, row terms.
/// Rounded up to 16 bytes, so that every warp's doubles stay aligned and apart.
CUDAG_HD constexpr std::size_t table_warp_bytes(int cap) {
    const std::size_t bytes = static_cast<std::size_t>(cap) * (sizeof(double) + sizeof(std::uint32_t)) +
                              static_cast<std::size_t>(cap / 2 + 1) * sizeof(double);
    return (bytes + 15) / 16 * 16;
}

/// The most cells a warp of table_kernel holds on `device`: the largest cap whose
/// kTableWarps warps fit the device's opt-in shared memory a block, within
/// [kBnTableCells, kBnTableCellsMax].
int table_cells(int device);
/// Lets the BDeu/K2 table kernel take the dynamic shared memory of `cells` cells a warp
/// (once, before its launches).
void prepare_table_kernel(int cells);

/// The BDeu/K2 entries of node L.v into d_out[0, L.entries) (device), a warp per entry, on at
/// most 16 blocks per multiprocessor (`sms` of them). d_cands and d_extras hold the node's
/// lists. Entries whose parent table has more than a.cap cells are not written.
void launch_table(const NodeLayout& L, const std::int32_t* d_cands, const std::int32_t* d_extras, const TableArgs& a,
                  double* d_out, int sms, cudaStream_t stream);

/// The same entries as launch_table, a thread per entry: bn::bd_bitset_score on a.bits with
/// every q's tables present in a.slot (the caller checks), then the prior's terms; the
/// bitsets go to shared memory when a.bits_words * 4 <= kBitsetSmemBytes.
void launch_bitset_table(const NodeLayout& L, const std::int32_t* d_cands, const std::int32_t* d_extras,
                         const TableArgs& a, double* d_out, int sms, cudaStream_t stream);

/// The BGe entries of node L.v into d_out[0, L.entries) (device), a thread per entry:
/// bge_local_score on d_tn (n × n) with the host's constants d_consts, then `per_parent` and
/// (d_prior not null, n × n, [p * n + v]) the prior's term per parent.
void launch_bge_table(const NodeLayout& L, const Binomials& B, const std::int32_t* d_cands,
                      const std::int32_t* d_extras, const double* d_tn, std::int64_t n, const double* d_consts,
                      double awpn_n, double per_parent, const double* d_prior, double* d_out, int sms,
                      cudaStream_t stream);

/// Adds the number of d_scores[0, count) that are NaN or infinite to *d_non_finite (device),
/// on at most 4 blocks per multiprocessor (`sms` of them): the table's check on the device, so
/// that the host reads the entries of no node without one.
void launch_count_non_finite(const double* d_scores, std::int64_t count, unsigned long long* d_non_finite, int sms,
                             cudaStream_t stream);

}  // namespace cudag::cuda
