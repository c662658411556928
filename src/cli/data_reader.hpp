// SPDX-License-Identifier: Apache-2.0
// Where a command takes its --data from: the file, or (an in-process caller such as the
// Python module) a function that hands over a data set already in memory.
#pragma once

#include <functional>
#include <string>

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

}  // namespace cudag::cli
