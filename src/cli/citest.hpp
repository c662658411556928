// SPDX-License-Identifier: Apache-2.0
// `cudag citest`: one conditional-independence test X ⟂ Y | Z on a data file, as
// causal-learn's CIT and tigramite's run_test give it.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/cmi_options.hpp"

namespace cudag::cli {

struct CitestArgs {
    std::string data, dataset, test, x, y, given, dof, compat = "pcalg";
    CmiKnnOptions cmi;
    int threads = 0;
    bool json = false, verbose = false, quiet = false;
};

/// Registers the `citest` subcommand on `app`, filling `a` when parsed.
CLI::App* add_citest_command(CLI::App& app, CitestArgs& a);

/// Runs the test and prints the statistic and p-value (with --json, one JSON object).
int run_citest(const CitestArgs& a);

}  // namespace cudag::cli
