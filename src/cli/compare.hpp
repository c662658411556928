// SPDX-License-Identifier: Apache-2.0
// `cudag compare`: skeleton precision/recall/F1 and CPDAG SHD of an estimate against a truth.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace cudag::cli {

struct CompareArgs {
    std::string truth, estimate, json;
};

/// Registers the `compare` subcommand on `app`, filling `a` when parsed.
CLI::App* add_compare_command(CLI::App& app, CompareArgs& a);

/// Prints the metrics table (and writes --json).
int run_compare(const CompareArgs& a);

}  // namespace cudag::cli
