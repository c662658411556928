// SPDX-License-Identifier: Apache-2.0
// Discrete CI tests (χ², G², degrees-of-freedom rules), label mapping and the CPU engine
// on tables whose values are worked out by hand or by a naive reference loop here.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ci/discrete_test.hpp"
#include "core/error.hpp"
#include "io/table_reader.hpp"
#include "skeleton/cpu/discrete_engine.hpp"
#include "skeleton/test_spec.hpp"

using namespace cudag;
using ci::DiscreteStat;
using ci::DofRule;
using skeleton::CpuDiscreteEngine;

namespace {

/// Discrete data set from per-sample code tuples (one vector per variable).
Dataset make_data(const std::vector<std::vector<int>>& cols, const std::vector<int>& cards) {
    Dataset d;
    d.n_vars = static_cast<std::int64_t>(cols.size());
    d.n_samples = static_cast<std::int64_t>(cols[0].size());
    for (std::size_t v = 0; v < cols.size(); ++v) {
        d.names.push_back("V" + std::to_string(v + 1));
        for (int x : cols[v]) d.values.push_back(x);
        std::vector<std::string> lv;
        for (int k = 0; k < cards[v]; ++k) lv.push_back(std::to_string(k));
        d.levels.push_back(lv);
    }
    d.source = "test";
    return d;
}

/// Appends `count` samples with X = x, Y = y, S = s.
void add(std::vector<std::vector<int>>& cols, int x, int y, int s, int count) {
    for (int k = 0; k < count; ++k) {
        cols[0].push_back(x);
        cols[1].push_back(y);
        cols[2].push_back(s);
    }
}

CpuDiscreteEngine engine(const Dataset& d, DiscreteStat stat, DofRule dof) {
    return CpuDiscreteEngine(d, skeleton::TestPolicy{}, ci::DiscreteTestSpec{stat, dof}, 1);
}

// 2×2 table N = [[10, 20], [30, 40]] in stratum 0; stratum 1 holds X = 1 only, 5 × (Y=0), 5 × (Y=1).
Dataset two_strata() {
    std::vector<std::vector<int>> c(3);
    add(c, 0, 0, 0, 10);
    add(c, 0, 1, 0, 20);
    add(c, 1, 0, 0, 30);
    add(c, 1, 1, 0, 40);
    add(c, 1, 0, 1, 5);
    add(c, 1, 1, 1, 5);
    return make_data(c, {2, 2, 2});
}

}  // namespace

TEST(ChiSquareSurvival, MatchesClosedFormsForSmallDf) {
    for (double x : {0.01, 0.5, 0.7936507936507936, 3.84, 10.0, 40.0}) {
        EXPECT_NEAR(ci::chi2_sf(x, 1), std::erfc(std::sqrt(x / 2)), 1e-14 + 1e-12 * ci::chi2_sf(x, 1));
        EXPECT_NEAR(ci::chi2_sf(x, 2), std::exp(-x / 2), 1e-15);
        EXPECT_NEAR(ci::chi2_sf(x, 4), std::exp(-x / 2) * (1 + x / 2), 1e-14);
    }
    EXPECT_EQ(ci::chi2_sf(0.0, 3), 1.0);
    // df = 100 at its 95% quantile 124.342 (standard tables).
    EXPECT_NEAR(ci::chi2_sf(124.342, 100), 0.05, 1e-5);
}

TEST(DiscreteTest, ChiSquareTwoByTwoByHand) {
    // E = [[12, 18], [28, 42]]: χ² = 4(1/12 + 1/18 + 1/28 + 1/42) = 200/252, df 1.
    const Dataset d = two_strata();
    Dataset marg = make_data({{}, {}}, {2, 2});
    for (std::int64_t s = 0; s < 100; ++s) {
        marg.values.push_back(d.values[s]);
    }
    for (std::int64_t s = 0; s < 100; ++s) marg.values.push_back(d.values[d.n_samples + s]);
    marg.n_samples = 100;
    auto e = engine(marg, DiscreteStat::ChiSquare, DofRule::Gpupc);
    const auto r = e.test(0, 1, {});
    EXPECT_NEAR(r.statistic, 200.0 / 252.0, 1e-13);
    EXPECT_EQ(r.dof, 1.0);
    EXPECT_NEAR(r.p, std::erfc(std::sqrt(100.0 / 252.0)), 1e-13);
}

TEST(DiscreteTest, GSquareTwoByTwoByHand) {
    Dataset marg = make_data({{}, {}}, {2, 2});
    const Dataset d = two_strata();
    for (std::int64_t s = 0; s < 100; ++s) marg.values.push_back(d.values[s]);
    for (std::int64_t s = 0; s < 100; ++s) marg.values.push_back(d.values[d.n_samples + s]);
    marg.n_samples = 100;
    auto e = engine(marg, DiscreteStat::GSquare, DofRule::Gpupc);
    const auto r = e.test(1, 0, {});
    const double g2 =
        2 * (10 * std::log(10 / 12.0) + 20 * std::log(20 / 18.0) + 30 * std::log(30 / 28.0) + 40 * std::log(40 / 42.0));
    EXPECT_NEAR(r.statistic, g2, 1e-12);
    EXPECT_NEAR(r.p, std::erfc(std::sqrt(g2 / 2)), 1e-12);
}

TEST(DiscreteTest, DofRulesOnAStratumWithAnEmptyRow) {
    // Stratum 1 has no X = 0 (an all-zero row) and adds nothing to the statistic.
    const Dataset d = two_strata();
    const double chi2 = 200.0 / 252.0;
    auto gp = engine(d, DiscreteStat::ChiSquare, DofRule::Gpupc);
    auto r = gp.test(0, 1, {2});
    EXPECT_NEAR(r.statistic, chi2, 1e-12);
    EXPECT_EQ(r.dof, 2.0);  // (2-1)(2-1)·2
    EXPECT_NEAR(r.p, std::exp(-chi2 / 2), 1e-13);
    auto cl = engine(d, DiscreteStat::ChiSquare, DofRule::CausalLearn);
    r = cl.test(0, 1, {2});
    EXPECT_EQ(r.dof, 1.0);  // stratum 0: 1·1, stratum 1: (1-1)(2-1)
    EXPECT_NEAR(r.p, std::erfc(std::sqrt(chi2 / 2)), 1e-13);
    auto pa = engine(d, DiscreteStat::ChiSquare, DofRule::Pcalg);
    r = pa.test(0, 1, {2});
    EXPECT_EQ(r.dof, 2.0);
    EXPECT_NEAR(r.p, std::exp(-chi2 / 2), 1e-13);  // n = 110 >= 10 df
}

TEST(DiscreteTest, PcalgTreatsTooFewSamplesAsIndependence) {
    // 3 × 3 × 4 levels: df = 2·2·4 = 16, so n = 150 < 160 gives p = 1 under pcalg only.
    std::vector<std::vector<int>> c(3);
    for (int k = 0; k < 150; ++k) {
        const int x = k % 3;
        add(c, x, x, k % 4, 1);  // X = Y: strongly dependent
    }
    const Dataset d = make_data(c, {3, 3, 4});
    EXPECT_EQ(engine(d, DiscreteStat::GSquare, DofRule::Pcalg).test(0, 1, {2}).p, 1.0);
    EXPECT_LT(engine(d, DiscreteStat::GSquare, DofRule::Gpupc).test(0, 1, {2}).p, 1e-20);
}

TEST(DiscreteTest, CausalLearnZeroDofGivesPOne) {
    // Y constant inside every stratum: each stratum has one seen Y level, df = 0.
    std::vector<std::vector<int>> c(3);
    add(c, 0, 0, 0, 5);
    add(c, 1, 0, 0, 7);
    add(c, 0, 1, 1, 4);
    add(c, 1, 1, 1, 2);
    const Dataset d = make_data(c, {2, 2, 2});
    const auto r = engine(d, DiscreteStat::ChiSquare, DofRule::CausalLearn).test(0, 1, {2});
    EXPECT_EQ(r.dof, 0.0);
    EXPECT_EQ(r.p, 1.0);
}

TEST(DiscreteTest, BnlearnAdfCountsObservedLevelsAndFiveSamplesACell) {
    // two_strata: 110 samples, 2·2·2 = 8 cells (>= 40: tested), df as causal-learn's.
    const Dataset d = two_strata();
    const double chi2 = 200.0 / 252.0;
    auto r = engine(d, DiscreteStat::ChiSquare, DofRule::BnlearnAdf).test(0, 1, {2});
    EXPECT_NEAR(r.statistic, chi2, 1e-12);
    EXPECT_EQ(r.dof, 1.0);
    EXPECT_NEAR(r.p, std::erfc(std::sqrt(chi2 / 2)), 1e-13);
    // 150 samples of X = Y, and Y declares 6 levels of which rows take 2: X ⟂ Y has 2·6 = 12
    // cells (150 >= 60: tested), X ⟂ Y | S 2·6·3 = 36 (150 < 180: independent, statistic 0).
    std::vector<std::vector<int>> c(3);
    for (int k = 0; k < 110; ++k) add(c, k % 2, k % 2, k % 2, 1);  // X = Y = S
    for (int k = 0; k < 40; ++k) add(c, k % 2, k % 2, 2, 1);
    const Dataset wide = make_data(c, {2, 6, 3});
    r = engine(wide, DiscreteStat::GSquare, DofRule::BnlearnAdf).test(0, 1, {});
    EXPECT_EQ(r.dof, 1.0);  // observed levels: 2 and 2
    EXPECT_LT(r.p, 1e-10);
    r = engine(wide, DiscreteStat::GSquare, DofRule::BnlearnAdf).test(0, 1, {2});
    EXPECT_EQ(r.statistic, 0.0);
    EXPECT_EQ(r.p, 1.0);
    EXPECT_EQ(r.dof, 1.0);  // S = 0 and 1: X, Y one level each; S = 2: 1·1
    EXPECT_GT(engine(wide, DiscreteStat::GSquare, DofRule::Gpupc).test(0, 1, {2}).statistic, 0.0);
}

TEST(DiscreteTest, PcalgAdaptDfLowersTheDfByTheZeroCounts) {
    // two_strata: 8 cells, 6 with samples: zeros 2 + 4·(2^1 − 2) = 2, df max(2 − 2, 1) = 1.
    const double chi2 = 200.0 / 252.0;
    auto r = engine(two_strata(), DiscreteStat::ChiSquare, DofRule::PcalgAdaptDf).test(0, 1, {2});
    EXPECT_EQ(r.dof, 1.0);
    EXPECT_NEAR(r.p, std::erfc(std::sqrt(chi2 / 2)), 1e-13);
    EXPECT_EQ(engine(two_strata(), DiscreteStat::ChiSquare, DofRule::PcalgAdaptDf).test(0, 1, {}).dof, 1.0);
    // S of 3 levels, every cell taken: pcalg's count 0 + 4·(2 − 3) = −4 raises df 3 to 7.
    std::vector<std::vector<int>> c(3);
    for (int k = 0; k < 120; ++k) add(c, k % 2, (k / 2) % 2, (k / 4) % 3, 1);
    const Dataset d = make_data(c, {2, 2, 3});
    r = engine(d, DiscreteStat::GSquare, DofRule::PcalgAdaptDf).test(0, 1, {2});
    EXPECT_EQ(r.dof, 7.0);
    EXPECT_EQ(r.p, 1.0);  // balanced: G² = 0
    // n < 10·df (the unadjusted df 3, as pcalg's n.min) gives p = 1 however dependent; at 30
    // samples the test runs.
    std::vector<std::vector<int>> few(3);
    for (int k = 0; k < 29; ++k) add(few, k % 2, k % 2, k % 3, 1);
    EXPECT_EQ(engine(make_data(few, {2, 2, 3}), DiscreteStat::GSquare, DofRule::PcalgAdaptDf).test(0, 1, {2}).p, 1.0);
    add(few, 1, 1, 2, 1);
    EXPECT_LT(engine(make_data(few, {2, 2, 3}), DiscreteStat::GSquare, DofRule::PcalgAdaptDf).test(0, 1, {2}).p, 1e-6);
}

TEST(DiscreteTest, SparseThreeByThreeMatchesNaiveTable) {
    // Cells with N = 0 and E > 0 count in χ² (E) but not in G².
    const int n[3][3] = {{5, 0, 1}, {0, 4, 2}, {3, 3, 0}};
    std::vector<std::vector<int>> c(3);
    double nx[3] = {}, ny[3] = {}, total = 0;
    for (int x = 0; x < 3; ++x)
        for (int y = 0; y < 3; ++y) {
            add(c, x, y, 0, n[x][y]);
            nx[x] += n[x][y];
            ny[y] += n[x][y];
            total += n[x][y];
        }
    double chi2 = 0, g2 = 0;
    for (int x = 0; x < 3; ++x)
        for (int y = 0; y < 3; ++y) {
            const double e = nx[x] * ny[y] / total;
            chi2 += (n[x][y] - e) * (n[x][y] - e) / e;
            if (n[x][y] > 0) g2 += 2 * n[x][y] * std::log(n[x][y] / e);
        }
    c[2].assign(c[2].size(), 0);
    c[2][0] = 1;  // S needs two levels to be a valid variable; it is not conditioned on here
    const Dataset d = make_data(c, {3, 3, 2});
    auto rc = engine(d, DiscreteStat::ChiSquare, DofRule::Gpupc).test(0, 1, {});
    auto rg = engine(d, DiscreteStat::GSquare, DofRule::Gpupc).test(0, 1, {});
    EXPECT_NEAR(rc.statistic, chi2, 1e-12);
    EXPECT_NEAR(rg.statistic, g2, 1e-12);
    EXPECT_EQ(rc.dof, 4.0);
    EXPECT_NEAR(rc.p, ci::chi2_sf(chi2, 4), 1e-15);
}

TEST(DiscreteTest, StrataOfManyVariablesAreRenumbered) {
    // Five 200-level conditioning variables: 200^5 configurations, far more than samples.
    std::vector<std::vector<int>> cols(7);
    std::vector<int> cards = {2, 2, 200, 200, 200, 200, 200};
    for (int k = 0; k < 400; ++k) {
        cols[0].push_back(k % 2);
        cols[1].push_back((k / 2) % 2);
        for (int v = 2; v < 7; ++v) cols[v].push_back((k * (v + 3)) % 200);
    }
    const Dataset d = make_data(cols, cards);
    auto e = engine(d, DiscreteStat::ChiSquare, DofRule::CausalLearn);
    const auto r = e.test(0, 1, {2, 3, 4, 5, 6});
    EXPECT_GE(r.dof, 0.0);
    EXPECT_GE(r.p, 0.0);
    EXPECT_LE(r.p, 1.0);
}

TEST(DiscreteData, SingleLevelVariableIsAnInputErrorNamingIt) {
    const Dataset d = make_data({{0, 1, 0}, {0, 0, 0}}, {2, 1});
    try {
        ci::encode_discrete(d);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("'V2'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("single level"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(ci::encode_discrete(d, true));
}

TEST(DiscreteData, LabelsMapToCodesInNumericOrByteOrder) {
    const Dataset d =
        io::parse_table("a,b,c\nyes,1,x\nno,10,x\nyes,2,y\nmaybe,1.0,x\n", "t.csv", io::TableMode::Labels);
    ASSERT_TRUE(d.discrete());
    EXPECT_EQ(d.levels[0], (std::vector<std::string>{"maybe", "no", "yes"}));
    EXPECT_EQ(d.levels[1], (std::vector<std::string>{"1", "2", "10"}));
    EXPECT_EQ(std::vector<double>(d.values.begin(), d.values.begin() + 4), (std::vector<double>{2, 1, 2, 0}));
    EXPECT_EQ(std::vector<double>(d.values.begin() + 4, d.values.begin() + 8), (std::vector<double>{0, 2, 1, 0}));
    EXPECT_EQ(d.levels[2], (std::vector<std::string>{"x", "y"}));
}

TEST(DiscreteData, NumericLabelsMixingSmallIntegersAndOthersKeepNumericOrder) {
    // Small non-negative integers take the reader's table path, the rest a list search.
    const Dataset d = io::parse_table("a\n3\n-2\n0.5\n3\n2000\n0\n-2\n", "t.csv", io::TableMode::Labels);
    ASSERT_TRUE(d.discrete());
    EXPECT_EQ(d.levels[0], (std::vector<std::string>{"-2", "0", "0.5", "3", "2000"}));
    EXPECT_EQ(d.values, (std::vector<double>{3, 0, 2, 3, 4, 1, 0}));
}

// Issue 53 item 5: labels that are all numbers, one with a fraction, are continuous data
// read as labels (every value its own level: dof 39,601, p = 1 on 200 floats); a discrete
// test refuses them naming the column, the value and its data row, as BDeu and K2 do. HDF5
// and array input (discretised by value) get the same rule.
TEST(DiscreteData, DiscreteTestsRefuseNumbersWithAFraction) {
    const auto refusal = [](const Dataset& d, skeleton::TestKind kind) -> std::string {
        skeleton::TestOptions options;
        options.kind = kind;
        try {
            skeleton::validate_test(options, d, -1);
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    };
    const Dataset labels = io::parse_table("a,b\n1,x\n2,y\n0.25,x\n2,y\n", "t.csv", io::TableMode::Labels);
    EXPECT_EQ(refusal(labels, skeleton::TestKind::ChiSquare),
              "t.csv: column 'a' holds the non-integer value 0.25 (data row 3) among numbers only: chi-square needs "
              "discrete data, integer codes or labels (continuous data: --test fisher-z)");
    EXPECT_NE(refusal(labels, skeleton::TestKind::GSquare).find("g-square needs discrete data"), std::string::npos);
    // Float data discretised by value (HDF5, numpy): the same.
    Dataset floats;
    floats.n_samples = 3;
    floats.n_vars = 2;
    floats.names = {"x", "y"};
    floats.source = "g.h5:/data";
    floats.values = {1, 2, 3, 0.5, 1.5, 0.5};
    io::discretize(floats, floats.source);
    EXPECT_NE(refusal(floats, skeleton::TestKind::ChiSquare)
                  .find("g.h5:/data: column 'y' holds the non-integer value 0.5 (data row 1) among numbers only"),
              std::string::npos);
    // Integers written with a decimal point, negative codes and text labels are discrete.
    const Dataset codes = io::parse_table("a,b,c\n1.0,-1,x\n2,3,0.5\n1,-1,x\n", "t.csv", io::TableMode::Labels);
    EXPECT_EQ(refusal(codes, skeleton::TestKind::ChiSquare), "");
}

TEST(DiscreteData, MissingLabelNamesRowAndColumn) {
    try {
        // Only an empty cell is missing among labels ("NA" is a level: issue 33 item 11).
        io::parse_table("a,b\nyes,1\nno,\n", "t.csv", io::TableMode::Labels);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("t.csv:3:2"), std::string::npos) << e.what();
    }
}

TEST(DiscreteData, TooManyLevelsIsAnError) {
    std::string text = "a\n";
    for (int k = 0; k < 300; ++k) text += std::to_string(k) + ".5\n";
    EXPECT_THROW(io::parse_table(text, "t.csv", io::TableMode::Labels), InputError);
}

TEST(DiscreteData, NumericReaderFlagsNonNumericCells) {
    EXPECT_THROW(io::parse_table("a,b\n1,x\n", "t.csv"), io::NonNumericCell);
}

// --dof picks the chi-square and g-square tests' degrees of freedom; a test without such a
// rule (the shrinkage tests, the continuous ones) refuses it by name, in one line.
TEST(DiscreteData, DofIsRefusedByTestsWithoutADofRule) {
    const Dataset labels = io::parse_table("a,b\n1,x\n2,y\n1,x\n2,x\n", "t.csv", io::TableMode::Labels);
    const auto refusal = [&](skeleton::TestKind kind) -> std::string {
        skeleton::TestOptions options;
        options.kind = kind;
        options.dof = ci::DofRule::BnlearnAdf;
        try {
            skeleton::validate_test(options, labels, -1);
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(refusal(skeleton::TestKind::MiSh),
              "--dof applies to chi-square and g-square only: mi-sh has no degrees-of-freedom rule");
    EXPECT_EQ(refusal(skeleton::TestKind::MiGSh),
              "--dof applies to chi-square and g-square only: mi-g-sh has no degrees-of-freedom rule");
    EXPECT_EQ(refusal(skeleton::TestKind::FisherZ),
              "--dof applies to chi-square and g-square only: fisher-z has no degrees-of-freedom rule");
    EXPECT_EQ(refusal(skeleton::TestKind::ChiSquare), "");
    EXPECT_EQ(refusal(skeleton::TestKind::GSquare), "");
}
