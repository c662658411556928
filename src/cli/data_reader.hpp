// SPDX-License-Identifier: Apache-2.0
// Where a command takes its --data from: the file, or (an in-process caller such as the
// Python module) a function that hands over a data set already in memory.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/dataset.hpp"
#include "io/dataset_io.hpp"
#include "io/table_reader.hpp"

namespace cudag::cli {

/// The data set for the table mode the command's options ask for (labels for a discrete
/// test, numbers for Fisher-z, ...); empty: read --data as the command line does.
using DataReader = std::function<Dataset(io::TableMode)>;

/// `reader(mode)` when there is one, else io::read_dataset(path, dataset, mode).
inline Dataset read_data(const DataReader& reader, const std::string& path, const std::string& dataset,
                         io::TableMode mode) {
    return reader ? reader(mode) : io::read_dataset(path, dataset, mode);
}

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

/// `reader` when there is one; else, with --na-values given, a reader of `path` that treats
/// them as missing values; else none (read_data reads the file).
inline DataReader with_na_values(DataReader reader, const std::string& path, const std::string& dataset,
                                 const std::vector<std::string>& na_values) {
    if (reader || na_values.empty()) return reader;
    return [path, dataset, na_values](io::TableMode mode) { return io::read_dataset(path, dataset, mode, na_values); };
}

}  // namespace cudag::cli
