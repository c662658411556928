// SPDX-License-Identifier: Apache-2.0
// `cudag score`: the score of a given DAG on a data set (BDeu or K2 as bnlearn defines
// them, BGe as BiDAG does), in total and per node.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/bn_inputs.hpp"
#include "cli/data_reader.hpp"

namespace cudag::cli {

struct ScoreArgs {
    std::string data, dataset, dag;
    std::vector<std::string> na_values;  ///< --na-values
    run::ScoreJob score;
    ScoreOptionRefs score_options;  ///< to tell which score options were given
    bool json = false;
};

/// Registers the `score` subcommand on `app`, filling `a` when parsed.
CLI::App* add_score_command(CLI::App& app, ScoreArgs& a);

/// Scores the DAG and prints the total and each node's local score (with --json, one
/// JSON object {"total": x, "nodes": {"name": x, ...}}).
int run_score(const ScoreArgs& a);

}  // namespace cudag::cli
