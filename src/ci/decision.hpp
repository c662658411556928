// SPDX-License-Identifier: Apache-2.0
// The independence rule of every CI test, in one place for host code and kernels alike:
// pcalg calls a pair independent when p >= alpha, causal-learn when p > alpha ("strict").
#pragma once

#include "core/hd.hpp"

namespace cudag::ci {

struct Decision {
    double alpha = 0.01;
    /// false: independent iff p >= alpha (pcalg); true: iff p > alpha (causal-learn).
    bool strict = false;

    CUDAG_HD bool independent(double p) const { return strict ? p > alpha : p >= alpha; }
};

}  // namespace cudag::ci
