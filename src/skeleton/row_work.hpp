// SPDX-License-Identifier: Apache-2.0
// The skeleton search's work estimate of a level, row by row: what mpi::partition_rows cuts into equal blocks.
#pragma once

#include <vector>

#include "core/graph.hpp"

namespace cudag::skeleton {

/// Estimated CI tests of each row at level `level` on the snapshot `snap`: level 0,
/// n - 1 - i (pairs (i, j > i)); level l >= 1, a_i * C(a_i - 1, l) for a row with a_i
/// neighbours (every neighbour against every l-subset of the others; 0 when a_i - 1 < l).
/// `snap` is unused at level 0 except for its size.
std::vector<double> row_work(const Adjacency& snap, int level);

}  // namespace cudag::skeleton
