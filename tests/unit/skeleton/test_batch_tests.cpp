// SPDX-License-Identifier: Apache-2.0
// ci::BatchTest on the CPU (ci::CpuBatchTest over skeleton::ci_test_factory): a batch gives,
// for every query, the statistic and p-value of the same test asked alone, bit for bit, on
// any thread count and for any slice of the batch; a non-finite answer is an error naming
// the query's variables.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/error.hpp"
#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"
#include "sim/nonlinear.hpp"
#include "skeleton/ci_tests.hpp"
#include "support/test_specs.hpp"

namespace cudag {
namespace {

using test::spec_for;

/// Queries over `n` variables: every pair (i, j) of the first few given sets of sizes 0..3
/// drawn from the other variables, deterministically.
ci::QueryList queries_over(std::int32_t n) {
    ci::QueryList q;
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j = i + 1; j < n; ++j) {
            std::vector<std::int32_t> s;
            for (std::int32_t k = 0; k < n && static_cast<int>(s.size()) < (i + j) % 4; ++k)
                if (k != i && k != j && (k * 7 + i + j) % 3 == 0) s.push_back(k);
            q.add(i, j, s);
        }
    return q;
}

void expect_batch_equals_singles(const Dataset& data, skeleton::TestKind kind) {
    const skeleton::TestSpec spec = spec_for(kind, data);
    const ci::QueryList q = queries_over(static_cast<std::int32_t>(data.n_vars));
    const auto single = skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1);
    std::vector<double> want_stat(q.size()), want_p(q.size());
    for (std::size_t k = 0; k < q.size(); ++k) {
        const ci::CiOutcome o = single->test(q.x[k], q.y[k], q.set(k));
        want_stat[k] = o.statistic;
        want_p[k] = o.p;
    }
    for (const int threads : {1, 3}) {
        ci::CpuBatchTest batch(skeleton::ci_test_factory(data, spec, skeleton::Compat::Pcalg, threads), threads);
        EXPECT_EQ(batch.name(), skeleton::to_string(kind));
        std::vector<double> stat(q.size(), -7.0), p(q.size(), -7.0);
        batch.run(q.view(), stat, p);
        for (std::size_t k = 0; k < q.size(); ++k) {
            EXPECT_EQ(stat[k], want_stat[k]) << skeleton::to_string(kind) << " query " << k << ", " << threads;
            EXPECT_EQ(p[k], want_p[k]) << skeleton::to_string(kind) << " query " << k << ", " << threads;
        }
        // A slice of the batch (its sets start mid-array) answers its own queries.
        const std::size_t b = q.size() / 3, e = 2 * q.size() / 3;
        std::vector<double> s2(e - b), p2(e - b);
        batch.run(q.view().slice(b, e), s2, p2);
        for (std::size_t k = b; k < e; ++k) {
            EXPECT_EQ(s2[k - b], want_stat[k]);
            EXPECT_EQ(p2[k - b], want_p[k]);
        }
    }
}

TEST(BatchTests, FisherZBatchesAreSingleTestsBitForBit) {
    expect_batch_equals_singles(sim::simulate_gaussian({9, 400, 0.4, 3}).data, skeleton::TestKind::FisherZ);
}

TEST(BatchTests, DiscreteBatchesAreSingleTestsBitForBit) {
    const Dataset data = sim::forward_sample(sim::random_network({8, 600, 0.3, 3, 4}), 600, 6, 1);
    expect_batch_equals_singles(data, skeleton::TestKind::ChiSquare);
    expect_batch_equals_singles(data, skeleton::TestKind::GSquare);
}

TEST(BatchTests, CmiKnnBatchesAreSingleTestsBitForBit) {
    expect_batch_equals_singles(sim::simulate_nonlinear({6, 120, 0.4, 5}, 1).data, skeleton::TestKind::CmiKnn);
}

TEST(BatchTests, QueriesSliceWithoutCopies) {
    ci::QueryList q;
    q.add(0, 1, {});
    q.add(2, 3, std::vector<std::int32_t>{4, 5});
    q.add(6, 7, std::vector<std::int32_t>{8});
    const ci::Queries s = q.view().slice(1, 3);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s.x[0], 2);
    EXPECT_EQ(std::vector<std::int32_t>(s.set(0).begin(), s.set(0).end()), (std::vector<std::int32_t>{4, 5}));
    EXPECT_EQ(std::vector<std::int32_t>(s.set(1).begin(), s.set(1).end()), (std::vector<std::int32_t>{8}));
    EXPECT_EQ(s.set(1).data(), q.nodes.data() + 2);
}

/// A test whose answer for (1, 2) is not a number.
class NanTest final : public ci::CiTest {
public:
    std::string name() const override { return "nan-test"; }
    ci::CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t>) override {
        ci::CiOutcome o;
        o.statistic = x == 1 && y == 2 ? std::numeric_limits<double>::quiet_NaN() : 0.5;
        o.p = 0.5;
        return o;
    }
    std::vector<std::string> digest() const override { return {"nan-test"}; }
};

TEST(BatchTests, ANonFiniteAnswerIsAnErrorNamingTheVariables) {
    ci::CpuBatchTest batch([] { return std::unique_ptr<ci::CiTest>(std::make_unique<NanTest>()); }, 2, {"a", "b", "c"});
    ci::QueryList q;
    q.add(0, 1, {});
    q.add(1, 2, std::vector<std::int32_t>{0});
    std::vector<double> s(2), p(2);
    try {
        batch.run(q.view(), s, p);
        FAIL() << "a NaN statistic was taken";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("nan-test test of 'b' and 'c'"), std::string::npos) << what;
    }
    ci::QueryList ok;
    ok.add(0, 2, {});
    batch.run(ok.view(), std::span<double>(s).first(1), std::span<double>(p).first(1));
    EXPECT_EQ(p[0], 0.5);
}

}  // namespace
}  // namespace cudag
