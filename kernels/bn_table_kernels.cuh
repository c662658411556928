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
#include "core/hd.hpp"

namespace cudag::cuda {

inline constexpr int kTableWarps = 8;  ///< warps per block of the BDeu/K2 table kernel
inline constexpr int kTableCells = static_cast<int>(kBnTableCells);

struct TableArgs {
    const std::uint8_t* codes;  ///< n_vars × N, variable-major
    const std::int32_t* cards;
    const double* prior;  ///< n × n or null
    std::int64_t n_vars, samples;
    int k2;  ///< 1: K2, 0: BDeu
    double iss, per_parent;
    Binomials binom;
    int cap;  ///< cells per warp (<= kBnTableCells): larger parent tables are the CPU's
};

/// Shared bytes of one warp of table_kernel for `cap` cells: counts, cell terms, row terms.
/// Rounded up to 16 bytes, so that every warp's doubles stay aligned and apart.
CUDAG_HD constexpr std::size_t table_warp_bytes(int cap) {
    const std::size_t bytes = static_cast<std::size_t>(cap) * (sizeof(double) + sizeof(std::uint32_t)) +
                              static_cast<std::size_t>(cap / 2 + 1) * sizeof(double);
    return (bytes + 15) / 16 * 16;
}

/// Lets the BDeu/K2 table kernel take the dynamic shared memory of kTableCells cells a warp
/// (once, before its launches).
void prepare_table_kernel();

/// The BDeu/K2 entries of node L.v into d_out[0, L.entries) (device), a warp per entry, on at
/// most 16 blocks per multiprocessor (`sms` of them). d_cands and d_extras hold the node's
/// lists. Entries whose parent table has more than a.cap cells are not written.
void launch_table(const NodeLayout& L, const std::int32_t* d_cands, const std::int32_t* d_extras, const TableArgs& a,
                  double* d_out, int sms, cudaStream_t stream);

/// The BGe entries of node L.v into d_out[0, L.entries) (device), a thread per entry:
/// bge_local_score on d_tn (n × n) with the host's constants d_consts, then `per_parent` and
/// (d_prior not null, n × n, [p * n + v]) the prior's term per parent.
void launch_bge_table(const NodeLayout& L, const Binomials& B, const std::int32_t* d_cands,
                      const std::int32_t* d_extras, const double* d_tn, std::int64_t n, const double* d_consts,
                      double awpn_n, double per_parent, const double* d_prior, double* d_out, int sms,
                      cudaStream_t stream);

}  // namespace cudag::cuda
