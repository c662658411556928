// SPDX-License-Identifier: Apache-2.0
// `cudag citest`: one conditional-independence test X ⟂ Y | Z on a data file, or a batch of
// them (--queries; on a GPU where --backend picks one). The tests themselves are
// run::run_citest and run::CitestSession::test_batch; this command binds its options and
// prints.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/cmi_options.hpp"
#include "cli/data_reader.hpp"
#include "run/citest.hpp"

namespace cudag::cli {

/// The options of `cudag citest`: the job they fill, --given as typed (comma-separated),
/// --json, and the CMIknn options (to tell which were given).
struct CitestArgs {
    run::CitestJob job;
    std::string given;
    std::string queries;  ///< --queries FILE: a batch instead of --x/--y/--given
    bool json = false;
    CmiOptions cmi_options;
    /// --test, --dof ("": the compat's), --compat, --backend, --missing as given (parsed into
    /// the job's by run_citest).
    std::string test, dof, compat = "pcalg", backend = "auto", missing = "error";
};

/// Registers the `citest` subcommand on `app`, filling `a` when parsed.
CLI::App* add_citest_command(CLI::App& app, CitestArgs& a);

/// Runs the test and prints the statistic and p-value (with --json, one JSON object).
int run_citest(const CitestArgs& a);

}  // namespace cudag::cli
