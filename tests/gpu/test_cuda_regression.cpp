// SPDX-License-Identifier: Apache-2.0
// The regression test's GPU batches (kernels/regression_batch.cu) against the CPU's test
// (skeleton::make_ci_test: ci::RegressionCiTest, or the test-wise test where cells are missing):
// for every query the statistic and the p-value bit for bit (EXPECT_EQ on doubles). Random mixed
// data (several seeds, 150..5000 rows, discrete variables of 2..4 levels, one declaring a level
// no row holds), all-continuous and all-discrete data (linear and logistic fits: binary and
// multinomial dependent variables), conditioning sets of 0..3 variables in any order, x and y
// either way round, with and without missing cells (5-30 %: each query on its complete rows,
// level sets and normaltest per query); queries beyond the kernel's limits (answered by the CPU
// in the same call); the CPU's one-line errors (a constant dependent variable, no complete
// row); the batch as make_gpu_batch_test gives it for --backend cuda, and PC's search on it.
// The warp kernels' edges (5 to 300 rows: fewer than 8, than 32, one pairwise leaf or more;
// conditioning sets up to 16 variables).
// Every test skips when this build has no CUDA or no device is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "ci/regression_ci.hpp"
#include "core/error.hpp"
#include "mpi/communicator.hpp"
#include "pc/run.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/engines.hpp"
#include "skeleton/skeleton.hpp"
#include "skeleton/test_spec.hpp"
#include "support/gpu.hpp"
#include "support/skeleton_compare.hpp"

#if CUDAG_HAVE_CUDA
#include "kernels/regression_batch.hpp"
#endif

using namespace cudag;

namespace {

#if CUDAG_HAVE_CUDA

/// Mixed data of m rows: variables 0, 3, 6, ... discrete (2..4 levels, partly drawn from the
/// variable before), the others continuous (a linear mix of the two variables before, shifted
/// by a discrete parent's level, plus noise). Variable `unused` (discrete) declares one level
/// more than its rows hold. `kind`: 0 mixed, 1 all continuous, 2 all discrete.
Dataset make_data(std::int64_t n, std::int64_t m, std::uint64_t seed, int kind = 0, int unused = 3) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    Dataset d;
    d.n_vars = n;
    d.n_samples = m;
    d.source = "test";
    d.values.resize(static_cast<std::size_t>(n * m));
    d.levels.resize(static_cast<std::size_t>(n));
    for (std::int64_t v = 0; v < n; ++v) {
        std::string name = "V";  // appended: GCC 12's -Wrestrict misfires on "V" + ...
        name += std::to_string(v);
        d.names.push_back(name);
        double* c = d.column(v);
        const bool discrete = kind == 2 || (kind == 0 && v % 3 == 0);
        if (discrete) {
            const int card = 2 + static_cast<int>(rng() % 3);
            const int used = v == unused ? card - 1 : card;
            for (int l = 0; l < card; ++l) {
                std::string label = "L";
                label += std::to_string(l);
                d.levels[static_cast<std::size_t>(v)].push_back(label);
            }
            for (std::int64_t r = 0; r < m; ++r) {
                const std::uint64_t draw = rng();
                int code = static_cast<int>(draw % static_cast<std::uint64_t>(used));
                if (v > 0 && draw % 3 != 0) code = static_cast<int>(std::fabs(d.column(v - 1)[r]) * 1.7) % used;
                c[r] = code;
            }
        } else {
            const double b1 = 0.3 + 0.1 * static_cast<double>(v % 5), b2 = -0.2;
            for (std::int64_t r = 0; r < m; ++r) {
                double x = z(rng) * (1.0 + static_cast<double>(v % 4));
                if (v >= 1) x += b1 * d.column(v - 1)[r];
                if (v >= 2) x += b2 * d.column(v - 2)[r];
                if (v % 5 == 1) x = x * x * 0.2 + x;  // some columns far from normal
                x += 10.0 * static_cast<double>(v % 7);
                c[r] = x;
            }
        }
    }
    if (kind == 1) d.levels.clear();
    return d;
}

/// `d` with a share `share` of its cells missing (NaN), never all of a column.
Dataset with_holes(Dataset d, double share, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    d.missing = 0;
    for (std::int64_t v = 0; v < d.n_vars; ++v)
        for (std::int64_t r = 1; r < d.n_samples; ++r)
            if (u(rng) < share) {
                d.column(v)[r] = std::nan("");
                ++d.missing;
            }
    return d;
}

/// `count` queries over n variables: x != y (either order), S of 0..max_l others, unsorted.
ci::QueryList random_queries(std::int64_t n, int count, int max_l, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    ci::QueryList b;
    std::vector<std::int32_t> perm(static_cast<std::size_t>(n));
    for (int t = 0; t < count; ++t) {
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        const int l = std::min<int>(t % (max_l + 1), static_cast<int>(n) - 2);
        b.add(perm[0], perm[1], std::span<const std::int32_t>(perm).subspan(2, static_cast<std::size_t>(l)));
    }
    return b;
}

std::string describe(const ci::QueryList& b, std::size_t q) {
    std::ostringstream os;
    os << "query " << q << ": " << b.x[q] << " _||_ " << b.y[q] << " | {";
    for (const std::int32_t v : b.set(q)) os << ' ' << v;
    os << " }";
    return os.str();
}

skeleton::TestSpec regression_spec() {
    skeleton::TestSpec spec;
    spec.kind = ci::TestKind::Regression;
    return spec;
}

std::unique_ptr<ci::BatchTest> gpu_batch(const Dataset& data, int threads) {
    return cuda::make_regression_batch(data, regression_spec(), skeleton::Compat::Pcalg, threads, 0);
}

/// The batch against the CPU's test query by query, bit for bit (and a slice of it, offsets
/// not from 0, as a rank's share of a batch); returns the queries with 0 < p < 1.
std::int64_t expect_batch_is_cpus(ci::BatchTest& gpu, const Dataset& data, const ci::QueryList& b,
                                  const std::string& what) {
    std::vector<double> stat(b.size(), -7.0), p(b.size(), -7.0);
    gpu.run(b.view(), stat, p);
    const auto cpu = skeleton::make_ci_test(data, regression_spec(), skeleton::Compat::Pcalg, 1);
    int failures = 0;
    std::int64_t inner = 0;
    for (std::size_t q = 0; q < b.size() && failures < 10; ++q) {
        const ci::CiOutcome o = cpu->test(b.x[q], b.y[q], b.set(q));
        EXPECT_EQ(stat[q], o.statistic) << what << ", " << describe(b, q);
        EXPECT_EQ(p[q], o.p) << what << ", " << describe(b, q);
        failures += stat[q] != o.statistic || p[q] != o.p;
        inner += o.p > 0.0 && o.p < 1.0;
    }
    const std::size_t h = b.size() / 2;
    std::vector<double> stat2(b.size() - h, -7.0), p2(b.size() - h, -7.0);
    gpu.run(b.view().slice(h, b.size()), stat2, p2);
    for (std::size_t q = h; q < b.size() && failures < 10; ++q) {
        EXPECT_EQ(stat2[q - h], stat[q]) << what << " (second half), " << describe(b, q);
        EXPECT_EQ(p2[q - h], p[q]) << what << " (second half), " << describe(b, q);
        failures += stat2[q - h] != stat[q] || p2[q - h] != p[q];
    }
    std::printf("[regression batch] %s: %zu queries, %lld with 0 < p < 1\n", what.c_str(), b.size(),
                static_cast<long long>(inner));
    return inner;
}

/// The message of the InputError `f` throws ("" if none).
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(CudaRegression, BatchIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    struct Case {
        std::int64_t n, m;
        std::uint64_t seed;
    };
    for (const Case c : {Case{12, 150, 1}, Case{15, 1000, 2}, Case{10, 5000, 3}, Case{20, 777, 4}}) {
        const Dataset data = make_data(c.n, c.m, c.seed);
        const auto gpu = gpu_batch(data, 4);
        const ci::QueryList b = random_queries(c.n, 300, 3, c.seed * 31 + 7);
        const std::string what =
            "mixed " + std::to_string(c.n) + " x " + std::to_string(c.m) + ", seed " + std::to_string(c.seed);
        EXPECT_GT(expect_batch_is_cpus(*gpu, data, b, what), 0) << what;
    }
}

TEST(CudaRegression, AllContinuousAndAllDiscreteAreCpus) {
    CUDAG_REQUIRE_GPU();
    for (const int kind : {1, 2}) {
        const Dataset data = make_data(10, 1500, 11 + static_cast<std::uint64_t>(kind), kind);
        const auto gpu = gpu_batch(data, 2);
        const ci::QueryList b = random_queries(10, 200, 3, 12);
        EXPECT_GT(expect_batch_is_cpus(*gpu, data, b, kind == 1 ? "all continuous" : "all discrete"), 0);
    }
}

// --missing testwise: each query on the rows complete in its variables (the CPU's test-wise
// test on the sub-table), S sorted, levels and normaltest on those rows.
TEST(CudaRegression, TestwiseIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    for (const double share : {0.05, 0.15, 0.3}) {
        for (const int kind : {0, 1, 2}) {
            const auto seed = static_cast<std::uint64_t>(share * 100) + 10 * static_cast<std::uint64_t>(kind);
            const Dataset data = with_holes(make_data(12, 900, seed, kind), share, seed + 1);
            ASSERT_GT(data.missing, 0);
            const auto gpu = gpu_batch(data, 3);
            const ci::QueryList b = random_queries(12, 150, 3, seed + 2);
            const std::string what = "testwise " + std::to_string(share) + ", kind " + std::to_string(kind);
            EXPECT_GT(expect_batch_is_cpus(*gpu, data, b, what), 0) << what;
        }
    }
}

/// Of b's queries, those the CPU's test answers (no InputError), in order.
ci::QueryList answered(const Dataset& data, const ci::QueryList& b) {
    const auto cpu = skeleton::make_ci_test(data, regression_spec(), skeleton::Compat::Pcalg, 1);
    ci::QueryList out;
    for (std::size_t q = 0; q < b.size(); ++q)
        if (error_of([&] { (void)cpu->test(b.x[q], b.y[q], b.set(q)); }).empty()) out.add(b.x[q], b.y[q], b.set(q));
    return out;
}

// The warp kernels' edges: rows fewer than a warp's lanes, fewer than numpy's 8 accumulators
// (normaltest NaN), one pairwise leaf (<= 128), two and more; conditioning sets of 0 to 16
// variables (up to 16 of kMaxVars' 18: dozens of one-hot columns, logistic fits of up to
// ~170 parameters); a discrete variable of 9 levels; with and without missing cells.
TEST(CudaRegression, FewRowsAndLargeSetsAreCpus) {
    CUDAG_REQUIRE_GPU();
    struct Case {
        std::int64_t m;
        int kind, max_l;
        double share;
    };
    for (const Case c : {Case{5, 1, 1, 0.0}, Case{9, 1, 3, 0.0}, Case{31, 0, 2, 0.0}, Case{33, 0, 3, 0.0},
                         Case{129, 0, 4, 0.0}, Case{200, 0, 16, 0.0}, Case{200, 2, 6, 0.0}, Case{300, 1, 16, 0.0},
                         Case{260, 0, 16, 0.1}, Case{70, 0, 3, 0.2}}) {
        const auto seed = static_cast<std::uint64_t>(c.m * 7 + c.kind + c.max_l);
        Dataset data = make_data(20, c.m, seed, c.kind);
        if (c.kind == 2) {
            // Variable 3 with 9 levels (multinomial fits of 9 classes), partly following variable 0.
            auto& lv = data.levels[3];
            while (lv.size() < 9) {
                std::string label = "more";
                label += std::to_string(lv.size());
                lv.push_back(label);
            }
            for (std::int64_t r = 0; r < data.n_samples; ++r)
                data.column(3)[r] = static_cast<double>((r * 7 + 2 * static_cast<std::int64_t>(data.column(0)[r])) % 9);
        }
        if (c.share > 0) data = with_holes(std::move(data), c.share, seed + 1);
        const auto gpu = gpu_batch(data, 2);
        const ci::QueryList b = answered(data, random_queries(20, 120, c.max_l, seed + 2));
        ASSERT_GT(b.size(), 20u);
        std::string what = "rows ";
        what += std::to_string(c.m);
        what += ", kind ";
        what += std::to_string(c.kind);
        what += ", sets up to ";
        what += std::to_string(c.max_l);
        what += ", missing ";
        what += std::to_string(c.share);
        expect_batch_is_cpus(*gpu, data, b, what);
    }
}

TEST(CudaRegression, QueriesBeyondTheKernelAreCpus) {
    CUDAG_REQUIRE_GPU();
    for (const double share : {0.0, 0.1}) {
        Dataset data = make_data(24, 600, 21);
        // Variable 6 (discrete) takes 70 levels: 70 one-hot columns, beyond 64.
        auto& lv = data.levels[6];
        while (lv.size() < 70) {
            std::string label = "extra";
            label += std::to_string(lv.size());
            lv.push_back(label);
        }
        for (std::int64_t r = 0; r < data.n_samples; ++r) data.column(6)[r] = static_cast<double>(r % 70);
        if (share > 0) data = with_holes(std::move(data), share, 23);
        const auto gpu = gpu_batch(data, 3);
        ci::QueryList b = random_queries(24, 100, 3, 22);
        std::vector<std::int32_t> many;
        for (std::int32_t v = 4; v < 24; ++v) many.push_back(v);
        b.add(1, 2, std::span<const std::int32_t>(many).subspan(0, 17));  // 19 variables
        b.add(6, 2, std::vector<std::int32_t>{0});                        // 70 columns
        b.add(2, 5, std::vector<std::int32_t>{6, 1});                     // 70 + columns
        b.add(0, 3, std::vector<std::int32_t>{6});                        // logistic, 70 columns
        b.add(4, 5, std::vector<std::int32_t>{1, 1});                     // a variable twice
        b.add(4, 5, std::vector<std::int32_t>{7, 8});
        expect_batch_is_cpus(*gpu, data, b, share > 0 ? "beyond the kernel, testwise" : "beyond the kernel");
    }
}

TEST(CudaRegression, ErrorsAreCpus) {
    CUDAG_REQUIRE_GPU();
    Dataset data = make_data(9, 400, 31);
    for (std::int64_t r = 0; r < data.n_samples; ++r) data.column(2)[r] = 2.5;  // constant continuous
    const auto gpu = gpu_batch(data, 2);
    ci::QueryList b;
    b.add(4, 5, std::vector<std::int32_t>{7});
    b.add(2, 0, std::vector<std::int32_t>{1});  // 2 the dependent variable (with discrete 0): not finite
    const auto cpu = skeleton::make_ci_test(data, regression_spec(), skeleton::Compat::Pcalg, 1);
    const std::string want = error_of([&] { (void)cpu->test(2, 0, b.set(1)); });
    ASSERT_FALSE(want.empty());
    std::vector<double> stat(b.size()), p(b.size());
    EXPECT_EQ(error_of([&] { gpu->run(b.view(), stat, p); }), want);

    // Test-wise: a query without a complete row.
    Dataset holes = make_data(6, 300, 33);
    for (std::int64_t r = 0; r < holes.n_samples; ++r) (r % 2 ? holes.column(1) : holes.column(4))[r] = std::nan("");
    holes.missing = holes.n_samples;
    const auto gpu_holes = gpu_batch(holes, 2);
    const auto cpu_holes = skeleton::make_ci_test(holes, regression_spec(), skeleton::Compat::Pcalg, 1);
    ci::QueryList q;
    q.add(0, 2, std::vector<std::int32_t>{3});
    q.add(1, 4, std::vector<std::int32_t>{0});
    const std::string none = error_of([&] { (void)cpu_holes->test(1, 4, q.set(1)); });
    ASSERT_NE(none.find("complete rows"), std::string::npos) << none;
    std::vector<double> s2(q.size()), p2(q.size());
    EXPECT_EQ(error_of([&] { gpu_holes->run(q.view(), s2, p2); }), none);
}

TEST(CudaRegression, MakeGpuBatchTestGivesIt) {
    CUDAG_REQUIRE_GPU();
    for (const double share : {0.0, 0.1}) {
        const Dataset data = share > 0 ? with_holes(make_data(12, 1200, 41), share, 43) : make_data(12, 1200, 41);
        const skeleton::TestSpec spec = regression_spec();
        skeleton::TestPolicy policy;
        BackendContext backend;
        backend.kind = BackendKind::Cuda;
        backend.threads = 2;
        mpi::SerialCommunicator self;
        const auto batch = skeleton::make_gpu_batch_test(data, spec, policy, 3, backend, self);
        ASSERT_TRUE(batch) << "no GPU batch for regression";
        EXPECT_EQ(batch->name(), "regression");
        const ci::QueryList b = random_queries(12, 200, 3, 42);
        EXPECT_GT(
            expect_batch_is_cpus(*batch, data, b, share > 0 ? "make_gpu_batch_test, testwise" : "make_gpu_batch_test"),
            0);
        backend.kind = BackendKind::Cpu;
        EXPECT_FALSE(skeleton::make_gpu_batch_test(data, spec, policy, 3, backend, self));
    }
}

// PC's search with regression on the GPU (skeleton::BatchTestEngine over the batch, as
// `cudag pc --test regression --backend cuda` runs it) against the CPU's engine of single tests,
// and the whole run (separating sets, pMax, CPDAG), with and without missing cells.
TEST(CudaRegression, PcSearchIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    for (const double share : {0.0, 0.05}) {
        const Dataset d = share > 0 ? with_holes(make_data(30, 1500, 77), share, 78) : make_data(30, 1500, 77);
        skeleton::TestSpec spec = regression_spec();
        mpi::SerialCommunicator comm;
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = 0.01;
        BackendContext cpu_b, gpu_b;
        cpu_b.kind = BackendKind::Cpu;
        cpu_b.threads = 4;
        gpu_b.kind = BackendKind::Cuda;
        gpu_b.threads = 4;
        auto cpu = skeleton::make_engine(skeleton::EngineArgs{d, spec, opt.policy, -1, cpu_b, comm});
        auto gpu = skeleton::make_engine(skeleton::EngineArgs{d, spec, opt.policy, -1, gpu_b, comm});
        EXPECT_EQ(gpu->name(), "cuda");
        const skeleton::SkeletonResult want = skeleton::learn_skeleton(*cpu, opt);
        const skeleton::SkeletonResult got = skeleton::learn_skeleton(*gpu, opt);
        EXPECT_TRUE(test::same_result(got, want, 0.0)) << "missing " << share;
        ASSERT_GE(want.levels.size(), 2u);
        pc::PcConfig cfg;
        cfg.alpha = 0.01;
        cfg.test.kind = ci::TestKind::Regression;
        cfg.backend.kind = BackendKind::Cpu;
        cfg.backend.threads = 4;
        const pc::PcResult a = pc::run_pc(d, cfg);
        cfg.backend.kind = BackendKind::Cuda;
        const pc::PcResult b = pc::run_pc(d, cfg);
        EXPECT_TRUE(a.skeleton == b.skeleton);
        EXPECT_TRUE(a.sepsets == b.sepsets);
        EXPECT_TRUE(a.cpdag == b.cpdag);
        ASSERT_EQ(a.pmax.size(), b.pmax.size());
        for (std::size_t k = 0; k < a.pmax.size(); ++k) EXPECT_EQ(a.pmax[k].p, b.pmax[k].p);
    }
}

#else

TEST(CudaRegression, BatchIsEquivalentToCpu) { CUDAG_REQUIRE_GPU(); }

#endif

}  // namespace
