// SPDX-License-Identifier: Apache-2.0
// `cudag compare`: skeleton precision/recall/F1 and SHD of an estimate against a truth, and
// per-mark precision/recall when either is a PAG.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace cudag::cli {

struct CompareArgs {
    std::string truth, estimate, json;
    bool truth_pag = false;     ///< --truth-pag: the truth is a PAG even without a circle mark
    bool estimate_pag = false;  ///< --estimate-pag: likewise the estimate
};

/// Registers the `compare` subcommand on `app`, filling `a` when parsed.
CLI::App* add_compare_command(CLI::App& app, CompareArgs& a);

/// Prints the metrics table (and writes --json).
int run_compare(const CompareArgs& a);

}  // namespace cudag::cli
