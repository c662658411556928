// SPDX-License-Identifier: Apache-2.0
// `cudag mcmc`: order MCMC for Bayesian networks (issue 21) — a local-score table (BDeu,
// K2 or BGe, with an optional structure prior), chains over topological orders, their best
// DAG, edge posterior probabilities and convergence diagnostics. The run itself is
// run::run_mcmc; this command binds its options and prints.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "cli/bn_inputs.hpp"
#include "cli/bootstrap_options.hpp"
#include "cli/data_reader.hpp"
#include "cli/knowledge_options.hpp"
#include "run/mcmc.hpp"

namespace cudag::cli {

/// The options of `cudag mcmc`: the job they fill, and the options whose use is checked.
struct McmcArgs {
    run::McmcJob job;
    const CLI::Option* alpha_option = nullptr;
    const CLI::Option* hard_limit_option = nullptr;
    const CLI::Option* space_option = nullptr;
    BootstrapOptionRefs bootstrap;  ///< --bootstrap, --resample, --consensus
    ScoreOptionRefs score_options;
    /// --space, --order-score, --moves, --backend, --resample as given (parsed into the job's
    /// by run_mcmc_command).
    std::string space = "auto", order_score = "max", moves = "swap", backend = "auto", resample = "bootstrap";
    std::string checkpoint_every;  ///< --checkpoint-every as given ("": the default)
};

/// Registers the `mcmc` subcommand on `app`, filling `a` when parsed.
CLI::App* add_mcmc_command(CLI::App& app, McmcArgs& a);

/// Runs the learner (chains split over the ranks of `comm`); rank 0 writes the outputs, or
/// prints the best DAG's edges on stdout without --out. Returns the exit code (3 after a
/// simulated stop).
int run_mcmc_command(const McmcArgs& a, const std::string& command_line, const mpi::Environment& env,
                     std::unique_ptr<mpi::Communicator>& comm);

}  // namespace cudag::cli
