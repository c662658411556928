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
/// row and column).
inline void add_na_values_option(CLI::App& cmd, std::vector<std::string>& na_values) {
    cmd.add_option("--na-values", na_values,
                   "cells equal to one of these tokens (comma separated) are missing values, "
                   "which are refused naming the row and column (text data)")
        ->delimiter(',')
        ->type_name("TOKEN[,TOKEN...]");
}

}  // namespace cudag::cli
