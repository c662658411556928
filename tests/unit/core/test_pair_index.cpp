// SPDX-License-Identifier: Apache-2.0
// The upper-triangle pair layout of core/pair_index.hpp.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/pair_index.hpp"

namespace cudag {
namespace {

static_assert(pair_count(0) == 0 && pair_count(1) == 0 && pair_count(4) == 6);
static_assert(pair_index(0, 1, 4) == 0 && pair_index(0, 3, 4) == 2 && pair_index(1, 2, 4) == 3 &&
              pair_index(2, 3, 4) == 5);

TEST(PairIndex, EnumeratesTheUpperTriangleRowByRow) {
    for (const std::int64_t n : {2, 3, 7, 64}) {
        std::int64_t slot = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            EXPECT_EQ(pair_row_begin(i, n), slot) << "n " << n << " row " << i;
            for (std::int64_t j = i + 1; j < n; ++j) EXPECT_EQ(pair_index(i, j, n), slot++);
        }
        EXPECT_EQ(slot, pair_count(n));
    }
}

TEST(PairIndex, NoOverflowAtGenomeScale) {
    const std::int64_t n = 200000;  // n (n - 1) / 2 is about 2e10, beyond 32 bits
    EXPECT_EQ(pair_count(n), 19999900000);
    EXPECT_EQ(pair_index(n - 2, n - 1, n), pair_count(n) - 1);
}

}  // namespace
}  // namespace cudag
