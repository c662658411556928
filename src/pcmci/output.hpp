// SPDX-License-Identifier: Apache-2.0
// PCMCI's result files (issue 56): the HDF5 result (val_matrix, p_matrix and graph as
// N × N × (tau_max + 1) arrays, [i][j][lag] the link (i, −lag) → j, tigramite's layout; the
// condition selection's parents; the settings; with a pc_alpha list, the values tried, the
// chosen ones and their scores), the links table and JSON.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "pcmci/pcmci.hpp"

namespace cudag::pcmci {

inline constexpr const char* kResultFormat = "cudag-pcmci-result-1";

/// The links table: a header line, then one line per (cause, effect, lag), lag 0..tau_max
/// (cause ≠ effect at lag 0): cause<TAB>effect<TAB>lag<TAB>statistic<TAB>p_value<TAB>graph.
void write_links(const Result& r, const std::vector<std::string>& names, std::ostream& os);

/// JSON: variables, tau_max, samples, val_matrix / p_matrix / graph as nested [i][j][lag]
/// arrays, parents by name with lags, the settings.
void write_json(const Result& r, const std::vector<std::string>& names,
                const std::vector<std::pair<std::string, std::string>>& config, std::ostream& os);

/// The HDF5 result at `path` (a new file).
void write_h5(const Result& r, const std::vector<std::string>& names,
              const std::vector<std::pair<std::string, std::string>>& config, const std::string& path);

}  // namespace cudag::pcmci
