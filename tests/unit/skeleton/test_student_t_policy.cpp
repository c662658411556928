// SPDX-License-Identifier: Apache-2.0
// TestPolicy::student_t (bnlearn's "cor"): the CPU Fisher engine's partial correlations tested
// by the exact Student-t test. Every pMax is the t test's p-value of its pair (level 0: the
// correlation, df = m - 2; later levels: a pair's largest p over its tests, as the Fisher-z
// run's); the decisions follow p >= alpha; a GPU is never picked for it.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ci/fisher_z.hpp"
#include "ci/parcorr.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "sim/gaussian.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/engines.hpp"
#include "skeleton/skeleton.hpp"

namespace cudag::skeleton {
namespace {

TEST(StudentTPolicy, PValuesAreTheTTestsAndDecideTheSkeleton) {
    const sim::GaussianSimSpec spec{12, 30, 0.3, 7};  // few samples: the two tests differ most
    const Dataset data = sim::simulate_gaussian(spec, 0).data;
    SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    opt.policy.student_t = true;
    CpuFisherEngine engine(data, opt.policy, 2);
    SkeletonOptions level0 = opt;
    level0.max_level = 0;
    const SkeletonResult r0 = learn_skeleton(engine, level0);
    ASSERT_EQ(static_cast<std::int64_t>(r0.pmax.size()), 12 * 11 / 2);
    for (const PairP& q : r0.pmax) {
        const double r = engine.partial_correlation(q.i, q.j, {});
        EXPECT_EQ(q.p, ci::parcorr_p_value(r, 30, 2)) << q.i << "-" << q.j;
        EXPECT_EQ(r0.skeleton.has(q.i, q.j), q.p < 0.05) << q.i << "-" << q.j;
    }
    // Every level: a removed pair's separating set is independent by the t test, and each
    // p-value the engine gives is the t test's.
    const SkeletonResult all = learn_skeleton(engine, opt);
    for (const auto& [key, set] : all.sepsets.all()) {
        const std::vector<std::int32_t> s(set.begin(), set.end());
        const double p = engine.p_value(key.first, key.second, s);
        EXPECT_EQ(p, ci::parcorr_p_value(engine.partial_correlation(key.first, key.second, s), 30,
                                         static_cast<int>(s.size()) + 2));
        EXPECT_GE(p, 0.05);
    }
    // The Fisher-z run on the same data differs somewhere (else this test could not fail).
    SkeletonOptions fisher = opt;
    fisher.policy.student_t = false;
    CpuFisherEngine fz(data, fisher.policy, 2);
    const SkeletonResult f = learn_skeleton(fz, fisher);
    bool differ = false;
    for (std::size_t k = 0; k < f.pmax.size() && k < all.pmax.size(); ++k) differ |= f.pmax[k].p != all.pmax[k].p;
    EXPECT_TRUE(differ);
}

TEST(StudentTPolicy, NeverOnAGpu) {
    TestPolicy policy;
    policy.student_t = true;
    EXPECT_FALSE(picks_gpu(BackendKind::Auto, policy));
    EXPECT_FALSE(gpu_candidate(BackendKind::Cuda, policy));
    if (cuda_compiled()) {
        EXPECT_THROW(picks_gpu(BackendKind::Cuda, policy), InputError);
    }
}

}  // namespace
}  // namespace cudag::skeleton
