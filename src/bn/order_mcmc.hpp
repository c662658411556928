// SPDX-License-Identifier: Apache-2.0
// Order MCMC (issue 21; Friedman & Koller 2003): a Metropolis–Hastings random walk over
// topological orders whose target is proportional to exp(order score), the score being the
// sum- or max-based score of bn/score_table.hpp.
//
// Proposal: swap the nodes at two positions i < j, the pair drawn uniformly among the
// n(n-1)/2 pairs. The move is its own inverse and has the same probability 2/(n(n-1)) from
// either side, so the proposal is symmetric and the acceptance probability is
// min(1, exp(new score - old score)). Only the nodes at positions i..j change predecessors
// (the two swapped nodes and the ones between them), so only those are rescored; each chain
// keeps the per-node scores of its current order.
//
// Random numbers: chain c draws its starting order (Fisher–Yates) from stream 2c and the
// proposal of iteration t (t = 1, 2, ...) from block t of stream 2c + 1, both under the
// options' seed: the pair from the block's first two words, the acceptance uniform from the
// last two. A chain's trajectory is thus a function of (seed, c) alone, whatever the thread
// count or the thread that runs it.
#pragma once

#include <cstdint>
#include <vector>

#include "bn/score_table.hpp"

namespace cudag::bn {

enum class OrderScoreMode : int { Sum, Max };

struct OrderMcmcOptions {
    int chains = 4;
    std::int64_t iterations = 10000;  ///< proposals per chain
    std::int64_t burn_in = 1000;      ///< first iterations not kept (0 <= burn_in <= iterations)
    std::int64_t thin = 1;            ///< keep iteration t when t > burn_in and (t - burn_in) % thin == 0
    std::uint64_t seed = 1;
    OrderScoreMode mode = OrderScoreMode::Sum;
    int threads = 0;                  ///< <= 0: all hardware threads; results do not depend on it
};

struct OrderChainResult {
    /// Score of the current order after each kept iteration: (iterations - burn_in) / thin values.
    std::vector<double> trace;
    double acceptance_rate = 0.0;  ///< accepted / iterations (0 when n < 2: there is nothing to swap)
    std::vector<std::int32_t> best_order;  ///< highest-scoring order visited (the first one on ties)
    double best_score = 0.0;
    /// Max mode: the MAP DAG of best_order, parents by node id (order_score_max). Empty in sum mode.
    std::vector<std::vector<std::int32_t>> best_parents;
    std::vector<std::int32_t> final_order;  ///< the order after the last iteration
    double final_score = 0.0;               ///< its score as kept incrementally by the chain
};

struct OrderMcmcResult {
    std::vector<OrderChainResult> chains;  ///< by chain id
    /// Sum mode: n × n, edge_prob[p * n + v] estimates P(p --> v | D) as the average over the
    /// kept iterations of all chains of P(p --> v | current order) (Rao–Blackwellised). Empty
    /// in max mode or when no iteration is kept.
    std::vector<double> edge_prob;
};

/// Runs opts.chains chains over the table's nodes. InputError when chains < 1, iterations < 0,
/// burn_in is outside [0, iterations] or thin < 1.
OrderMcmcResult run_order_mcmc(const ScoreTable& table, const OrderMcmcOptions& opts);

}  // namespace cudag::bn
