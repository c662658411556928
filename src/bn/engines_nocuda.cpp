// SPDX-License-Identifier: Apache-2.0
// The MCMC learner's CUDA engines in a CPU-only build: none (kernels/bn_registry.cpp otherwise).
#include "bn/engines.hpp"
#include "core/error.hpp"

namespace cudag::bn {

ScoreTable::Filler cuda_table_filler(const DiscreteScorer&, const PriorScorer&, int) { throw NotCompiled("cuda"); }

ScoreTable::Filler cuda_table_filler(const BgeScorer&, const PriorScorer&, int) { throw NotCompiled("cuda"); }

ScoreTable::Filler cuda_table_filler(const CgBicScorer&, const PriorScorer&, int) { throw NotCompiled("cuda"); }

ScoreTable::Filler cuda_table_sorter(int) { throw NotCompiled("cuda"); }

ChainAdvancer cuda_chain_advancer(const ScoreTable&, const OrderMcmcOptions&, int) { throw NotCompiled("cuda"); }

}  // namespace cudag::bn
