// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ci/discrete_test.hpp"
#include "ci/regression_ci.hpp"
#include "core/dataset.hpp"
#include "core/error.hpp"

using namespace cudag;
using namespace cudag::ci;

namespace {

const std::string kDir = std::string(CUDAG_SOURCE_DIR) + "/tests/data/regression_ci/";

/// The levels of tests/data/regression_ci/data.csv's variables: v0..v6 continuous, v7..v13
/// discrete (v13 declares 4 levels but never uses code 1).
const int kLevels[14] = {0, 0, 0, 0, 0, 0, 0, 2, 3, 4, 2, 3, 4, 4};

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, sep)) out.push_back(cell);
    return out;
}

/// data.csv's first `rows` rows as a mixed Dataset.
Dataset reference_data(std::int64_t rows) {
    std::ifstream in(kDir + "data.csv");
    std::string line;
    std::getline(in, line);
    Dataset d;
    d.names = split(line, ',');
    d.n_vars = static_cast<std::int64_t>(d.names.size());
    std::vector<std::vector<double>> cols(d.names.size());
    while (static_cast<std::int64_t>(cols[0].size()) < rows && std::getline(in, line)) {
        const std::vector<std::string> cells = split(line, ',');
        for (std::size_t j = 0; j < cols.size(); ++j) cols[j].push_back(std::stod(cells[j]));
    }
    d.n_samples = static_cast<std::int64_t>(cols[0].size());
    for (const auto& c : cols) d.values.insert(d.values.end(), c.begin(), c.end());
    d.levels.resize(d.names.size());
    for (std::size_t v = 0; v < d.names.size(); ++v)
        for (int l = 0; l < kLevels[v]; ++l) d.levels[v].push_back(std::to_string(l));
    return d;
}

/// A small Dataset from columns (`levels[v]` levels; 0: continuous).
Dataset make_data(const std::vector<std::vector<double>>& cols, const std::vector<int>& levels) {
    Dataset d;
    d.n_vars = static_cast<std::int64_t>(cols.size());
    d.n_samples = static_cast<std::int64_t>(cols[0].size());
    for (std::size_t v = 0; v < cols.size(); ++v) {
        d.values.insert(d.values.end(), cols[v].begin(), cols[v].end());
        std::string name = "c";  // (not "c" + to_string: GCC 12's -Wrestrict false positive)
        name += std::to_string(v);
        d.names.push_back(name);
        d.levels.emplace_back();
        for (int l = 0; l < levels[v]; ++l) d.levels.back().push_back(std::to_string(l));
    }
    return d;
}

double relative(double got, double want) { return std::fabs(got - want) / std::fabs(want); }

/// A reproducible sequence in [0, 1) (no <random>: the same numbers with every library).
struct Lcg {
    std::uint64_t s;
    double next() {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(s >> 11) * 0x1.0p-53;
    }
};

}  // namespace

// tigramite 5.2.10.1's RegressionCI.run_test_raw with scikit-learn 1.9.1 on 40 cases
// (tests/data/regression_ci/regression.tsv, scripts/dev/regression_reference.py): the
// dependent variable, the fit and dof exactly; the statistic and p-value within 1e-9 where
// least squares decide, within 1e-6 where the logistic fits decide (22 cases; cudag follows
// sklearn's newton-cholesky to the step where it stops at its tol 1e-4: measured 2.0e-13 and
// 1.2e-13), and, with LogisticStop::Optimum, within 1e-10 of tigramite run with tol 1e-12
// (the *_optimum columns; measured 9.4e-13 and 2.8e-12; ci/regression_ci.hpp's table).
TEST(RegressionCi, EqualsTigramiteOnReferenceCases) {
    std::ifstream in(kDir + "regression.tsv");
    ASSERT_TRUE(in) << kDir << "regression.tsv";
    std::string line;
    std::getline(in, line);  // comment
    std::getline(in, line);  // header
    // [linear, logistic][statistic, p][tigramite, optimum]
    double worst[2][2][2] = {};
    int cases = 0, logistic_cases = 0;
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split(line, '\t');
        ASSERT_EQ(f.size(), 14u) << line;
        const auto x = static_cast<std::int32_t>(std::stoi(f[0]));
        const auto y = static_cast<std::int32_t>(std::stoi(f[1]));
        std::vector<std::int32_t> z;
        if (f[2] != "-")
            for (const std::string& v : split(f[2], ';')) z.push_back(std::stoi(v));
        const std::int64_t rows = std::stoll(f[3]);
        const bool logistic = f[8] == "logistic";
        const double want[2][2] = {{std::stod(f[10]), std::stod(f[12])}, {std::stod(f[11]), std::stod(f[13])}};
        SCOPED_TRACE(line);
        const Dataset d = reference_data(rows);
        ASSERT_EQ(d.n_samples, rows);
        // The data types tigramite was called with are the Dataset's.
        EXPECT_EQ(d.is_discrete(x), f[4] == "1");
        EXPECT_EQ(d.is_discrete(y), f[5] == "1");
        const RegressionCiResult r = regression_ci(d, x, y, z);
        EXPECT_EQ(r.rows, rows);
        EXPECT_EQ(r.x_dependent, f[7] == "x");
        EXPECT_EQ(r.logistic, logistic);
        EXPECT_EQ(r.dof, std::stoll(f[9]));
        const RegressionCiResult o = regression_ci(d, x, y, z, LogisticStop::Optimum);
        const double got[2][2] = {{r.statistic, o.statistic}, {r.p, o.p}};
        const double tol = logistic ? 1e-6 : 1e-9, tol_optimum = logistic ? 1e-10 : 1e-9;
        for (int q = 0; q < 2; ++q)
            for (int ref = 0; ref < 2; ++ref) {
                const double rel = relative(got[q][ref], want[q][ref]);
                EXPECT_LE(rel, ref ? tol_optimum : tol) << (q ? "p " : "statistic ") << got[q][ref] << " vs "
                                                        << (ref ? "optimum " : "tigramite ") << want[q][ref];
                worst[logistic][q][ref] = std::max(worst[logistic][q][ref], rel);
            }
        ++cases;
        logistic_cases += logistic;
    }
    EXPECT_EQ(cases, 40);
    EXPECT_EQ(logistic_cases, 22);
    // The measured differences (the header's table), shown by --gtest_output=xml.
    const char* fit[2] = {"linear", "logistic"};
    const char* what[2] = {"statistic", "p"};
    const char* ref[2] = {"tigramite", "optimum"};
    for (int l = 0; l < 2; ++l)
        for (int q = 0; q < 2; ++q)
            for (int o = 0; o < 2; ++o) {
                std::ostringstream v;
                v << worst[l][q][o];
                RecordProperty(std::string(fit[l]) + "_" + what[q] + "_vs_" + ref[o], v.str());
            }
}

// scipy 1.17.1's normaltest(data.csv column[:rows]).statistic; NaN below 8 rows.
TEST(RegressionCi, NormaltestIsScipys) {
    const Dataset d = reference_data(1000);
    const struct {
        int col;
        std::int64_t rows;
        double k2;
    } cases[] = {{0, 1000, 0.48211752917507045},
                 {1, 1000, 617.7516661838418},
                 {3, 300, 11.423271651642029},
                 {4, 100, 40.43330953129784},
                 {6, 8, 12.290067693262055}};
    for (const auto& c : cases)
        EXPECT_LE(relative(normaltest_statistic(d.column(c.col), c.rows), c.k2), 1e-12) << c.col << " " << c.rows;
    EXPECT_TRUE(std::isnan(normaltest_statistic(d.column(2), 7)));
    const std::vector<double> flat(50, 2.5);
    EXPECT_TRUE(std::isnan(normaltest_statistic(flat.data(), 50)));
}

// dof counts the columns the other variable adds: 1 for a continuous one, else its levels
// that occur (not (levels − 1), not Z's); p is P(χ²_dof > statistic).
TEST(RegressionCi, DegreesOfFreedomCountTheOtherVariablesColumns) {
    const Dataset d = reference_data(600);
    const std::int32_t z0[] = {0};
    const std::int32_t mixed[] = {0, 8, 7};
    struct Case {
        std::int32_t x, y;
        std::span<const std::int32_t> z;
        std::int64_t dof;
    };
    const Case cases[] = {
        {1, 2, {}, 1},      // continuous–continuous
        {1, 2, mixed, 1},   // Z's columns do not count
        {2, 9, {}, 4},      // X continuous: Y's 4 levels
        {9, 2, mixed, 4},   // Y continuous: X's 4 levels
        {8, 11, z0, 3},     // discrete: the regressor's levels
        {7, 10, mixed, 2},  // binary
        {13, 3, z0, 3},     // v13: 3 of its 4 declared levels occur
    };
    for (const Case& c : cases) {
        const RegressionCiResult r = regression_ci(d, c.x, c.y, c.z);
        EXPECT_EQ(r.dof, c.dof) << c.x << " " << c.y;
        EXPECT_EQ(r.p, chi2_sf(r.statistic, static_cast<double>(r.dof)));
    }
}

// A level that does not occur (absent from a sub-data set, or never used) adds no column:
// the test equals the one on the codes renumbered without it, bit for bit.
TEST(RegressionCi, AbsentLevelsAreNotEncoded) {
    Lcg g{7};
    const std::int64_t n = 300;
    std::vector<double> a(n), b(n), c(n), a3(n), c3(n);
    for (std::int64_t i = 0; i < n; ++i) {
        const double u = g.next();
        a3[i] = u < 0.3 ? 0 : (u < 0.7 ? 1 : 2);
        a[i] = a3[i] * 2;  // codes 0, 2, 4 of 5 levels
        b[i] = a3[i] + 0.8 * (g.next() - 0.5);
        c3[i] = g.next() < 0.4 + 0.2 * a3[i] ? 1 : 0;
        c[i] = c3[i] == 1 ? 3 : 1;  // codes 1, 3 of 4 levels
    }
    const Dataset sparse = make_data({a, b, c}, {5, 0, 4});
    const Dataset dense = make_data({a3, b, c3}, {3, 0, 2});
    const std::int32_t zc[] = {2}, zb[] = {1};
    for (const auto& [x, y, z] :
         {std::tuple{0, 1, std::span<const std::int32_t>(zc)}, std::tuple{1, 0, std::span<const std::int32_t>(zc)},
          std::tuple{0, 2, std::span<const std::int32_t>(zb)}, std::tuple{2, 0, std::span<const std::int32_t>()}}) {
        const RegressionCiResult s = regression_ci(sparse, x, y, z);
        const RegressionCiResult e = regression_ci(dense, x, y, z);
        EXPECT_EQ(s.statistic, e.statistic) << x << " " << y;
        EXPECT_EQ(s.p, e.p) << x << " " << y;
        EXPECT_EQ(s.dof, e.dof) << x << " " << y;
    }
    EXPECT_EQ(regression_ci(sparse, 1, 0, {}).dof, 3);  // codes 0, 2, 4 of 5 levels
    EXPECT_EQ(regression_ci(sparse, 2, 1, {}).dof, 2);  // codes 1, 3 of 4 levels
}

// X ⟂ Y | Z and Y ⟂ X | Z pick the same dependent variable (no ties here): equal results.
TEST(RegressionCi, SwappingXAndYGivesTheSameTest) {
    const Dataset d = reference_data(400);
    const std::int32_t z[] = {0, 8};
    for (const auto& [x, y] : {std::pair{1, 3}, std::pair{2, 9}, std::pair{11, 9}, std::pair{7, 12}}) {
        const RegressionCiResult a = regression_ci(d, x, y, z);
        const RegressionCiResult b = regression_ci(d, y, x, z);
        EXPECT_EQ(a.x_dependent, !b.x_dependent);
        EXPECT_EQ(a.statistic, b.statistic);
        EXPECT_EQ(a.p, b.p);
    }
}

// What tigramite answers with NaN (a constant continuous dependent variable) is an error
// naming the variables; a discrete one with one level is tigramite's statistic 0, p 1.
TEST(RegressionCi, NotFiniteResultsFailLoudly) {
    Lcg g{11};
    const std::int64_t n = 50;
    std::vector<double> flat(n, 4.0), noise(n), codes(n), one(n, 1.0);
    for (std::int64_t i = 0; i < n; ++i) {
        noise[i] = g.next();
        codes[i] = g.next() < 0.5 ? 0 : 2;
    }
    const Dataset d = make_data({flat, noise, codes, one}, {0, 0, 3, 2});
    try {
        (void)regression_ci(d, 0, 1, {});
        FAIL() << "a constant X gave a result";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("regression"), std::string::npos) << what;
        EXPECT_NE(what.find("'c0'"), std::string::npos) << what;
        EXPECT_NE(what.find("'c1'"), std::string::npos) << what;
    }
    EXPECT_THROW((void)regression_ci(d, 2, 0, {}), InputError);  // constant continuous Y
    const RegressionCiResult r = regression_ci(d, 3, 2, {});     // one-level X is dependent
    EXPECT_EQ(r.statistic, 0.0);
    EXPECT_EQ(r.p, 1.0);
    EXPECT_TRUE(r.x_dependent);

    Dataset bad = make_data({noise, codes}, {0, 3});
    bad.values[3] = std::nan("");
    EXPECT_THROW((void)regression_ci(bad, 0, 1, {}), InputError);
    bad.values[3] = 0.5;
    bad.values[n + 3] = 1.5;  // not a code
    EXPECT_THROW((void)regression_ci(bad, 0, 1, {}), InputError);
    EXPECT_THROW((void)regression_ci(bad, 0, 5, {}), InputError);
}

TEST(RegressionCi, CiTestInterface) {
    const Dataset d = reference_data(300);
    RegressionCiTest t(d);
    EXPECT_EQ(t.name(), "regression");
    EXPECT_EQ(t.digest(), std::vector<std::string>{"regression"});
    const std::int32_t z[] = {0};
    const CiOutcome o = t.test(8, 11, z);
    const RegressionCiResult r = regression_ci(d, 8, 11, z);
    EXPECT_EQ(o.statistic, r.statistic);
    EXPECT_EQ(o.p, r.p);
    ASSERT_EQ(o.extra.size(), 1u);
    EXPECT_EQ(o.extra[0].first, "dof");
    EXPECT_EQ(o.extra[0].second, "3");
}
