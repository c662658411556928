// SPDX-License-Identifier: Apache-2.0
// Score-based tests' data: a BDeu scorer over samples of a simulated discrete network.
#pragma once

#include <cstdint>
#include <vector>

#include "bn/score.hpp"
#include "bn/score_table.hpp"
#include "ci/discrete_codes.hpp"
#include "sim/discrete.hpp"

namespace cudag::test {

/// BDeu over `samples` forward samples of a random discrete network of n nodes (density
/// 0.5, 2..3 states), all drawn from `seed`.
inline bn::DiscreteScorer simulated_scorer(int n, int samples, std::uint64_t seed) {
    sim::DiscreteSimSpec spec{};
    spec.n_vars = n;
    spec.n_samples = samples;
    spec.density = 0.5;
    spec.max_states = 3;
    spec.seed = seed;
    const sim::BayesNet net = sim::random_network(spec);
    const Dataset data = sim::forward_sample(net, samples, seed + 1, 1);
    return bn::DiscreteScorer(ci::encode_discrete(data, true), bn::ScoreSpec{});
}

/// simulated_scorer(n, samples, seed) with a plus1 parent space of uneven parent-set counts
/// (as --space pc gives): node v's candidates are the nodes u < v % 6 + 1 (not v), every
/// other node an extra. Tables over that space (plus1) or over every parent set.
struct UnevenSpace {
    UnevenSpace(int n_nodes, int samples, std::uint64_t seed)
        : n(n_nodes), scorer(simulated_scorer(n_nodes, samples, seed)), cands(n_nodes), extras(n_nodes) {
        for (std::int32_t v = 0; v < n; ++v)
            for (std::int32_t u = 0; u < n; ++u)
                if (u != v) (u < v % 6 + 1 ? cands[v] : extras[v]).push_back(u);
    }
    bn::ScoreTable build(bool plus1, int max_parents, int threads) const {
        return plus1 ? bn::ScoreTable::build(scorer, cands, max_parents, threads, extras)
                     : bn::ScoreTable::build(scorer, max_parents, threads);
    }
    bn::ScoreTable layout(bool plus1, int max_parents) const {
        return plus1 ? bn::ScoreTable::layout(n, cands, max_parents, extras) : bn::ScoreTable::layout(n, max_parents);
    }

    int n;
    bn::DiscreteScorer scorer;
    std::vector<std::vector<std::int32_t>> cands, extras;
};

}  // namespace cudag::test
