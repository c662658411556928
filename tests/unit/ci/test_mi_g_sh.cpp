// SPDX-License-Identifier: Apache-2.0
// ci::mi_g_sh_correlation (bnlearn's mi-g-sh, ci/mi_g_sh.hpp) against its formulas written out
// here (the marginal shrinkage of r; the shrunk 3 x 3 covariance inverted by cofactors), and
// MiGShTest's statistic, df and errors. Its agreement with bnlearn itself is tested in
// r/tests/testthat/test-bnlearn-adf.R.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ci/discrete_test.hpp"
#include "ci/mi_g_sh.hpp"
#include "core/error.hpp"

using namespace cudag;
using namespace cudag::ci;

namespace {

std::vector<std::vector<double>> columns(int n, std::uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> z;
    std::vector<std::vector<double>> c(3, std::vector<double>(static_cast<std::size_t>(n)));
    for (int k = 0; k < n; ++k) {
        c[2][k] = z(gen);
        c[0][k] = 0.8 * c[2][k] + z(gen);
        c[1][k] = -0.5 * c[2][k] + 0.3 * c[0][k] + z(gen);
    }
    return c;
}

double mean(const std::vector<double>& v) {
    double s = 0.0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
}

TEST(MiGSh, MarginalCorrelationShrunkByItsIntensity) {
    const int n = 40;
    const auto c = columns(n, 3);
    const double mx = mean(c[0]), my = mean(c[1]);
    double sxx = 0, syy = 0, sxy = 0;
    for (int k = 0; k < n; ++k) {
        sxx += (c[0][k] - mx) * (c[0][k] - mx);
        syy += (c[1][k] - my) * (c[1][k] - my);
        sxy += (c[0][k] - mx) * (c[1][k] - my);
    }
    const double r = sxy / std::sqrt(sxx * syy);
    const double cov = sxy / (n - 1);
    double v = 0;
    for (int k = 0; k < n; ++k) v += std::pow((c[0][k] - mx) * (c[1][k] - my) - cov, 2);
    const double lambda = std::min(1.0, n * v / (std::pow(n - 1.0, 3) * cov * cov));
    ASSERT_GT(lambda, 0.0);
    const double* cols[] = {c[0].data(), c[1].data()};
    EXPECT_NEAR(mi_g_sh_correlation(cols, n), r * (1 - lambda), 1e-12);
}

TEST(MiGSh, PartialCorrelationOfTheShrunkCovariance) {
    const int n = 30;
    const auto c = columns(n, 5);
    double m[3], C[3][3];
    for (int i = 0; i < 3; ++i) m[i] = mean(c[i]);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double t = 0;
            for (int k = 0; k < n; ++k) t += (c[i][k] - m[i]) * (c[j][k] - m[j]);
            C[i][j] = t / (n - 1);
        }
    double num = 0, den = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j) {
            for (int k = 0; k < n; ++k) num += std::pow((c[i][k] - m[i]) * (c[j][k] - m[j]) - C[i][j] * (n - 1) / n, 2);
            den += C[i][j] * C[i][j];
        }
    const double lambda = std::min(1.0, n * num / (std::pow(n - 1.0, 3) * den));
    ASSERT_GT(lambda, 0.0);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (i != j) C[i][j] *= 1 - lambda;
    // K = C^-1 by cofactors: K00 ∝ C11 C22 − C12², K11 ∝ C00 C22 − C02², K01 ∝ −(C01 C22 − C02 C12)
    const double k00 = C[1][1] * C[2][2] - C[1][2] * C[1][2];
    const double k11 = C[0][0] * C[2][2] - C[0][2] * C[0][2];
    const double k01 = -(C[0][1] * C[2][2] - C[0][2] * C[1][2]);
    const double* cols[] = {c[0].data(), c[1].data(), c[2].data()};
    EXPECT_NEAR(mi_g_sh_correlation(cols, n), -k01 / std::sqrt(k00 * k11), 1e-12);
}

TEST(MiGSh, TestGivesMinusNLogOneMinusRSquaredWithOneDf) {
    const int n = 50;
    const auto c = columns(n, 9);
    Dataset d;
    d.n_vars = 3;
    d.n_samples = n;
    d.names = {"a", "b", "s"};
    for (const auto& col : c) d.values.insert(d.values.end(), col.begin(), col.end());
    MiGShTest t(d);
    const std::int32_t s[] = {2};
    const CiOutcome o = t.test(0, 1, s);
    const double* cols[] = {c[0].data(), c[1].data(), c[2].data()};
    const double r = mi_g_sh_correlation(cols, n);
    EXPECT_NEAR(o.statistic, -n * std::log(1 - r * r), 1e-12);
    EXPECT_NEAR(o.p, chi2_sf(o.statistic, 1.0), 1e-15);
    EXPECT_EQ(o.extra.at(0).second, "1");
    // Two rows: the marginal correlation is shrunk all the way (intensity 1: bnlearn's -0 and
    // p = 1); given S the partial correlation is 0/0, refused by name; one row refused.
    Dataset two = d;
    two.n_samples = 2;
    two.values = {1, 2, 3, 5, 5, 7};
    const CiOutcome o2 = MiGShTest(two).test(0, 1, {});
    EXPECT_EQ(o2.statistic, 0.0);
    EXPECT_EQ(o2.p, 1.0);
    try {
        MiGShTest(two).test(0, 1, s);
        ADD_FAILURE() << "two rows given S should be refused";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "mi-g-sh of 'a' and 'b' given 1 variable(s) on 2 rows: the partial correlation is undefined (0/0)");
    }
    Dataset one = d;
    one.n_samples = 1;
    one.values = {1, 2, 3};
    EXPECT_THROW(MiGShTest(one).test(0, 1, {}), InputError);
}

}  // namespace
