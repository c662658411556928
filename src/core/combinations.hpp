// SPDX-License-Identifier: Apache-2.0
// k-subsets of {0..n-1} in lexicographic order: ranking, unranking and stepping.
// All counts are 64-bit: C(1000, 4) already overflows 32 bits.
#pragma once

#include <cstdint>

#include "core/hd.hpp"

namespace cudag {

/// C(n, k) in 64-bit arithmetic; 0 when k < 0 or k > n. Saturates at INT64_MAX.
CUDAG_HD inline std::int64_t binomial(std::int64_t n, std::int64_t k) {
    if (k < 0 || k > n) return 0;
    if (k > n - k) k = n - k;
    std::int64_t r = 1;
    for (std::int64_t i = 1; i <= k; ++i) {
        // r * (n - k + i) is divisible by i; form it in 128 bits so results up to
        // INT64_MAX never overflow in the intermediate product.
        const unsigned __int128 prod = static_cast<unsigned __int128>(r) * (n - k + i) / i;
        if (prod > static_cast<unsigned __int128>(INT64_MAX)) return INT64_MAX;
        r = static_cast<std::int64_t>(prod);
    }
    return r;
}

/// Lexicographic rank (0-based) of the sorted k-subset c[0] < ... < c[k-1] of {0..n-1}.
CUDAG_HD inline std::int64_t combination_rank(const int* c, int k, int n) {
    std::int64_t rank = 0;
    int prev = -1;
    for (int t = 0; t < k; ++t) {
        for (int v = prev + 1; v < c[t]; ++v) rank += binomial(n - 1 - v, k - 1 - t);
        prev = c[t];
    }
    return rank;
}

/// combination_rank in closed form, C(n, k) - 1 - sum_t C(n - 1 - c_t, k - t), with the
/// coefficients from `C(a, b)` (a lookup table: k lookups). C(n, k) must fit in 64 bits.
template <class Binom>
CUDAG_HD inline std::int64_t combination_rank_by(const Binom& C, const int* c, int k, int n) {
    std::int64_t r = C(n, k) - 1;
    for (int t = 0; t < k; ++t) r -= C(n - 1 - c[t], k - t);
    return r;
}

/// Inverse of combination_rank: writes the k-subset of lexicographic rank `rank` into c.
CUDAG_HD inline void combination_unrank(std::int64_t rank, int k, int n, int* c) {
    int v = 0;
    for (int t = 0; t < k; ++t) {
        for (;; ++v) {
            const std::int64_t block = binomial(n - 1 - v, k - 1 - t);
            if (rank < block) break;
            rank -= block;
        }
        c[t] = v++;
    }
}

/// Advance c (a sorted k-subset of {0..n-1}) to its lexicographic successor.
/// Returns false (leaving c unspecified) when c was the last subset.
CUDAG_HD inline bool next_combination(int* c, int k, int n) {
    int t = k - 1;
    while (t >= 0 && c[t] == n - k + t) --t;
    if (t < 0) return false;
    ++c[t];
    for (int u = t + 1; u < k; ++u) c[u] = c[u - 1] + 1;
    return true;
}

}  // namespace cudag
