// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>

#include "ci/student_t.hpp"

using namespace cudag::ci;

namespace {

struct TailCase {
    double t, df, sf;
};

struct BetaCase {
    double a, b, x, value;
};

}  // namespace

// Expected values: scipy.stats.t.sf(t, df) and scipy.special.betainc(a, b, x), scipy 1.17.1
// (computed in a throwaway venv; scipy is no dependency of cudag).
TEST(StudentT, UpperTailMatchesScipy) {
    const TailCase cases[] = {
        {0.5, 1, 0.35241638234956674},       {-0.5, 1, 0.6475836176504333},      {1.25, 2, 0.16886691073373905},
        {2.25, 2, 0.07667560922738122},      {3.0, 3, 0.02883444281121865},      {0.001, 5, 0.4996203933860988},
        {2.0, 10, 0.03669401738537018},      {-2.0, 10, 0.9633059826146299},     {4.5, 30, 4.759679696056222e-05},
        {10.0, 30, 2.287625704114809e-11},   {1.75, 248, 0.0406775308726939},    {32.5, 248, 1.1373657662417992e-91},
        {3.0, 1e4, 0.001353224094998833},    {5.0, 1e6, 2.8669989354453723e-07},  // x = ν/(ν+t²) near 1 with a large a
        {1.75, 1e6, 0.040059310208273954},   {30.0, 1e5, 3.68926843611138e-197}, {37.5, 1e5, 6.215283903968552e-306},
        {1000.0, 7, 1.3204919187605935e-19}, {1e5, 1, 3.183098861731804e-06},
    };
    for (const TailCase& c : cases) {
        SCOPED_TRACE(::testing::Message() << "t = " << c.t << ", df = " << c.df);
        EXPECT_NEAR(student_t_sf(c.t, c.df), c.sf, 1e-13 * c.sf);
    }
}

TEST(StudentT, SpecialValues) {
    EXPECT_EQ(student_t_sf(0.0, 5), 0.5);
    EXPECT_EQ(student_t_sf(INFINITY, 5), 0.0);
    EXPECT_EQ(student_t_sf(-INFINITY, 5), 1.0);
    EXPECT_EQ(student_t_sf(1e300, 5), 0.0);
    EXPECT_TRUE(std::isnan(student_t_sf(NAN, 5)));
    EXPECT_TRUE(std::isnan(student_t_sf(1.0, 0)));
    EXPECT_TRUE(std::isnan(student_t_sf(1.0, -3)));
    EXPECT_DOUBLE_EQ(student_t_two_sided(-2.0, 10), 2 * 0.03669401738537018);
    // t with 1 degree of freedom is Cauchy: P(T > t) = 1/2 − atan(t)/π.
    for (double t : {0.1, 0.7, 3.0, 40.0}) EXPECT_NEAR(student_t_sf(t, 1), 0.5 - std::atan(t) / M_PI, 1e-15);
    // 2 degrees of freedom: P(T > t) = (1 − t/√(2+t²)) / 2.
    for (double t : {0.1, 0.7, 3.0}) EXPECT_NEAR(student_t_sf(t, 2), 0.5 * (1 - t / std::sqrt(2 + t * t)), 1e-15);
}

TEST(StudentT, RegularizedIncompleteBetaMatchesScipy) {
    const BetaCase cases[] = {
        {0.5, 0.5, 0.3, 0.36901011956554536},     {2.0, 3.0, 0.4, 0.5247999999999999},
        {10.0, 0.5, 0.99, 0.6579281751567845},    {0.5, 50.0, 0.01, 0.6826956021258024},
        {100.0, 100.0, 0.45, 0.0783879327122203}, {5.0, 1.0, 0.7, 0.16806999999999994},
    };
    for (const BetaCase& c : cases) {
        SCOPED_TRACE(::testing::Message() << "a = " << c.a << ", b = " << c.b << ", x = " << c.x);
        EXPECT_NEAR(regularized_incomplete_beta(c.a, c.b, c.x), c.value, 1e-13 * c.value);
    }
    EXPECT_EQ(regularized_incomplete_beta(2.0, 3.0, 0.0), 0.0);
    EXPECT_EQ(regularized_incomplete_beta(2.0, 3.0, 1.0), 1.0);
    EXPECT_TRUE(std::isnan(regularized_incomplete_beta(0.0, 3.0, 0.5)));
    EXPECT_TRUE(std::isnan(regularized_incomplete_beta(2.0, 3.0, 1.5)));
}

// scipy.stats.t.isf(p, df), scipy 1.17.1; and the closed forms for 1 and 2 degrees of freedom
// (Cauchy: tan(π (1/2 − p)); 2: (1 − 2p) √(2 / (1 − (1 − 2p)²))).
TEST(StudentT, QuantileMatchesScipy) {
    struct Case {
        double p, df, t;
    };
    const Case cases[] = {{0.05, 10, 1.812461122811676},  {0.025, 3, 3.1824463052837086},
                          {1e-08, 1, 31830988.61837906},  {0.3, 1e5, 0.5244021842335457},
                          {0.999, 7, -4.785289628638333}, {1e-30, 40, 32.5929585484389}};
    for (const Case& c : cases) {
        SCOPED_TRACE(::testing::Message() << "p = " << c.p << ", df = " << c.df);
        EXPECT_NEAR(student_t_isf(c.p, c.df), c.t, 1e-12 * std::fabs(c.t));
    }
    for (double p : {0.01, 0.2, 0.45}) {
        EXPECT_NEAR(student_t_isf(p, 1), std::tan(M_PI * (0.5 - p)), 1e-12 * std::tan(M_PI * (0.5 - p)));
        const double u = 1 - 2 * p;
        EXPECT_NEAR(student_t_isf(p, 2), u * std::sqrt(2 / (1 - u * u)), 1e-12);
    }
    EXPECT_EQ(student_t_isf(0.5, 3), 0.0);
    EXPECT_EQ(student_t_isf(0.0, 3), INFINITY);
    EXPECT_EQ(student_t_isf(1.0, 3), -INFINITY);
    EXPECT_TRUE(std::isnan(student_t_isf(-0.1, 3)));
    EXPECT_TRUE(std::isnan(student_t_isf(0.1, 0)));
    EXPECT_TRUE(std::isnan(student_t_isf(NAN, 3)));
}
