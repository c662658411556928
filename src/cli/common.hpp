// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the cudag commands (src/cli/*.cpp).
#pragma once

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag::cli {

/// The non-empty items of a comma-separated list.
inline std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

/// --threads as a command uses it: negative is an error, 0 means every hardware thread,
/// more than the hardware threads is clamped to them with a note (unless quiet).
inline int checked_threads(int requested, bool quiet) {
    if (requested < 0)
        throw InputError("--threads must be >= 0 (0: all " + std::to_string(resolve_threads(0)) +
                         " hardware threads), got " + std::to_string(requested));
    const int hw = resolve_threads(0);
    if (requested <= hw) return requested;
    if (!quiet)
        std::cerr << "cudag: note: --threads " << requested << " is more than the " << hw
                  << " hardware threads; using " << hw << '\n';
    return hw;
}

}  // namespace cudag::cli
