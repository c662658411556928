// SPDX-License-Identifier: Apache-2.0
// CUDA discrete engine (kernels/pc_discrete.cu) against the CPU reference engine: the same
// skeleton, the same separating sets (exactly) and pMax (within 1e-9 relative) on
// causal-learn's data_discrete_10, its 13 bnlearn network samples and simulated data with up to
// 20 states, for χ² and G² and each dof rule, and on factors declaring levels no row takes
// (bnlearn's face counts them). Every test skips when this build has no CUDA
// or no device is visible (or, for the reference data, when ../shared is absent).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "io/dataset_io.hpp"
#include "sim/discrete.hpp"
#include "skeleton/cpu/discrete_engine.hpp"
#include "skeleton/skeleton.hpp"
#include "support/gpu.hpp"
#include "support/paths.hpp"
#include "support/skeleton_compare.hpp"

using namespace cudag;

namespace {

#if CUDAG_HAVE_CUDA
using test::seconds_since;

/// Runs the CPU and the GPU engine on `data` and compares.
void expect_parity(const Dataset& data, const ci::DiscreteTestSpec& spec, double alpha, const std::string& what,
                   const cuda::DiscreteTunables& t = {}) {
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = alpha;
    skeleton::CpuDiscreteEngine cpu(data, opt.policy, spec, 0);
    auto t0 = std::chrono::steady_clock::now();
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
    const double cpu_s = seconds_since(t0);
    auto gpu = cuda::make_discrete_engine(data, opt.policy, spec, t);
    t0 = std::chrono::steady_clock::now();
    const skeleton::SkeletonResult got = skeleton::learn_skeleton(*gpu, opt);
    const double gpu_s = seconds_since(t0);
    EXPECT_TRUE(test::same_result(got, want, 1e-9)) << what;
    std::printf("[parity] %s: %zu levels, %lld edges, %zu sepsets; cpu %.3f s, gpu %.3f s\n", what.c_str(),
                want.levels.size(), static_cast<long long>(want.skeleton.n_edges()), want.sepsets.size(), cpu_s, gpu_s);
}
#endif

const ci::DiscreteTestSpec kSpecs[] = {
    {ci::DiscreteStat::ChiSquare, ci::DofRule::Gpupc},        {ci::DiscreteStat::GSquare, ci::DofRule::Pcalg},
    {ci::DiscreteStat::ChiSquare, ci::DofRule::CausalLearn},  {ci::DiscreteStat::GSquare, ci::DofRule::BnlearnAdf},
    {ci::DiscreteStat::ChiSquare, ci::DofRule::PcalgAdaptDf},
};

}  // namespace

TEST(CudaDiscrete, DiscreteTenIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const std::string shared = test::shared_data_dir();
    if (shared.empty()) GTEST_SKIP() << "../shared/data/causal-learn not found";
    const Dataset d = io::read_dataset(shared + "/causal-learn/data_discrete_10.txt", "", io::TableMode::Labels);
    for (const auto& spec : kSpecs) expect_parity(d, spec, 0.05, "discrete_10");
#endif
}

// Every bnlearn network sample of causal-learn's benchmark (10,000 rows each).
class CudaDiscreteBnlearn : public testing::TestWithParam<const char*> {};

TEST_P(CudaDiscreteBnlearn, IsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const std::string shared = test::shared_data_dir();
    if (shared.empty()) GTEST_SKIP() << "../shared/data/causal-learn not found";
    const std::string net = GetParam();
    const Dataset d = io::read_dataset(shared + "/causal-learn/bnlearn_discrete_10000/data/" + net + ".txt", "",
                                       io::TableMode::Labels);
    // The causal-learn rule defines tests of single-level variables; the others reject them.
    expect_parity(d, kSpecs[2], 0.05, net);
    bool single_level = false;
    for (const auto& lv : d.levels) single_level = single_level || lv.size() < 2;
    if (!single_level) expect_parity(d, kSpecs[1], 0.05, net);
#endif
}

INSTANTIATE_TEST_SUITE_P(Networks, CudaDiscreteBnlearn,
                         testing::Values("alarm", "asia", "barley", "cancer", "child", "earthquake", "hailfinder",
                                         "hepar2", "insurance", "sachs", "survey", "water", "win95pts"),
                         [](const testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST(CudaDiscrete, SimulatedManyStatesIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    struct Case {
        std::int64_t n, m;
        double density;
        int states;
        std::uint64_t seed;
    };
    for (const Case c : {Case{60, 3000, 0.06, 4, 1}, Case{40, 5000, 0.08, 20, 2}, Case{200, 2000, 0.02, 8, 3}}) {
        const sim::BayesNet net = sim::random_network({c.n, c.m, c.density, c.states, c.seed});
        const Dataset d = sim::forward_sample(net, c.m, c.seed, 0);
        const std::string what = "sim n=" + std::to_string(c.n) + " states<=" + std::to_string(c.states);
        for (const auto& spec : kSpecs) expect_parity(d, spec, 0.01, what);
        // Another launch shape: δ = 32 threads per table, γ = 1 test per block.
        expect_parity(d, kSpecs[0], 0.01, what + " gamma=1", cuda::DiscreteTunables{32, 1});
    }
#endif
}

// bnlearn's face keeps a factor's declared levels though no row takes them (a subset of a data
// frame, rbn samples of rare states): codes beyond every row's, which widen the tables and the
// Gpupc df on both engines alike.
TEST(CudaDiscrete, UnusedDeclaredLevelsIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const sim::BayesNet net = sim::random_network({30, 2000, 0.08, 4, 7});
    Dataset d = sim::forward_sample(net, 2000, 7, 0);
    for (std::size_t v = 0; v < d.levels.size(); v += 3) {
        d.levels[v].push_back("unused_a");
        if (v % 2 == 0) d.levels[v].push_back("unused_b");
    }
    for (const auto& spec : kSpecs) expect_parity(d, spec, 0.01, "declared levels");
#endif
}
