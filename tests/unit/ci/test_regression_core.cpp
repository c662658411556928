// SPDX-License-Identifier: Apache-2.0
// ci/regression_core.hpp, the arithmetic ci::regression_ci and the GPU batch share: numpy's
// pairwise sum fed one value at a time, log1p from xm::log, and the fits read through a row
// list (as the GPU walks a query's complete rows) giving the bits of the same fits on a table
// of those rows only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ci/regression_core.hpp"

using namespace cudag::ci;
namespace core = cudag::ci::regression_core;

namespace {

/// numpy's pairwise sum (numpy/_core/src/umath/loops_utils.h.src, pairwise_sum), written
/// recursively from its description: below 8 a plain loop from 0; up to 128 eight
/// accumulators, combined ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the rest; else
/// the halves, split at n/2 rounded down to a multiple of 8.
double reference_sum(const double* a, std::int64_t n) {
    if (n < 8) {
        double s = 0.0;
        for (std::int64_t i = 0; i < n; ++i) s += a[i];
        return s;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; ++j) r[j] = a[j];
        std::int64_t i = 8;
        for (; i < n - n % 8; i += 8)
            for (int j = 0; j < 8; ++j) r[j] += a[i + j];
        double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) s += a[i];
        return s;
    }
    std::int64_t half = n / 2;
    half -= half % 8;
    return reference_sum(a, half) + reference_sum(a + half, n - half);
}

}  // namespace

TEST(RegressionCore, PairwiseSumIsNumpys) {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<std::int64_t> sizes;
    for (std::int64_t n = 0; n <= 300; ++n) sizes.push_back(n);
    for (const std::int64_t n : {511, 512, 1000, 1024, 1031, 4097, 10007, 65536, 100003}) sizes.push_back(n);
    for (const std::int64_t n : sizes) {
        std::vector<double> a(static_cast<std::size_t>(n));
        // Magnitudes over many binades, so that the order of the additions shows in the bits.
        for (double& v : a) v = u(rng) * std::ldexp(1.0, static_cast<int>(rng() % 60) - 30);
        core::PairwiseSum s;
        s.start(n);
        for (const double v : a) s.add(v);
        EXPECT_EQ(s.value(), reference_sum(a.data(), n)) << "n = " << n;
    }
}

TEST(RegressionCore, Log1pIsWithinAFewUlps) {
    for (double x = -0.999; x < 40.0; x = x < 0 ? x * 0.93 + 1e-3 : x * 1.07 + 1e-9) {
        const double want = std::log1p(x);
        EXPECT_LE(std::fabs(core::log1p(x) - want), 1e-15 * std::fabs(want) + 1e-300) << x;
    }
    for (const double x : {1e-300, 1e-17, -1e-17, 0.0}) EXPECT_EQ(core::log1p(x), std::log1p(x)) << x;
}

// The GPU reads a query's complete rows through a row list on the whole columns; the CPU's
// test-wise test runs on a table of those rows. Both are the same fits to the bit.
TEST(RegressionCore, RowListGivesTheSubTablesBits) {
    std::mt19937_64 rng(5);
    std::normal_distribution<double> z(0.0, 1.0);
    const std::int64_t m = 700;
    std::vector<double> a(m), b(m), c(m), g(m), h(m);
    std::vector<std::int32_t> rows;
    for (std::int64_t r = 0; r < m; ++r) {
        a[r] = z(rng);
        b[r] = 0.5 * a[r] + z(rng);
        g[r] = static_cast<double>((rng() % 3 == 0) ? 2 : (a[r] > 0 ? 1 : 0));  // codes 0..2 of 4
        h[r] = static_cast<double>(b[r] + 0.3 * z(rng) > 0.2 ? 3 : (g[r] == 2 ? 1 : 0));
        c[r] = b[r] - 0.4 * g[r] + z(rng);
        if (rng() % 4 != 0) rows.push_back(static_cast<std::int32_t>(r));
    }
    const auto n = static_cast<std::int64_t>(rows.size());
    const auto pick = [&](const std::vector<double>& v) {
        std::vector<double> out;
        for (const std::int32_t r : rows) out.push_back(v[static_cast<std::size_t>(r)]);
        return out;
    };
    const std::vector<double> a2 = pick(a), b2 = pick(b), c2 = pick(c), g2 = pick(g), h2 = pick(h);
    // Every code of g and h occurs on these rows: the maps are the same for both tables.
    const std::vector<std::int32_t> g_map{0, 1, 2, -1}, h_map{0, 1, -1, 2};
    const auto cont = [](const double* col) {
        core::DesignVar v;
        v.col = col;
        return v;
    };
    const auto disc = [](const double* col, const std::vector<std::int32_t>& map) {
        core::DesignVar v;
        v.col = col;
        v.map = map.data();
        v.kind = core::kDiscrete;
        v.width = 3;
        return v;
    };
    const std::vector<core::DesignVar> whole{cont(b.data()), disc(g.data(), g_map), cont(a.data())};
    const std::vector<core::DesignVar> sub{cont(b2.data()), disc(g2.data(), g_map), cont(a2.data())};
    const core::Design dw{rows.data(), n, whole.data(), 3, 5}, ds{nullptr, n, sub.data(), 3, 5};

    std::vector<double> w1(static_cast<std::size_t>(core::linear_doubles(n, 5))), w2(w1.size());
    std::vector<std::int32_t> p1(5), p2(5);
    const double rss_whole = core::residual_sum_of_squares(dw, c.data(), w1.data(), p1.data());
    const double rss_sub = core::residual_sum_of_squares(ds, c2.data(), w2.data(), p2.data());
    EXPECT_EQ(rss_whole, rss_sub);
    EXPECT_GT(rss_whole, 0.0);

    const core::DesignVar dep_w = disc(h.data(), h_map), dep_s = disc(h2.data(), h_map);
    for (const bool optimum : {false, true}) {
        std::vector<double> l1(static_cast<std::size_t>(core::logistic_doubles(n, 5, 3))), l2(l1.size());
        const double dev_whole = core::logistic_deviance(dw, dep_w, 3, optimum, l1.data());
        const double dev_sub = core::logistic_deviance(ds, dep_s, 3, optimum, l2.data());
        EXPECT_EQ(dev_whole, dev_sub) << optimum;
        EXPECT_GT(dev_whole, 0.0);
    }
    const core::Moments mw = core::moments(a.data(), rows.data(), n), ms = core::moments(a2.data(), nullptr, n);
    EXPECT_EQ(mw.mean, ms.mean);
    EXPECT_EQ(mw.m2, ms.m2);
    EXPECT_EQ(mw.m3, ms.m3);
    EXPECT_EQ(mw.m4, ms.m4);
}
