// SPDX-License-Identifier: Apache-2.0
#include "mpi/partition.hpp"

#include <algorithm>

#include "core/combinations.hpp"
#include "core/error.hpp"

namespace cudag::mpi {

std::vector<double> row_work(const Adjacency& snap, int level) {
    const std::int64_t n = snap.n;
    std::vector<double> w(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t i = 0; i < n; ++i) {
        if (level == 0) {
            w[i] = static_cast<double>(n - 1 - i);
            continue;
        }
        const std::int64_t a = snap.degree(i);
        if (a - 1 < level) continue;
        w[i] = static_cast<double>(a) * static_cast<double>(binomial(a - 1, level));
    }
    return w;
}

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
