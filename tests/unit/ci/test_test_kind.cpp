// SPDX-License-Identifier: Apache-2.0
// ci::traits (ci/test_kind.hpp): one row per test kind, the names the command line takes,
// and the traits callers decide by.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ci/test_kind.hpp"
#include "core/error.hpp"

namespace cudag::ci {
namespace {

constexpr TestKind kAll[] = {TestKind::FisherZ, TestKind::ChiSquare,  TestKind::GSquare, TestKind::CmiKnn,
                             TestKind::CgLrt,   TestKind::Regression, TestKind::DSep,    TestKind::MiCg,
                             TestKind::MiSh,    TestKind::MiGSh};

TEST(TestKind, EveryKindHasOneRowAndADistinctName) {
    std::set<std::string> names;
    for (const TestKind k : kAll) {
        EXPECT_EQ(traits(k).kind, k);
        EXPECT_EQ(to_string(k), traits(k).name);
        names.insert(to_string(k));
    }
    EXPECT_EQ(names.size(), 10u);
    EXPECT_EQ(to_string(TestKind::FisherZ), "fisher-z");
    EXPECT_EQ(to_string(TestKind::DSep), "d-separation");
}

TEST(TestKind, ParsingTakesTheSelectableNamesOnly) {
    for (const TestKind k : kAll) {
        if (traits(k).selectable) {
            EXPECT_EQ(parse_test(to_string(k)), k);
        } else {
            EXPECT_FALSE(parse_test_kind(to_string(k)).has_value());
            EXPECT_THROW(parse_test(to_string(k)), InputError);
        }
    }
    EXPECT_EQ(selectable_test_names(),
              "fisher-z, chi-square, g-square, cmiknn, cg-lrt, regression, mi-cg, mi-sh, mi-g-sh");
    try {
        parse_test("kci");
        FAIL() << "kci parsed";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "unknown --test 'kci' (available: fisher-z, chi-square, g-square, cmiknn, cg-lrt, regression, mi-cg, "
                  "mi-sh, mi-g-sh)");
    }
}

TEST(TestKind, TraitsSayWhatEachTestIs) {
    EXPECT_TRUE(is_discrete(TestKind::ChiSquare));
    EXPECT_TRUE(is_discrete(TestKind::GSquare));
    EXPECT_FALSE(is_discrete(TestKind::FisherZ));
    EXPECT_FALSE(is_discrete(TestKind::CmiKnn));
    EXPECT_EQ(traits(TestKind::DSep).data, TestData::Dag);
    EXPECT_FALSE(traits(TestKind::DSep).gpu);
    EXPECT_TRUE(traits(TestKind::GSquare).dof_rule);
    EXPECT_FALSE(traits(TestKind::FisherZ).dof_rule);
    EXPECT_TRUE(traits(TestKind::CmiKnn).permutation);
    EXPECT_TRUE(traits(TestKind::CmiKnn).constant_columns);
    EXPECT_FALSE(traits(TestKind::FisherZ).constant_columns);
    EXPECT_TRUE(traits(TestKind::FisherZ).shared_matrix);
    EXPECT_EQ(traits(TestKind::FisherZ).spare_samples, 2);  // n = |S| + 3: z = 0, p = 1
    EXPECT_EQ(traits(TestKind::CmiKnn).spare_samples, -1);
    // bnlearn's mi-sh reads discrete data but has its own df (bnlearn's, unadjusted), and no GPU path
    EXPECT_TRUE(is_discrete(TestKind::MiSh));
    EXPECT_FALSE(traits(TestKind::MiSh).gpu);
    for (const TestKind k : kAll) EXPECT_EQ(traits(k).dof_rule, is_discrete(k) && k != TestKind::MiSh);
}

TEST(TestKind, RoundsFollowTheCostOfATest) {
    EXPECT_EQ(round_tests(TestKind::FisherZ, 8), std::int64_t{1} << 20);
    EXPECT_EQ(round_tests(TestKind::ChiSquare, 8), std::int64_t{1} << 16);
    EXPECT_EQ(round_tests(TestKind::DSep, 8), std::int64_t{1} << 16);
    EXPECT_EQ(round_tests(TestKind::CmiKnn, 8), 32);
    EXPECT_EQ(round_tests(TestKind::CmiKnn, 0), 4);
}

}  // namespace
}  // namespace cudag::ci
