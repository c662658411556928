// SPDX-License-Identifier: Apache-2.0
// Work partition of a level: contiguous row blocks of equal estimated work (the learner
// estimates the work of each row, e.g. skeleton::row_work). A pure function of the estimate, so
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

/// Entries [bounds[r], bounds[r+1]) of a CSR (row i's entries at [offsets[i],
/// offsets[i + 1])) belong to part r; bounds has parts + 1 entries, from 0 to offsets.back().
struct EntryPartition {
    std::vector<std::int64_t> bounds;
    /// As RowPartition::imbalance, over the estimated work of the entries.
    double imbalance = 1.0;

    int parts() const { return static_cast<int>(bounds.size()) - 1; }
    std::int64_t begin(int part) const { return bounds[static_cast<std::size_t>(part)]; }
    std::int64_t end(int part) const { return bounds[static_cast<std::size_t>(part) + 1]; }
};

/// Cut the entries of a CSR into `parts` (>= 1) contiguous blocks of about equal work,
/// where each entry of row i costs `entry_work[i]` (>= 0): bound k is the entry nearest to
/// k/parts of the total work, rounded to a multiple of `align` (>= 1), so that a block may
/// start or end inside a row (a hub row is shared by several parts). With no work at all the
/// entries are split by count. Deterministic: the same input gives the same cut everywhere.
EntryPartition partition_entries(std::span<const std::int64_t> offsets, std::span<const double> entry_work, int parts,
                                 std::int64_t align);

}  // namespace cudag::mpi
