// SPDX-License-Identifier: Apache-2.0
// Numbers as text where the exact value matters (provenance, checkpoint settings, TSV).
#pragma once

#include <cstdio>
#include <string>

namespace cudag {

/// "%.17g": a double that reads back to the same bits.
inline std::string exact_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace cudag
