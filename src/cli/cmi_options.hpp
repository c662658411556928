// SPDX-License-Identifier: Apache-2.0
// The CMIknn options of `cudag pc` and `cudag citest`, parsed into one ci::CmiKnnSpec.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "ci/cmi_knn.hpp"

namespace cudag::cli {

/// What the command line gave for the CMIknn test (defaults: ci::CmiKnnSpec's).
struct CmiKnnOptions {
    ci::CmiKnnSpec spec;
    std::string transform = "ranks";
    std::string permute = "y";
    bool no_early_stop = false;
    std::vector<const CLI::Option*> given;  ///< the options added, to tell which were used
};

/// Adds --knn, --shuffle-neighbors, --permutations, --transform, --permute, --seed and,
/// with `early_stop_flag` (pc), --no-early-stop to `cmd`.
void add_cmi_knn_options(CLI::App& cmd, CmiKnnOptions& o, bool early_stop_flag);

/// The spec the options give (early_stop unset; the caller decides). Throws InputError when
/// one of them was used with another `test`, or for an unknown transform / permuted variable.
ci::CmiKnnSpec cmi_knn_spec(const CmiKnnOptions& o, const std::string& test);

}  // namespace cudag::cli
