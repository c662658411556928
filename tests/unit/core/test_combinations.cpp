// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <vector>

#include "core/combinations.hpp"

using cudag::binomial;

TEST(Binomial, KnownValues) {
    EXPECT_EQ(binomial(5, 2), 10);
    EXPECT_EQ(binomial(10, 0), 1);
    EXPECT_EQ(binomial(10, 10), 1);
    EXPECT_EQ(binomial(3, 4), 0);
    EXPECT_EQ(binomial(3, -1), 0);
    EXPECT_EQ(binomial(1000, 4), 41417124750LL);  // overflows 32 bits
    EXPECT_EQ(binomial(20000, 3), 1333133340000LL);
    EXPECT_EQ(binomial(62, 31), 465428353255261088LL);
}

TEST(Combination, RankUnrankRoundTripAllSmallCases) {
    for (int n = 0; n <= 12; ++n) {
        for (int k = 0; k <= n; ++k) {
            std::vector<int> c(k), u(k);
            for (int t = 0; t < k; ++t) c[t] = t;
            std::int64_t expected = 0;
            do {
                ASSERT_EQ(cudag::combination_rank(c.data(), k, n), expected) << "n=" << n << " k=" << k;
                cudag::combination_unrank(expected, k, n, u.data());
                ASSERT_EQ(u, c) << "n=" << n << " k=" << k << " rank=" << expected;
                ++expected;
            } while (k > 0 && cudag::next_combination(c.data(), k, n));
            EXPECT_EQ(expected, k == 0 ? 1 : cudag::binomial(n, k)) << "n=" << n << " k=" << k;
        }
    }
}

TEST(Combination, LexicographicOrder) {
    std::vector<int> c = {0, 1};
    std::vector<std::vector<int>> seen;
    do seen.push_back(c);
    while (cudag::next_combination(c.data(), 2, 4));
    const std::vector<std::vector<int>> want = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    EXPECT_EQ(seen, want);
}

TEST(Combination, LargeRankIs64Bit) {
    const int n = 1000, k = 4;
    int c[4] = {996, 997, 998, 999};  // the last subset
    EXPECT_EQ(cudag::combination_rank(c, k, n), cudag::binomial(n, k) - 1);
    int u[4];
    cudag::combination_unrank(cudag::binomial(n, k) - 1, k, n, u);
    EXPECT_EQ(u[0], 996);
    EXPECT_EQ(u[3], 999);
}
