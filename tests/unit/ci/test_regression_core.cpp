// SPDX-License-Identifier: Apache-2.0
// ci/regression_core.hpp, the arithmetic ci::regression_ci and the GPU batch share: numpy's
// pairwise sum fed one value at a time, log1p from xm::log, the fits read through a row list
// (as the GPU walks a query's complete rows) giving the bits of the same fits on a table of
// those rows only, and the GPU batch's plan of a test-wise query, run on the host, giving the
// CPU's test-wise answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ci/discrete_test.hpp"
#include "ci/regression_ci.hpp"
#include "ci/regression_core.hpp"
#include "core/dataset.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/test_spec.hpp"

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

TEST(RegressionCore, PairwiseSumsAreNumpys) {
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
        EXPECT_EQ(core::pairwise_sum(a.data(), n), reference_sum(a.data(), n)) << "n = " << n;
    }
}

// lane_sum, the least-squares fit's order (row i on lane i mod 32, then lane j + lane j + 16,
// + 8, 4, 2, 1), on values whose order shows (2⁵³ + 1 rounds to 2⁵³, ties to even). a: lane 0
// holds rows 0 and 32, 2⁵³ + 1 → 2⁵³, lane 1 −2⁵³: 0, where row order gives 1. b: lanes 0 and
// 16 meet first, 1 + 2⁵³ → 2⁵³, then lane 1's −2⁵³: 0, where row order gives (1 − 2⁵³) + 2⁵³ = 1.
TEST(RegressionCore, LaneSumAddsAsAWarp) {
    const double big = std::ldexp(1.0, 53);
    std::vector<double> a(40, 0.0);
    a[0] = big;
    a[1] = -big;
    a[32] = 1.0;
    const auto sum = [&a](std::int64_t lo) {
        return core::lane_sum(lo, static_cast<std::int64_t>(a.size()), [&a](std::int64_t i) { return a[i]; });
    };
    EXPECT_EQ(sum(0), 0.0);
    EXPECT_EQ(sum(1), 1.0 - big);  // from row 1: −2⁵³ + 1, exact
    std::vector<double> b(40, 0.0);
    b[0] = 1.0;
    b[16] = big;
    b[1] = -big;
    EXPECT_EQ(core::lane_sum(0, 40, [&b](std::int64_t i) { return b[i]; }), 0.0);  // (1 + 2⁵³) − 2⁵³
    double sequential = 0.0;
    for (const double v : b) sequential += v;
    EXPECT_EQ(sequential, 1.0);  // (1 − 2⁵³) + 2⁵³
    // Integers add exactly in any order: the count of rows [lo, hi).
    for (const std::int64_t n : {0, 1, 31, 32, 33, 1000})
        EXPECT_EQ(core::lane_sum(n / 3, n, [](std::int64_t) { return 1.0; }), static_cast<double>(n - n / 3));
}

TEST(RegressionCore, Log1pIsWithinAFewUlps) {
    for (double x = -0.999; x < 40.0; x = x < 0 ? x * 0.93 + 1e-3 : x * 1.07 + 1e-9) {
        const double want = std::log1p(x);
        EXPECT_LE(std::fabs(cudag::xm::log1p(x) - want), 1e-15 * std::fabs(want) + 1e-300) << x;
    }
    for (const double x : {1e-300, 1e-17, -1e-17, 0.0}) EXPECT_EQ(cudag::xm::log1p(x), std::log1p(x)) << x;
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

// What the GPU batch does for a query under --missing testwise, step by step on the host (its
// rows from the columns' presence, each discrete variable's map from the level counts on them,
// the dependent variable from normaltest_from_moments(moments on the rows) or level_entropy,
// the design [other, S sorted or ones], the two fits through the row list, then the host's
// statistic), against the CPU's test-wise test on the sub-table: bit for bit.
TEST(RegressionCore, TestwisePlanIsTheTestwiseTest) {
    std::mt19937_64 rng(9);
    std::normal_distribution<double> z(0.0, 1.0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const std::int64_t m = 400, nv = 8;
    cudag::Dataset d;
    d.n_vars = nv;
    d.n_samples = m;
    d.source = "test";
    d.values.resize(static_cast<std::size_t>(nv * m));
    d.levels.resize(static_cast<std::size_t>(nv));
    for (std::int64_t v = 0; v < nv; ++v) {
        std::string name = "v";
        name += std::to_string(v);
        d.names.push_back(name);
        const bool discrete = v % 3 == 0;
        const int card = 2 + static_cast<int>(v % 3) + (v == 3 ? 1 : 0);  // v3: 4 levels declared
        if (discrete)
            for (int l = 0; l < card; ++l) d.levels[static_cast<std::size_t>(v)].push_back(std::to_string(l));
        for (std::int64_t r = 0; r < m; ++r) {
            const double prev = v > 0 ? d.column(v - 1)[r] : 0.0;
            const double base = std::isnan(prev) ? 0.0 : prev;
            d.column(v)[r] = discrete
                                 ? static_cast<double>(static_cast<int>(std::fabs(base + z(rng))) % (card - (v == 3)))
                                 : 0.6 * base + z(rng) + (v % 2 ? z(rng) * z(rng) : 0.0);
        }
    }
    for (double& v : d.values)
        if (u(rng) < 0.1) {
            v = std::nan("");
            ++d.missing;
        }
    cudag::skeleton::TestSpec spec;
    spec.kind = TestKind::Regression;
    const auto cpu = cudag::skeleton::make_ci_test(d, spec, cudag::skeleton::Compat::Pcalg, 1);
    int compared = 0;
    for (int t = 0; t < 120; ++t) {
        std::vector<std::int32_t> vars(static_cast<std::size_t>(nv));
        for (std::int32_t v = 0; v < nv; ++v) vars[static_cast<std::size_t>(v)] = v;
        std::shuffle(vars.begin(), vars.end(), rng);
        vars.resize(static_cast<std::size_t>(2 + t % 4));
        const std::vector<std::int32_t> given(vars.begin() + 2, vars.end());
        std::sort(vars.begin() + 2, vars.end());
        // Rows complete in every variable of the query, increasing.
        std::vector<std::int32_t> rows;
        for (std::int64_t r = 0; r < m; ++r) {
            bool ok = true;
            for (const std::int32_t v : vars) ok = ok && !std::isnan(d.column(v)[r]);
            if (ok) rows.push_back(static_cast<std::int32_t>(r));
        }
        const auto n = static_cast<std::int64_t>(rows.size());
        std::vector<std::vector<std::int32_t>> maps(vars.size());
        std::vector<core::DesignVar> pv(vars.size());
        std::vector<std::vector<std::int64_t>> occurring(vars.size());
        for (std::size_t i = 0; i < vars.size(); ++i) {
            const std::int32_t v = vars[i];
            pv[i].col = d.column(v);
            if (!d.is_discrete(v)) continue;
            std::vector<std::int64_t> count(d.levels[static_cast<std::size_t>(v)].size(), 0);
            for (const std::int32_t r : rows) ++count[static_cast<std::size_t>(d.column(v)[r])];
            std::int32_t width = 0;
            for (const std::int64_t c : count) {
                maps[i].push_back(c > 0 ? width : -1);
                if (c > 0) {
                    ++width;
                    occurring[i].push_back(c);
                }
            }
            pv[i].kind = core::kDiscrete;
            pv[i].map = maps[i].data();
            pv[i].width = width;
        }
        const bool dx = pv[0].kind == core::kDiscrete, dy = pv[1].kind == core::kDiscrete;
        bool x_dep;
        if (!dx && !dy) {
            const core::Moments a = core::moments(pv[0].col, rows.data(), n),
                                b = core::moments(pv[1].col, rows.data(), n);
            x_dep = !(normaltest_from_moments(n, a.mean, a.m2, a.m3, a.m4) >=
                      normaltest_from_moments(n, b.mean, b.m2, b.m3, b.m4));
        } else if (dx && dy) {
            x_dep = !(level_entropy(occurring[0], n) >= level_entropy(occurring[1], n));
        } else {
            x_dep = !dx;
        }
        const core::DesignVar dep = pv[x_dep ? 0 : 1], other = pv[x_dep ? 1 : 0];
        std::vector<core::DesignVar> design{other};
        if (vars.size() == 2) {
            core::DesignVar ones;
            ones.kind = core::kOnes;
            design.push_back(ones);
        }
        for (std::size_t i = 2; i < vars.size(); ++i) design.push_back(pv[i]);
        int p_rest = 0;
        for (const core::DesignVar& v : design) p_rest += v.width;
        const core::Design rest{rows.data(), n, design.data(), static_cast<int>(design.size()), p_rest};
        const core::Design zd{rows.data(), n, design.data() + 1, static_cast<int>(design.size()) - 1,
                              p_rest - other.width};
        double stat;
        if (dx && dy) {
            std::vector<double> w(static_cast<std::size_t>(core::logistic_doubles(n, p_rest, dep.width)));
            stat = core::logistic_deviance(zd, dep, dep.width, false, w.data()) -
                   core::logistic_deviance(rest, dep, dep.width, false, w.data());
        } else {
            std::vector<double> w(static_cast<std::size_t>(core::linear_doubles(n, p_rest)));
            std::vector<std::int32_t> perm(static_cast<std::size_t>(p_rest));
            const double a = core::residual_sum_of_squares(zd, dep.col, w.data(), perm.data());
            const double b = core::residual_sum_of_squares(rest, dep.col, w.data(), perm.data());
            stat = linear_statistic(n, a, b);
        }
        const double p = chi2_sf(stat, static_cast<double>(other.width));
        const CiOutcome o = cpu->test(vars[0], vars[1], given);
        EXPECT_EQ(stat, o.statistic) << "query " << t;
        EXPECT_EQ(p, o.p) << "query " << t;
        ++compared;
    }
    EXPECT_EQ(compared, 120);
}
