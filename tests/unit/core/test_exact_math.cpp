// SPDX-License-Identifier: Apache-2.0
// Accuracy of core/exact_math.hpp against glibc (and long double lgammal for lgamma).
// Measured on x86-64 / glibc (Release, -ffp-contract=off), numbers printed by each sweep:
//   log:    max 1 ulp from std::log, 99.0% bit-equal
//   exp:    max 1 ulp from std::exp, 99.0% bit-equal (subnormal results included)
//   lgamma: max relative error 4.0e-16 where |lgamma| >= 0.5, max absolute error
//           1.2e-16 where |lgamma| < 0.5 (reference lgammal); up to 7 ulp from glibc
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/exact_math.hpp"

namespace xm = cudag::xm;

namespace {

/// Monotone integer image of a double: adjacent doubles differ by 1.
std::int64_t ordinal(double x) {
    std::int64_t i = 0;
    std::memcpy(&i, &x, sizeof i);
    return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
}

std::int64_t ulps(double a, double b) {
    const std::int64_t d = ordinal(a) - ordinal(b);
    return d < 0 ? -d : d;
}

struct UlpStats {
    std::int64_t max_ulp = 0;
    long equal = 0;
    long count = 0;
    double worst_x = 0.0;
    void add(double x, double mine, double ref) {
        const std::int64_t u = ulps(mine, ref);
        if (u > max_ulp) {
            max_ulp = u;
            worst_x = x;
        }
        equal += mine == ref || (mine != mine && ref != ref);
        ++count;
    }
    double equal_fraction() const { return static_cast<double>(equal) / static_cast<double>(count); }
    void print(const char* name) const {
        std::printf("[ exact_math ] %s: %ld arguments, max %lld ulp (at %.17g), %.6f bit-equal\n", name, count,
                    static_cast<long long>(max_ulp), worst_x, equal_fraction());
    }
};

struct LgammaStats {
    double max_rel = 0.0, rel_x = 0.0;  // where |lgamma| >= 0.5
    double max_abs = 0.0, abs_x = 0.0;  // where |lgamma| < 0.5
    long count = 0;
    UlpStats vs_glibc;
    void add(double x) {
        const double mine = xm::lgamma(x);
        const long double ref = lgammal(static_cast<long double>(x));
        const double err = static_cast<double>(fabsl(static_cast<long double>(mine) - ref));
        if (fabsl(ref) >= 0.5L) {
            const double rel = err / static_cast<double>(fabsl(ref));
            if (rel > max_rel) {
                max_rel = rel;
                rel_x = x;
            }
        } else if (err > max_abs) {
            max_abs = err;
            abs_x = x;
        }
        vs_glibc.add(x, mine, std::lgamma(x));
        ++count;
    }
    void print(const char* name) const {
        std::printf(
            "[ exact_math ] %s: %ld arguments, max rel %.3g (at %.17g), max abs near zeros %.3g "
            "(at %.17g); vs glibc max %lld ulp, %.6f bit-equal\n",
            name, count, max_rel, rel_x, max_abs, abs_x, static_cast<long long>(vs_glibc.max_ulp),
            vs_glibc.equal_fraction());
    }
    void check() const {
        EXPECT_LE(max_rel, 4e-15) << "at x = " << rel_x;
        EXPECT_LE(max_abs, 4e-16) << "at x = " << abs_x;
    }
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMinSub = std::numeric_limits<double>::denorm_min();

}  // namespace

TEST(ExactMath, LogWithinOneUlpOfGlibc) {
    UlpStats st;
    for (double x = 1e-310; x < 1e308; x *= 1.00071) st.add(x, xm::log(x), std::log(x));
    for (int i = -200000; i <= 200000; ++i) {  // near 1, where the result is small
        const double x = 1.0 + i * 0x1p-40;
        st.add(x, xm::log(x), std::log(x));
        const double y = 1.0 + i * 2.5e-6;
        st.add(y, xm::log(y), std::log(y));
    }
    for (int e = -1074; e <= 1023; ++e) {  // powers of two and their neighbours
        const double x = std::ldexp(1.0, e);
        st.add(x, xm::log(x), std::log(x));
        st.add(std::nextafter(x, 0.0), xm::log(std::nextafter(x, 0.0)), std::log(std::nextafter(x, 0.0)));
        st.add(std::nextafter(x, kInf), xm::log(std::nextafter(x, kInf)), std::log(std::nextafter(x, kInf)));
    }
    st.print("log");
    EXPECT_LE(st.max_ulp, 1) << "at x = " << st.worst_x;
    EXPECT_GE(st.equal_fraction(), 0.99);
}

TEST(ExactMath, LogSpecialValues) {
    EXPECT_EQ(xm::log(0.0), -kInf);
    EXPECT_EQ(xm::log(-0.0), -kInf);
    EXPECT_TRUE(std::isnan(xm::log(-1.0)));
    EXPECT_TRUE(std::isnan(xm::log(-kInf)));
    EXPECT_TRUE(std::isnan(xm::log(kNaN)));
    EXPECT_EQ(xm::log(kInf), kInf);
    EXPECT_EQ(xm::log(1.0), 0.0);
    EXPECT_FALSE(std::signbit(xm::log(1.0)));
    EXPECT_EQ(xm::log(2.0), std::log(2.0));
    EXPECT_LE(ulps(xm::log(kMinSub), std::log(kMinSub)), 1);
    EXPECT_LE(ulps(xm::log(std::numeric_limits<double>::max()), std::log(std::numeric_limits<double>::max())), 1);
}

TEST(ExactMath, ExpWithinOneUlpOfGlibc) {
    UlpStats st;
    for (double x = -745.0; x < 710.0; x += 0.0013) st.add(x, xm::exp(x), std::exp(x));
    for (int i = -100000; i <= 100000; ++i) {  // small arguments
        const double x = i * 1e-9;
        st.add(x, xm::exp(x), std::exp(x));
    }
    for (double x = 1e-300; x < 1.0; x *= 1.01) {
        st.add(x, xm::exp(x), std::exp(x));
        st.add(-x, xm::exp(-x), std::exp(-x));
    }
    for (double x = 709.0; x < 709.79; x += 1e-4) st.add(x, xm::exp(x), std::exp(x));   // near overflow
    for (double x = -746.0; x < -700.0; x += 1e-3) st.add(x, xm::exp(x), std::exp(x));  // subnormal results
    st.print("exp");
    EXPECT_LE(st.max_ulp, 1) << "at x = " << st.worst_x;
    EXPECT_GE(st.equal_fraction(), 0.98);
}

TEST(ExactMath, ExpSpecialValues) {
    EXPECT_TRUE(std::isnan(xm::exp(kNaN)));
    EXPECT_EQ(xm::exp(kInf), kInf);
    EXPECT_EQ(xm::exp(-kInf), 0.0);
    EXPECT_EQ(xm::exp(0.0), 1.0);
    EXPECT_EQ(xm::exp(-0.0), 1.0);
    EXPECT_EQ(xm::exp(1e-300), 1.0);
    EXPECT_EQ(xm::exp(709.79), kInf);
    EXPECT_EQ(xm::exp(1000.0), kInf);
    EXPECT_EQ(xm::exp(-746.5), 0.0);
    EXPECT_EQ(xm::exp(-1000.0), 0.0);
    EXPECT_LT(xm::exp(709.78), kInf);
    EXPECT_GT(xm::exp(-745.0), 0.0);  // rounds to the smallest subnormal
    EXPECT_LE(ulps(xm::exp(1.0), 2.718281828459045), 1);
    EXPECT_LE(ulps(xm::exp(2.0794415416798357), std::exp(2.0794415416798357)), 1);  // log 8
}

TEST(ExactMath, LgammaAccuracySweeps) {
    LgammaStats geo, dense, grid;
    for (double x = 1e-300; x < 1e6; x *= 1.0007) geo.add(x);
    for (double x = 1e6; x < 1e305; x *= 1.1) geo.add(x);
    for (double x = 0.5; x < 3.0; x += 2.5e-6) dense.add(x);  // around the zeros at 1 and 2
    for (int i = -20000; i <= 20000; ++i) {                   // closest to the zeros
        dense.add(1.0 + i * 0x1p-44);
        dense.add(2.0 + i * 0x1p-44);
    }
    for (int n = 1; n <= 100000; ++n) {  // integers and half-integers
        grid.add(n);
        grid.add(n - 0.5);
    }
    geo.print("lgamma geometric 1e-300..1e305");
    dense.print("lgamma dense 0.5..3");
    grid.print("lgamma integers and half-integers");
    geo.check();
    dense.check();
    grid.check();
}

TEST(ExactMath, LgammaSpecialValues) {
    EXPECT_TRUE(std::isnan(xm::lgamma(0.0)));
    EXPECT_TRUE(std::isnan(xm::lgamma(-0.0)));
    EXPECT_TRUE(std::isnan(xm::lgamma(-1.5)));
    EXPECT_TRUE(std::isnan(xm::lgamma(-kInf)));
    EXPECT_TRUE(std::isnan(xm::lgamma(kNaN)));
    EXPECT_EQ(xm::lgamma(kInf), kInf);
    EXPECT_EQ(xm::lgamma(1e306), kInf);
    EXPECT_EQ(xm::lgamma(1.0), 0.0);
    EXPECT_EQ(xm::lgamma(2.0), 0.0);
    EXPECT_FALSE(std::signbit(xm::lgamma(1.0)));
    EXPECT_FALSE(std::signbit(xm::lgamma(2.0)));
    EXPECT_EQ(xm::lgamma(3.0), xm::log(2.0));
    EXPECT_NEAR(xm::lgamma(0.5), 0.5723649429247001, 1e-16);  // log(sqrt(pi))
    EXPECT_NEAR(xm::lgamma(kMinSub), 744.4400719213812, 1e-12);
    EXPECT_NEAR(xm::lgamma(1e-300) / 690.7755278982137, 1.0, 1e-15);
}

TEST(ExactMath, LgammaRecurrence) {
    // x = i / 1024 keeps x + 1 exact; lgamma(x + 1) - lgamma(x) = log(x).
    double worst = 0.0;
    for (int i = 1; i <= 2000000; i += 7) {
        const double x = i / 1024.0;
        const double a = xm::lgamma(x + 1.0), b = xm::lgamma(x);
        const double scale = std::fabs(a) + std::fabs(b) + 1.0;
        const double err = std::fabs((a - b) - xm::log(x)) / scale;
        if (err > worst) worst = err;
        ASSERT_LE(err, 4e-15) << "x = " << x;
    }
    std::printf("[ exact_math ] lgamma recurrence: max |lg(x+1) - lg(x) - log x| / scale = %.3g\n", worst);
}

TEST(ExactMath, LgammaOfIntegersIsLogFactorial) {
    EXPECT_EQ(xm::lgamma(1.0), 0.0);
    EXPECT_EQ(xm::lgamma(2.0), 0.0);
    long double log_fact = 0.0L;  // log((n - 1)!)
    for (int n = 3; n <= 170; ++n) {
        log_fact += logl(static_cast<long double>(n - 1));
        const double mine = xm::lgamma(static_cast<double>(n));
        EXPECT_LE(static_cast<double>(fabsl((mine - log_fact) / log_fact)), 1e-15) << "n = " << n;
    }
}

namespace {

/// x rounded from long double: the reference of the erfc and log1p sweeps (glibc's erfcl and
/// log1pl carry 11 bits more than a double).
double ref_erfc(double x) { return static_cast<double>(erfcl(static_cast<long double>(x))); }
double ref_log1p(double x) { return static_cast<double>(log1pl(static_cast<long double>(x))); }

}  // namespace

TEST(ExactMath, ErfcWithinFewUlpsWhereNormal) {
    // Dense over every piece and its edges (0.5, 1, 1.5, 2, 3, 4, 27.3), where the Fisher-z
    // p-value lives (x = statistic / sqrt 2); the result relative to erfcl.
    UlpStats st, glibc;
    const auto add = [&](double x) {
        const double ref = ref_erfc(x);
        if (!(std::fabs(ref) >= std::numeric_limits<double>::min())) return;  // subnormal: absolute below
        st.add(x, xm::erfc(x), ref);
        glibc.add(x, std::erfc(x), ref);
    };
    for (double x = 0.0; x < 26.5; x += 1.0 / 4096.0) add(x);
    for (double x = 1e-300; x < 1.0; x *= 1.01) add(x);
    for (double e : {0.5, 1.0, 1.5, 2.0, 3.0, 4.0}) {
        double lo = e, hi = e;
        for (int k = 0; k < 64; ++k) {
            add(lo = std::nextafter(lo, 0.0));
            add(hi = std::nextafter(hi, kInf));
        }
    }
    for (double x = -6.0; x < 0.0; x += 1.0 / 1024.0) add(x);
    st.print("erfc (vs erfcl)");
    glibc.print("glibc erfc (vs erfcl)");
    EXPECT_LE(st.max_ulp, 6) << "at x = " << st.worst_x;
    EXPECT_GT(st.count, 100000);
}

TEST(ExactMath, ErfcSpecialValuesAndTail) {
    EXPECT_EQ(xm::erfc(0.0), 1.0);
    EXPECT_EQ(xm::erfc(-0.0), 1.0);
    EXPECT_EQ(xm::erfc(kInf), 0.0);
    EXPECT_EQ(xm::erfc(-kInf), 2.0);
    EXPECT_EQ(xm::erfc(30.0), 0.0);
    EXPECT_EQ(xm::erfc(1e300), 0.0);
    EXPECT_TRUE(std::isnan(xm::erfc(std::nan(""))));
    EXPECT_EQ(xm::erfc(1e-20), 1.0);
    // The subnormal tail (26.55 < x < 27.3): absolute error within a few least subnormals,
    // and never increasing.
    double prev = xm::erfc(26.5);
    for (double x = 26.5; x < 27.4; x += 1e-4) {
        const double v = xm::erfc(x), ref = ref_erfc(x);
        EXPECT_LE(std::fabs(v - ref), 8 * std::numeric_limits<double>::denorm_min() + 1e-15 * ref) << x;
        EXPECT_LE(v, prev) << x;
        prev = v;
    }
    // The p-value's use: 2(1 - Phi(1.959963984540054)) = 0.05 to the precision of Phi^-1.
    EXPECT_NEAR(xm::erfc(1.959963984540054 / std::sqrt(2.0)), 0.05, 1e-15);
}

TEST(ExactMath, ErfcHasNoStepWhereAPieceHandsOver) {
    // p-values compare against alpha and each other: no step where one piece hands over to the
    // next; adjacent arguments may differ by the rounding (a rise of at most 2 ulps), no more.
    for (double e : {0.5, 1.0, 1.5, 2.0, 3.0, 4.0}) {
        double x = e;
        for (int k = 0; k < 64; ++k) x = std::nextafter(x, 0.0);
        double prev = xm::erfc(x);
        for (int k = 0; k < 128; ++k) {
            x = std::nextafter(x, kInf);
            const double v = xm::erfc(x);
            EXPECT_LE(v, prev + 4.5e-16 * prev) << "at x = " << x;
            EXPECT_LE(ulps(v, ref_erfc(x)), 4) << "at x = " << x;
            prev = v;
        }
    }
}

TEST(ExactMath, Log1pWithinFewUlps) {
    UlpStats st;
    for (double x = 1e-300; x < 1e300; x *= 1.0007) st.add(x, xm::log1p(x), ref_log1p(x));
    for (double x = -1e-300; x > -1.0; x *= 1.0007) st.add(x, xm::log1p(x), ref_log1p(x));
    for (int i = -100000; i <= 100000; ++i) {
        const double x = i * 1e-5;  // (-1, 1], where the Fisher-z transform of |r| < 1 lands
        if (x > -1.0) st.add(x, xm::log1p(x), ref_log1p(x));
    }
    st.print("log1p (vs log1pl)");
    EXPECT_LE(st.max_ulp, 3) << "at x = " << st.worst_x;
    EXPECT_EQ(xm::log1p(0.0), 0.0);
    EXPECT_EQ(xm::log1p(1e-20), 1e-20);
}
