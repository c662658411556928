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
    /// Empty for continuous data. Otherwise one entry per variable: levels[v] holds a
    /// discrete variable's level labels in code order, and its values are the codes
    /// 0..levels[v].size()-1 (exact small integers stored as double); an empty levels[v]
    /// marks a continuous variable of mixed data (issue 55).
    std::vector<std::vector<std::string>> levels;
    /// Cells that are missing, each held as NaN in `values` (only where a command keeps them:
    /// `--missing testwise`; the readers refuse them otherwise).
    std::int64_t missing = 0;

    /// Every variable discrete.
    bool discrete() const {
        if (levels.empty()) return false;
        for (const auto& l : levels)
            if (l.empty()) return false;
        return true;
    }
    /// Variable v is discrete (all-discrete or mixed data).
    bool is_discrete(std::int64_t v) const { return !levels.empty() && !levels[static_cast<std::size_t>(v)].empty(); }
    /// Some variables discrete, some continuous.
    bool mixed() const { return !levels.empty() && !discrete(); }

    const double* column(std::int64_t v) const { return values.data() + v * n_samples; }
    double* column(std::int64_t v) { return values.data() + v * n_samples; }
};

}  // namespace cudag
