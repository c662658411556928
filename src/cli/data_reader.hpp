// SPDX-License-Identifier: Apache-2.0
// --na-values, and where a command takes its --data from (run/common.hpp's DataReader).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "run/common.hpp"

namespace cudag::cli {

using run::DataReader;
using run::read_data;
using run::with_na_values;

/// --na-values TOKEN[,TOKEN...] on a command that reads a data table (as pandas'
/// na_values): cells equal to a token are missing values (refused in one line naming the
/// row and column unless --missing keeps them).
inline void add_na_values_option(CLI::App& cmd, std::vector<std::string>& na_values) {
    cmd.add_option("--na-values", na_values,
                   "cells equal to one of these tokens (comma separated) are missing values, "
                   "refused naming the row and column unless --missing says otherwise (text data)")
        ->delimiter(',')
        ->type_name("TOKEN[,TOKEN...]");
}

/// --missing, --discrete-columns and --continuous-columns on a command that tests.
inline void add_table_options(CLI::App& cmd, std::string& missing, std::vector<std::string>& discrete_columns,
                              std::vector<std::string>& continuous_columns) {
    cmd.add_option("--missing", missing,
                   "missing cells (empty, NA, NaN, --na-values): error (refuse them), testwise (each test "
                   "drops the rows missing one of its variables, as causal-learn's mv_fisherz; assumes "
                   "values missing completely at random) or listwise (drop every incomplete row first)")
        ->capture_default_str();
    cmd.add_option("--discrete-columns", discrete_columns,
                   "read these columns (comma separated names) as discrete: each distinct value a level")
        ->delimiter(',')
        ->type_name("COL[,COL...]");
    cmd.add_option("--continuous-columns", continuous_columns,
                   "read these columns (comma separated names) as continuous numbers (labels that are numbers)")
        ->delimiter(',')
        ->type_name("COL[,COL...]");
}

}  // namespace cudag::cli
