// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudag {

/// A data set of n_samples × n_vars real values held column by column on the host.
/// values[v * n_samples + s] is sample s of variable v (variable-major, so each
/// variable is contiguous, as the correlation and the contingency tables want it).
struct Dataset {
    std::int64_t n_samples = 0;
    std::int64_t n_vars = 0;
    std::vector<double> values;      ///< n_vars * n_samples, variable-major
    std::vector<std::string> names;  ///< one per variable, unique
    std::string source;              ///< file path (and dataset path for HDF5)
    /// Discrete data only (empty for continuous data): levels[v] holds variable v's level
    /// labels in code order, and values hold the codes 0..levels[v].size()-1 (exact
    /// small integers stored as double).
    std::vector<std::vector<std::string>> levels;

    bool discrete() const { return !levels.empty(); }

    const double* column(std::int64_t v) const { return values.data() + v * n_samples; }
    double* column(std::int64_t v) { return values.data() + v * n_samples; }
};

}  // namespace cudag
