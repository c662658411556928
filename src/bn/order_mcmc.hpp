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
// Random numbers: chain c draws its starting order (Fisher–Yates) from stream 2c (chain 0
// takes OrderMcmcOptions::start_order instead when one is given) and the
// proposal of iteration t (t = 1, 2, ...) from block t of stream 2c + 1, both under the
// options' seed: the pair from the block's first two words, the acceptance uniform from the
// last two. A chain's trajectory is thus a function of (seed, c) alone, whatever the thread
// count or the thread that runs it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bn/proposal.hpp"
#include "bn/score_table.hpp"

namespace cudag::bn {

enum class OrderScoreMode : int { Sum, Max };

/// --order-score: "max" or "sum"; anything else is an InputError naming the option and the choices.
OrderScoreMode parse_order_score(const std::string& name);
std::string to_string(OrderScoreMode m);
/// --moves: "swap" or "bidag"; anything else is an InputError naming the option and the choices.
MoveSet parse_moves(const std::string& name);
std::string to_string(MoveSet m);

struct OrderMcmcOptions {
    int chains = 4;
    std::int64_t iterations = 10000;  ///< proposals per chain
    std::int64_t burn_in = 1000;      ///< first iterations not kept (0 <= burn_in <= iterations)
    std::int64_t thin = 1;            ///< keep iteration t when t > burn_in and (t - burn_in) % thin == 0
    std::uint64_t seed = 1;
    OrderScoreMode mode = OrderScoreMode::Sum;
    MoveSet moves = MoveSet::Swap;  ///< bn/proposal.hpp
    int threads = 0;                ///< <= 0: all hardware threads; results do not depend on it
    /// Empty, or chain 0's starting order instead of its random one (a permutation of the
    /// nodes): BiDAG's iterative search continues each round from the last one's best order.
    std::vector<std::int32_t> start_order;
};

/// One chain between iterations: everything its continuation depends on, so that a chain
/// stopped after any iteration and continued (here or from a checkpoint) ends bit for bit
/// as one that never stopped. The per-node scores and edge values of the current order are
/// not kept: they are recomputed from `order`, deterministically.
struct ChainState {
    std::int64_t chain = 0;                ///< its id: the random stream it draws from
    std::int64_t done = 0;                 ///< iterations done
    std::int64_t accepted = 0;             ///< accepted proposals so far
    std::vector<std::int32_t> order;       ///< current order
    double score = 0.0;                    ///< its score, as kept incrementally
    std::vector<std::int32_t> best_order;  ///< highest-scoring order visited (the first on ties)
    double best_score = 0.0;
    std::vector<double> trace;  ///< the score after each kept iteration so far
    /// Edge values summed over the kept iterations, by child: the value of p --> v at an
    /// iteration is P(p --> v | current order) in sum mode and whether p is a parent of v in
    /// the current order's best DAG in max mode. Both n × n at [p * n + v]. A node's column
    /// is added lazily, when it changes or at the end: since[v] is the number of kept
    /// iterations already added for v.
    std::vector<double> edge_sum, edge_sumsq;
    std::vector<std::int64_t> since;
    std::int64_t kept = 0;  ///< kept iterations so far (trace.size())
};

struct OrderChainResult {
    /// Score of the current order after each kept iteration: (iterations - burn_in) / thin values.
    std::vector<double> trace;
    double acceptance_rate = 0.0;          ///< accepted / iterations (0 when n < 2: there is nothing to swap)
    std::vector<std::int32_t> best_order;  ///< highest-scoring order visited (the first one on ties)
    double best_score = 0.0;
    /// The best DAG of best_order (order_score_max), parents by node id: the MAP DAG in max
    /// mode, the best DAG within the best order in sum mode.
    std::vector<std::vector<std::int32_t>> best_parents;
    double best_dag_score = 0.0;            ///< its score (= best_score in max mode)
    std::vector<std::int32_t> final_order;  ///< the order after the last iteration
    double final_score = 0.0;               ///< its score as kept incrementally by the chain
    /// This chain's kept edge values (see ChainState), summed, n × n; divided by the kept
    /// count they are the chain's own edge probabilities.
    std::vector<double> edge_sum, edge_sumsq;
};

struct OrderMcmcResult {
    std::vector<OrderChainResult> chains;  ///< by chain id
    /// n × n, edge_prob[p * n + v]: the average over the kept iterations of all chains of the
    /// edge value (see ChainState). In sum mode this is the Rao–Blackwellised estimate of
    /// P(p --> v | D); in max mode the frequency of p --> v in the chains' best DAGs.
    /// Empty when no iteration is kept.
    std::vector<double> edge_prob;
    std::int64_t kept_per_chain = 0;
};

/// InputError when chains < 1, iterations < 0, burn_in is outside [0, iterations] or thin < 1.
void check_options(const OrderMcmcOptions& opts);

/// Chain `chain` before its first iteration (its starting order drawn).
ChainState start_chain(const ScoreTable& table, const OrderMcmcOptions& opts, std::int64_t chain);
/// Run the chains of `states` on to iteration `until` (no-op for those already there), in
/// parallel over chains with opts.threads threads. The result does not depend on the
/// thread count or on how a run is cut into calls.
void advance_chains(const ScoreTable& table, const OrderMcmcOptions& opts, std::span<ChainState> states,
                    std::int64_t until);
/// The result of chains that ran opts.iterations: states in chain order (all of them),
/// combined in that order.
OrderMcmcResult finish_chains(const ScoreTable& table, const OrderMcmcOptions& opts, std::vector<ChainState> states);

/// start_chain for chains 0..opts.chains-1, advance_chains to opts.iterations, finish_chains.
OrderMcmcResult run_order_mcmc(const ScoreTable& table, const OrderMcmcOptions& opts);

}  // namespace cudag::bn
