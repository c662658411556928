// SPDX-License-Identifier: Apache-2.0
#include "skeleton/row_work.hpp"

#include <cstdint>

#include "core/combinations.hpp"

namespace cudag::skeleton {

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

}  // namespace cudag::skeleton
