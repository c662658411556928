// SPDX-License-Identifier: Apache-2.0
// `cudag simulate gaussian|nonlinear|discrete|bif`: data with a known causal graph.
#pragma once

#include <optional>

#include <CLI/CLI.hpp>

#include <string>

#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"

namespace cudag::cli {

/// simulate gaussian or nonlinear (the same DAG).
struct SimArgs {
    sim::GaussianSimSpec spec{100, 1000, 0.05, 1};
    /// simulate gaussian only: --graph cupc|er|scale-free, --degree, --hub-exponent.
    std::string graph = "cupc";
    std::optional<double> degree;        ///< expected neighbours (default 4 for er, scale-free)
    std::optional<double> hub_exponent;  ///< scale-free only (default 1)
    bool density_given = false;          ///< --density was given (cupc only)
    std::string out, truth;
    int threads = 0;
    bool overwrite = false;  ///< --overwrite: replace --out/--truth when they exist
};

/// simulate discrete or bif.
struct DiscreteSimArgs {
    sim::DiscreteSimSpec spec{100, 1000, 0.05, 4, 1};
    std::string bif, out, truth;
    int threads = 0;
    bool overwrite = false;  ///< --overwrite: replace --out/--truth when they exist
};

/// What each simulate subcommand was given.
struct SimulateArgs {
    SimArgs gaussian, nonlinear;
    DiscreteSimArgs discrete, bif;
    bool quiet = false;  ///< -q, --quiet (any subcommand): no summary on stderr
};

/// Registers `simulate` and its subcommands on `app`, filling `a` when parsed.
CLI::App* add_simulate_command(CLI::App& app, SimulateArgs& a);

/// Runs the subcommand of `cmd` (what add_simulate_command returned) that was parsed.
int run_simulate(const CLI::App& cmd, const SimulateArgs& a);

}  // namespace cudag::cli
