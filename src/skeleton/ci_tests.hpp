// SPDX-License-Identifier: Apache-2.0
// ci::CiTest for each test kind, on the CPU engines' arithmetic (issue 34).
#pragma once

#include <memory>

#include "ci/ci_test.hpp"
#include "core/dataset.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::skeleton {

/// The test `spec` on `data` (kept by reference: it must outlive the test), p-values with
/// causal-learn's arithmetic under Compat::CausalLearn, on `threads` threads (CMIknn's
/// permutations). Fisher-z computes each partial correlation from the columns it names;
/// chi-square / G-square count their tables; CMIknn draws its surrogates keyed by the
/// variables' indices in `data`, its parameters validated for conditioning sets of up to `max_cond` variables
/// (-1: every other variable).
std::unique_ptr<ci::CiTest> make_ci_test(const Dataset& data, const TestSpec& spec, Compat compat, int threads,
                                         int max_cond = -1);

}  // namespace cudag::skeleton
