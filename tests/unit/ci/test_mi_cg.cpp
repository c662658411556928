// SPDX-License-Identifier: Apache-2.0
// ci::mi_cg (bnlearn's mi-cg test, ci/mi_cg.hpp) against the definitions written out here
// independently (normal equations in long double, per-level moments, G² from counts), its
// special cases (singular models, asymmetry, errors), and PC's search running a pair's tests
// in bnlearn's order for it (TestPolicy::bnlearn_pairs in search_row). Its agreement with
// bnlearn itself is tested in r/tests/testthat/test-bnlearn-mixed.R.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "support/mixed_dataset.hpp"
#include "ci/mi_cg.hpp"
#include "core/error.hpp"
#include "core/graph.hpp"
#include "skeleton/cpu/row_search.hpp"

using namespace cudag;
using namespace cudag::ci;

namespace {

using test::make_dataset;

/// Mixed columns: d0 (3 levels), c1 = f(d0) + noise, d2 (2 levels, depends on d0), c3, c4
/// continuous (depending on c1, d2), d5 (2 levels, depends on c3).
Dataset mixed(int n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::vector<double>> c(6, std::vector<double>(static_cast<std::size_t>(n)));
    for (std::size_t i = 0; i < c[0].size(); ++i) {
        c[0][i] = std::floor(3.0 * u(rng));
        c[1][i] = 0.8 * c[0][i] + z(rng);
        c[2][i] = u(rng) < 0.3 + 0.2 * c[0][i] ? 1.0 : 0.0;
        c[3][i] = 0.5 * c[1][i] - 0.7 * c[2][i] + z(rng);
        c[4][i] = 0.3 * c[1][i] + 0.4 * c[3][i] + 2.0 * z(rng);
        c[5][i] = u(rng) < 1.0 / (1.0 + std::exp(-c[3][i])) ? 1.0 : 0.0;
    }
    return make_dataset(c, {3, 0, 2, 0, 0, 2});
}

using Real = long double;

/// RSS of least squares of column y on an intercept and `regs` over `rows`, by the normal
/// equations (Gauss–Jordan in long double).
Real rss(const Dataset& d, int y, const std::vector<int>& regs, const std::vector<std::size_t>& rows) {
    const std::size_t m = regs.size() + 1;
    std::vector<Real> a(m * (m + 1), 0);
    for (std::size_t r : rows) {
        std::vector<Real> x{1};
        for (int v : regs) x.push_back(d.column(v)[r]);
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t j = 0; j < m; ++j) a[i * (m + 1) + j] += x[i] * x[j];
            a[i * (m + 1) + m] += x[i] * d.column(y)[r];
        }
    }
    for (std::size_t k = 0; k < m; ++k) {
        const Real piv = a[k * (m + 1) + k];
        for (std::size_t j = 0; j <= m; ++j) a[k * (m + 1) + j] /= piv;
        for (std::size_t i = 0; i < m; ++i) {
            if (i == k) continue;
            const Real f = a[i * (m + 1) + k];
            for (std::size_t j = 0; j <= m; ++j) a[i * (m + 1) + j] -= f * a[k * (m + 1) + j];
        }
    }
    Real s = 0;
    for (std::size_t r : rows) {
        Real f = a[m];
        for (std::size_t j = 0; j < regs.size(); ++j) f += a[(j + 1) * (m + 1) + m] * d.column(regs[j])[r];
        const Real e = d.column(y)[r] - f;
        s += e * e;
    }
    return s;
}

/// The CLG log-likelihood with unbiased σ per group: Σ_g −n_g log(σ_g √(2π)) − (n_g − q)/2.
Real clg(const Dataset& d, int y, const std::vector<int>& regs, const std::vector<int>& group_by) {
    std::vector<std::vector<std::size_t>> groups;
    std::vector<std::int64_t> keys;
    for (std::size_t r = 0; r < static_cast<std::size_t>(d.n_samples); ++r) {
        std::int64_t key = 0;
        for (int v : group_by) key = key * 16 + static_cast<std::int64_t>(d.column(v)[r]);
        std::size_t g = 0;
        while (g < keys.size() && keys[g] != key) ++g;
        if (g == keys.size()) {
            keys.push_back(key);
            groups.emplace_back();
        }
        groups[g].push_back(r);
    }
    const Real q = static_cast<Real>(regs.size() + 1);
    Real l = 0;
    for (const auto& rows : groups) {
        const Real n = static_cast<Real>(rows.size());
        const Real var = rss(d, y, regs, rows) / (n - q);
        l += -n * (0.5L * std::log(var) + 0.918938533204672741780329736406L) - (n - q) / 2;
    }
    return l;
}

/// G² of discrete x, y given the configurations of `given`.
double g2(const Dataset& d, int x, int y, const std::vector<int>& given) {
    std::vector<std::int64_t> keys;
    std::vector<std::vector<double>> cells;  // per configuration: 4x4 counts
    for (std::size_t r = 0; r < static_cast<std::size_t>(d.n_samples); ++r) {
        std::int64_t key = 0;
        for (int v : given) key = key * 16 + static_cast<std::int64_t>(d.column(v)[r]);
        std::size_t g = 0;
        while (g < keys.size() && keys[g] != key) ++g;
        if (g == keys.size()) {
            keys.push_back(key);
            cells.emplace_back(16, 0.0);
        }
        cells[g][static_cast<std::size_t>(d.column(x)[r] * 4 + d.column(y)[r])] += 1.0;
    }
    double s = 0;
    for (const auto& c : cells) {
        double n = 0, rx[4] = {0, 0, 0, 0}, ry[4] = {0, 0, 0, 0};
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) n += c[i * 4 + j], rx[i] += c[i * 4 + j], ry[j] += c[i * 4 + j];
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j)
                if (c[i * 4 + j] > 0) s += 2 * c[i * 4 + j] * std::log(c[i * 4 + j] * n / (rx[i] * ry[j]));
    }
    return s;
}

double rel(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-300); }

TEST(MiCg, TwoContinuousAreTheGaussianLikelihoodRatioWithUnbiasedVariances) {
    const Dataset d = mixed(400, 1);
    // marginal: −n log(1 − r²)
    Real sx = 0, sy = 0;
    const auto n = static_cast<std::size_t>(d.n_samples);
    for (std::size_t r = 0; r < n; ++r) sx += d.column(1)[r], sy += d.column(3)[r];
    const Real mx = sx / n, my = sy / n;
    Real xx = 0, yy = 0, xy = 0;
    for (std::size_t r = 0; r < n; ++r) {
        xx += (d.column(1)[r] - mx) * (d.column(1)[r] - mx);
        yy += (d.column(3)[r] - my) * (d.column(3)[r] - my);
        xy += (d.column(1)[r] - mx) * (d.column(3)[r] - my);
    }
    const double r2 = static_cast<double>(xy * xy / (xx * yy));
    MiCgResult m = mi_cg(d, 1, 3, {});
    EXPECT_LT(rel(m.statistic, -400.0 * std::log(1.0 - r2)), 1e-12);
    EXPECT_EQ(m.dof, 1.0);
    // x = v1, y = v4, S = {v3}: regressors [v1, v3] against [v3]
    m = mi_cg(d, 1, 4, std::vector<std::int32_t>{3});
    const Real expect1 = 2 * (clg(d, 4, {1, 3}, {}) - clg(d, 4, {3}, {}));
    EXPECT_LT(rel(m.statistic, static_cast<double>(expect1)), 1e-9);
    EXPECT_EQ(m.dof, 1.0);
    // S = {v3, d0, d2}: three continuous columns would need one more; with a discrete S the
    // regressions run per configuration of (d0, d2), dof the 6 configurations
    m = mi_cg(d, 1, 4, std::vector<std::int32_t>{3, 0, 2});
    const Real expect2 = 2 * (clg(d, 4, {1, 3}, {0, 2}) - clg(d, 4, {3}, {0, 2}));
    EXPECT_LT(rel(m.statistic, static_cast<double>(expect2)), 1e-9);
    EXPECT_EQ(m.dof, 6.0);
    // symmetric in x and y here
    EXPECT_LT(rel(mi_cg(d, 4, 1, std::vector<std::int32_t>{3, 0, 2}).statistic, m.statistic), 1e-9);
}

TEST(MiCg, ThreeRegressorsTakeTheQrAndMatchTheNormalEquations) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<std::vector<double>> c(5, std::vector<double>(300));
    for (std::size_t i = 0; i < 300; ++i) {
        c[0][i] = z(rng);
        c[1][i] = 0.5 * c[0][i] + z(rng);
        c[2][i] = 0.3 * c[1][i] + z(rng) + 100.0;  // an offset: the intercept column matters
        c[3][i] = 0.2 * c[0][i] - 0.4 * c[2][i] + z(rng);
        c[4][i] = 0.1 * c[3][i] + 0.2 * c[1][i] + 0.3 * c[0][i] + z(rng);
    }
    const Dataset d = make_dataset(c, {0, 0, 0, 0, 0});
    const MiCgResult m = mi_cg(d, 0, 4, std::vector<std::int32_t>{1, 2, 3});
    const Real expect = 2 * (clg(d, 4, {0, 1, 2, 3}, {}) - clg(d, 4, {1, 2, 3}, {}));
    EXPECT_LT(rel(m.statistic, static_cast<double>(expect)), 1e-8);
    EXPECT_GT(m.statistic, 1.0);
    // a regressor that is an exact combination of two others is left out: the same fit
    std::vector<std::vector<double>> c2 = c;
    c2.push_back(std::vector<double>(300));
    for (std::size_t i = 0; i < 300; ++i) c2[5][i] = c[1][i] - 2.0 * c[2][i];
    const Dataset d2 = make_dataset(c2, {0, 0, 0, 0, 0, 0});
    const MiCgResult m2 = mi_cg(d2, 0, 4, std::vector<std::int32_t>{1, 2, 5, 3});
    // same residuals, but σ's divisor counts every column (bnlearn's): n − 5 and n − 6
    const Real expect2 = 2 * (clg(d, 4, {0, 1, 2, 3}, {}) - clg(d, 4, {1, 2, 3}, {})) +
                         2 * (-300 * 0.5L * std::log(Real{295} / Real{294}) + 0.5L) -
                         2 * (-300 * 0.5L * std::log(Real{296} / Real{295}) + 0.5L);
    EXPECT_LT(rel(m2.statistic, static_cast<double>(expect2)), 1e-7);
}

TEST(MiCg, DiscreteAndContinuousCompareTheGaussiansWithinLevels) {
    const Dataset d = mixed(300, 2);
    // marginal: per-level mean and unbiased σ against one Gaussian; dof 2 (r − 1)
    MiCgResult m = mi_cg(d, 0, 1, {});
    const Real expect0 = 2 * (clg(d, 1, {}, {0}) - clg(d, 1, {}, {}));
    EXPECT_LT(rel(m.statistic, static_cast<double>(expect0)), 1e-10);
    EXPECT_EQ(m.dof, 4.0);
    // given continuous and discrete: L(v3 | v1; d2, d0) − L(v3 | v1; d0), dof (2−1)·3·(1+2)
    m = mi_cg(d, 2, 3, std::vector<std::int32_t>{1, 0});
    const Real expect1 = 2 * (clg(d, 3, {1}, {2, 0}) - clg(d, 3, {1}, {0}));
    EXPECT_LT(rel(m.statistic, static_cast<double>(expect1)), 1e-9);
    EXPECT_EQ(m.dof, 9.0);
    EXPECT_LT(rel(mi_cg(d, 3, 2, std::vector<std::int32_t>{0, 1}).statistic, m.statistic), 1e-12);
}

TEST(MiCg, TwoDiscreteAreGSquareAndBnlearnsChainRuleOverContinuousOnes) {
    const Dataset d = mixed(500, 3);
    MiCgResult m = mi_cg(d, 0, 2, {});
    EXPECT_LT(rel(m.statistic, g2(d, 0, 2, {})), 1e-12);
    EXPECT_EQ(m.dof, 2.0);
    m = mi_cg(d, 0, 5, std::vector<std::int32_t>{2});
    EXPECT_LT(rel(m.statistic, g2(d, 0, 5, {2})), 1e-12);
    EXPECT_EQ(m.dof, 4.0);
    // given the continuous v3: G² + 2 (L(v3; y) − L(v3)) and dof (rx−1)(ry−1) (no discrete S:
    // bnlearn adds no dof for the chain terms then)
    m = mi_cg(d, 0, 5, std::vector<std::int32_t>{3});
    const double expect = g2(d, 0, 5, {}) + static_cast<double>(2 * (clg(d, 3, {}, {5}) - clg(d, 3, {}, {})));
    EXPECT_LT(rel(m.statistic, expect), 1e-9);
    EXPECT_EQ(m.dof, 2.0);
    // the chain terms depend on y only: swapping x and y changes the statistic
    const MiCgResult swapped = mi_cg(d, 5, 0, std::vector<std::int32_t>{3});
    const double expect_swapped = g2(d, 0, 5, {}) + static_cast<double>(2 * (clg(d, 3, {}, {0}) - clg(d, 3, {}, {})));
    EXPECT_LT(rel(swapped.statistic, expect_swapped), 1e-9);
    EXPECT_GT(std::fabs(swapped.statistic - m.statistic), 1.0);
    // with a discrete S too: the terms within its configurations, and F_S k (k+3)/2 (ry − 1)
    m = mi_cg(d, 0, 5, std::vector<std::int32_t>{3, 2});
    const double expect2 = g2(d, 0, 5, {2}) + static_cast<double>(2 * (clg(d, 3, {}, {5, 2}) - clg(d, 3, {}, {2})));
    EXPECT_LT(rel(m.statistic, expect2), 1e-9);
    EXPECT_EQ(m.dof, 2.0 * 2.0 + 2.0 * 2.0 * 1.0);
}

TEST(MiCg, ASingularModelGivesPOne) {
    // a configuration of S's discrete variable with 2 rows cannot fit y on x and a slope:
    // bnlearn takes the model as singular and the statistic as 0
    Dataset d = mixed(60, 4);
    double* s = d.column(2);
    for (std::int64_t r = 0; r < d.n_samples; ++r) s[r] = r < 2 ? 1.0 : 0.0;
    const MiCgResult m = mi_cg(d, 1, 4, std::vector<std::int32_t>{3, 2});
    EXPECT_EQ(m.statistic, 0.0);
    EXPECT_EQ(m.p, 1.0);
    // a constant continuous column: r = 0 in the marginal test
    Dataset c = mixed(60, 5);
    for (std::int64_t r = 0; r < c.n_samples; ++r) c.column(4)[r] = 2.5;
    EXPECT_EQ(mi_cg(c, 1, 4, {}).statistic, 0.0);
    EXPECT_EQ(mi_cg(c, 1, 4, std::vector<std::int32_t>{3}).p, 1.0);
}

TEST(MiCg, AnInfiniteStatisticAndBadValuesAreErrors) {
    // a level of d0 with a single row: its σ is 0 and its density at its own mean infinite
    // (bnlearn's p = 0)
    Dataset d = mixed(50, 6);
    for (std::int64_t r = 0; r < d.n_samples; ++r) d.column(0)[r] = r == 7 ? 2.0 : static_cast<double>(r % 2);
    try {
        (void)mi_cg(d, 0, 1, {});
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "the mi-cg test of 'v0' and 'v1': the statistic is not finite (inf): a level of the discrete "
                  "variable whose rows hold one value has variance 0");
    }
    Dataset bad = mixed(50, 7);
    bad.column(0)[3] = 5.0;  // not a code of its 3 levels
    EXPECT_THROW((void)mi_cg(bad, 0, 1, {}), InputError);
    bad = mixed(50, 7);
    bad.column(1)[3] = std::nan("");
    EXPECT_THROW((void)mi_cg(bad, 0, 1, {}), InputError);
}

/// A tester recording the (x, y, S) search_row asks.
struct Recorder {
    std::int32_t i;
    std::vector<std::vector<std::int32_t>>* calls;
    const std::int32_t* s = nullptr;
    int l = 0;
    void prepare(const std::int32_t* set, int level) { s = set, l = level; }
    double test(std::int32_t j) {
        std::vector<std::int32_t> c{i, j};
        c.insert(c.end(), s, s + l);
        calls->push_back(c);
        return 0.0;  // dependent: every set is walked
    }
};

std::vector<std::vector<std::int32_t>> row_calls(const Adjacency& snap, std::int32_t i, int l, bool pairs) {
    skeleton::TestPolicy policy;
    policy.alpha = 0.05;
    policy.bnlearn_pairs = pairs;
    skeleton::LevelOutput out;
    out.reset(snap.nbrs.size(), l, false);
    std::vector<std::vector<std::int32_t>> calls;
    Recorder r{i, &calls};
    (void)skeleton::search_row(l, snap, i, policy, out, r);
    return calls;
}

TEST(BnlearnPairs, TheRowSearchLeavesOutTheTestsBnlearnRunsFromTheOtherSide) {
    // 0-1, 0-2, 0-3, 1-2, 1-3, 2-3, 3-4: nodes 0, 1, 2, 3 complete, 4 hangs off 3
    Graph g(5);
    for (auto [a, b] : std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}, {3, 4}})
        g.add(a, b);
    const Adjacency snap = Adjacency::from_graph(g);
    // level 1, row 3 (neighbours 0, 1, 2, 4): for j = 0, 1, 2 (below 3) the set {c} is left out
    // when c is adjacent to j; j = 4 (above) keeps all
    auto all = row_calls(snap, 3, 1, false);
    auto kept = row_calls(snap, 3, 1, true);
    EXPECT_EQ(all.size(), 12u);  // 4 sets x 3 partners
    std::vector<std::vector<std::int32_t>> expect;
    for (const auto& c : all) {
        const std::int32_t j = c[1], s = c[2];
        const bool common = j < 3 && (s != 4) && s != j;  // 0, 1, 2 are adjacent to each other
        if (!common) expect.push_back(c);
    }
    EXPECT_EQ(kept, expect);
    for (const auto& c : kept) EXPECT_TRUE(c[1] == 4 || c[2] == 4) << c[1] << " " << c[2];
    // level 2, row 2 (neighbours 0, 1, 3): adj(2) \ {0} = {1, 3} = adj(0) \ {2}, and likewise
    // for 1: both left out; row 3 with j = 2: adj(3) \ {2} = {0, 1, 4} != adj(2) \ {3} = {0, 1}
    EXPECT_EQ(row_calls(snap, 2, 2, false).size(), 3u);  // {0, 1} with 3, {0, 3} with 1, {1, 3} with 0
    EXPECT_EQ(row_calls(snap, 2, 2, true), (std::vector<std::vector<std::int32_t>>{{2, 3, 0, 1}}));
    const auto row3 = row_calls(snap, 3, 2, true);
    EXPECT_EQ(row3, row_calls(snap, 3, 2, false));
    // a row's partners above it are never left out
    EXPECT_EQ(row_calls(snap, 0, 1, true), row_calls(snap, 0, 1, false));
}

}  // namespace
