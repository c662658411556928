// SPDX-License-Identifier: Apache-2.0
// The CMIknn settings of a PC or citest job, checked into one ci::CmiKnnSpec.
#pragma once

#include <string>
#include <vector>

#include "ci/cmi_knn.hpp"

namespace cudag::run {

/// The CMIknn settings as a job takes them (defaults: ci::CmiKnnSpec's).
struct CmiKnnJob {
    ci::CmiKnnSpec spec;
    std::string transform = "ranks";
    std::string permute = "y";
    bool no_early_stop = false;
    /// The settings given (by their option names, "--knn", ...): refused with another test.
    std::vector<std::string> given;
};

/// The spec the settings give (early_stop unset; the caller decides). Throws InputError when
/// one of them was given with another `test`, or for an unknown transform / permuted variable.
ci::CmiKnnSpec cmi_knn_spec(const CmiKnnJob& o, const std::string& test);

}  // namespace cudag::run
