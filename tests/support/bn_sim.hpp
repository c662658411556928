// SPDX-License-Identifier: Apache-2.0
// Score-based tests' data: a BDeu scorer over samples of a simulated discrete network.
#pragma once

#include <cstdint>

#include "bn/score.hpp"
#include "ci/cpu_discrete_engine.hpp"
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

}  // namespace cudag::test
