// SPDX-License-Identifier: Apache-2.0
// The order-MCMC learner's engines besides the CPU's (issue 21): a GPU filler for the
// BDeu/K2 table and GPU chains (max and sum mode), from kernels/bn_table_engine.cu and
// kernels/bn_chain_engine.cu in a CUDA build
// (kernels/bn_registry.cpp) and NotCompiled otherwise (engines_nocuda.cpp). Both give the CPU's
// results bit for bit.
#pragma once

#include <functional>
#include <span>

#include "bn/bge.hpp"
#include "bn/cg_bic.hpp"
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
/// The same for cg-bic (the entries of families of more than cuda::kCgBicStrata strata, or
/// with a singular stratum, on the CPU).
ScoreTable::Filler cuda_table_filler(const CgBicScorer& scorer, const PriorScorer& prior, int device);

/// A sorter for ScoreTable::build_sorted on device `device`: the lists of the nodes it is
/// given, the same as the CPU's.
ScoreTable::Filler cuda_table_sorter(int device);

/// Runs chains on to an iteration, as advance_chains does.
using ChainAdvancer = std::function<void(std::span<ChainState>, std::int64_t until)>;

/// Chains over `table` (it must outlive the advancer; in max mode with its sorted lists)
/// on device `device`, max or sum mode.
ChainAdvancer cuda_chain_advancer(const ScoreTable& table, const OrderMcmcOptions& opts, int device);

/// The largest parent limit the GPU sorter and chains take (kernels/bn_device.cuh sizes their
/// per-thread arrays by it); the GPU table fillers take any.
constexpr int kMaxGpuParents = 12;

/// Which engine runs each phase: decided once, here (the registry of the MCMC learner).
struct McmcEngines {
    ScoreTable::Filler filler;  ///< the table's entries; empty: the CPU's
    ScoreTable::Filler sorter;  ///< the score-sorted lists; empty: the CPU's
    /// Whether the chains may run on the GPU (chains_on_gpu then decides with the table).
    bool gpu_chains = false;
    int device = 0;

    /// Whether the chains run on the GPU over `table`: max mode needs its sorted lists.
    bool chains_on_gpu(const ScoreTable& table, OrderScoreMode mode) const {
        return gpu_chains && (mode == OrderScoreMode::Sum || table.has_sorted());
    }
};

/// The engines for `scorer` (a DiscreteScorer, BgeScorer or CgBicScorer has a GPU table filler) with
/// `prior`, `max_parents`, on device `device` when `gpu`; the CPU's otherwise. `scorer`
/// and `prior` must outlive the fillers.
McmcEngines pick_mcmc_engines(const LocalScorer& scorer, const PriorScorer& prior, int max_parents, bool gpu,
                              int device);

}  // namespace cudag::bn
