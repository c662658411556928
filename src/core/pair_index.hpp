// SPDX-License-Identifier: Apache-2.0
// The pairs i < j of n nodes laid out as the upper triangle, row by row: (0, 1), (0, 2),
// ..., (0, n-1), (1, 2), ... Dense per-pair tables (level-0 p-values, pMax) use this slot
// order on the host and in the kernels.
#pragma once

#include <cstdint>

#include "core/hd.hpp"

namespace cudag {

/// Number of pairs i < j of n nodes: n (n - 1) / 2.
CUDAG_HD constexpr std::int64_t pair_count(std::int64_t n) { return n * (n - 1) / 2; }

/// Slot of row i's first pair (i, i + 1): i n - i (i + 1) / 2.
CUDAG_HD constexpr std::int64_t pair_row_begin(std::int64_t i, std::int64_t n) { return i * n - i * (i + 1) / 2; }

/// Slot of the pair (i, j), i < j < n: i n - i (i + 1) / 2 + (j - i - 1).
CUDAG_HD constexpr std::int64_t pair_index(std::int64_t i, std::int64_t j, std::int64_t n) {
    return pair_row_begin(i, n) + (j - i - 1);
}

}  // namespace cudag
