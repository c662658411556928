// SPDX-License-Identifier: Apache-2.0
// compat.causallearn.CIT's native base class, CitMemo: causal-learn's call cit(X, Y,
// condition_set) answered from the p-values computed so far, without a Python frame.
#pragma once

#include <nanobind/nanobind.h>

namespace cudag::python {

/// Adds the class CitMemo to the module (its call, _memo_enabled, _memo_size, _memo_clear).
void bind_cit_memo(nanobind::module_& m);

}  // namespace cudag::python
