// SPDX-License-Identifier: Apache-2.0
// The order-MCMC chain kernels (bn_chain_kernels.cu): every node of every chain scored from
// its order, then per iteration the proposal's nodes rescored (a block per (chain, node or
// slot)) and accepted or not (one thread per chain), as bn::advance_chains does, bit for
// bit. The views are plain structs of device pointers, passed by value; bn_chain_engine.cu
// fills them. The stream last.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "bn/proposal.hpp"
#include "bn_device.cuh"

namespace cudag::cuda {

struct TableView {
    std::int64_t n = 0;
    int s = 0, w = 1;
    const double* scores;
    const std::int64_t* node_off;
    const std::int64_t* list_start;  ///< n + 1: node v's sorted list is [list_start[v], list_start[v + 1])
    const std::uint32_t* sorted_off;
    const std::uint16_t* sorted_par;
    const double* sorted_score;  ///< by sorted entry, as sorted_off
    const std::int32_t* cand;    ///< flattened
    const std::int64_t* cand_start;
    const std::int32_t* extra;
    const std::int64_t* extra_start;
    const std::int64_t* so;  ///< n × (s + 2)
    const std::int64_t* xo;  ///< n × (s + 1)
    Binomials binom;
    /// Sum mode's subset rows (bn/subset_rows.hpp): node v's at rows + row_off[v] (-1: none,
    /// its sets are enumerated), 2^m masks of (1 + its extra count) values.
    const double* rows;
    const std::int64_t* row_off;
};

struct ChainsView {
    std::int64_t chains = 0, trace_cap = 0;
    std::uint64_t seed = 0;
    bn::MoveSet moves = bn::MoveSet::Swap;
    std::int64_t burn_in = 0, thin = 1;
    std::int64_t* id;  ///< chain ids
    std::int32_t* order;
    std::int32_t* pos;
    double* node;
    std::uint32_t* best_off;
    std::int64_t* since;
    double* edge_sum;
    double* edge_sumsq;
    double* trace;
    std::int32_t* best_order;
    double* score;
    double* best_score;
    std::int64_t* accepted;
    std::int64_t* kept;
    std::int64_t* done;
    double* prop_node;  ///< by (chain, slot)
    std::uint32_t* prop_off;
    // Sum mode: each node's edge column P(p --> v | order) by p, current and proposed, and
    // the per-(chain, slot) scratch of the enumeration.
    int sum_mode = 0;
    double* col;              ///< [chain][v][p]
    double* prop_col;         ///< [chain][slot][p]
    std::int32_t* scratch;    ///< 2n per (chain, slot): preceding candidates and extras
    unsigned long long* acc;  ///< 2 (n + 1) per (chain, slot): 128-bit fixed-point sums
};

/// Every node of every chain scored from the chain's order (C.chains × T.n blocks).
void launch_chain_init(const TableView& T, const ChainsView& C, cudaStream_t stream);
/// Iteration t's proposal of each chain that has done t - 1 iterations: the nodes between
/// the swapped positions rescored, by slot (C.chains × T.n blocks).
void launch_chain_rescore(const TableView& T, const ChainsView& C, std::int64_t t, cudaStream_t stream);
/// Iterations first + 1 .. until of each chain that has done first or more, in one launch: a
/// block per chain rescoring each iteration's nodes one after the other, then accepting
/// (BiDAG's moves, mostly adjacent swaps: two nodes an iteration).
void launch_chain_run(const TableView& T, const ChainsView& C, std::int64_t first, std::int64_t until,
                      cudaStream_t stream);
/// Iteration t's acceptance, keeping and settling, a block per chain (C.chains blocks).
void launch_chain_accept(const TableView& T, const ChainsView& C, std::int64_t t, cudaStream_t stream);

}  // namespace cudag::cuda
