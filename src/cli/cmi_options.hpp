// SPDX-License-Identifier: Apache-2.0
// The CMIknn options of `cudag pc` and `cudag citest`, bound into a run::CmiKnnJob.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "run/cmi_knn.hpp"

namespace cudag::cli {

/// Adds --knn, --shuffle-neighbors, --permutations, --transform, --permute, --seed and,
/// with `early_stop_flag` (pc), --no-early-stop to `cmd`, bound into `o`; `added` gets the
/// options (given_names tells which were used).
void add_cmi_knn_options(CLI::App& cmd, run::CmiKnnJob& o, std::vector<const CLI::Option*>& added,
                         bool early_stop_flag);

/// The names of the options of `added` that the command line used.
std::vector<std::string> given_names(const std::vector<const CLI::Option*>& added);

}  // namespace cudag::cli
