// SPDX-License-Identifier: Apache-2.0
// CMIknn under `--missing testwise` on the GPU (kernels/cmi_knn_testwise_batch.cu) against the
// CPU's test-wise test (skeleton::make_ci_test on data with missing cells: CmiKnnTest on the
// sub-table of each test's complete rows): for every query the statistic and the p-value bit
// for bit (EXPECT_EQ on doubles), on data with 5–30 % of their cells missing, conditioning
// sets of 0–2 variables, every transform, both permuted sides, both tie rules, k as a
// fraction and as a count (each statistic kernel: window, register list, radix select),
// several shuffle neighbourhoods, with and without the early stop, on tied values and with
// columns constant on a test's rows, and a variable named twice; the same one-line errors for a test left with too few
// rows (none; fewer than 3; not more than k; not more than the shuffle neighbourhood); and a
// whole PC skeleton with --backend cuda equal to --backend cpu. Every test skips when this
// build has no CUDA or no device is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "mpi/communicator.hpp"
#include "sim/nonlinear.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/engines.hpp"
#include "skeleton/skeleton.hpp"
#include "skeleton/test_spec.hpp"
#include "support/gpu.hpp"
#include "support/skeleton_compare.hpp"

using namespace cudag;

namespace {

#if CUDAG_HAVE_CUDA
using test::seconds_since;

/// Nonlinear data (n variables, m samples) with a share `missing` of the cells blanked (NaN)
/// at random, row 0 kept whole (every column keeps a value).
Dataset missing_data(std::int64_t n, std::int64_t m, double missing, std::uint64_t seed) {
    Dataset d = sim::simulate_nonlinear({n, m, 0.4, seed}, 1).data;
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    d.missing = 0;
    for (std::int64_t v = 0; v < n; ++v)
        for (std::int64_t s = 1; s < m; ++s)
            if (u(rng) < missing) {
                d.column(v)[s] = std::nan("");
                ++d.missing;
            }
    return d;
}

/// `count` queries over n variables: x != y (either order), S of 0..max_l distinct other
/// variables in random order.
ci::QueryList random_queries(std::int64_t n, int count, int max_l, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    ci::QueryList q;
    std::vector<std::int32_t> perm(static_cast<std::size_t>(n));
    for (int t = 0; t < count; ++t) {
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        const int l = std::min<int>(t % (max_l + 1), static_cast<int>(n) - 2);
        q.add(perm[0], perm[1], std::vector<std::int32_t>(perm.begin() + 2, perm.begin() + 2 + l));
    }
    return q;
}

skeleton::TestSpec cmiknn(double knn, int shuffle, int permutations) {
    skeleton::TestSpec spec;
    spec.kind = skeleton::TestKind::CmiKnn;
    spec.cmi.knn = knn;
    spec.cmi.shuffle_neighbors = shuffle;
    spec.cmi.permutations = permutations;
    return spec;
}

/// The InputError message `f` throws ("" when none).
template <class F>
std::string message(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

/// Every query of `q` on the GPU batch and on the CPU's test, one by one: statistic and p
/// equal. Returns the queries checked.
int expect_same(const Dataset& d, const skeleton::TestSpec& spec, const ci::QueryList& q, const std::string& what) {
    auto gpu = cuda::make_cmiknn_testwise_batch(d, spec, 4, 0);
    const auto cpu = skeleton::make_ci_test(d, spec, skeleton::Compat::Pcalg, 4);
    std::vector<double> stat(q.size()), p(q.size());
    const auto t0 = std::chrono::steady_clock::now();
    gpu->run(q.view(), stat, p);
    const double gpu_s = seconds_since(t0);
    int checked = 0;
    for (std::size_t k = 0; k < q.size(); ++k) {
        const ci::CiOutcome o = cpu->test(q.x[k], q.y[k], q.set(k));
        EXPECT_EQ(stat[k], o.statistic) << what << ", query " << k << " |S|=" << q.set(k).size();
        EXPECT_EQ(p[k], o.p) << what << ", query " << k << " |S|=" << q.set(k).size();
        ++checked;
    }
    std::printf("[testwise cmiknn] %s: %zu queries, gpu %.3f s\n", what.c_str(), q.size(), gpu_s);
    return checked;
}
#endif

}  // namespace

TEST(CudaTestwiseCmiKnn, BatchIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    int checked = 0;
    for (const double missing : {0.05, 0.15, 0.3}) {
        const auto tag = static_cast<std::uint64_t>(missing * 100);
        const Dataset d = missing_data(10, 260, missing, 5 + tag);
        const ci::QueryList q = random_queries(d.n_vars, 36, 2, 9 + tag);
        const std::string m = std::to_string(static_cast<int>(missing * 100)) + " % missing";
        // The defaults (ranks, k = 0.2·T: radix select), a small k as a count (register list
        // and window kernels), k as a small fraction, several shuffle neighbourhoods.
        checked += expect_same(d, cmiknn(0.2, 5, 60), q, m + ", defaults");
        checked += expect_same(d, cmiknn(5, 3, 60), q, m + ", k = 5, 3 neighbours");
        checked += expect_same(d, cmiknn(0.03, 10, 40), q, m + ", k = 0.03 T, 10 neighbours");
        // Each transform (the doubles' kernels for standardize and none), X permuted, the
        // index tie rule, the early stop.
        for (const ci::CmiTransform t :
             {ci::CmiTransform::Standardize, ci::CmiTransform::Uniform, ci::CmiTransform::None}) {
            skeleton::TestSpec s = cmiknn(0.1, 4, 40);
            s.cmi.transform = t;
            checked += expect_same(d, s, q, m + ", " + ci::to_string(t));
        }
        skeleton::TestSpec s = cmiknn(7, 5, 50);
        s.cmi.permute = ci::CmiPermute::X;
        s.cmi.tie_break = ci::CmiTieBreak::Index;
        checked += expect_same(d, s, q, m + ", permute x, index ties");
        s = cmiknn(0.1, 5, 200);
        s.cmi.early_stop = ci::CmiEarlyStop{0.05, false};
        checked += expect_same(d, s, q, m + ", early stop");
    }
    EXPECT_EQ(checked, 3 * 8 * 36);  // every query of every spec compared
#endif
}

TEST(CudaTestwiseCmiKnn, TiesAndConstantColumnsAreAsTheCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    Dataset d = missing_data(8, 240, 0.15, 31);
    // Column 1 rounded to a few values (ties: the tie-break noise decides); column 2 constant
    // (5.0) on the even rows, where column 3 is missing (a test of 2 with 3 is a constant x
    // on its rows: statistic 0, p 1; 2 given {3} likewise; 2 in S with 3 is dropped).
    for (std::int64_t s = 0; s < d.n_samples; ++s) {
        double& a = d.column(1)[s];
        if (!std::isnan(a)) a = std::round(a * 2.0) / 2.0;
        if (s % 2 == 0) {
            d.column(2)[s] = 5.0;
        } else if (s > 0) {
            d.column(3)[s] = std::nan("");
        }
    }
    d.missing = 0;
    for (const double v : d.values) d.missing += std::isnan(v) ? 1 : 0;
    ci::QueryList q = random_queries(d.n_vars, 30, 2, 4);
    q.add(2, 3, std::vector<std::int32_t>{});
    q.add(3, 2, std::vector<std::int32_t>{0});
    q.add(0, 4, std::vector<std::int32_t>{3, 2});
    q.add(1, 5, std::vector<std::int32_t>{2, 3});
    q.add(1, 0, std::vector<std::int32_t>{});
    // A variable named twice: the CPU tests two copies of the column (their own positions,
    // so their own tie-break noise).
    q.add(1, 4, std::vector<std::int32_t>{1});
    q.add(5, 5, std::vector<std::int32_t>{});
    for (const ci::CmiTransform t : {ci::CmiTransform::Ranks, ci::CmiTransform::Standardize}) {
        skeleton::TestSpec s = cmiknn(0.1, 5, 60);
        s.cmi.transform = t;
        expect_same(d, s, q, "ties and constants, " + ci::to_string(t));
    }
#endif
}

TEST(CudaTestwiseCmiKnn, RefusesAsTheCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    Dataset d = missing_data(6, 200, 0.05, 3);
    // Column 0 present in rows 0..1 only (at most 2 rows: too few); column 4 in rows 0..19
    // only (at most 20 rows: too few for k = 25 or 30 shuffle neighbours); column 5 present
    // only where column 3 is missing (no row of both).
    for (std::int64_t s = 0; s < d.n_samples; ++s) {
        if (s >= 2) d.column(0)[s] = std::nan("");
        if (s >= 20) d.column(4)[s] = std::nan("");
        if (s % 2 == 0)
            d.column(3)[s] = std::nan("");
        else
            d.column(5)[s] = std::nan("");
    }
    d.missing = 0;
    for (const double v : d.values) d.missing += std::isnan(v) ? 1 : 0;
    struct Case {
        std::int32_t x, y;
        std::vector<std::int32_t> s;
        skeleton::TestSpec spec;
    };
    std::vector<Case> cases = {
        {0, 1, {}, cmiknn(0.2, 5, 50)},    // 2 rows
        {3, 5, {}, cmiknn(0.2, 5, 50)},    // no row
        {1, 4, {2}, cmiknn(25, 5, 50)},    // k = 25 needs more than 20 rows
        {4, 1, {2}, cmiknn(0.2, 30, 50)},  // 30 shuffle neighbours need more than 20 rows
    };
    for (std::size_t t = 0; t < cases.size(); ++t) {
        const Case& c = cases[t];
        const auto cpu = skeleton::make_ci_test(d, c.spec, skeleton::Compat::Pcalg, 1);
        auto gpu = cuda::make_cmiknn_testwise_batch(d, c.spec, 2, 0);
        ci::QueryList q;
        q.add(1, 2, std::vector<std::int32_t>{});  // a good query before the refused one
        q.add(c.x, c.y, c.s);
        std::vector<double> stat(2), p(2);
        const std::string want = message([&] { cpu->test(c.x, c.y, c.s); });
        EXPECT_FALSE(want.empty()) << "case " << t;
        EXPECT_EQ(message([&] { gpu->run(q.view(), stat, p); }), want) << "case " << t;
    }
#endif
}

TEST(CudaTestwiseCmiKnn, PcSkeletonIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const Dataset d = missing_data(12, 300, 0.1, 21);
    const skeleton::TestSpec spec = cmiknn(0.2, 5, 100);
    mpi::SerialCommunicator comm;
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    opt.max_level = 2;
    BackendContext cpu_b, gpu_b;
    cpu_b.kind = BackendKind::Cpu;
    cpu_b.threads = 4;
    gpu_b.kind = BackendKind::Cuda;
    gpu_b.threads = 4;
    auto cpu = skeleton::make_engine(skeleton::EngineArgs{d, spec, opt.policy, 2, cpu_b, comm});
    auto gpu = skeleton::make_engine(skeleton::EngineArgs{d, spec, opt.policy, 2, gpu_b, comm});
    EXPECT_EQ(gpu->name(), "cuda");
    auto t0 = std::chrono::steady_clock::now();
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(*cpu, opt);
    const double cpu_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const skeleton::SkeletonResult got = skeleton::learn_skeleton(*gpu, opt);
    const double gpu_s = seconds_since(t0);
    EXPECT_TRUE(test::same_result(got, want, 0.0));
    EXPECT_GT(want.skeleton.n_edges(), 0);
    std::printf("[testwise cmiknn] PC skeleton: %zu levels, %lld edges; cpu %.3f s, gpu %.3f s\n", want.levels.size(),
                static_cast<long long>(want.skeleton.n_edges()), cpu_s, gpu_s);
#endif
}
