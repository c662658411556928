// SPDX-License-Identifier: Apache-2.0
#include "mpi/partition.hpp"

#include <algorithm>

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

}  // namespace cudag::mpi
