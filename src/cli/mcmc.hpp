// SPDX-License-Identifier: Apache-2.0
// `cudag mcmc`: order MCMC for Bayesian networks (issue 21) — a local-score table (BDeu,
// K2 or BGe, with an optional structure prior), chains over topological orders, their best
// DAG, edge posterior probabilities and convergence diagnostics.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/bn_inputs.hpp"
#include "cli/knowledge_options.hpp"

namespace cudag::mpi {
class Communicator;
class Environment;
}  // namespace cudag::mpi
namespace cudag::bn {
struct McmcOutput;
struct McmcProgress;
}  // namespace cudag::bn

namespace cudag::cli {

struct McmcArgs {
    std::string data, dataset, space = "all", prior, order_score = "max", moves = "swap", out, formats,
                               backend = "auto";
    std::vector<std::string> na_values;  ///< --na-values
    std::string checkpoint, checkpoint_every;
    ScoreOptions score;
    double edge_penalty = 1.0, alpha = 0.05;
    int max_parents = 4, chains = 4, threads = 0, hard_limit = 14;
    std::int64_t iterations = 10000, thin = 1, stop_after = -1;
    std::optional<std::int64_t> burn_in;  ///< unset: a fifth of iterations
    std::uint64_t seed = 1;
    bool resume = false, keep_checkpoint = false, quiet = false, verbose = false, force = false;
    bool overwrite_checkpoint = false;  ///< --overwrite-checkpoint: replace an existing --checkpoint
    const CLI::Option* alpha_option = nullptr;
    const CLI::Option* hard_limit_option = nullptr;
    KnowledgeFiles knowledge;  ///< --forbid, --require, --tiers
};

/// Registers the `mcmc` subcommand on `app`, filling `a` when parsed.
CLI::App* add_mcmc_command(CLI::App& app, McmcArgs& a);

/// What an in-process caller (the Python module) puts in place of the files; every member
/// may be empty (the command line's behaviour).
struct McmcHooks {
    DataReader read;  ///< the data instead of reading --data
    /// Rank 0's result, instead of the best DAG on stdout (--out and --format files are still
    /// written when given).
    std::function<void(bn::McmcOutput&)> result;
    /// The chains' progress as it comes (as often as the command's own lines could be
    /// printed); may throw to stop.
    std::function<void(const bn::McmcProgress&)> progress;
};

/// Runs the learner (chains split over the ranks of `comm`); rank 0 writes the outputs.
/// Returns the exit code (3 after a simulated stop).
int run_mcmc_command(const McmcArgs& a, const std::string& command_line, const mpi::Environment& env,
                     std::unique_ptr<mpi::Communicator>& comm, const McmcHooks& hooks = {});

}  // namespace cudag::cli
