// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "sim/gaussian.hpp"

namespace cudag::sim {
namespace {

TEST(SimulateGaussian, SameSeedGivesIdenticalData) {
    const GaussianSimSpec spec{50, 300, 0.1, 7};
    const GaussianSim a = simulate_gaussian(spec, 1);
    const GaussianSim b = simulate_gaussian(spec, 4);
    const GaussianSim c = simulate_gaussian(spec);
    EXPECT_EQ(a.data.values, b.data.values);
    EXPECT_EQ(a.data.values, c.data.values);
    EXPECT_EQ(a.dag_edges, b.dag_edges);
    EXPECT_EQ(a.dag_edges, c.dag_edges);
    const GaussianSim d = simulate_gaussian(GaussianSimSpec{50, 300, 0.1, 8}, 2);
    EXPECT_NE(a.data.values, d.data.values);
    EXPECT_NE(a.dag_edges, d.dag_edges);
}

TEST(SimulateGaussian, LayoutAndNames) {
    const GaussianSim sim = simulate_gaussian(GaussianSimSpec{12, 5, 0.3, 1});
    EXPECT_EQ(sim.data.n_vars, 12);
    EXPECT_EQ(sim.data.n_samples, 5);
    ASSERT_EQ(sim.data.values.size(), 60u);
    ASSERT_EQ(sim.data.names.size(), 12u);
    EXPECT_EQ(sim.data.names.front(), "X1");
    EXPECT_EQ(sim.data.names.back(), "X12");
}

TEST(SimulateGaussian, DagIsLowerTriangularSortedWithWeightsInRange) {
    const GaussianSim sim = simulate_gaussian(GaussianSimSpec{200, 2, 0.2, 11});
    ASSERT_FALSE(sim.dag_edges.empty());
    std::set<std::pair<std::int32_t, std::int32_t>> seen;
    for (const auto& [p, c, w] : sim.dag_edges) {
        EXPECT_LT(p, c);
        EXPECT_GE(p, 0);
        EXPECT_LT(c, 200);
        EXPECT_GE(w, 0.1);
        EXPECT_LE(w, 1.0);
        EXPECT_TRUE(seen.insert({p, c}).second);
    }
    EXPECT_TRUE(std::is_sorted(sim.dag_edges.begin(), sim.dag_edges.end()));
}

TEST(SimulateGaussian, DensityMatchesForLargeN) {
    const std::int64_t n = 2000;
    const double d = 0.05;
    const GaussianSim sim = simulate_gaussian(GaussianSimSpec{n, 1, d, 3});
    const double pairs = static_cast<double>(n) * (n - 1) / 2;
    const double sd = std::sqrt(pairs * d * (1 - d));  // about 308 edges
    EXPECT_NEAR(static_cast<double>(sim.dag_edges.size()), pairs * d, 5 * sd);
    // Weights are Uniform[0.1, 1]: mean 0.55, sd 0.26, about 100,000 of them.
    double sum = 0.0;
    for (const auto& e : sim.dag_edges) sum += std::get<2>(e);
    EXPECT_NEAR(sum / sim.dag_edges.size(), 0.55, 0.005);
    // Parents of early and late nodes: Bernoulli per pair, so node i has about d * i.
    std::int64_t late = 0;
    for (const auto& e : sim.dag_edges) late += std::get<1>(e) >= n / 2;
    EXPECT_NEAR(static_cast<double>(late) / sim.dag_edges.size(), 0.75, 0.01);
}

TEST(SimulateGaussian, DensityExtremes) {
    const GaussianSim none = simulate_gaussian(GaussianSimSpec{30, 4, 0.0, 1});
    EXPECT_TRUE(none.dag_edges.empty());
    const GaussianSim full = simulate_gaussian(GaussianSimSpec{30, 4, 1.0, 1});
    EXPECT_EQ(full.dag_edges.size(), 30u * 29u / 2u);
}

TEST(SimulateGaussian, StructuralEquationsHold) {
    const GaussianSimSpec spec{40, 130, 0.25, 99};
    const GaussianSim sim = simulate_gaussian(spec, 3);
    const std::int64_t m = spec.n_samples;
    for (std::int64_t s : {0, 1, 63, 64, 129}) {
        for (std::int64_t i = 0; i < spec.n_vars; ++i) {
            double v = gaussian_noise(spec.seed, s, i);
            for (const auto& [p, c, w] : sim.dag_edges)
                if (c == i) v += w * sim.data.values[p * m + s];
            EXPECT_NEAR(sim.data.values[i * m + s], v, 1e-12 * (1 + std::abs(v)))
                << "variable " << i << " sample " << s;
        }
    }
    // Root X1 is pure noise.
    EXPECT_EQ(sim.data.values[0], gaussian_noise(spec.seed, 0, 0));
}

TEST(SimulateGaussian, NoiseIsKeyedBySampleAndVariable) {
    double z0 = 0.0;
    double z1 = 0.0;
    normal_pair(philox_block(17, noise_stream(5), 3), z0, z1);
    EXPECT_EQ(gaussian_noise(17, 5, 6), z0);
    EXPECT_EQ(gaussian_noise(17, 5, 7), z1);
    // Noise of a sample does not depend on n_vars or n_samples.
    const GaussianSim a = simulate_gaussian(GaussianSimSpec{3, 4, 0.0, 17});
    const GaussianSim b = simulate_gaussian(GaussianSimSpec{5, 9, 0.0, 17});
    EXPECT_EQ(a.data.values[2 * 4 + 3], b.data.values[2 * 9 + 3]);
}

TEST(SimulateGaussian, RejectsBadSpecs) {
    EXPECT_THROW(simulate_gaussian(GaussianSimSpec{0, 10, 0.1, 1}), InputError);
    EXPECT_THROW(simulate_gaussian(GaussianSimSpec{10, 0, 0.1, 1}), InputError);
    EXPECT_THROW(simulate_gaussian(GaussianSimSpec{10, 10, -0.1, 1}), InputError);
    EXPECT_THROW(simulate_gaussian(GaussianSimSpec{10, 10, 1.5, 1}), InputError);
    EXPECT_THROW(simulate_gaussian(GaussianSimSpec{10, 10, std::nan(""), 1}), InputError);
}

TEST(SimulateGaussian, OverflowIsAnError) {
    // The variance grows by about 1 + 0.37 d per variable: (1.185)^3000 overflows.
    EXPECT_THROW(simulate_gaussian(GaussianSimSpec{3000, 2, 0.5, 1}), InputError);
}

TEST(SimulateGaussian, EdgesToPdagIsDirected) {
    const Pdag g = edges_to_pdag(4, {{0, 2, 0.5}, {1, 2, 0.3}, {2, 3, 1.0}});
    EXPECT_EQ(g.n(), 4);
    EXPECT_EQ(g.n_edges(), 3);
    EXPECT_TRUE(g.is_directed(0, 2));
    EXPECT_TRUE(g.is_directed(2, 3));
    EXPECT_THROW(edges_to_pdag(3, {{0, 3, 0.5}}), InputError);
    EXPECT_THROW(edges_to_pdag(3, {{1, 1, 0.5}}), InputError);
}

}  // namespace
}  // namespace cudag::sim
