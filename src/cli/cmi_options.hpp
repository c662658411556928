// SPDX-License-Identifier: Apache-2.0
// The CMIknn options of `cudag pc` and `cudag citest`, bound into a run::CmiKnnJob.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "run/cmi_knn.hpp"

namespace cudag::cli {

/// The CMIknn options as the command line gives them, where the job holds them parsed:
/// the options added (to tell which were given) and --transform, --permute as given.
struct CmiOptions {
    std::vector<const CLI::Option*> added;
    std::string transform = "ranks";
    std::string permute = "y";
};

/// Adds --knn, --shuffle-neighbors, --permutations, --transform, --permute, --seed and,
/// with `early_stop_flag` (pc), --no-early-stop to `cmd`, bound into `o` (--transform and
/// --permute into `text`); `text.added` gets the options.
void add_cmi_knn_options(CLI::App& cmd, run::CmiKnnJob& o, CmiOptions& text, bool early_stop_flag);

/// The names of the options of `added` that the command line used.
std::vector<std::string> given_names(const std::vector<const CLI::Option*>& added);

/// `text` into `o`: the options given (o.given) and --transform, --permute parsed
/// (ci::parse_cmi_transform, ci::parse_cmi_permute).
void apply_cmi_options(const CmiOptions& text, run::CmiKnnJob& o);

}  // namespace cudag::cli
