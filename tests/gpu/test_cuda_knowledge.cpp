// SPDX-License-Identifier: Apache-2.0
// Background knowledge on the CUDA engines (issue 23): with forbidden and required pairs the GPU
// search gives the CPU's skeleton, separating sets (exactly) and pMax (Fisher-z bit for bit,
// discrete within 1e-9 relative): the Fisher-z engine with its device-resident results (pMax,
// separating sets and snapshots kept on the GPU, level 0's adjacency handed over as level 1's
// snapshot), dense and sparse pMax, and the discrete engine. One case swaps two level-0 edges for
// two non-edges so that every row keeps its degree: level 1's snapshot then has level 0's row
// offsets but other neighbours, which the engine must not take for its own copy. Every test skips
// when this build has no CUDA or no device is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "cudag/config.hpp"
#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"
#include "skeleton/cpu/discrete_engine.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/skeleton.hpp"
#include "support/gpu.hpp"
#include "support/skeleton_compare.hpp"

#if CUDAG_HAVE_CUDA
#include "kernels/engines.hpp"
#endif

using namespace cudag;

namespace {

#if CUDAG_HAVE_CUDA
using Pairs = std::vector<std::pair<std::int32_t, std::int32_t>>;

/// Knowledge over a level-0 graph `g0` and a free search's skeleton: every fifth pair of
/// the skeleton forbidden, a few pairs removed at level 0 or later required.
void pick(const Graph& g0, const skeleton::SkeletonResult& free_run, Pairs& forbidden, Pairs& required) {
    int adjacent = 0, removed0 = 0, later = 0;
    for (std::int32_t i = 0; i < g0.n(); ++i)
        for (std::int32_t j = i + 1; j < g0.n(); ++j) {
            if (free_run.skeleton.has(i, j)) {
                if (adjacent++ % 5 == 0) forbidden.push_back({i, j});
            } else if (!g0.has(i, j) ? removed0++ % 400 == 0 : later++ % 30 == 0) {
                required.push_back({i, j});
            }
        }
}

/// Two level-0 edges a - b, c - d (four distinct nodes) and the non-edges a - c, b - d:
/// forbidding the edges and requiring the non-edges keeps every degree.
bool degree_preserving_swap(const Graph& g0, Pairs& forbidden, Pairs& required) {
    const std::int32_t n = static_cast<std::int32_t>(g0.n());
    for (std::int32_t a = 0; a < n; ++a)
        for (std::int32_t b = a + 1; b < n; ++b) {
            if (!g0.has(a, b)) continue;
            for (std::int32_t c = a + 1; c < n; ++c) {
                if (c == b || g0.has(a, c)) continue;
                for (std::int32_t d = 0; d < n; ++d) {
                    if (d == a || d == b || d == c || !g0.has(c, d) || g0.has(b, d)) continue;
                    forbidden = {std::minmax(a, b), std::minmax(c, d)};
                    required = {std::minmax(a, c), std::minmax(b, d)};
                    std::sort(forbidden.begin(), forbidden.end());
                    std::sort(required.begin(), required.end());
                    return true;
                }
            }
        }
    return false;
}

void sort_unique(Pairs& p) {
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
}
#endif

}  // namespace

TEST(CudaKnowledge, FisherWithKnowledgeIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const std::int64_t n = 300, m = 800;
    const Dataset data = sim::simulate_gaussian({n, m, 6.0 / static_cast<double>(n - 1), 21}, 0).data;
    for (const bool sparse : {false, true}) {
        SCOPED_TRACE(sparse ? "sparse pMax" : "dense pMax");
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = 0.01;
        if (sparse) opt.dense_pmax_limit = 0;
        skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
        skeleton::SkeletonOptions level0 = opt;
        level0.max_level = 0;
        const Graph g0 = skeleton::learn_skeleton(cpu, level0).skeleton;
        const skeleton::SkeletonResult free_run = skeleton::learn_skeleton(cpu, opt);
        for (int kind = 0; kind < 2; ++kind) {
            SCOPED_TRACE(kind == 0 ? "random pairs" : "degree-preserving swap");
            skeleton::SkeletonOptions ko = opt;
            if (kind == 0) {
                pick(g0, free_run, ko.forbidden_pairs, ko.required_pairs);
            } else {
                ASSERT_TRUE(degree_preserving_swap(g0, ko.forbidden_pairs, ko.required_pairs));
            }
            sort_unique(ko.forbidden_pairs);
            sort_unique(ko.required_pairs);
            const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, ko);
            ASSERT_GE(want.levels.size(), 3u);
            for (auto [i, j] : ko.forbidden_pairs) EXPECT_FALSE(want.skeleton.has(i, j));
            for (auto [i, j] : ko.required_pairs) EXPECT_TRUE(want.skeleton.has(i, j));
            for (char variant : {'s', 'e'}) {
                cuda::FisherTunables t;
                t.variant = variant;
                auto gpu = cuda::make_fisher_engine(data, opt.policy, t);  // level 0 on the GPU
                ASSERT_NE(gpu->device_results(), nullptr);
                EXPECT_TRUE(test::same_result(skeleton::learn_skeleton(*gpu, ko), want, 0.0)) << variant;
                // Run twice on one engine: nothing of the first search is taken for the second.
                EXPECT_TRUE(test::same_result(skeleton::learn_skeleton(*gpu, opt), free_run, 0.0)) << variant;
                EXPECT_TRUE(test::same_result(skeleton::learn_skeleton(*gpu, ko), want, 0.0)) << variant;
            }
        }
    }
#endif
}

TEST(CudaKnowledge, DiscreteWithKnowledgeIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const sim::BayesNet net = sim::random_network({40, 3000, 0.1, 3, 4});
    const Dataset data = sim::forward_sample(net, 3000, 4, 0);
    const ci::DiscreteTestSpec test{ci::DiscreteStat::GSquare, ci::DofRule::Pcalg};
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    skeleton::CpuDiscreteEngine cpu(data, opt.policy, test, 0);
    skeleton::SkeletonOptions level0 = opt;
    level0.max_level = 0;
    const Graph g0 = skeleton::learn_skeleton(cpu, level0).skeleton;
    pick(g0, skeleton::learn_skeleton(cpu, opt), opt.forbidden_pairs, opt.required_pairs);
    sort_unique(opt.forbidden_pairs);
    sort_unique(opt.required_pairs);
    ASSERT_FALSE(opt.forbidden_pairs.empty());
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
    auto gpu = cuda::make_discrete_engine(data, opt.policy, test, {});
    EXPECT_TRUE(test::same_result(skeleton::learn_skeleton(*gpu, opt), want, 1e-9));
#endif
}
