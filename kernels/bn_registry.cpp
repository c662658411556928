// SPDX-License-Identifier: Apache-2.0
// The MCMC learner's CUDA engines (kernels/bn_table_engine.cu, bn_chain_engine.cu);
// src/bn/engines_nocuda.cpp in a CPU build.
#include <memory>

#include "bn/engines.hpp"
#include "kernels/bn_engines.hpp"

namespace cudag::bn {

ScoreTable::Filler cuda_table_filler(const DiscreteScorer& scorer, const PriorScorer& prior, int device) {
    return [&scorer, &prior, device](ScoreTable& table, NodeRange nodes) {
        cuda::fill_discrete_table(scorer.codes(), scorer.spec(), prior.per_parent(), prior.terms(), table, nodes,
                                  device);
    };
}

ScoreTable::Filler cuda_table_filler(const BgeScorer& scorer, const PriorScorer& prior, int device) {
    return [&scorer, &prior, device](ScoreTable& table, NodeRange nodes) {
        cuda::fill_bge_table(scorer, prior.per_parent(), prior.terms(), table, nodes, device);
    };
}

ScoreTable::Filler cuda_table_filler(const CgBicScorer& scorer, const PriorScorer& prior, int device) {
    return [&scorer, &prior, device](ScoreTable& table, NodeRange nodes) {
        cuda::fill_cg_bic_table(scorer, prior.per_parent(), prior.terms(), table, nodes, device);
    };
}

ScoreTable::Filler cuda_table_sorter(int device) {
    return [device](ScoreTable& table, NodeRange nodes) { cuda::sort_table(table, nodes, device); };
}

ChainAdvancer cuda_chain_advancer(const ScoreTable& table, const OrderMcmcOptions& opts, int device) {
    std::shared_ptr<cuda::OrderChainsGpu> gpu = cuda::make_order_chains_gpu(table, opts, device);
    return [gpu](std::span<ChainState> states, std::int64_t until) { gpu->advance(states, until); };
}

}  // namespace cudag::bn
