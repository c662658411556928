// SPDX-License-Identifier: Apache-2.0
// ci::CiTest (skeleton/ci_tests.hpp): each test kind behind the one interface answers a single
// test exactly as the CPU engine of a search does (the same p-value, bit for bit), names
// itself and digests its parameters as the checkpoint does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ci/cmi_knn.hpp"
#include "ci/discrete_codes.hpp"
#include "ci/parcorr.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/missing.hpp"
#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"
#include "sim/nonlinear.hpp"
#include "skeleton/ci_tests.hpp"
#include "support/test_specs.hpp"
#include "skeleton/cpu/cmi_knn_engine.hpp"
#include "skeleton/cpu/discrete_engine.hpp"
#include "skeleton/cpu/fisher_engine.hpp"

namespace cudag {
namespace {

using test::spec_for;

struct Case {
    std::int32_t x, y;
    std::vector<std::int32_t> s;
};
const std::vector<Case> kCases = {{0, 1, {}}, {2, 5, {1}}, {3, 4, {0, 6}}, {1, 6, {5, 2, 3}}};

TEST(CiTests, FisherZEqualsTheCpuEngine) {
    const Dataset data = sim::simulate_gaussian({8, 300, 0.4, 3}).data;
    const skeleton::TestSpec spec = spec_for(skeleton::TestKind::FisherZ, data);
    const auto t = skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1);
    skeleton::CpuFisherEngine engine(data, skeleton::TestPolicy{}, 1);
    EXPECT_EQ(t->name(), "fisher-z");
    EXPECT_EQ(t->digest(), spec.digest_entries(data.n_samples));
    for (const Case& c : kCases) {
        const ci::CiOutcome o = t->test(c.x, c.y, c.s);
        EXPECT_EQ(o.p, engine.p_value(c.x, c.y, c.s)) << c.x << ", " << c.y;
        EXPECT_GE(o.p, 0.0);
        EXPECT_LE(o.p, 1.0);
        ASSERT_EQ(o.extra.size(), 1u);
        EXPECT_EQ(o.extra[0].first, "z");
    }
}

TEST(CiTests, ChiSquareAndGSquareEqualTheCpuEngine) {
    const Dataset data = sim::forward_sample(sim::random_network({8, 800, 0.3, 3, 4}), 800, 6, 1);
    for (const auto kind : {skeleton::TestKind::ChiSquare, skeleton::TestKind::GSquare}) {
        const skeleton::TestSpec spec = spec_for(kind, data);
        const auto t = skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1);
        skeleton::CpuDiscreteEngine engine(data, skeleton::TestPolicy{}, spec.discrete, 1);
        EXPECT_EQ(t->name(), skeleton::to_string(kind));
        for (const Case& c : kCases) {
            const ci::CiOutcome o = t->test(c.x, c.y, c.s);
            EXPECT_EQ(o.p, engine.p_value(c.x, c.y, c.s)) << t->name() << " " << c.x << ", " << c.y;
            ASSERT_EQ(o.extra.size(), 1u);
            EXPECT_EQ(o.extra[0].first, "dof");
        }
    }
}

TEST(CiTests, CmiKnnEqualsTheCpuEngineAndNamesConstantColumns) {
    Dataset data = sim::simulate_nonlinear({8, 150, 0.4, 5}, 1).data;
    const skeleton::TestSpec spec = spec_for(skeleton::TestKind::CmiKnn, data);
    const auto t = skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 2);
    skeleton::CpuCmiKnnEngine engine(data, skeleton::TestPolicy{0.05}, spec.cmi, 3, 1);
    EXPECT_EQ(t->name(), "cmiknn");
    EXPECT_EQ(t->digest(), spec.digest_entries(data.n_samples));
    for (const Case& c : kCases) {
        const ci::CiOutcome o = t->test(c.x, c.y, c.s);
        EXPECT_EQ(o.p, engine.p_value(c.x, c.y, c.s)) << c.x << ", " << c.y;
        EXPECT_TRUE(t->notes(c.x, c.y, c.s).empty());
    }
    for (std::int64_t r = 0; r < data.n_samples; ++r)
        data.values[static_cast<std::size_t>(7 * data.n_samples + r)] = 2.5;
    const auto u = skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1);
    const std::vector<std::string> notes = u->notes(7, 1, std::vector<std::int32_t>{});
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("is constant"), std::string::npos) << notes[0];
    EXPECT_EQ(u->test(7, 1, std::vector<std::int32_t>{}).p, 1.0);
}

// --missing testwise (what the GPU's test-wise CMIknn reproduces): the test of x, y given S is
// CMIknn on the data set of the columns x, y, S (S sorted) on their complete rows, so the
// tie-break noise is keyed by each column's position in the test and the row's rank among
// those rows, k and the ψ table are those rows' count's; only the surrogates' stream is the
// whole data's test id. Other columns' holes change nothing.
TEST(CiTests, CmiKnnTestwiseIsCmiKnnOnTheCompleteRows) {
    Dataset data = sim::simulate_nonlinear({8, 200, 0.4, 6}, 1).data;
    std::uint64_t h = 12345;
    for (double& v : data.values) {
        h = ci::cmi_mix64(h);
        if (h % 7 == 0) {
            v = std::nan("");
            ++data.missing;
        }
    }
    skeleton::TestSpec spec = spec_for(skeleton::TestKind::CmiKnn, data);
    spec.cmi.knn = 0.1;
    spec.cmi.permutations = 60;
    const auto t = skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1);
    for (const Case& c : kCases) {
        std::vector<std::int32_t> vars{c.x, c.y};
        std::vector<std::int32_t> sorted = c.s;
        std::sort(sorted.begin(), sorted.end());
        vars.insert(vars.end(), sorted.begin(), sorted.end());
        const std::vector<std::int64_t> rows = complete_rows(data, vars);
        const Dataset sub = subset(data, vars, rows);
        const int l = static_cast<int>(sorted.size());
        const ci::CmiKnn cmi(sub, spec.cmi, l);
        std::vector<std::int32_t> z;
        for (int a = 0; a < l; ++a) z.push_back(a + 2);
        const ci::CmiKnnResult want =
            cmi.test(0, 1, z, ci::cmi_test_id(c.x, c.y, ci::cmi_set_key(sorted.data(), l)), 1);
        const ci::CiOutcome o = t->test(c.x, c.y, c.s);
        EXPECT_EQ(o.statistic, want.statistic) << c.x << ", " << c.y;
        EXPECT_EQ(o.p, want.p) << c.x << ", " << c.y;
        EXPECT_EQ(cmi.k(), ci::cmi_k(0.1, static_cast<std::int64_t>(rows.size())));
        // Blanking a cell of a column outside the test changes nothing.
        Dataset more = data;
        for (std::int32_t v = 0; v < 8; ++v)
            if (std::find(vars.begin(), vars.end(), v) == vars.end()) {
                more.values[static_cast<std::size_t>(v * data.n_samples + rows[0])] = std::nan("");
                ++more.missing;
                break;
            }
        const ci::CiOutcome o2 = skeleton::make_ci_test(more, spec, skeleton::Compat::Pcalg, 1)->test(c.x, c.y, c.s);
        EXPECT_EQ(o2.statistic, o.statistic);
        EXPECT_EQ(o2.p, o.p);
    }
}

TEST(CiTests, FisherTestwiseAtAndBelowSPlusThreeCompleteRows) {
    // Column 0 present in rows 0..2 only: (0, 1 | {}) has |S| + 3 complete rows and pcalg's
    // p = 1 (its z is 0); (0, 1 | {2}) has fewer and is refused, naming the test (as the GPU batch
    // must: tests/gpu/test_cuda_testwise.cpp RefusesAsTheCpu).
    Dataset data = sim::simulate_gaussian({4, 50, 0.5, 3}).data;
    for (std::int64_t s = 3; s < data.n_samples; ++s) {
        data.column(0)[s] = std::nan("");
        ++data.missing;
    }
    const skeleton::TestSpec spec = spec_for(skeleton::TestKind::FisherZ, data);
    const auto t = skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1);
    const ci::CiOutcome o = t->test(0, 1, {});
    EXPECT_EQ(o.p, 1.0);
    EXPECT_TRUE(std::isfinite(o.statistic));
    try {
        t->test(0, 1, std::vector<std::int32_t>{2});
        FAIL() << "no error below |S| + 3 complete rows";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--missing testwise leaves 3 complete rows for the test of 'X1' and 'X2' given {'X3'}: fisher-z "
                  "needs more than 3");
    }
}

/// `spec` under bnlearn's rule for missing cells (TestSpec::bnlearn_missing).
skeleton::TestSpec bnlearn_spec(skeleton::TestKind kind, const Dataset& data, bool student_t = false) {
    skeleton::TestSpec spec = spec_for(kind, data);
    spec.bnlearn_missing = true;
    spec.student_t = student_t;
    return spec;
}

/// The value of an outcome's extra entry `key` ("" when absent).
std::string extra(const ci::CiOutcome& o, const std::string& key) {
    for (const auto& [k, v] : o.extra)
        if (k == key) return v;
    return "";
}

TEST(CiTests, BnlearnMissingGaussianTestsIndependentBelowOneDegreeOfFreedom) {
    // Column 0 present in rows 0..5 only: 6 complete rows for any test of it. bnlearn's zf has
    // n - |S| - 3 degrees of freedom and cor n - |S| - 2; below 1 the test is independent
    // (statistic 0, p = 1), where cudag's own test-wise rule refuses.
    Dataset data = sim::simulate_gaussian({6, 60, 0.6, 7}).data;
    for (std::int64_t s = 6; s < data.n_samples; ++s) {
        data.column(0)[s] = std::nan("");
        ++data.missing;
    }
    const std::vector<std::int32_t> s2{2, 3}, s3{2, 3, 4};
    const auto zf =
        skeleton::make_ci_test(data, bnlearn_spec(skeleton::TestKind::FisherZ, data), skeleton::Compat::Pcalg, 1);
    const auto cor =
        skeleton::make_ci_test(data, bnlearn_spec(skeleton::TestKind::FisherZ, data, true), skeleton::Compat::Pcalg, 1);
    // zf given 3: df = 6 - 3 - 3 = 0; cor given 3: df = 1, a real test
    const ci::CiOutcome z3 = zf->test(0, 1, s3);
    EXPECT_EQ(z3.statistic, 0.0);
    EXPECT_EQ(z3.p, 1.0);
    EXPECT_EQ(extra(z3, "n_samples"), "6");
    const ci::CiOutcome c3 = cor->test(0, 1, s3);
    EXPECT_NE(c3.statistic, 0.0);
    EXPECT_EQ(c3.p, ci::parcorr_p_value(c3.statistic, 6, 5));
    EXPECT_LT(c3.p, 1.0);
    // zf given 2: df = 1: Fisher's z on the 6 rows, as the plain test of those rows
    const std::vector<std::int32_t> vars{0, 1, 2, 3};
    const Dataset sub = subset(data, vars, complete_rows(data, vars));
    const ci::CiOutcome want =
        skeleton::make_ci_test(sub, spec_for(skeleton::TestKind::FisherZ, sub), skeleton::Compat::Pcalg, 1)
            ->test(0, 1, std::vector<std::int32_t>{2, 3});
    const ci::CiOutcome z2 = zf->test(0, 1, s2);
    EXPECT_EQ(z2.statistic, want.statistic);
    EXPECT_EQ(z2.p, want.p);
    // cor given 4: df = 0, independent; cudag's own rule refuses the same test (6 rows)
    const std::vector<std::int32_t> s4{2, 3, 4, 5};
    EXPECT_EQ(cor->test(0, 1, s4).p, 1.0);
    EXPECT_EQ(cor->test(0, 1, s4).statistic, 0.0);
    EXPECT_THROW(skeleton::make_ci_test(data, spec_for(skeleton::TestKind::FisherZ, data), skeleton::Compat::Pcalg, 1)
                     ->test(0, 1, s4),
                 InputError);
}

TEST(CiTests, BnlearnMissingDiscreteTestsCountEveryLevel) {
    // Variable 0 has 3 levels; its rows with level 2 are the rows where variable 1 is
    // missing, so no complete row of (0, 1) holds level 2. bnlearn counts the declared
    // levels: df = (3 - 1)(r1 - 1)·r2; cudag's own rule counts the 2 levels the rows hold.
    Dataset data = sim::forward_sample(sim::random_network({4, 600, 0.5, 3, 11}), 600, 3, 1);
    for (std::int64_t s = 0; s < data.n_samples; ++s) data.column(0)[s] = static_cast<double>(s % 3);
    data.levels[0] = {"a", "b", "c"};
    for (std::int64_t s = 0; s < data.n_samples; ++s)
        if (s % 3 == 2) {
            data.column(1)[s] = std::nan("");
            ++data.missing;
        }
    const double r1 = static_cast<double>(data.levels[1].size()), r2 = static_cast<double>(data.levels[2].size());
    for (const auto kind : {skeleton::TestKind::ChiSquare, skeleton::TestKind::GSquare}) {
        skeleton::TestSpec spec = bnlearn_spec(kind, data);
        spec.discrete.dof = ci::DofRule::Gpupc;
        const ci::CiOutcome o =
            skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1)->test(0, 1, std::vector<std::int32_t>{2});
        EXPECT_EQ(extra(o, "dof"), exact_number(2.0 * (r1 - 1.0) * r2));
        EXPECT_EQ(extra(o, "n_samples"), "400");
        spec.bnlearn_missing = false;
        const ci::CiOutcome own =
            skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1)->test(0, 1, std::vector<std::int32_t>{2});
        EXPECT_EQ(extra(own, "dof"), exact_number(1.0 * (r1 - 1.0) * r2));
        EXPECT_EQ(own.statistic, o.statistic);  // the same table; only the df differ
    }
    // No complete row at all: independent (p = 1) where cudag's own rule refuses.
    for (std::int64_t s = 0; s < data.n_samples; ++s)
        if (s % 3 != 2 && !std::isnan(data.column(3)[s])) {
            data.column(3)[s] = std::nan("");
            ++data.missing;
        }
    const ci::CiOutcome none =
        skeleton::make_ci_test(data, bnlearn_spec(skeleton::TestKind::GSquare, data), skeleton::Compat::Pcalg, 1)
            ->test(1, 3, {});
    EXPECT_EQ(none.p, 1.0);
    EXPECT_EQ(none.statistic, 0.0);
    EXPECT_EQ(extra(none, "n_samples"), "0");
}

}  // namespace
}  // namespace cudag
