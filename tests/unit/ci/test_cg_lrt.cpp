// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/mixed_dataset.hpp"
#include "ci/cg_lrt.hpp"
#include "core/error.hpp"

using namespace cudag;
using namespace cudag::ci;

namespace {

using test::make_dataset;

/// Correlated Gaussian columns: v_j = Σ_{i<j} b_ij v_i + noise, with offsets and scales.
std::vector<std::vector<double>> gaussian_columns(int n, int p, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<std::vector<double>> c(static_cast<std::size_t>(p), std::vector<double>(static_cast<std::size_t>(n)));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < p; ++j) {
            double v = z(rng);
            for (int k = 0; k < j; ++k) v += 0.4 * ((j + k) % 3 - 1) * c[k][i];
            c[j][i] = v;
        }
    for (int j = 0; j < p; ++j)
        for (double& v : c[j]) v = (j + 1) * 3.0 * v + 10.0 * j;
    return c;
}

/// Partial correlation of columns a, b given s by the precision route: r = −P_ab / √(P_aa P_bb)
/// with P the inverse (Gauss–Jordan) of the sample covariance of {a, b} ∪ s (two-pass centred).
double partial_correlation(const std::vector<std::vector<double>>& c, int a, int b, const std::vector<int>& s) {
    std::vector<int> v = {a, b};
    v.insert(v.end(), s.begin(), s.end());
    const int k = static_cast<int>(v.size());
    const auto n = static_cast<double>(c[0].size());
    std::vector<double> mean(k, 0.0);
    for (int i = 0; i < k; ++i) {
        for (double x : c[v[i]]) mean[i] += x;
        mean[i] /= n;
    }
    std::vector<std::vector<double>> m(k, std::vector<double>(2 * k, 0.0));
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j)
            for (std::size_t r = 0; r < c[0].size(); ++r) m[i][j] += (c[v[i]][r] - mean[i]) * (c[v[j]][r] - mean[j]);
        m[i][k + i] = 1.0;
    }
    for (int col = 0; col < k; ++col) {
        int piv = col;
        for (int r = col + 1; r < k; ++r)
            if (std::fabs(m[r][col]) > std::fabs(m[piv][col])) piv = r;
        std::swap(m[col], m[piv]);
        const double dv = m[col][col];
        for (double& e : m[col]) e /= dv;
        for (int r = 0; r < k; ++r) {
            if (r == col) continue;
            const double f = m[r][col];
            for (int q = 0; q < 2 * k; ++q) m[r][q] -= f * m[col][q];
        }
    }
    return -m[0][k + 1] / std::sqrt(m[0][k] * m[1][k + 1]);
}

/// G² of x ⟂ y | s on integer-coded columns by counting: 2 Σ N_xys log(N_xys N_s / (N_xs N_ys)).
double g_square(const std::vector<std::vector<double>>& c, int x, int y, const std::vector<int>& s) {
    std::map<std::vector<int>, double> nxys, nxs, nys, ns;
    for (std::size_t r = 0; r < c[0].size(); ++r) {
        std::vector<int> key;
        for (int v : s) key.push_back(static_cast<int>(c[v][r]));
        const int xv = static_cast<int>(c[x][r]), yv = static_cast<int>(c[y][r]);
        std::vector<int> kxy = key, kx = key, ky = key;
        kxy.push_back(xv);
        kxy.push_back(yv);
        kx.push_back(xv);
        ky.push_back(yv);
        nxys[kxy] += 1;
        nxs[kx] += 1;
        nys[ky] += 1;
        ns[key] += 1;
    }
    double g = 0.0;
    for (const auto& [k, n] : nxys) {
        std::vector<int> key(k.begin(), k.end() - 2), kx = key, ky = key;
        kx.push_back(k[k.size() - 2]);
        ky.push_back(k.back());
        g += 2.0 * n * std::log(n * ns[key] / (nxs[kx] * nys[ky]));
    }
    return g;
}

std::vector<std::int32_t> set_of(std::initializer_list<std::int32_t> v) { return v; }

::testing::AssertionResult near_rel(double got, double want, double rel) {
    if (std::fabs(got - want) <= rel * std::fabs(want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (relative "
                                         << std::fabs(got - want) / std::fabs(want) << " > " << rel << ")";
}

}  // namespace

// (1) On continuous data the test is the Gaussian LRT −n log(1 − r²_{xy|S}), dof 1.
TEST(CgLrt, AllContinuousEqualsGaussianLrt) {
    const int n = 300;
    const auto cols = gaussian_columns(n, 6, 11);
    const Dataset d = make_dataset(cols, std::vector<int>(6, 0));
    const std::vector<std::vector<int>> sets = {{}, {2}, {2, 3}, {5, 2, 4}, {1, 2, 3, 4}};
    for (const auto& s : sets) {
        const int x = 0, y = s.size() == 4 ? 5 : 1;
        std::vector<std::int32_t> given(s.begin(), s.end());
        const CgLrtResult r = cg_lrt(d, x, y, given);
        const double pr = partial_correlation(cols, x, y, s);
        const double want = -n * std::log(1.0 - pr * pr);
        EXPECT_TRUE(near_rel(r.statistic, want, 1e-9)) << "|S| = " << s.size();
        EXPECT_EQ(r.dof, 1.0);
        EXPECT_EQ(r.rows, n);
        EXPECT_TRUE(near_rel(r.p, std::erfc(std::sqrt(want / 2.0)), 1e-9));  // χ²₁ survival
    }
}

// (2) On discrete data the test is G² over the same strata, dof (r_x − 1)(r_y − 1) Π r_s, the
// levels counted being those that occur (as Tetrad counts a variable's declared levels; not
// reduced for an empty cell or stratum, unlike causal-learn's dof).
TEST(CgLrt, AllDiscreteEqualsGSquare) {
    const int n = 500;
    std::mt19937_64 rng(5);
    std::vector<std::vector<double>> c(4, std::vector<double>(n));
    for (int i = 0; i < n; ++i) {
        c[0][i] = static_cast<double>(rng() % 3);
        c[1][i] = static_cast<double>((static_cast<int>(c[0][i]) + rng() % 2) % 2);  // depends on v0
        c[2][i] = static_cast<double>(rng() % 4);
        c[3][i] = static_cast<double>((static_cast<int>(c[2][i]) + (rng() % 5 == 0)) % 3);
    }
    const Dataset d = make_dataset(c, {3, 2, 4, 3});
    struct Case {
        int x, y;
        std::vector<int> s;
        double dof;
    };
    const Case cases[] = {{0, 1, {}, 2}, {0, 2, {}, 6}, {0, 1, {2}, 8}, {1, 3, {0, 2}, 24}, {2, 3, {0}, 18}};
    for (const Case& k : cases) {
        std::vector<std::int32_t> given(k.s.begin(), k.s.end());
        const CgLrtResult r = cg_lrt(d, k.x, k.y, given);
        EXPECT_TRUE(near_rel(r.statistic, g_square(c, k.x, k.y, k.s), 1e-10)) << k.x << " " << k.y;
        EXPECT_EQ(r.dof, k.dof);
        EXPECT_EQ(r.rows, n);
    }
    // v3 is (v2 + 0 or 1) mod 3: v2 × v3 has empty cells (v3 = 2 never occurs with v2 = 0), and
    // the dof of {2, 3, {0}} stays (4 − 1)(3 − 1) 3 = 18.
}

namespace {

/// tests/data/cg_lrt/data.csv: continuous columns as numbers, discrete ones as labels L<k>
/// (codes by first occurrence, so the code order differs from the labels').
Dataset reference_data() {
    std::ifstream in(std::string(CUDAG_SOURCE_DIR) + "/tests/data/cg_lrt/data.csv");
    std::string line;
    if (!std::getline(in, line)) {
        ADD_FAILURE() << "cannot read tests/data/cg_lrt/data.csv";
        return {};
    }
    std::vector<std::string> names;
    {
        std::stringstream h(line);
        std::string cell;
        while (std::getline(h, cell, ',')) names.push_back(cell);
    }
    const std::size_t p = names.size();
    std::vector<std::vector<std::string>> cells(p);
    while (std::getline(in, line)) {
        std::stringstream s(line);
        std::string cell;
        for (std::size_t j = 0; j < p && std::getline(s, cell, ','); ++j) cells[j].push_back(cell);
    }
    Dataset d;
    d.n_vars = static_cast<std::int64_t>(p);
    d.n_samples = static_cast<std::int64_t>(cells[0].size());
    d.names = names;
    d.levels.resize(p);
    for (std::size_t j = 0; j < p; ++j) {
        const bool discrete = cells[j][0][0] == 'L';
        for (const std::string& c : cells[j]) {
            if (!discrete) {
                d.values.push_back(std::stod(c));
                continue;
            }
            auto& lv = d.levels[j];
            auto it = std::find(lv.begin(), lv.end(), c);
            if (it == lv.end()) it = lv.insert(lv.end(), c);
            d.values.push_back(static_cast<double>(it - lv.begin()));
        }
    }
    return d;
}

std::int32_t index_of(const Dataset& d, const std::string& name) {
    return static_cast<std::int32_t>(std::find(d.names.begin(), d.names.end(), name) - d.names.begin());
}

}  // namespace

// (3) Mixed data: every row of tests/data/cg_lrt/reference.tsv (scripts/dev/cg_lrt_reference.py,
// numpy slogdet on per-stratum MLE covariances; see tests/data/cg_lrt/README).
TEST(CgLrt, MixedEqualsIndependentReference) {
    const Dataset d = reference_data();
    ASSERT_EQ(d.n_samples, 400);
    ASSERT_TRUE(d.mixed());
    std::ifstream in(std::string(CUDAG_SOURCE_DIR) + "/tests/data/cg_lrt/reference.tsv");
    std::string line;
    std::getline(in, line);
    int rows = 0;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream s(line);
        std::string cell;
        while (std::getline(s, cell, '\t')) f.push_back(cell);
        ASSERT_EQ(f.size(), 7u) << line;
        std::vector<std::int32_t> given;
        std::stringstream g(f[2]);
        while (std::getline(g, cell, ',')) given.push_back(index_of(d, cell));
        const CgLrtResult r = cg_lrt(d, index_of(d, f[0]), index_of(d, f[1]), given);
        EXPECT_TRUE(near_rel(r.statistic, std::stod(f[3]), 1e-9)) << line;
        EXPECT_EQ(r.dof, std::stod(f[4])) << line;
        EXPECT_TRUE(near_rel(r.p, std::stod(f[5]), 1e-9)) << line;
        EXPECT_EQ(r.rows, std::stoll(f[6])) << line;
        ++rows;
    }
    EXPECT_EQ(rows, 30);
}

// (3) A few of those rows written out (reference.tsv, made by cg_lrt_reference.py --generate
// tests/data/cg_lrt --seed 1 --rows 400): x continuous / y discrete, both discrete given
// continuous, S mixed, and rows left out for d3's rare level.
TEST(CgLrt, MixedHardCodedReferenceValues) {
    const Dataset d = reference_data();
    ASSERT_EQ(d.n_samples, 400);
    struct Case {
        const char *x, *y;
        std::vector<const char*> s;
        double statistic, dof, p;
        std::int64_t rows;
    };
    const Case cases[] = {
        {"c0", "d0", {}, 355.80595624563989, 4, 9.7799324978367705e-76, 400},
        {"d0", "d1", {"c0", "c1"}, 11.691526896159303, 24, 0.98316491576275022, 400},
        {"d0", "c2", {"c1", "d1"}, 16.432903707878495, 18, 0.56236265086263271, 400},
        {"c0", "c1", {"d0", "d3", "c3"}, 327.47825020304299, 9, 3.8213456222950483e-65, 395},
        {"c2", "d0", {"c0", "c1", "d1", "d3"}, 57.786634917395986, 48, 0.15743255278378732, 390},
    };
    for (const Case& k : cases) {
        std::vector<std::int32_t> given;
        for (const char* v : k.s) given.push_back(index_of(d, v));
        const CgLrtResult r = cg_lrt(d, index_of(d, k.x), index_of(d, k.y), given);
        EXPECT_TRUE(near_rel(r.statistic, k.statistic, 1e-9)) << k.x << " " << k.y;
        EXPECT_EQ(r.dof, k.dof);
        EXPECT_TRUE(near_rel(r.p, k.p, 1e-9)) << k.x << " " << k.y;
        EXPECT_EQ(r.rows, k.rows);
    }
}

namespace {

/// Mixed columns: v0 continuous, v1 discrete (3 levels) driving v0's mean, v2 continuous
/// depending on v0, v3 discrete (2 levels).
std::vector<std::vector<double>> mixed_columns(int n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<std::vector<double>> c(4, std::vector<double>(static_cast<std::size_t>(n)));
    for (int i = 0; i < n; ++i) {
        c[1][i] = static_cast<double>(rng() % 3);
        c[3][i] = static_cast<double>(rng() % 2);
        c[0][i] = c[1][i] * 0.7 + z(rng);
        c[2][i] = 0.5 * c[0][i] + (c[3][i] + 1.0) * z(rng);
    }
    return c;
}

}  // namespace

// (4) A level absent from the data (codes 0 and 2 of 3 declared levels) counts nowhere: the
// same answers, bit for bit, as the data recoded to 2 levels.
TEST(CgLrt, AbsentLevelsDoNotCount) {
    auto c = mixed_columns(200, 3);
    for (double& v : c[3]) v *= 2.0;  // codes 0, 2
    const Dataset skip = make_dataset(c, {0, 3, 0, 3});
    for (double& v : c[3]) v /= 2.0;
    const Dataset dense = make_dataset(c, {0, 3, 0, 2});
    for (const auto& q : std::vector<std::vector<std::int32_t>>{{0, 3}, {3, 1}, {0, 2, 3}, {1, 3, 0, 2}}) {
        const std::vector<std::int32_t> s(q.begin() + 2, q.end());
        const CgLrtResult a = cg_lrt(skip, q[0], q[1], s), b = cg_lrt(dense, q[0], q[1], s);
        EXPECT_EQ(a.statistic, b.statistic);
        EXPECT_EQ(a.dof, b.dof);
        EXPECT_EQ(a.p, b.p);
    }
    EXPECT_EQ(cg_lrt(skip, 0, 3, {}).dof, 2.0);  // (2 − 1)(0 + 2), not (3 − 1)(0 + 2)
}

// (4) Rows whose configuration of the test's discrete variables occurs in no more rows than
// the test has continuous variables are left out of all four likelihoods: the answer is that
// of the data without them. Other tests on the same data keep them.
TEST(CgLrt, TinyStrataAreLeftOut) {
    auto c = mixed_columns(150, 4);
    c[3][10] = 2.0;  // level 2 of v3 in two rows: too few for the 2 continuous x, y
    c[3][77] = 2.0;
    const Dataset d = make_dataset(c, {0, 3, 0, 3});
    const CgLrtResult r = cg_lrt(d, 0, 2, set_of({3}));
    EXPECT_EQ(r.rows, 148);
    auto kept = c;
    for (auto& col : kept) {
        col.erase(col.begin() + 77);
        col.erase(col.begin() + 10);
    }
    const CgLrtResult w = cg_lrt(make_dataset(kept, {0, 3, 0, 3}), 0, 2, set_of({3}));
    EXPECT_EQ(r.statistic, w.statistic);
    EXPECT_EQ(r.dof, w.dof);  // v3's level 2 no longer occurs: dof 2, not 3
    EXPECT_EQ(r.dof, 2.0);
    EXPECT_EQ(cg_lrt(d, 1, 3, {}).rows, 150);  // all-discrete: no row is ever left out
    // A configuration of v1 × v3 with 2 rows and 2 continuous variables: those rows go too.
    const CgLrtResult m = cg_lrt(d, 0, 2, set_of({1, 3}));
    EXPECT_EQ(m.rows, 148);
    // With one continuous variable a 2-row stratum is large enough.
    EXPECT_EQ(cg_lrt(d, 0, 3, {}).rows, 150);
}

// (4) A singular covariance in a stratum large enough (collinear or constant continuous
// variables given the discrete ones) is an InputError naming the variables.
TEST(CgLrt, SingularStratumIsAnInputError) {
    auto c = mixed_columns(120, 5);
    for (int i = 0; i < 120; ++i)
        if (c[3][i] == 1.0) c[2][i] = 3.0 * c[0][i] - 1.0;  // collinear where v3 = 1
    const Dataset d = make_dataset(c, {0, 3, 0, 2});
    try {
        cg_lrt(d, 0, 2, set_of({3}));
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("cg-lrt test of 'v0' and 'v2' given {'v3'}"), std::string::npos) << m;
        EXPECT_NE(m.find("singular"), std::string::npos) << m;
        EXPECT_NE(m.find("'v3' = 1"), std::string::npos) << m;
    }
    EXPECT_NO_THROW(cg_lrt(d, 0, 1, {}));  // v0 alone is not singular
    auto k = mixed_columns(120, 6);
    for (int i = 0; i < 120; ++i)
        if (k[1][i] == 2.0) k[0][i] = 4.0;  // constant where v1 = 2
    EXPECT_THROW(cg_lrt(make_dataset(k, {0, 3, 0, 2}), 0, 2, set_of({1})), InputError);
}

// (4) A discrete x with one observed level: dof 0, statistic 0, p 1 (Tetrad: NaN).
TEST(CgLrt, OneObservedLevelGivesPOne) {
    auto c = mixed_columns(100, 7);
    std::fill(c[3].begin(), c[3].end(), 1.0);
    const Dataset d = make_dataset(c, {0, 3, 0, 2});
    const CgLrtResult r = cg_lrt(d, 3, 0, set_of({2}));
    EXPECT_EQ(r.dof, 0.0);
    EXPECT_EQ(r.statistic, 0.0);
    EXPECT_EQ(r.p, 1.0);
}

TEST(CgLrt, NoRowLeftGivesPOne) {
    const Dataset d = make_dataset({{1.0, 2.0}, {3.0, 1.0}, {0.5, 0.25}}, {0, 0, 0});
    const CgLrtResult r = cg_lrt(d, 0, 1, set_of({2}));  // 2 rows, 3 continuous variables
    EXPECT_EQ(r.rows, 0);
    EXPECT_EQ(r.p, 1.0);
}

// The answer does not depend on the order of S or of x and y, bit for bit.
TEST(CgLrt, OrderOfArgumentsDoesNotMatter) {
    const auto c = mixed_columns(250, 8);
    const Dataset d = make_dataset(c, {0, 3, 0, 2});
    const CgLrtResult a = cg_lrt(d, 0, 3, set_of({1, 2}));
    const CgLrtResult b = cg_lrt(d, 3, 0, set_of({2, 1}));
    EXPECT_EQ(a.statistic, b.statistic);
    EXPECT_EQ(a.p, b.p);
    EXPECT_EQ(a.dof, b.dof);
    EXPECT_EQ(a.dof, 9.0);  // (2 − 1)(k + 2) F_S, k = 1 (v2), F_S = 3 (v1)
}

// The statistic does not depend on the scale or offset of a continuous column.
TEST(CgLrt, InvariantToAffineRescaling) {
    auto c = mixed_columns(250, 9);
    const Dataset d = make_dataset(c, {0, 3, 0, 2});
    for (double& v : c[2]) v = -1e4 * v + 3e6;
    const Dataset e = make_dataset(c, {0, 3, 0, 2});
    EXPECT_TRUE(near_rel(cg_lrt(d, 0, 2, set_of({1, 3})).statistic, cg_lrt(e, 0, 2, set_of({1, 3})).statistic, 1e-9));
    EXPECT_TRUE(near_rel(cg_lrt(d, 2, 3, set_of({0})).statistic, cg_lrt(e, 2, 3, set_of({0})).statistic, 1e-9));
}

TEST(CgLrt, CiTestInterface) {
    const auto c = mixed_columns(100, 10);
    const Dataset d = make_dataset(c, {0, 3, 0, 2});
    CgLrtTest t(d);
    EXPECT_EQ(t.name(), "cg-lrt");
    EXPECT_EQ(t.digest(), std::vector<std::string>{"cg-lrt"});
    const std::vector<std::int32_t> s = {1};
    const CiOutcome o = t.test(0, 2, s);
    const CgLrtResult r = cg_lrt(d, 0, 2, s);
    EXPECT_EQ(o.statistic, r.statistic);
    EXPECT_EQ(o.p, r.p);
    ASSERT_EQ(o.extra.size(), 2u);
    EXPECT_EQ(o.extra[0], (std::pair<std::string, std::string>{"dof", "3"}));
    EXPECT_EQ(o.extra[1], (std::pair<std::string, std::string>{"rows", "100"}));
}

TEST(CgLrt, BadCodesAreInputErrors) {
    auto c = mixed_columns(50, 11);
    c[1][4] = 3.0;  // declared 3 levels: codes 0..2
    EXPECT_THROW(cg_lrt(make_dataset(c, {0, 3, 0, 2}), 0, 1, {}), InputError);
    c[1][4] = 1.0;
    c[0][7] = std::nan("");
    EXPECT_THROW(cg_lrt(make_dataset(c, {0, 3, 0, 2}), 0, 1, {}), InputError);
}
