// SPDX-License-Identifier: Apache-2.0
// Work partition of a level: contiguous row blocks of equal estimated work (the learner
// estimates the work of each row, e.g. pc::row_work). A pure function of the estimate, so
// every rank computes the same cut without communicating.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace cudag::mpi {

/// Rows [bounds[r], bounds[r+1]) belong to part r; bounds has parts + 1 entries,
/// bounds[0] = 0, bounds[parts] = rows, non-decreasing (a part may be empty).
struct RowPartition {
    std::vector<std::int64_t> bounds;
    /// Estimated work of the heaviest part over the mean work of a part (>= 1; 1 when
    /// there is no work at all).
    double imbalance = 1.0;

    int parts() const { return static_cast<int>(bounds.size()) - 1; }
    std::int64_t begin(int part) const { return bounds[static_cast<std::size_t>(part)]; }
    std::int64_t end(int part) const { return bounds[static_cast<std::size_t>(part) + 1]; }
};

/// Cut `work.size()` rows into `parts` (>= 1) contiguous blocks whose work sums are as
/// equal as contiguous blocks allow: bound k is the prefix position nearest to
/// k/parts of the total (ties to the lower position). With no work at all the rows are
/// split by count. Deterministic: the same input gives the same cut on every rank.
RowPartition partition_rows(std::span<const double> work, int parts);

}  // namespace cudag::mpi
