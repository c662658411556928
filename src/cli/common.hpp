// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the cudag commands (src/cli/*.cpp); those the library's runs
// share too live in run/common.hpp.
#pragma once

#include <string>

#include "run/common.hpp"

namespace cudag::cli {

using run::checked_threads;
using run::CheckpointUse;
using run::claim_outputs;
using run::kMaxDrawnNodes;
using run::report_peak_memory;
using run::split_commas;
using run::unique_items;

/// A CLI11 check for a file-name option: an empty string (`--checkpoint ""`) is refused
/// instead of silently turning the option off.
inline std::string not_empty_file_name(const std::string& s) {
    return s.empty() ? "needs a file name, got an empty string" : std::string();
}

/// A CLI11 check for --seed: a negative value would wrap to a huge unsigned seed.
inline std::string not_negative_seed(const std::string& s) {
    return !s.empty() && s.front() == '-' ? "must be 0 or more (an unsigned 64-bit key), got " + s : std::string();
}

/// A CLI11 check for a count that may be 0 (--max-parents): a negative value is refused.
inline std::string not_negative_count(const std::string& s) {
    return !s.empty() && s.front() == '-' ? "must be 0 or more, got " + s : std::string();
}

}  // namespace cudag::cli
