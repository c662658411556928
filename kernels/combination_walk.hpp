// SPDX-License-Identifier: Apache-2.0
// Fast unranking of k-subsets for the kernels (g++-safe, CUDAG_HD). Same result as
// combination_unrank in core/combinations.hpp, which it is tested against.
#pragma once

#include <cstdint>

#include "core/combinations.hpp"
#include "core/hd.hpp"

namespace cudag::cuda {

/// a * b / c for non-negative a, b and c > 0 dividing a * b exactly. The 128-bit
/// quotient is only formed when the product does not fit in 64 bits.
CUDAG_HD inline std::int64_t mul_div_exact(std::int64_t a, std::int64_t b, std::int64_t c) {
    const unsigned __int128 p = static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b);
    if ((p >> 64) == 0) return static_cast<std::int64_t>(static_cast<std::uint64_t>(p) / static_cast<std::uint64_t>(c));
    return static_cast<std::int64_t>(p / static_cast<unsigned __int128>(c));
}

/// The k-subset of {0..n-1} of lexicographic rank `rank` (0 <= rank < C(n, k)) into c.
/// combination_unrank recomputes a binomial coefficient at every candidate element;
/// here the block sizes C(n-1-v, k-1-t) are stepped by exact multiply-divide
/// (C(a-1, r) = C(a, r)(a-r)/a, C(a-1, r-1) = C(a, r) r/a), so one unrank costs
/// O(n + k) integer steps and one binomial.
CUDAG_HD inline void combination_unrank_fast(std::int64_t rank, int k, int n, int* c) {
    if (k <= 0) return;
    int v = 0;
    std::int64_t block = binomial(n - 1, k - 1);  // subsets whose element t is v
    for (int t = 0; t < k; ++t) {
        const int r = k - 1 - t;  // elements still to place after this one
        while (rank >= block) {
            rank -= block;
            const std::int64_t a = n - 1 - v;
            block = mul_div_exact(block, a - r, a);
            ++v;
        }
        c[t] = v;
        if (r > 0) block = mul_div_exact(block, r, n - 1 - v);
        ++v;
    }
}

}  // namespace cudag::cuda
