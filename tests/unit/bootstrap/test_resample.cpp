// SPDX-License-Identifier: Apache-2.0
// bootstrap/resample.hpp: the resamples are pure functions of (seed, replicate), half-sampling
// draws half the rows without replacement, a discrete resample keeps only its levels (as its
// written form reads back), and bad options are one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "bootstrap/resample.hpp"
#include "core/error.hpp"
#include "io/dataset_io.hpp"
#include "support/result_files.hpp"

namespace cudag {
namespace {

namespace fs = std::filesystem;

bootstrap::Options options(std::int64_t b, bootstrap::Resample r = bootstrap::Resample::Bootstrap,
                           std::uint64_t seed = 7) {
    bootstrap::Options o;
    o.replicates = b;
    o.resample = r;
    o.seed = seed;
    return o;
}

TEST(BootstrapRows, ArePureFunctionsOfSeedAndReplicate) {
    const auto b = options(10);
    const auto rows = bootstrap::resample_rows(1000, b, 3);
    EXPECT_EQ(rows, bootstrap::resample_rows(1000, b, 3));
    ASSERT_EQ(rows.size(), 1000u);
    EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
    EXPECT_GE(rows.front(), 0);
    EXPECT_LT(rows.back(), 1000);
    // With replacement: about 1 - 1/e of the rows distinct (632 of 1000).
    const std::set<std::int64_t> distinct(rows.begin(), rows.end());
    EXPECT_GT(distinct.size(), 580u);
    EXPECT_LT(distinct.size(), 690u);
    EXPECT_NE(rows, bootstrap::resample_rows(1000, b, 4));
    EXPECT_NE(rows, bootstrap::resample_rows(1000, options(10, bootstrap::Resample::Bootstrap, 8), 3));
}

TEST(BootstrapRows, HalfSamplingDrawsHalfTheRowsWithoutReplacement) {
    const auto b = options(10, bootstrap::Resample::Half);
    for (std::int64_t m : {2, 3, 101, 1000}) {
        const auto rows = bootstrap::resample_rows(m, b, 5);
        ASSERT_EQ(static_cast<std::int64_t>(rows.size()), m / 2) << m;
        EXPECT_TRUE(std::adjacent_find(rows.begin(), rows.end()) == rows.end()) << "repeated row, m = " << m;
        EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
        EXPECT_LT(rows.back(), m);
    }
    // Every row is drawn by some replicate: the draw is not stuck on a part of the data.
    std::set<std::int64_t> seen;
    for (std::int64_t r = 0; r < 20; ++r)
        for (std::int64_t x : bootstrap::resample_rows(50, b, r)) seen.insert(x);
    EXPECT_EQ(seen.size(), 50u);
}

TEST(BootstrapData, DiscreteResamplesKeepOnlyTheirLevels) {
    Dataset d;
    d.n_vars = 1;
    d.n_samples = 4;
    d.names = {"A"};
    d.levels = {{"a", "b", "c"}};
    d.values = {0, 2, 2, 1};
    const std::vector<std::int64_t> rows = {1, 2, 3, 3};  // c, c, b, b: no "a"
    const Dataset r = bootstrap::resample_data(d, rows, "x");
    ASSERT_EQ(r.levels.size(), 1u);
    EXPECT_EQ(r.levels[0], (std::vector<std::string>{"b", "c"}));
    EXPECT_EQ(r.values, (std::vector<double>{1, 1, 0, 0}));
    EXPECT_EQ(r.n_samples, 4);
    // What reading the written resample gives.
    const fs::path path = test::fresh_test_dir("cudag_boot") / "r.csv";
    io::write_dataset(r, path.string());
    const Dataset back = io::read_dataset(path.string(), "", io::TableMode::Labels);
    EXPECT_EQ(back.levels, r.levels);
    EXPECT_EQ(back.values, r.values);
    fs::remove_all(path.parent_path());
    // bnlearn's resamples of a data frame: every level kept, the codes as they were
    Dataset kept;
    bootstrap::resample_into(d, rows, "x", kept, 1, true);
    EXPECT_EQ(kept.levels[0], (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(kept.values, (std::vector<double>{2, 2, 1, 1}));
}

TEST(BootstrapOptions, BadValuesAreOneLineErrors) {
    auto b = options(0);
    EXPECT_THROW(bootstrap::validate(b, 100), InputError);
    b = options(5);
    b.consensus = 0.0;
    EXPECT_THROW(bootstrap::validate(b, 100), InputError);
    b.consensus = 1.5;
    EXPECT_THROW(bootstrap::validate(b, 100), InputError);
    b.consensus = 1.0;
    EXPECT_NO_THROW(bootstrap::validate(b, 100));
    EXPECT_THROW(bootstrap::validate(options(5, bootstrap::Resample::Half), 1), InputError);
    EXPECT_THROW(bootstrap::parse_resample("jackknife"), InputError);
    EXPECT_EQ(bootstrap::parse_resample("half"), bootstrap::Resample::Half);
}

}  // namespace
}  // namespace cudag
