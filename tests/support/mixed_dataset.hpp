// SPDX-License-Identifier: Apache-2.0
// A Dataset from columns for the tests of the mixed-data tests and scores.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dataset.hpp"

namespace cudag::test {

/// A Dataset from columns named v0, v1, ...; levels[v] == 0 marks a continuous column, else
/// its declared number of levels (labels "0".."L-1"). No discrete column: no levels at all.
inline Dataset make_dataset(const std::vector<std::vector<double>>& cols, const std::vector<int>& levels) {
    Dataset d;
    d.n_vars = static_cast<std::int64_t>(cols.size());
    d.n_samples = static_cast<std::int64_t>(cols[0].size());
    bool any_discrete = false;
    for (std::size_t v = 0; v < cols.size(); ++v) {
        d.values.insert(d.values.end(), cols[v].begin(), cols[v].end());
        std::string name = "v";
        name += std::to_string(v);
        d.names.push_back(name);
        any_discrete = any_discrete || levels[v] > 0;
    }
    if (any_discrete)
        for (int l : levels) {
            std::vector<std::string> labels;
            for (int i = 0; i < l; ++i) labels.push_back(std::to_string(i));
            d.levels.push_back(labels);
        }
    return d;
}

}  // namespace cudag::test
