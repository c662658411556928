// SPDX-License-Identifier: Apache-2.0
// The order-MCMC learner's CUDA engines (issue 21): the BDeu/K2 local-score table and the
// chains (max and sum mode). Plain host types only; the engines are in bn_table_engine.cu and
// bn_chain_engine.cu, over the kernel families bn_table_kernels.cu, bn_sort_kernels.cu and
// bn_chain_kernels.cu.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "bn/bge.hpp"
#include "bn/cg_bic.hpp"
#include "bn/order_mcmc.hpp"
#include "bn/score.hpp"
#include "bn/score_table.hpp"

namespace cudag::cuda {

/// Parent tables with more cells (configurations x levels) than a device's limit are left to
/// the CPU: the limit is as many cells as 8 warps' counts and terms fit in the device's
/// shared memory (1,808 on an H100 or H200, 227 KiB a block), at least kBnTableCells and at
/// most kBnTableCellsMax.
inline constexpr std::int64_t kBnTableCells = 512;
inline constexpr std::int64_t kBnTableCellsMax = 4096;

/// The BDeu/K2 entries of the nodes `nodes` of `table` computed on device `device` (no other
/// node's entries are written), as bn::PriorScorer over
/// bn::DiscreteScorer(codes, spec) gives them bit for bit: each parent adds `per_parent`
/// and, when `prior_terms` is not empty (n × n, [p * n + v]), its term. Entries whose
/// parent table has more cells than the device's limit (above) are left as they are (NaN from
/// ScoreTable's Filler) for the CPU. Throws OutOfMemory when the device cannot hold a node's
/// entries and the data.
void fill_discrete_table(const ci::DiscreteCodes& codes, const bn::ScoreSpec& spec, double per_parent,
                         std::span<const double> prior_terms, bn::ScoreTable& table, bn::NodeRange nodes, int device);

/// The BGe entries of the nodes `nodes` of `table` on device `device`, as bn::PriorScorer
/// over `scorer` gives them bit for bit (bge_local_score with xm::log; sqrt is correctly
/// rounded on both).
void fill_bge_table(const bn::BgeScorer& scorer, double per_parent, std::span<const double> prior_terms,
                    bn::ScoreTable& table, bn::NodeRange nodes, int device);

/// The cg-bic entries of the nodes `nodes` of `table` on device `device`, as bn::PriorScorer
/// over `scorer` gives them bit for bit (bn/cg_bic.hpp's arithmetic, xm::log; sqrt and
/// division correctly rounded on both); entries of families with more than kCgBicStrata
/// strata or a singular stratum are left NaN for the CPU. Nothing with more than
/// kMaxGpuParents parents (all on the CPU).
void fill_cg_bic_table(const bn::CgBicScorer& scorer, double per_parent, std::span<const double> prior_terms,
                       bn::ScoreTable& table, bn::NodeRange nodes, int device);

/// bn::ScoreTable::build_sorted's lists of the nodes `nodes` computed on device `device` (a
/// stable radix sort of each node's scores, then each entry's parents), the same as the
/// CPU's; the table's sorted lists must have been set up (build_sorted calls it).
void sort_table(bn::ScoreTable& table, bn::NodeRange nodes, int device);

/// Chains on a GPU, max or sum mode: advance() does what bn::advance_chains does, bit for bit.
class OrderChainsGpu {
public:
    virtual ~OrderChainsGpu() = default;
    virtual void advance(std::span<bn::ChainState> states, std::int64_t until) = 0;
};

/// Chains over `table` (which must outlive the object, and in max mode have its sorted
/// lists, build_sorted) on device `device`. Copies the table to the device (OutOfMemory
/// when it does not fit). Sum mode enumerates each rescored node's consistent sets, a block
/// per node, with the fixed-point sums of bn/fixed_sum.hpp.
std::unique_ptr<OrderChainsGpu> make_order_chains_gpu(const bn::ScoreTable& table, const bn::OrderMcmcOptions& opts,
                                                      int device);

}  // namespace cudag::cuda
