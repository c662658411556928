// SPDX-License-Identifier: Apache-2.0
// CpuFisherEngine::bitwise_symmetric, which lets a level read C[j, S] from the rows of S:
// true only when every mirrored pair has the same bits (a last-bit difference or -0 against +0
// makes it false; the same NaN both ways does not), across the 64 x 64 blocks it compares in,
// on 1 and 3 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "skeleton/cpu/fisher_engine.hpp"

namespace cudag::skeleton {
namespace {

std::vector<double> symmetric_matrix(std::int64_t n) {
    std::vector<double> c(static_cast<std::size_t>(n * n));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j <= i; ++j) {
            const double v = i == j ? 1.0 : std::sin(static_cast<double>(i * 131 + j * 7)) * 0.5;
            c[static_cast<std::size_t>(i * n + j)] = v;
            c[static_cast<std::size_t>(j * n + i)] = v;
        }
    return c;
}

TEST(FisherSymmetric, OnlyWhenEveryMirroredPairHasTheSameBits) {
    const std::int64_t n = 130;  // three blocks of 64 rows, the last one short
    for (const int threads : {1, 3}) {
        std::vector<double> c = symmetric_matrix(n);
        EXPECT_TRUE(CpuFisherEngine::bitwise_symmetric(c.data(), n, threads));
        for (const auto& [i, j] : {std::pair<std::int64_t, std::int64_t>{0, 1}, {5, 70}, {129, 64}, {128, 127}}) {
            std::vector<double> d = c;
            double& v = d[static_cast<std::size_t>(i * n + j)];
            v = std::nextafter(v, 2.0);  // the last bit
            EXPECT_FALSE(CpuFisherEngine::bitwise_symmetric(d.data(), n, threads)) << i << ", " << j;
            d = c;
            d[static_cast<std::size_t>(i * n + j)] = 0.0;
            d[static_cast<std::size_t>(j * n + i)] = -0.0;  // equal as numbers, not as bits
            EXPECT_FALSE(CpuFisherEngine::bitwise_symmetric(d.data(), n, threads)) << i << ", " << j;
            d[static_cast<std::size_t>(i * n + j)] = d[static_cast<std::size_t>(j * n + i)] =
                std::numeric_limits<double>::quiet_NaN();  // the same NaN both ways: the same bits
            EXPECT_TRUE(CpuFisherEngine::bitwise_symmetric(d.data(), n, threads)) << i << ", " << j;
        }
    }
    const std::vector<double> one{1.0};
    EXPECT_TRUE(CpuFisherEngine::bitwise_symmetric(one.data(), 1, 2));
}

}  // namespace
}  // namespace cudag::skeleton
