// SPDX-License-Identifier: Apache-2.0
// CUDAG_TRACE: per-level timing lines on stderr (host steps, GPU kernels), for finding
// where a run's time goes. Off unless the variable is set and not empty.
#pragma once

#include <cstdlib>

namespace cudag {

inline bool trace_enabled() {
    static const bool on = [] {
        const char* v = std::getenv("CUDAG_TRACE");
        return v != nullptr && *v != '\0';
    }();
    return on;
}

}  // namespace cudag
