// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ci/parcorr.hpp"
#include "core/error.hpp"

using namespace cudag::ci;

namespace {

/// tests/data/parcorr/data.csv (T = 250, 8 columns), row-major.
std::vector<double> reference_data(int& cols) {
    std::ifstream in(std::string(CUDAG_SOURCE_DIR) + "/tests/data/parcorr/data.csv");
    std::string line;
    std::getline(in, line);  // header
    cols = 1;
    for (char c : line) cols += c == ',';
    std::vector<double> v;
    while (std::getline(in, line)) {
        std::stringstream s(line);
        std::string cell;
        while (std::getline(s, cell, ',')) v.push_back(std::stod(cell));
    }
    return v;
}

/// Columns `pick` of the first `rows` rows.
std::vector<double> take(const std::vector<double>& data, int cols, std::int64_t rows, const std::vector<int>& pick) {
    std::vector<double> out;
    for (std::int64_t i = 0; i < rows; ++i)
        for (int c : pick) out.push_back(data[i * cols + c]);
    return out;
}

}  // namespace

// tigramite 5.2.10.1's ParCorr.run_test_raw (tests/data/parcorr/parcorr.tsv; the pytest
// suite checks all of its rows through cudag.compat.tigramite.ParCorr).
TEST(ParCorr, EqualsTigramiteOnReferenceRows) {
    int cols = 0;
    const std::vector<double> data = reference_data(cols);
    ASSERT_EQ(cols, 8);
    struct Case {
        std::vector<int> pick;
        std::int64_t rows;
        double value, p;
    };
    const Case cases[] = {
        {{0, 1}, 250, -0.5140967227056764, 2.8823721801196637e-18},
        {{0, 1, 2, 3, 4}, 250, -0.05735391862089828, 0.3694231990632817},
        {{0, 1, 2, 3, 6}, 250, -0.028922135614538116, 0.651026964589238},  // collinear Z
        {{0, 1, 2, 7}, 250, -0.09098734646768927, 0.15312034771474628},    // constant column in Z
        {{0, 1, 2, 3, 4}, 10, -0.6278127294707594, 0.13115403737123638},
        {{0, 1}, 3, -0.8670479527218022, 0.3320290685787796},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(::testing::Message() << c.pick.size() << " columns, " << c.rows << " rows");
        const std::vector<double> v = take(data, cols, c.rows, c.pick);
        const ParCorrResult r = parcorr(v.data(), c.rows, static_cast<int>(c.pick.size()));
        EXPECT_NEAR(r.value, c.value, 1e-12);
        EXPECT_NEAR(r.p_value, c.p, 1e-10 * c.p);
        EXPECT_EQ(r.degrees_of_freedom, c.rows - static_cast<std::int64_t>(c.pick.size()));
    }
}

TEST(ParCorr, DegreesOfFreedomBelowOneGiveNaN) {
    int cols = 0;
    const std::vector<double> data = reference_data(cols);
    const std::vector<double> v = take(data, cols, 5, {0, 1, 2, 3, 4});
    const ParCorrResult r = parcorr(v.data(), 5, 5);
    EXPECT_NEAR(std::fabs(r.value), 1.0, 1e-12);
    EXPECT_TRUE(std::isnan(r.p_value));
    EXPECT_TRUE(std::isnan(parcorr_p_value(0.2, 10, 10)));
    EXPECT_EQ(parcorr_p_value(-1.0, 10, 3), 0.0);
}

TEST(ParCorr, ConstantXGivesNaN) {
    int cols = 0;
    const std::vector<double> data = reference_data(cols);
    const std::vector<double> v = take(data, cols, 250, {7, 1, 2});
    const ParCorrResult r = parcorr(v.data(), 250, 3);
    EXPECT_TRUE(std::isnan(r.value));
    EXPECT_TRUE(std::isnan(r.p_value));
}

TEST(ParCorr, ScaleAndOffsetDoNotMatter) {
    int cols = 0;
    const std::vector<double> data = reference_data(cols);
    std::vector<double> v = take(data, cols, 250, {0, 1, 2, 3});
    const ParCorrResult a = parcorr(v.data(), 250, 4);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = v[i] * (i % 4 == 2 ? -1e3 : 1e-3) + 5.0;
    const ParCorrResult b = parcorr(v.data(), 250, 4);
    EXPECT_NEAR(a.value, b.value, 1e-12);
}

TEST(ParCorr, BadInputIsRefused) {
    const double two[] = {1.0, 2.0};
    EXPECT_THROW(parcorr(two, 2, 1), cudag::InputError);
    EXPECT_THROW(parcorr(two, 1, 2), cudag::InputError);
    const double inf[] = {1.0, 2.0, INFINITY, 4.0, 5.0, 6.0};
    EXPECT_THROW(parcorr(inf, 3, 2), cudag::InputError);
}

// y regressed on z = (1, 2, 3, 4) without intercept: β = z·y / z·z = 33/30.
TEST(ParCorr, ResidualsAreLeastSquares) {
    const double v[] = {0, 1, 1, 0, 3, 2, 0, 2, 3, 0, 5, 4};  // rows (x, y, z)
    const ParCorrResiduals r = parcorr_residuals(v, 4, 3, 1, false);
    const double want[] = {-0.1, 0.8, -1.3, 0.6};
    ASSERT_EQ(r.residual.size(), 4u);
    for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(r.residual[i], want[i], 1e-14);
        EXPECT_NEAR(r.fitted[i], 1.1 * (i + 1), 1e-14);
    }
    const double xy[] = {3, 1, 1, 2, 2, 5};  // x, y only: no Z, the residual is x
    const ParCorrResiduals none = parcorr_residuals(xy, 3, 2, 0, false);
    EXPECT_TRUE(none.fitted.empty());
    EXPECT_EQ(none.residual, (std::vector<double>{3, 1, 2}));
    EXPECT_THROW(parcorr_residuals(v, 4, 3, 2, false), cudag::InputError);
}

TEST(ParCorr, BlockShuffleKeepsBlocksAndIsKeyed) {
    const std::int64_t t = 23, length = 4;  // five blocks and a tail of three
    for (std::int64_t r = 0; r < 20; ++r) {
        const std::vector<std::int64_t> order = block_shuffle_order(t, length, 5, r);
        EXPECT_EQ(order, block_shuffle_order(t, length, 5, r));
        std::vector<std::int64_t> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        for (std::int64_t i = 0; i < t; ++i) EXPECT_EQ(sorted[i], i);
        const auto at = std::find(order.begin(), order.end(), 20) - order.begin();
        EXPECT_EQ(at % length, 0);
        EXPECT_LT(at, 20);
    }
    EXPECT_NE(block_shuffle_order(t, length, 5, 0), block_shuffle_order(t, length, 6, 0));
    EXPECT_THROW(block_shuffle_order(t, 0, 5, 0), cudag::InputError);
    EXPECT_THROW(block_shuffle_order(t, 24, 5, 0), cudag::InputError);
    const std::vector<std::int64_t> rows = block_bootstrap_rows(22, 5, 5, 3);
    ASSERT_EQ(rows.size(), 22u);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i % 5 == 0)
            EXPECT_LE(rows[i], 17);
        else
            EXPECT_EQ(rows[i], rows[i - 1] + 1);
    }
}

// One block holding every row: each "shuffle" is the identity, so the null is the value.
TEST(ParCorr, ShuffleNullOfOneBlockIsTheValue) {
    int cols = 0;
    const std::vector<double> data = reference_data(cols);
    const std::vector<double> v = take(data, cols, 250, {0, 1});
    std::vector<double> x(250), y(250);
    for (int i = 0; i < 250; ++i) x[i] = v[2 * i], y[i] = v[2 * i + 1];
    const std::vector<double> null = parcorr_shuffle_null(x.data(), y.data(), 250, 5, 250, 42);
    ASSERT_EQ(null.size(), 5u);
    for (double n : null) EXPECT_NEAR(n, -0.5140967227056764, 1e-12);
    const std::vector<double> boot = parcorr_bootstrap(v.data(), 250, 2, 3, 1, 42);
    ASSERT_EQ(boot.size(), 3u);
    for (double b : boot) EXPECT_LT(std::fabs(b + 0.514), 0.2);
    EXPECT_THROW(parcorr_shuffle_null(x.data(), y.data(), 250, 0, 1, 42), cudag::InputError);
}
