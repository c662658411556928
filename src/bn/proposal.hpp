// SPDX-License-Identifier: Apache-2.0
// The proposal of order MCMC, shared by the CPU sampler and the CUDA chains: iteration t of
// chain c draws block t of stream 2c + 1 under the seed (core/rng.hpp), the pair of
// positions from its first two words and the acceptance uniform from the last two.
//
// Moves: the paper's (swap two positions drawn uniformly) or a mixture as BiDAG's order
// MCMC uses: swap two uniform positions with probability p1, two adjacent ones (a uniform
// i, i + 1) with 0.99 - p1, and stay with 0.01, where p1 = round(594 n / (n^2 + 10 n + 24))
// / 100 for n > 3 and 0.99 otherwise (more local moves on larger networks). The move is
// drawn from block t of stream 2^63 + c. Every move is its own inverse with the same
// probability from either side, so the kernel is symmetric and the acceptance is
// min(1, exp(new - old)). A stay proposes i = j: nothing changes and it is accepted.
#pragma once

#include <cstdint>

#include "core/hd.hpp"
#include "core/rng.hpp"

namespace cudag::bn {

enum class MoveSet : int { Swap, Bidag };

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
CUDAG_HD inline SwapProposal swap_proposal(std::uint64_t seed, std::int64_t chain, std::int64_t t, std::int64_t n,
                                           MoveSet moves = MoveSet::Swap) {
    CounterRng rng(seed, static_cast<std::uint64_t>(chain) * 2 + 1, static_cast<std::uint64_t>(t));
    const double pick = rng.uniform();
    SwapProposal p;
    p.u = rng.uniform();
    int move = 0;  // 0 swap any two, 1 swap adjacent, 2 stay
    if (moves == MoveSet::Bidag) {
        CounterRng kind(seed, (std::uint64_t{1} << 63) + static_cast<std::uint64_t>(chain),
                        static_cast<std::uint64_t>(t));
        const double x = kind.uniform();
        const double p1 =
            n > 3 ? static_cast<double>(static_cast<std::int64_t>(594.0 * n / (n * n + 10.0 * n + 24.0) + 0.5)) / 100.0
                  : 0.99;
        move = x < p1 ? 0 : x < 0.99 ? 1 : 2;
    }
    if (move == 0) {
        std::int64_t k = scaled_index(pick, n * (n - 1) / 2);
        while (k >= n - 1 - p.i) k -= n - 1 - p.i, ++p.i;
        p.j = p.i + 1 + k;
    } else if (move == 1) {
        p.i = scaled_index(pick, n - 1);
        p.j = p.i + 1;
    } else {
        p.i = p.j = scaled_index(pick, n);
    }
    return p;
}

}  // namespace cudag::bn
