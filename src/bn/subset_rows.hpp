// SPDX-License-Identifier: Apache-2.0
// Sum mode's subset rows (issue 37; the idea of BiDAG's plus1 score tables): for a node v
// with m <= kMaxRowBits candidates and x extras, a row of 1 + x values for each of the 2^m
// subsets ("masks") of its candidates: value 0 is log sum exp of v's scores over the sets of
// candidates within the mask, value 1 + e the same over extra e joined with sets of
// candidates within the mask. A node's log-sum given an order is then one row (the mask of
// its preceding candidates), read at the preceding extras: no enumeration of sets.
//
// The rows are built by the subset-sum (zeta) transform in log space, dimension after
// dimension with log_add, in the same order on every engine: the same bits everywhere.
// Reading them (node_sum_from_row) sums the row's weights exp(value - top) in 128-bit fixed
// point (bn/fixed_sum.hpp), exact in any order, so a kernel's block and the CPU's loop agree.
// The edge column P(c --> v | order) of a preceding candidate c is 1 - W(mask without c) /
// W(mask), formed as the exact difference of the two fixed-point sums (clamped at 0).
#pragma once

#include <cstdint>

#include "bn/fixed_sum.hpp"
#include "core/exact_math.hpp"
#include "core/hd.hpp"

namespace cudag::bn {

/// Nodes with more candidates than this enumerate their sets (2^16 masks a row set).
inline constexpr int kMaxRowBits = 16;
/// Default memory for the rows of all nodes: nodes are given rows, the smallest first,
/// while the total stays within it (a fixed rule: the same rows, hence the same bits, on
/// every machine). `--tune sum-rows=GiB` changes it (0: none).
inline constexpr double kDefaultRowBudgetBytes = 8.0 * (1ull << 30);

/// log(exp(a) + exp(b)) with xm::exp and xm::log: a and b may be -inf.
CUDAG_HD inline double log_add(double a, double b) {
    if (a < b) {
        const double t = a;
        a = b;
        b = t;
    }
    // exp(b - a) < 2^-54 leaves 1 + exp(b - a) == 1, whose log is 0: a itself, exactly
    // (also where b is -inf), without the exp and log.
    if (!(b - a >= -40.0)) return a;
    return a + xm::log(1.0 + xm::exp(b - a));
}

}  // namespace cudag::bn
