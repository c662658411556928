// SPDX-License-Identifier: Apache-2.0
// A resolved test of each kind with small, fixed CMIknn parameters (k = 0.1·T, 49
// permutations, seed 5, no early stop), for tests that compare one test path with another.
#pragma once

#include "core/dataset.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::test {

inline skeleton::TestSpec spec_for(skeleton::TestKind kind, const Dataset& data) {
    skeleton::TestOptions options;
    options.kind = kind;
    options.cmi.knn = 0.1;
    options.cmi.permutations = 49;
    options.cmi.seed = 5;
    options.cmi_early_stop = false;
    return skeleton::resolve_test(options, data, 0.05, skeleton::Compat::Pcalg);
}

}  // namespace cudag::test
