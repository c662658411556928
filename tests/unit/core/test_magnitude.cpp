// SPDX-License-Identifier: Apache-2.0
// core/magnitude.hpp: the columns of extreme magnitude rescaled by the exact power of two of
// their largest magnitude, wherever in the column it lies (the scan keeps eight running
// maxima and a tail: every position of a column whose length is no multiple of eight is
// tried), missing values (NaN) passed over, a column with an infinity left alone, and the
// scale-dependent computations refused by the column's name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/dataset.hpp"
#include "core/error.hpp"
#include "core/magnitude.hpp"

using namespace cudag;

namespace {

/// Three columns of m samples: ordinary values (a), values near 1e-3 (b), and values near
/// 1 (c); the caller makes some of them extreme.
Dataset table(std::int64_t m) {
    Dataset d;
    d.n_samples = m;
    d.n_vars = 3;
    d.names = {"a", "b", "c"};
    d.source = "magnitude test";
    d.values.resize(static_cast<std::size_t>(3 * m));
    for (std::int64_t s = 0; s < m; ++s) {
        d.column(0)[s] = 0.25 * static_cast<double>(s % 7) - 0.5;
        d.column(1)[s] = 1e-3 * static_cast<double>(1 + s % 5);
        d.column(2)[s] = -0.75 + 0.01 * static_cast<double>(s);
    }
    return d;
}

TEST(Magnitude, TheLargestValueDecidesWhereverItLies) {
    constexpr std::int64_t kM = 19;  // two runs of eight and a tail of three
    for (std::int64_t at = 0; at < kM; ++at) {
        Dataset d = table(kM);
        d.column(1)[at] = -3e200;  // the largest magnitude of column b, at position `at`
        const Dataset before = d;
        int e = 0;
        std::frexp(3e200, &e);
        ASSERT_EQ(rescale_extreme_columns(d), 1) << "at " << at;
        for (std::int64_t s = 0; s < kM; ++s) {
            EXPECT_EQ(d.column(0)[s], before.column(0)[s]);
            EXPECT_EQ(d.column(1)[s], std::ldexp(before.column(1)[s], -e)) << "at " << at << ", sample " << s;
            EXPECT_EQ(d.column(2)[s], before.column(2)[s]);
        }
        EXPECT_GE(std::fabs(d.column(1)[at]), 0.5);
        EXPECT_LT(std::fabs(d.column(1)[at]), 1.0);
    }
}

TEST(Magnitude, TinyColumnsScaleUpAndMissingValuesArePassedOver) {
    constexpr std::int64_t kM = 27;
    for (std::int64_t nan_at : {0, 5, 8, 26}) {
        Dataset d = table(kM);
        for (std::int64_t s = 0; s < kM; ++s) d.column(2)[s] = 1e-170 * static_cast<double>(1 + s % 4);
        d.column(2)[nan_at] = std::numeric_limits<double>::quiet_NaN();
        const Dataset before = d;
        int e = 0;
        std::frexp(4e-170, &e);
        ASSERT_EQ(rescale_extreme_columns(d), 1) << "NaN at " << nan_at;
        for (std::int64_t s = 0; s < kM; ++s) {
            if (s == nan_at) {
                EXPECT_TRUE(std::isnan(d.column(2)[s]));
                continue;
            }
            EXPECT_EQ(d.column(2)[s], std::ldexp(before.column(2)[s], -e)) << "sample " << s;
        }
    }
}

TEST(Magnitude, OrdinaryAndInfiniteColumnsAreLeftAlone) {
    Dataset d = table(13);
    d.column(0)[12] = 2e149;  // within 2^500: ordinary
    d.column(1)[9] = std::numeric_limits<double>::infinity();
    const Dataset before = d;
    EXPECT_EQ(rescale_extreme_columns(d), 0);
    EXPECT_EQ(d.values, before.values);
}

TEST(Magnitude, ScaleDependentComputationsNameTheColumn) {
    Dataset d = table(11);
    EXPECT_NO_THROW(require_ordinary_magnitudes(d, "--score bge"));
    d.column(2)[10] = 1e-200;
    for (std::int64_t s = 0; s < 10; ++s) d.column(2)[s] = 0.0;
    try {
        require_ordinary_magnitudes(d, "--score bge");
        FAIL() << "no error";
    } catch (const InputError& err) {
        const std::string what = err.what();
        EXPECT_NE(what.find("column 'c'"), std::string::npos) << what;
        EXPECT_NE(what.find("--score bge"), std::string::npos) << what;
        EXPECT_NE(what.find("underflow"), std::string::npos) << what;
    }
}

}  // namespace
