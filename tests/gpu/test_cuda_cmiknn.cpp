// SPDX-License-Identifier: Apache-2.0
// CUDA CMIknn (kernels/cmi_knn_batch_engine.cu, cmi_knn_engine.cu) against the CPU reference ci::CmiKnn:
// the same statistic, p-value, surrogate and exceedance counts, bit for bit, for every
// transform, both permuted sides, both tie rules, |Z| = 0..4, k on each of the kernel's
// paths (a register list of 8 for k < 8, radix select; window and all-pairs kernels) and with and without the early
// stop; then whole skeletons (graph, separating sets, pMax) equal to the CPU engine's. Every test skips when this build
// has no CUDA or no device is visible.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/nonlinear.hpp"
#include "skeleton/cpu/cmi_knn_engine.hpp"
#include "skeleton/skeleton.hpp"
#include "support/gpu.hpp"
#include "support/skeleton_compare.hpp"

using namespace cudag;

namespace {

#if CUDAG_HAVE_CUDA
using test::seconds_since;

Dataset nonlinear(std::int64_t vars, std::int64_t samples, std::uint64_t seed) {
    return sim::simulate_nonlinear({vars, samples, 0.4, seed}, 1).data;
}

/// Queries over the data's variables with conditioning sets of size 0..max_z.
std::vector<cuda::CmiKnnQuery> queries(std::int64_t vars, int max_z) {
    std::vector<cuda::CmiKnnQuery> out;
    for (int l = 0; l <= max_z; ++l)
        for (std::int32_t x = 0; x + 1 < vars && x < 3; ++x) {
            cuda::CmiKnnQuery q;
            q.x = x;
            q.y = static_cast<std::int32_t>(vars - 1 - x);
            for (std::int32_t v = 0; v < vars && static_cast<int>(q.z.size()) < l; ++v)
                if (v != q.x && v != q.y) q.z.push_back(v);
            q.test_id = ci::cmi_test_id(q.x, q.y, ci::cmi_set_key(q.z.data(), l));
            out.push_back(q);
        }
    return out;
}

void expect_same(const Dataset& data, const ci::CmiKnnSpec& spec, int max_z, const std::string& what,
                 const std::optional<ci::CmiEarlyStop>& early) {
    auto gpu = cuda::make_cmiknn_gpu(data, spec, max_z);
    const ci::CmiKnn& cpu = gpu->reference();
    const std::vector<cuda::CmiKnnQuery> qs = queries(data.n_vars, max_z);
    // One batch of mixed |Z| (the all-pairs kernel) and one batch per |Z| (a PC level's
    // shape: on ranks with small k the window kernel up to |Z| = 2).
    const std::vector<ci::CmiKnnResult> mixed = gpu->run(qs, early);
    ASSERT_EQ(mixed.size(), qs.size());
    std::vector<ci::CmiKnnResult> got;
    for (int l = 0; l <= max_z; ++l) {
        std::vector<cuda::CmiKnnQuery> level;
        for (const auto& q : qs)
            if (static_cast<int>(q.z.size()) == l) level.push_back(q);
        for (const auto& r : gpu->run(level, early)) got.push_back(r);
    }
    ASSERT_EQ(got.size(), qs.size());
    std::vector<ci::CmiKnnWorkspace> ws(2);
    for (std::size_t a = 0; a < qs.size(); ++a) {
        const ci::CmiKnnResult want =
            cpu.test(qs[a].x, qs[a].y, qs[a].z, qs[a].test_id, std::span<ci::CmiKnnWorkspace>(ws), early);
        const std::string where = what + " query " + std::to_string(a) + " |Z|=" + std::to_string(qs[a].z.size());
        EXPECT_EQ(got[a].statistic, want.statistic) << where;
        EXPECT_EQ(got[a].p, want.p) << where;
        EXPECT_EQ(got[a].surrogates, want.surrogates) << where;
        EXPECT_EQ(got[a].exceedances, want.exceedances) << where;
        EXPECT_EQ(got[a].early_stopped, want.early_stopped) << where;
        EXPECT_EQ(mixed[a].statistic, want.statistic) << where << " (mixed batch)";
        EXPECT_EQ(mixed[a].p, want.p) << where << " (mixed batch)";
    }
}
#endif

}  // namespace

TEST(CudaCmiKnn, TestsEqualTheCpuReference) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const Dataset data = nonlinear(7, 200, 3);
    struct Case {
        double knn;
        ci::CmiTransform transform;
        ci::CmiPermute permute;
        ci::CmiTieBreak ties;
        int shuffle;
    };
    const Case cases[] = {
        {7, ci::CmiTransform::Ranks, ci::CmiPermute::Y, ci::CmiTieBreak::Noise, 5},    // list of 8
        {20, ci::CmiTransform::Ranks, ci::CmiPermute::X, ci::CmiTieBreak::Noise, 15},  // radix
        {0.2, ci::CmiTransform::Ranks, ci::CmiPermute::Y, ci::CmiTieBreak::Noise, 5},  // radix
        {0.1, ci::CmiTransform::Uniform, ci::CmiPermute::Y, ci::CmiTieBreak::Index, 3},
        {10, ci::CmiTransform::Standardize, ci::CmiPermute::Y, ci::CmiTieBreak::Noise, 5},
        {0.2, ci::CmiTransform::None, ci::CmiPermute::X, ci::CmiTieBreak::Noise, 7},
    };
    for (const Case& c : cases) {
        ci::CmiKnnSpec spec;
        spec.knn = c.knn;
        spec.transform = c.transform;
        spec.permute = c.permute;
        spec.tie_break = c.ties;
        spec.shuffle_neighbors = c.shuffle;
        spec.permutations = 99;
        spec.seed = 11;
        const std::string what = "knn=" + std::to_string(c.knn) + " " + ci::to_string(c.transform);
        expect_same(data, spec, 4, what, std::nullopt);
        expect_same(data, spec, 2, what + " early stop", ci::CmiEarlyStop{0.05, false});
    }
#endif
}

TEST(CudaCmiKnn, TiedAndConstantColumnsEqualTheCpuReference) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    Dataset data = nonlinear(6, 200, 5);
    for (std::int64_t t = 0; t < data.n_samples; ++t) {
        data.values[1 * data.n_samples + t] = std::round(data.values[1 * data.n_samples + t]);  // ties
        data.values[4 * data.n_samples + t] = 2.5;                                              // constant
    }
    ci::CmiKnnSpec spec;
    spec.knn = 0.1;
    spec.permutations = 49;
    expect_same(data, spec, 3, "ties+constant", std::nullopt);
    spec.transform = ci::CmiTransform::None;
    expect_same(data, spec, 3, "ties+constant none", ci::CmiEarlyStop{0.01, true});
#endif
}

TEST(CudaCmiKnn, SkeletonEqualsTheCpuEngine) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    for (const std::uint64_t seed : {1u, 2u}) {
        const Dataset data = nonlinear(10, 250, seed);
        ci::CmiKnnSpec spec;
        spec.knn = 7;
        spec.shuffle_neighbors = 15;
        spec.permutations = 99;
        spec.seed = seed;
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = 0.05;
        spec.early_stop = ci::CmiEarlyStop{opt.policy.alpha, opt.policy.strict};
        skeleton::CpuCmiKnnEngine cpu(data, opt.policy, spec, -1, 0);
        auto t0 = std::chrono::steady_clock::now();
        const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
        const double cpu_s = seconds_since(t0);
        auto gpu = cuda::make_cmiknn_engine(data, opt.policy, spec, -1);
        t0 = std::chrono::steady_clock::now();
        const skeleton::SkeletonResult got = skeleton::learn_skeleton(*gpu, opt);
        const double gpu_s = seconds_since(t0);
        EXPECT_TRUE(test::same_result(got, want, 0.0)) << "seed " << seed;
        EXPECT_GT(want.levels.size(), 1u);
        std::printf("[parity] cmiknn seed %llu: %zu levels, %lld edges, %zu sepsets; cpu %.3f s, gpu %.3f s\n",
                    static_cast<unsigned long long>(seed), want.levels.size(),
                    static_cast<long long>(want.skeleton.n_edges()), want.sepsets.size(), cpu_s, gpu_s);
    }
#endif
}
