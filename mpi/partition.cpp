// SPDX-License-Identifier: Apache-2.0
#include "mpi/partition.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace cudag::mpi {

RowPartition partition_rows(std::span<const double> work, int parts) {
    CUDAG_ASSERT(parts >= 1);
    const auto rows = static_cast<std::int64_t>(work.size());
    std::vector<double> prefix(work.size() + 1, 0.0);
    for (std::size_t i = 0; i < work.size(); ++i) prefix[i + 1] = prefix[i] + work[i];
    const double total = prefix.back();

    RowPartition p;
    p.bounds.assign(static_cast<std::size_t>(parts) + 1, 0);
    p.bounds.back() = rows;
    for (int k = 1; k < parts; ++k) {
        const std::int64_t lo = p.bounds[static_cast<std::size_t>(k) - 1];
        std::int64_t b;
        if (total <= 0.0) {
            b = rows * k / parts;
        } else {
            const double target = total * k / parts;
            // First position whose prefix reaches the target, or the one before it when
            // that is at least as close.
            b = std::lower_bound(prefix.begin() + lo, prefix.end(), target) - prefix.begin();
            if (b > lo && target - prefix[b - 1] <= prefix[std::min(b, rows)] - target) --b;
        }
        p.bounds[static_cast<std::size_t>(k)] = std::clamp(b, lo, rows);
    }
    if (total > 0.0) {
        double heaviest = 0.0;
        for (int k = 0; k < parts; ++k) heaviest = std::max(heaviest, prefix[p.end(k)] - prefix[p.begin(k)]);
        p.imbalance = heaviest / (total / parts);
    }
    return p;
}

EntryPartition partition_entries(std::span<const std::int64_t> offsets, std::span<const double> entry_work, int parts,
                                 std::int64_t align) {
    CUDAG_ASSERT(parts >= 1 && align >= 1 && !offsets.empty() && entry_work.size() + 1 == offsets.size());
    const std::size_t rows = entry_work.size();
    const std::int64_t entries = offsets.back();
    // prefix[i]: the work of the entries of rows [0, i).
    std::vector<double> prefix(rows + 1, 0.0);
    for (std::size_t i = 0; i < rows; ++i)
        prefix[i + 1] = prefix[i] + entry_work[i] * static_cast<double>(offsets[i + 1] - offsets[i]);
    const double total = prefix.back();
    // The work of the entries [0, e).
    const auto work_before = [&](std::int64_t e) {
        if (e >= entries) return total;
        const std::size_t i =
            static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), e) - offsets.begin()) -
            1;  // the row holding entry e
        return prefix[i] + entry_work[i] * static_cast<double>(e - offsets[i]);
    };

    EntryPartition p;
    p.bounds.assign(static_cast<std::size_t>(parts) + 1, 0);
    p.bounds.back() = entries;
    for (int k = 1; k < parts; ++k) {
        const std::int64_t lo = p.bounds[static_cast<std::size_t>(k) - 1];
        double e;
        if (total <= 0.0) {
            e = static_cast<double>(entries) * k / parts;
        } else {
            const double target = total * k / parts;
            // The row where the prefix reaches the target, then the entry within it.
            const std::size_t i =
                static_cast<std::size_t>(std::lower_bound(prefix.begin() + 1, prefix.end(), target) - prefix.begin()) -
                1;
            const double w = entry_work[std::min(i, rows - 1)];
            e = static_cast<double>(offsets[std::min(i, rows)]) + (w > 0.0 ? (target - prefix[i]) / w : 0.0);
        }
        std::int64_t b = static_cast<std::int64_t>(std::llround(e / static_cast<double>(align))) * align;
        p.bounds[static_cast<std::size_t>(k)] = std::clamp(b, lo, entries);
    }
    if (total > 0.0) {
        double heaviest = 0.0;
        for (int k = 0; k < parts; ++k) heaviest = std::max(heaviest, work_before(p.end(k)) - work_before(p.begin(k)));
        p.imbalance = heaviest / (total / parts);
    }
    return p;
}

}  // namespace cudag::mpi
