// SPDX-License-Identifier: Apache-2.0
// ci::mi_sh (bnlearn's mi-sh, ci/mi_sh.hpp): a 2 x 2 table worked out here by hand, the
// shrinkage's limits (no or one sample; large samples approach G²), a conditional test whose
// strata no sample takes still count (declared levels), and MiShTest's p-value, df and errors.
// Its agreement with bnlearn itself is tested in r/tests/testthat/test-bnlearn-adf.R.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ci/discrete_test.hpp"
#include "ci/mi_sh.hpp"
#include "core/error.hpp"

using namespace cudag;
using namespace cudag::ci;

namespace {

/// Codes as a discrete Dataset with the given declared level counts.
Dataset coded(const std::vector<std::vector<int>>& cols, const std::vector<int>& levels) {
    Dataset d;
    d.n_vars = static_cast<std::int64_t>(cols.size());
    d.n_samples = static_cast<std::int64_t>(cols[0].size());
    for (std::size_t v = 0; v < cols.size(); ++v) {
        std::string name = "v";  // appended: GCC 12's -Wrestrict misfires on "v" + std::string
        name += std::to_string(v);
        d.names.push_back(name);
        for (int c : cols[v]) d.values.push_back(c);
        std::vector<std::string> lv;
        for (int k = 0; k < levels[v]; ++k) {
            std::string label = "l";
            label += std::to_string(k);
            lv.push_back(label);
        }
        d.levels.push_back(lv);
    }
    d.source = "test";
    return d;
}

TEST(MiSh, TwoByTwoByHand) {
    // counts [[6, 2], [1, 3]], N = 12, target 1/4
    std::vector<std::int32_t> x, y;
    const int counts[2][2] = {{6, 2}, {1, 3}};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < counts[i][j]; ++k) {
                x.push_back(i);
                y.push_back(j);
            }
    const MiShResult r = mi_sh(x, 2, y, 2, {}, 1, false);
    double lnum = 0.0, lden = 0.0;
    for (const auto& row : counts)
        for (int c : row) {
            lnum += (c / 12.0) * (c / 12.0);
            lden += (0.25 - c / 12.0) * (0.25 - c / 12.0);
        }
    const double lambda = (1.0 - lnum) / (11.0 * lden);
    ASSERT_GT(lambda, 0.0);
    ASSERT_LT(lambda, 1.0);
    double p[2][2], px[2] = {0, 0}, py[2] = {0, 0};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            p[i][j] = lambda * 0.25 + (1 - lambda) * counts[i][j] / 12.0;
            px[i] += p[i][j];
            py[j] += p[i][j];
        }
    double mi = 0.0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) mi += p[i][j] * std::log(p[i][j] / (px[i] * py[j]));
    EXPECT_NEAR(r.statistic, 2.0 * 12.0 * mi, 1e-12);
    EXPECT_EQ(r.df, 1.0);
}

TEST(MiSh, NoOrOneSampleIsIndependence) {
    const std::vector<std::int32_t> one{1};
    EXPECT_EQ(mi_sh(one, 3, one, 2, {}, 1, false).statistic, 0.0);
    EXPECT_EQ(mi_sh(one, 3, one, 2, {}, 1, false).df, 2.0);
    EXPECT_EQ(mi_sh({}, 2, {}, 2, {}, 4, true).df, 4.0);
}

TEST(MiSh, LargeSamplesApproachGSquareAndUnusedStrataCount) {
    std::mt19937 gen(7);
    std::vector<std::vector<int>> cols(3);
    for (int q = 0; q < 20000; ++q) {
        const int s = static_cast<int>(gen() % 3);
        const int x = static_cast<int>(gen() % 3);
        const int y = (gen() % 4 == 0) ? x % 2 : static_cast<int>(gen() % 2);
        cols[0].push_back(x);
        cols[1].push_back(y);
        cols[2].push_back(s);
    }
    const Dataset d = coded(cols, {3, 2, 3});
    MiShTest sh(d);
    const std::int32_t s2[] = {2};
    const CiOutcome a = sh.test(0, 1, s2);
    // G² of the same table
    double g2 = 0.0;
    for (int s = 0; s < 3; ++s) {
        double n[3][2] = {}, nx[3] = {}, ny[2] = {}, ns = 0;
        for (std::size_t q = 0; q < cols[0].size(); ++q)
            if (cols[2][q] == s) {
                n[cols[0][q]][cols[1][q]] += 1;
                nx[cols[0][q]] += 1;
                ny[cols[1][q]] += 1;
                ns += 1;
            }
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 2; ++j)
                if (n[i][j] > 0) g2 += 2 * n[i][j] * std::log(n[i][j] * ns / (nx[i] * ny[j]));
    }
    EXPECT_NEAR(a.statistic, g2, 0.05 * g2);  // λ small at N = 20,000: 3% here
    EXPECT_GT(std::fabs(a.statistic - g2), 1e-3 * g2);
    EXPECT_NEAR(a.p, chi2_sf(a.statistic, 6.0), 1e-15);
    EXPECT_EQ(a.extra.at(0).second, "6");
    // x ⟂ y | s is symmetric
    EXPECT_NEAR(sh.test(1, 0, s2).statistic, a.statistic, 1e-9 * a.statistic);
    // a fourth, declared level of s that no sample takes: a wider table, other target and df
    const Dataset wide = coded(cols, {3, 2, 4});
    const CiOutcome b = MiShTest(wide).test(0, 1, s2);
    EXPECT_EQ(b.extra.at(0).second, "8");
    EXPECT_NE(b.statistic, a.statistic);
}

TEST(MiSh, TooLargeATableIsAnErrorNamingThePair) {
    std::vector<std::vector<int>> cols(6, std::vector<int>(10, 0));
    for (auto& c : cols) c[1] = 1;
    const Dataset d = coded(cols, {256, 256, 256, 256, 2, 2});
    MiShTest sh(d);
    const std::int32_t s[] = {2, 3};
    try {
        sh.test(0, 1, s);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("mi-sh's table for 'v0' and 'v1'"), std::string::npos) << e.what();
    }
}

}  // namespace
