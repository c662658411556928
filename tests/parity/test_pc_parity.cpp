// SPDX-License-Identifier: Apache-2.0
// The PC learner's one parity body (support/engine_parity.hpp) over every registered engine
// of each CI test: the CPU engine on one thread is the reference; the CPU engine on two
// threads and, on a GPU machine, the CUDA engine must give its skeleton, separating sets,
// per-level removals and pMax. Fisher-z, chi-square, G-square and CMIknn.
#include <gtest/gtest.h>

#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"
#include "sim/nonlinear.hpp"
#include "skeleton/test_spec.hpp"
#include "support/engine_parity.hpp"

namespace cudag {
namespace {

skeleton::TestSpec spec_for(skeleton::TestKind kind, const Dataset& data, double alpha) {
    skeleton::TestOptions options;
    options.kind = kind;
    options.cmi.knn = 0.1;
    options.cmi.permutations = 39;
    options.cmi.seed = 7;
    return skeleton::resolve_test(options, data, alpha, skeleton::Compat::Pcalg);
}

TEST(EngineParity, FisherZIsEquivalentToCpu) {
    // More variables than a warp, so that rows span several blocks on the GPU.
    const Dataset data = sim::simulate_gaussian({48, 400, 0.08, 3}, 1).data;
    EXPECT_TRUE(test::same_on_every_engine(data, spec_for(skeleton::TestKind::FisherZ, data, 0.01), 0.01));
}

TEST(EngineParity, ChiSquareIsEquivalentToCpu) {
    const Dataset data = sim::forward_sample(sim::random_network({40, 600, 0.08, 4, 5}), 600, 5, 1);
    EXPECT_TRUE(test::same_on_every_engine(data, spec_for(skeleton::TestKind::ChiSquare, data, 0.01), 0.01));
}

TEST(EngineParity, GSquareIsEquivalentToCpu) {
    const Dataset data = sim::forward_sample(sim::random_network({36, 800, 0.1, 3, 9}), 800, 10, 1);
    EXPECT_TRUE(test::same_on_every_engine(data, spec_for(skeleton::TestKind::GSquare, data, 0.01), 0.01));
}

TEST(EngineParity, CmiKnnIsEquivalentToCpu) {
    const Dataset data = sim::simulate_nonlinear({7, 120, 0.4, 5}, 1).data;
    EXPECT_TRUE(test::same_on_every_engine(data, spec_for(skeleton::TestKind::CmiKnn, data, 0.05), 0.05));
}

}  // namespace
}  // namespace cudag
