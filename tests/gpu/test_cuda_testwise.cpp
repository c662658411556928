// SPDX-License-Identifier: Apache-2.0
// Fisher-z under `--missing testwise` on the GPU (kernels/fisher_testwise_batch.cu) against the
// CPU's test-wise test (skeleton::make_ci_test on data with missing cells): for every query the
// statistic and the p-value bit for bit (EXPECT_EQ on doubles), with pcalg's and causal-learn's
// p-value arithmetic, on data with 5–30 % of their cells missing and conditioning sets of 0–4
// variables (and a few of more than 30, which the CPU test answers inside the batch); the same
// one-line errors for a test left with too few rows or a column constant on its rows; and a
// whole PC search (skeleton, separating sets, pMax, CPDAG) with --backend cuda equal to
// --backend cpu. Every test skips when this build has no CUDA or no device is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "mpi/communicator.hpp"
#include "pc/run.hpp"
#include "sim/gaussian.hpp"
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

/// Simulated Gaussian data (n variables, m samples) with a share `missing` of the cells
/// blanked (NaN) at random, at least one value kept per column.
Dataset missing_data(std::int64_t n, std::int64_t m, double density, double missing, std::uint64_t seed) {
    Dataset d = sim::simulate_gaussian({n, m, density, seed}).data;
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

skeleton::TestSpec fisher_z() {
    skeleton::TestSpec spec;
    spec.kind = skeleton::TestKind::FisherZ;
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
#endif

}  // namespace

TEST(CudaTestwise, BatchIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const skeleton::TestSpec spec = fisher_z();
    int checked = 0;
    for (const double missing : {0.05, 0.15, 0.3}) {
        const Dataset d = missing_data(40, 700, 0.15, missing, 11 + static_cast<std::uint64_t>(missing * 100));
        ci::QueryList q = random_queries(d.n_vars, 3000, 4, 7);
        // Sets above the device's limit (answered by the CPU test inside the batch), where
        // enough rows are complete in 35 columns.
        for (int t = 0; t < 3 && missing < 0.1; ++t) {
            std::vector<std::int32_t> s;
            for (std::int32_t v = 2; v < 2 + 31 + t && v < d.n_vars; ++v) s.push_back(v);
            q.add(t, 38 - t, s);
        }
        for (const skeleton::Compat compat : {skeleton::Compat::Pcalg, skeleton::Compat::CausalLearn}) {
            auto gpu = cuda::make_fisher_testwise_batch(d, spec, compat, 4, 0);
            const auto cpu = skeleton::make_ci_test(d, spec, compat, 1);
            std::vector<double> stat(q.size()), p(q.size());
            const auto t0 = std::chrono::steady_clock::now();
            gpu->run(q.view(), stat, p);
            const double gpu_s = seconds_since(t0);
            for (std::size_t k = 0; k < q.size(); ++k) {
                const ci::CiOutcome o = cpu->test(q.x[k], q.y[k], q.set(k));
                EXPECT_EQ(stat[k], o.statistic) << "query " << k << ", missing " << missing;
                EXPECT_EQ(p[k], o.p) << "query " << k << ", missing " << missing;
                ++checked;
            }
            std::printf("[testwise] %.0f %% missing, %s: %zu queries, gpu %.3f s\n", missing * 100,
                        to_string(compat).c_str(), q.size(), gpu_s);
        }
    }
    EXPECT_GT(checked, 10000);
#endif
}

TEST(CudaTestwise, RefusesAsTheCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    Dataset d = missing_data(6, 200, 0.5, 0.05, 3);
    // Column 0 present in rows 0..3 at most; column 4 present in odd rows only, where column 5
    // is constant (2.5; 0, 2, 4, .. elsewhere).
    for (std::int64_t s = 0; s < d.n_samples; ++s) {
        if (s >= 4) d.column(0)[s] = std::nan("");
        if (s % 2 == 0) d.column(4)[s] = std::nan("");
        d.column(5)[s] = s % 2 == 0 ? static_cast<double>(s) : 2.5;
    }
    d.missing = 0;
    for (const double v : d.values) d.missing += std::isnan(v) ? 1 : 0;
    const skeleton::TestSpec spec = fisher_z();
    const auto cpu = skeleton::make_ci_test(d, spec, skeleton::Compat::Pcalg, 1);
    auto gpu = cuda::make_fisher_testwise_batch(d, spec, skeleton::Compat::Pcalg, 2, 0);
    const std::vector<std::vector<std::int32_t>> sets = {{2, 1}, {}, {1}};
    const std::int32_t xs[] = {0, 4, 3}, ys[] = {3, 5, 0};
    for (std::size_t t = 0; t < sets.size(); ++t) {
        ci::QueryList q;
        q.add(1, 2, std::vector<std::int32_t>{});  // a good query before the refused one
        q.add(xs[t], ys[t], sets[t]);
        std::vector<double> stat(2), p(2);
        const std::string want = message([&] { cpu->test(xs[t], ys[t], sets[t]); });
        EXPECT_FALSE(want.empty()) << "case " << t;
        EXPECT_EQ(message([&] { gpu->run(q.view(), stat, p); }), want) << "case " << t;
    }
#endif
}

TEST(CudaTestwise, PcSearchIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const Dataset d = missing_data(60, 1500, 0.08, 0.1, 21);
    const skeleton::TestSpec spec = fisher_z();
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
    auto t0 = std::chrono::steady_clock::now();
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(*cpu, opt);
    const double cpu_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const skeleton::SkeletonResult got = skeleton::learn_skeleton(*gpu, opt);
    const double gpu_s = seconds_since(t0);
    EXPECT_TRUE(test::same_result(got, want, 0.0));
    std::printf("[testwise] PC skeleton: %zu levels, %lld edges; cpu %.3f s, gpu %.3f s\n", want.levels.size(),
                static_cast<long long>(want.skeleton.n_edges()), cpu_s, gpu_s);

    // The whole run (CPDAG too), both p-value arithmetics' orientation defaults.
    pc::PcConfig cfg;
    cfg.alpha = 0.01;
    cfg.backend.kind = BackendKind::Cpu;
    cfg.backend.threads = 4;
    const pc::PcResult a = pc::run_pc(d, cfg);
    cfg.backend.kind = BackendKind::Cuda;
    const pc::PcResult b = pc::run_pc(d, cfg);
    EXPECT_TRUE(a.skeleton == b.skeleton);
    EXPECT_TRUE(a.sepsets == b.sepsets);
    EXPECT_TRUE(a.cpdag == b.cpdag);
    ASSERT_EQ(a.pmax.size(), b.pmax.size());
    for (std::size_t k = 0; k < a.pmax.size(); ++k) {
        EXPECT_EQ(a.pmax[k].i, b.pmax[k].i);
        EXPECT_EQ(a.pmax[k].j, b.pmax[k].j);
        EXPECT_EQ(a.pmax[k].p, b.pmax[k].p);
    }
    // CMIknn with missing cells runs on the GPU too (kernels/cmi_knn_testwise_batch.cu;
    // tests/gpu/test_cuda_testwise_cmiknn.cpp).
    skeleton::TestSpec knn;
    knn.kind = skeleton::TestKind::CmiKnn;
    EXPECT_EQ(skeleton::make_engine(skeleton::EngineArgs{d, knn, opt.policy, -1, gpu_b, comm})->name(), "cuda");
#endif
}
