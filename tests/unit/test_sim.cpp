// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include "core/error.hpp"
#include "sim/gaussian.hpp"
#include "sim/rng.hpp"

namespace cudag::sim {
namespace {

testing::AssertionResult block_is(const Philox4x32Block& b, std::uint32_t v0, std::uint32_t v1,
                                  std::uint32_t v2, std::uint32_t v3) {
    if (b.v[0] == v0 && b.v[1] == v1 && b.v[2] == v2 && b.v[3] == v3)
        return testing::AssertionSuccess();
    return testing::AssertionFailure()
           << std::hex << "got " << b.v[0] << " " << b.v[1] << " " << b.v[2] << " " << b.v[3];
}

// Known-answer vectors of Philox4x32-10 (Random123 kat_vectors); checked against an
// independent implementation of the SC'11 specification before being written here.
TEST(Philox, KnownAnswerZero) {
    EXPECT_TRUE(block_is(philox4x32_10(Philox4x32Block{{0, 0, 0, 0}}, 0, 0), 0x6627e8d5u,
                         0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u));
}

TEST(Philox, KnownAnswerAllOnes) {
    const std::uint32_t f = 0xffffffffu;
    EXPECT_TRUE(block_is(philox4x32_10(Philox4x32Block{{f, f, f, f}}, f, f), 0x408f276du,
                         0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu));
}

TEST(Philox, KnownAnswerPiDigits) {
    const Philox4x32Block ctr{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}};
    EXPECT_TRUE(block_is(philox4x32_10(ctr, 0xa4093822u, 0x299f31d0u), 0xd16cfe09u, 0x94fdccebu,
                         0x5001e420u, 0x24126ea1u));
}

TEST(Philox, BlockLayoutIsIndexThenStreamUnderSeed) {
    const std::uint64_t seed = 0x0123456789abcdefull;
    const std::uint64_t stream = 0xfedcba9876543210ull;
    const std::uint64_t index = 0x1122334455667788ull;
    const Philox4x32Block ctr{{0x55667788u, 0x11223344u, 0x76543210u, 0xfedcba98u}};
    const Philox4x32Block want = philox4x32_10(ctr, 0x89abcdefu, 0x01234567u);
    const Philox4x32Block got = philox_block(seed, stream, index);
    EXPECT_TRUE(block_is(got, want.v[0], want.v[1], want.v[2], want.v[3]));
}

TEST(Philox, UniformCoversHalfOpenUnitInterval) {
    EXPECT_EQ(uniform_from_bits(0, 0), 0.0);
    EXPECT_EQ(uniform_from_bits(0x80000000u, 0), 0.5);
    EXPECT_EQ(uniform_from_bits(0xffffffffu, 0xffffffffu), 1.0 - 0x1.0p-53);
}

TEST(CounterRng, SequenceFollowsBlocks) {
    CounterRng rng(42, 7);
    for (std::uint64_t blk = 0; blk < 3; ++blk) {
        const Philox4x32Block b = philox_block(42, 7, blk);
        for (int w = 0; w < 4; ++w) EXPECT_EQ(rng.next_u32(), b.v[w]);
    }
    CounterRng u(42, 7);
    const Philox4x32Block b0 = philox_block(42, 7, 0);
    EXPECT_EQ(u.uniform(), uniform_from_bits(b0.v[0], b0.v[1]));
    EXPECT_EQ(u.uniform(), uniform_from_bits(b0.v[2], b0.v[3]));
}

TEST(CounterRng, NormalPairsComeFromOneBlock) {
    CounterRng rng(5, 9, 3);
    double z0 = 0.0;
    double z1 = 0.0;
    normal_pair(philox_block(5, 9, 3), z0, z1);
    EXPECT_EQ(rng.normal(), z0);
    EXPECT_EQ(rng.normal(), z1);
    normal_pair(philox_block(5, 9, 4), z0, z1);
    EXPECT_EQ(rng.normal(), z0);
}

TEST(CounterRng, MomentsAreStandard) {
    CounterRng rng(2024, 1);
    const int n = 200000;
    double su = 0.0;
    double sz = 0.0;
    double szz = 0.0;
    for (int k = 0; k < n; ++k) {
        const double u = rng.uniform();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        su += u;
    }
    for (int k = 0; k < n; ++k) {
        const double z = rng.normal();
        sz += z;
        szz += z * z;
    }
    // Standard errors: uniform mean 0.00065, normal mean 0.0022, variance 0.0032.
    EXPECT_NEAR(su / n, 0.5, 0.004);
    EXPECT_NEAR(sz / n, 0.0, 0.012);
    EXPECT_NEAR(szz / n, 1.0, 0.02);
}

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
