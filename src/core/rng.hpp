// SPDX-License-Identifier: Apache-2.0
// Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random
// numbers: as easy as 1, 2, 3", SC'11), written from the paper's specification. A draw is a
// pure function of (seed, stream, index), so results never depend on which thread, rank or
// device produced them (DESIGN.md: random numbers are keyed by (seed, task id)).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/hd.hpp"

namespace cudag {

/// Four 32-bit words: a Philox counter or one block of output.
struct Philox4x32Block {
    std::uint32_t v[4];
};

/// Philox4x32-10 bijection: encrypts counter `ctr` under the 64-bit key (key0, key1).
/// Ten rounds; round multipliers 0xD2511F53 / 0xCD9E8D57, Weyl key increments
/// 0x9E3779B9 / 0xBB67AE85, as in the SC'11 paper and the Random123 reference vectors.
CUDAG_HD inline Philox4x32Block philox4x32_10(Philox4x32Block ctr, std::uint32_t key0, std::uint32_t key1) {
    constexpr std::uint32_t m0 = 0xD2511F53u;
    constexpr std::uint32_t m1 = 0xCD9E8D57u;
    constexpr std::uint32_t w0 = 0x9E3779B9u;
    constexpr std::uint32_t w1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            key0 += w0;
            key1 += w1;
        }
        const std::uint64_t p0 = static_cast<std::uint64_t>(m0) * ctr.v[0];
        const std::uint64_t p1 = static_cast<std::uint64_t>(m1) * ctr.v[2];
        const auto hi0 = static_cast<std::uint32_t>(p0 >> 32);
        const auto lo0 = static_cast<std::uint32_t>(p0);
        const auto hi1 = static_cast<std::uint32_t>(p1 >> 32);
        const auto lo1 = static_cast<std::uint32_t>(p1);
        ctr = Philox4x32Block{{hi1 ^ ctr.v[1] ^ key0, lo1, hi0 ^ ctr.v[3] ^ key1, lo0}};
    }
    return ctr;
}

/// Block `index` of stream `stream` under `seed`: key = seed (low word first), counter =
/// (index low, index high, stream low, stream high). Distinct (stream, index) pairs give
/// independent blocks; 2^64 streams of 2^64 blocks each.
CUDAG_HD inline Philox4x32Block philox_block(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
    const Philox4x32Block ctr{{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32),
                               static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)}};
    return philox4x32_10(ctr, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}

/// Uniform double in [0, 1) with 53 random bits taken from two 32-bit words (hi supplies the
/// top 32 bits). The result is k * 2^-53 for an integer k in [0, 2^53).
CUDAG_HD inline double uniform_from_bits(std::uint32_t hi, std::uint32_t lo) {
    const std::uint64_t bits = (static_cast<std::uint64_t>(hi) << 32) | lo;
    return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

/// Two independent standard normals by Box–Muller from two uniforms u1, u2 in [0, 1):
/// r = sqrt(-2 ln(1 - u1)), z0 = r cos(2π u2), z1 = r sin(2π u2). Using 1 - u1 keeps the
/// logarithm finite.
CUDAG_HD inline void box_muller(double u1, double u2, double& z0, double& z1) {
    constexpr double two_pi = 6.283185307179586476925286766559;
    const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
    const double theta = two_pi * u2;
    z0 = r * std::cos(theta);
    z1 = r * std::sin(theta);
}

/// The two standard normals carried by one Philox block: u1 from words (0, 1), u2 from
/// words (2, 3), then box_muller.
CUDAG_HD inline void normal_pair(const Philox4x32Block& b, double& z0, double& z1) {
    box_muller(uniform_from_bits(b.v[0], b.v[1]), uniform_from_bits(b.v[2], b.v[3]), z0, z1);
}

/// Sequential generator over one (seed, stream): block 0, 1, 2, ... of that stream. Two
/// generators built with the same (seed, stream) produce the same sequence wherever they run.
/// Each uniform() consumes two 32-bit words (half a block); each pair of normal() calls
/// consumes one whole block (the second value of a Box–Muller pair is kept for the next call).
class CounterRng {
public:
    /// Generator for `stream` under `seed`, starting at block `first_block`.
    CUDAG_HD CounterRng(std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block = 0)
        : seed_(seed), stream_(stream), next_block_(first_block) {}

    /// Next 32 random bits.
    CUDAG_HD std::uint32_t next_u32() {
        if (pos_ == 4) refill();
        return buf_.v[pos_++];
    }

    /// Uniform double in [0, 1) (53 bits; see uniform_from_bits).
    CUDAG_HD double uniform() {
        const std::uint32_t hi = next_u32();
        const std::uint32_t lo = next_u32();
        return uniform_from_bits(hi, lo);
    }

    /// Standard normal. Calls alternate between the two values of one block's Box–Muller
    /// pair (normal_pair), so values 2k and 2k+1 come from one block of this stream.
    CUDAG_HD double normal() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        // A normal pair always takes a whole fresh block; words left in the current one
        // are dropped.
        const Philox4x32Block b = philox_block(seed_, stream_, next_block_++);
        pos_ = 4;
        double z0 = 0.0;
        normal_pair(b, z0, spare_);
        has_spare_ = true;
        return z0;
    }

private:
    CUDAG_HD void refill() {
        buf_ = philox_block(seed_, stream_, next_block_++);
        pos_ = 0;
    }

    std::uint64_t seed_;
    std::uint64_t stream_;
    std::uint64_t next_block_;
    Philox4x32Block buf_{{0, 0, 0, 0}};
    int pos_ = 4;
    bool has_spare_ = false;
    double spare_ = 0.0;
};

}  // namespace cudag
