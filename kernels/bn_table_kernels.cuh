// SPDX-License-Identifier: Apache-2.0
// The order-MCMC score-table kernels (bn_table_kernels.cu): a node's BDeu/K2 entries (a
// warp per entry) or BGe and cg-bic entries (a thread per entry), each equal bit for bit to the CPU's
// (bn::PriorScorer over bn::DiscreteScorer or bn::BgeScorer). Launchers take device
// pointers and the stream last; bn_table_engine.cu calls them node by node.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "bn_device.cuh"
#include "bn_engines.hpp"  // kBnTableCells
#include "bn/cg_bic.hpp"
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

/// The data and settings of the cg-bic table kernel (bn::CgBicScorer's, on the device).
struct CgBicArgs {
    const double* values;       ///< n_vars × N, variable-major (codes of discrete variables)
    const std::int32_t* radix;  ///< each variable's declared level count, 0 when continuous
    const double* observed;     ///< each variable's observed level count (1 when continuous)
    const double* prior;        ///< n_vars × n_vars or null
    std::int64_t n_vars, samples;
    double half_log_n, one_log_2pi, per_parent;
    double* scratch;  ///< per_thread doubles for each of the launch's threads
    std::int64_t per_thread;
};

/// Strata (configurations of a family's discrete variables, dense) a thread of the cg-bic
/// table kernel holds; entries of families with more are left to the CPU (NaN).
inline constexpr std::int64_t kCgBicStrata = 128;

/// Scratch doubles a thread of the cg-bic kernel needs for families of at most
/// max_parents + 1 variables: the strata's row counts, then the family's and the parents'
/// records (bn::cg_record_doubles of max_parents + 1 continuous variables each).
CUDAG_HD constexpr std::int64_t cg_bic_thread_doubles(int max_parents) {
    return kCgBicStrata * (1 + 2 * static_cast<std::int64_t>(bn::cg_record_doubles(max_parents + 1)));
}

/// The cg-bic entries of node L.v into d_out[0, L.entries) (device), a thread each, on
/// `threads` threads (a multiple of 128; a.scratch holds a.per_thread doubles for each):
/// bn::CgBicScorer::local, then `per_parent` and the prior's term per parent. Entries of
/// families with more than kCgBicStrata strata, or a singular stratum covariance, are NaN
/// (the CPU scores them, and names the singular stratum).
void launch_cg_bic_table(const NodeLayout& L, const Binomials& B, const std::int32_t* d_cands,
                         const std::int32_t* d_extras, const CgBicArgs& a, std::int64_t threads, double* d_out,
                         cudaStream_t stream);

/// Adds the number of d_scores[0, count) that are NaN or infinite to *d_non_finite (device),
/// on at most 4 blocks per multiprocessor (`sms` of them): the table's check on the device, so
/// that the host reads the entries of no node without one.
void launch_count_non_finite(const double* d_scores, std::int64_t count, unsigned long long* d_non_finite, int sms,
                             cudaStream_t stream);

}  // namespace cudag::cuda
