// SPDX-License-Identifier: Apache-2.0
// The order-MCMC learner's engines besides the CPU's (issue 21): a GPU filler for the
// BDeu/K2 table and GPU chains (max and sum mode), from kernels/bn_mcmc.cu in a CUDA build
// (kernels/bn_registry.cpp) and NotCompiled otherwise (engines_nocuda.cpp). Both give the CPU's
// results bit for bit.
#pragma once

#include <functional>
#include <span>

#include "bn/bge.hpp"
#include "bn/order_mcmc.hpp"
#include "bn/prior.hpp"
#include "bn/score.hpp"
#include "bn/score_table.hpp"

namespace cudag::bn {

/// A ScoreTable::Filler that computes the BDeu/K2 entries of PriorScorer(scorer, prior) of
/// the nodes it is given on device `device` (the entries it cannot take are left to the
/// CPU). `scorer` and `prior` must outlive the filler's call.
ScoreTable::Filler cuda_table_filler(const DiscreteScorer& scorer, const PriorScorer& prior, int device);
/// The same for BGe (every entry on the GPU).
ScoreTable::Filler cuda_table_filler(const BgeScorer& scorer, const PriorScorer& prior, int device);

/// A sorter for ScoreTable::build_sorted on device `device`: the lists of the nodes it is
/// given, the same as the CPU's.
ScoreTable::Filler cuda_table_sorter(int device);

/// Runs chains on to an iteration, as advance_chains does.
using ChainAdvancer = std::function<void(std::span<ChainState>, std::int64_t until)>;

/// Chains over `table` (it must outlive the advancer; in max mode with its sorted lists)
/// on device `device`, max or sum mode.
ChainAdvancer cuda_chain_advancer(const ScoreTable& table, const OrderMcmcOptions& opts, int device);

}  // namespace cudag::bn
