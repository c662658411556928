// SPDX-License-Identifier: Apache-2.0
// The swap proposal of order MCMC, shared by the CPU sampler and the CUDA chains: iteration
// t of chain c draws block t of stream 2c + 1 under the seed (core/rng.hpp), the pair of
// positions from its first two words and the acceptance uniform from the last two.
#pragma once

#include <cstdint>

#include "core/hd.hpp"
#include "core/rng.hpp"

namespace cudag::bn {

struct SwapProposal {
    std::int64_t i = 0, j = 0;  ///< positions, i < j
    double u = 0.0;             ///< acceptance uniform in [0, 1)
};

/// floor(u * k) for u in [0, 1), kept below k against rounding up.
CUDAG_HD inline std::int64_t scaled_index(double u, std::int64_t k) {
    const auto x = static_cast<std::int64_t>(u * static_cast<double>(k));
    return x < k - 1 ? x : k - 1;
}

/// Chain `chain`'s proposal at iteration t (t >= 1) over n >= 2 nodes: the pair i < j of
/// index floor(u1 n(n-1)/2) among the pairs listed by i, then j.
CUDAG_HD inline SwapProposal swap_proposal(std::uint64_t seed, std::int64_t chain, std::int64_t t, std::int64_t n) {
    CounterRng rng(seed, static_cast<std::uint64_t>(chain) * 2 + 1, static_cast<std::uint64_t>(t));
    std::int64_t k = scaled_index(rng.uniform(), n * (n - 1) / 2);
    SwapProposal p;
    while (k >= n - 1 - p.i) k -= n - 1 - p.i, ++p.i;
    p.j = p.i + 1 + k;
    p.u = rng.uniform();
    return p;
}

}  // namespace cudag::bn
