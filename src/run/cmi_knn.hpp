// SPDX-License-Identifier: Apache-2.0
// The CMIknn settings of a PC or citest job, checked into one ci::CmiKnnSpec.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ci/cmi_knn.hpp"
#include "ci/test_kind.hpp"

namespace cudag::run {

/// The CMIknn settings as a job takes them (defaults: ci::CmiKnnSpec's); --transform and
/// --permute are spec.transform and spec.permute, parsed by the front end
/// (ci::parse_cmi_transform, ci::parse_cmi_permute).
struct CmiKnnJob {
    ci::CmiKnnSpec spec;
    bool no_early_stop = false;
    /// The settings given (by their option names, "--knn", ...): refused with another test.
    std::vector<std::string> given;
};

/// The spec the settings give (early_stop unset; the caller decides). Throws InputError when
/// one of them was given with another `test` (unset: none given).
ci::CmiKnnSpec cmi_knn_spec(const CmiKnnJob& o, std::optional<ci::TestKind> test);

}  // namespace cudag::run
