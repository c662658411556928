// SPDX-License-Identifier: Apache-2.0
// The CPU CMIknn skeleton engine: test ids, thread-count invariance, early stop, constant
// columns, and a nonlinear edge that the Gaussian test misses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "pc/run.hpp"
#include "sim/nonlinear.hpp"
#include "skeleton/cpu/cmi_knn_engine.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/engines.hpp"
#include "skeleton/skeleton.hpp"
#include "support/skeleton_compare.hpp"

namespace cudag {
namespace {

using ci::CmiKnnSpec;
using skeleton::CpuCmiKnnEngine;

/// Small nonlinear data: fast tests (T = 120 by default, B = 39).
Dataset small_data(std::int64_t vars, std::uint64_t seed, std::int64_t samples = 120) {
    return sim::simulate_nonlinear({vars, samples, 0.4, seed}, 1).data;
}

CmiKnnSpec fast_spec() {
    CmiKnnSpec s;
    s.knn = 0.1;
    s.permutations = 39;
    s.seed = 7;
    return s;
}

skeleton::SkeletonResult skeleton(const Dataset& data, const CmiKnnSpec& spec, int threads, double alpha = 0.05) {
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = alpha;
    opt.threads = threads;
    CpuCmiKnnEngine engine(data, opt.policy, spec, -1, threads);
    return skeleton::learn_skeleton(engine, opt);
}

TEST(CmiKnnEngine, TestIdDependsOnThePairAndTheSetOnly) {
    const std::vector<std::int32_t> s{2, 5};
    std::int32_t x = 7, y = 3;
    const std::uint64_t id = skeleton::cmi_pc_test_id(x, y, s);
    EXPECT_EQ(x, 3);
    EXPECT_EQ(y, 7);
    std::int32_t a = 3, b = 7;
    EXPECT_EQ(skeleton::cmi_pc_test_id(a, b, s), id);
    const std::vector<std::int32_t> other{2, 6}, longer{2, 5, 9}, none{};
    EXPECT_NE(skeleton::cmi_pc_test_id(a, b, other), id);
    EXPECT_NE(skeleton::cmi_pc_test_id(a, b, longer), id);
    EXPECT_NE(ci::cmi_set_key(none.data(), 0), ci::cmi_set_key(s.data(), 1));
    const std::vector<std::int32_t> zero{0};
    EXPECT_NE(ci::cmi_set_key(none.data(), 0), ci::cmi_set_key(zero.data(), 1));
}

TEST(CmiKnnEngine, ResultsIdenticalOnAnyThreadCount) {
    const Dataset data = small_data(6, 3);
    CmiKnnSpec spec = fast_spec();
    spec.early_stop = ci::CmiEarlyStop{0.05, false};
    const skeleton::SkeletonResult one = skeleton(data, spec, 1);
    EXPECT_GT(one.levels.size(), 1u) << "the data should need conditioning sets";
    EXPECT_GT(one.sepsets.size(), 0u);
    for (int threads : {2, 3}) {
        const skeleton::SkeletonResult many = skeleton(data, spec, threads);
        EXPECT_TRUE(test::same_result(many, one, 0.0)) << threads << " threads";
        for (std::size_t l = 0; l < one.levels.size(); ++l)
            EXPECT_EQ(many.levels[l].tests, one.levels[l].tests) << "level " << l;
    }
}

TEST(CmiKnnEngine, EarlyStopKeepsTheGraphAndLowersOnlyIndependentPValues) {
    const Dataset data = small_data(6, 4);
    CmiKnnSpec full = fast_spec();
    CmiKnnSpec early = full;
    early.early_stop = ci::CmiEarlyStop{0.05, false};
    const skeleton::SkeletonResult a = skeleton(data, full, 2), b = skeleton(data, early, 2);
    EXPECT_TRUE(a.skeleton == b.skeleton);
    EXPECT_TRUE(a.sepsets == b.sepsets);
    ASSERT_EQ(a.pmax.size(), b.pmax.size());
    for (std::size_t k = 0; k < a.pmax.size(); ++k) {
        EXPECT_LE(b.pmax[k].p, a.pmax[k].p);
        if (b.pmax[k].p < 0.05) {
            EXPECT_EQ(b.pmax[k].p, a.pmax[k].p) << "a dependent test ran whole";
        }
    }
}

TEST(CmiKnnEngine, PValueRepeatsTheLevelsTestExactly) {
    const Dataset data = small_data(5, 5);
    const CmiKnnSpec spec = fast_spec();
    skeleton::TestPolicy policy;
    policy.alpha = 0.05;
    CpuCmiKnnEngine engine(data, policy, spec, -1, 2);
    Graph g(5);
    skeleton::Level0Output out;
    out.dense_p.resize(10);
    engine.level0(0, 5, true, g, out);
    EXPECT_EQ(out.tests, 10);
    // Either endpoint order, and the plain CmiKnn test with the documented id.
    // Pair (1, 3) of 5: index i*n - i(i+1)/2 + (j - i - 1) of the upper triangle.
    EXPECT_EQ(engine.p_value(3, 1, {}), out.dense_p[1 * 5 - 1 + (3 - 1 - 1)]);
    EXPECT_EQ(engine.p_value(1, 3, {}), engine.p_value(3, 1, {}));
    const ci::CmiKnn cmi(data, spec, 2);
    const std::vector<std::int32_t> z{0, 4};
    EXPECT_EQ(engine.p_value(3, 1, {4, 0}),
              cmi.test(1, 3, z, ci::cmi_test_id(1, 3, ci::cmi_set_key(z.data(), 2)), 1).p);
}

TEST(CmiKnnEngine, ConstantColumnIsIndependentOfEverything) {
    Dataset data = small_data(4, 6);
    std::fill(data.column(2), data.column(2) + data.n_samples, 1.5);
    CpuCmiKnnEngine engine(data, skeleton::TestPolicy{}, fast_spec(), -1, 1);
    EXPECT_NE(engine.setup_note().find("'X3'"), std::string::npos) << engine.setup_note();
    EXPECT_EQ(engine.p_value(0, 2, {}), 1.0);
    EXPECT_EQ(engine.p_value(2, 3, {0}), 1.0);
    // As a conditioning variable it is dropped: the statistic is the marginal one.
    ci::CmiKnnWorkspace ws;
    const std::vector<std::int32_t> z{2};
    EXPECT_EQ(engine.test().statistic(0, 1, z, ws), engine.test().statistic(0, 1, {}, ws));
    EXPECT_EQ(engine.test().statistic(2, 1, {}, ws), 0.0);
    const skeleton::SkeletonResult r = skeleton(data, fast_spec(), 1);
    for (std::int64_t v = 0; v < 4; ++v) EXPECT_FALSE(r.skeleton.has(2, v));
}

// Y = X² + noise with X symmetric about 0: no correlation, strong dependence.
TEST(CmiKnnEngine, FindsAQuadraticEdgeTheGaussianTestMisses) {
    const std::int64_t m = 300;
    Dataset data;
    data.n_vars = 2;
    data.n_samples = m;
    data.names = {"x", "y"};
    data.values.resize(2 * m);
    for (std::int64_t s = 0; s < m; ++s) {
        CounterRng rng(11, static_cast<std::uint64_t>(s));
        const double x = rng.normal();
        data.values[s] = x;
        data.values[m + s] = x * x + 0.3 * rng.normal();
    }
    data.source = "quadratic";
    skeleton::TestPolicy policy;
    CpuCmiKnnEngine cmi(data, policy, fast_spec(), -1, 1);
    skeleton::CpuFisherEngine fisher(data, policy, 1);
    EXPECT_EQ(cmi.p_value(0, 1, {}), 1.0 / 40);  // no surrogate reaches the statistic
    EXPECT_GT(fisher.p_value(0, 1, {}), 0.05);
}

/// The CMIknn engine the registry builds for `kind` (skeleton::make_engine, one rank).
std::unique_ptr<skeleton::SkeletonEngine> cmiknn_engine(BackendKind kind, const Dataset& data,
                                                        const skeleton::TestPolicy& policy) {
    skeleton::TestSpec test;
    test.kind = skeleton::TestKind::CmiKnn;
    test.cmi = fast_spec();
    BackendContext backend;
    backend.kind = kind;
    backend.threads = 1;
    mpi::SerialCommunicator serial;
    return skeleton::make_engine(skeleton::EngineArgs{data, test, policy, -1, backend, serial});
}

TEST(CmiKnnEngine, BackendFollowsTheVisibleGpus) {
    const Dataset data = small_data(3, 1);
    const bool gpu = visible_gpus() > 0;
    EXPECT_FALSE(picks_gpu(BackendKind::Cpu));
    EXPECT_EQ(picks_gpu(BackendKind::Auto), gpu);
    EXPECT_EQ(cmiknn_engine(BackendKind::Auto, data, skeleton::TestPolicy{})->name(), gpu ? "cuda" : "cpu");
    EXPECT_EQ(cmiknn_engine(BackendKind::Cpu, data, skeleton::TestPolicy{})->name(), "cpu");
    if (!gpu) {
        // Not compiled, or compiled without a visible device: a one-line error either way.
        try {
            cmiknn_engine(BackendKind::Cuda, data, skeleton::TestPolicy{});
            FAIL() << "no error";
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
            EXPECT_NE(what.find("cuda"), std::string::npos) << what;
        }
    }
    // An exhaustive (causal-learn) search runs on the CPU engine only.
    skeleton::TestPolicy exhaustive;
    exhaustive.exhaustive = true;
    EXPECT_EQ(cmiknn_engine(BackendKind::Auto, data, exhaustive)->name(), "cpu");
}

TEST(CmiKnnEngine, ConfigHashCoversResolvedOptions) {
    const Dataset data = small_data(3, 2);
    pc::PcConfig a;
    a.test.kind = skeleton::TestKind::CmiKnn;
    pc::PcConfig b = a;
    b.test.cmi.knn = 24;  // 0.2 * 120: the same k
    EXPECT_EQ(pc::config_hash(data, a), pc::config_hash(data, b));
    for (auto change : std::vector<void (*)(pc::PcConfig&)>{
             [](pc::PcConfig& c) { c.test.cmi.knn = 0.1; }, [](pc::PcConfig& c) { c.test.cmi.shuffle_neighbors = 7; },
             [](pc::PcConfig& c) { c.test.cmi.permutations = 100; },
             [](pc::PcConfig& c) { c.test.cmi.transform = ci::CmiTransform::Standardize; },
             [](pc::PcConfig& c) { c.test.cmi.permute = ci::CmiPermute::X; },
             [](pc::PcConfig& c) { c.test.cmi.seed = 1; }, [](pc::PcConfig& c) { c.test.cmi_early_stop = false; }}) {
        pc::PcConfig c = a;
        change(c);
        EXPECT_NE(pc::config_hash(data, c), pc::config_hash(data, a));
    }
    pc::PcConfig f;
    f.test.kind = skeleton::TestKind::FisherZ;
    f.test.cmi.permutations = 100;  // not the test's option: no change
    pc::PcConfig g = f;
    g.test.cmi.permutations = 7;
    EXPECT_EQ(pc::config_hash(data, f), pc::config_hash(data, g));
}

}  // namespace
}  // namespace cudag
