// SPDX-License-Identifier: Apache-2.0
// `cudag citest`: one conditional-independence test X ⟂ Y | Z on a data file, as
// causal-learn's CIT and tigramite's run_test give it.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cli/cmi_options.hpp"
#include "cli/data_reader.hpp"

namespace cudag::cli {

struct CitestArgs {
    std::string data, dataset, test, x, y, given, dof, compat = "pcalg";
    std::vector<std::string> na_values;  ///< --na-values
    CmiKnnOptions cmi;
    int threads = 0;
    bool json = false, verbose = false, quiet = false;
};

/// Registers the `citest` subcommand on `app`, filling `a` when parsed.
CLI::App* add_citest_command(CLI::App& app, CitestArgs& a);

/// What `cudag citest` prints: the statistic, the p-value and the test's other numbers
/// (name, JSON value: "k", "dof", "z", ...) in print order.
struct CitestOutput {
    double statistic = 0.0, p = 1.0;
    std::int64_t n_samples = 0;
    std::vector<std::pair<std::string, std::string>> extra;
};

/// What an in-process caller (the Python module) puts in place of the file and stdout.
struct CitestHooks {
    DataReader read;                                  ///< the data instead of --data
    std::function<void(const CitestOutput&)> result;  ///< instead of printing
};

/// Runs the test and prints the statistic and p-value (with --json, one JSON object).
int run_citest(const CitestArgs& a, const CitestHooks& hooks = {});

}  // namespace cudag::cli
