// SPDX-License-Identifier: Apache-2.0
// The counter-based RNG (core/rng.hpp): Philox4x32-10 known answers, block layout, uniforms
// and normals.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/rng.hpp"

namespace cudag {
namespace {

testing::AssertionResult block_is(const Philox4x32Block& b, std::uint32_t v0, std::uint32_t v1, std::uint32_t v2,
                                  std::uint32_t v3) {
    if (b.v[0] == v0 && b.v[1] == v1 && b.v[2] == v2 && b.v[3] == v3) return testing::AssertionSuccess();
    return testing::AssertionFailure() << std::hex << "got " << b.v[0] << " " << b.v[1] << " " << b.v[2] << " "
                                       << b.v[3];
}

// Known-answer vectors of Philox4x32-10 (Random123 kat_vectors); checked against an
// independent implementation of the SC'11 specification before being written here.
TEST(Philox, KnownAnswerZero) {
    EXPECT_TRUE(block_is(philox4x32_10(Philox4x32Block{{0, 0, 0, 0}}, 0, 0), 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu,
                         0x9b00dbd8u));
}

TEST(Philox, KnownAnswerAllOnes) {
    const std::uint32_t f = 0xffffffffu;
    EXPECT_TRUE(block_is(philox4x32_10(Philox4x32Block{{f, f, f, f}}, f, f), 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u,
                         0x6d5451fdu));
}

TEST(Philox, KnownAnswerPiDigits) {
    const Philox4x32Block ctr{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}};
    EXPECT_TRUE(
        block_is(philox4x32_10(ctr, 0xa4093822u, 0x299f31d0u), 0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u));
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

}  // namespace
}  // namespace cudag
