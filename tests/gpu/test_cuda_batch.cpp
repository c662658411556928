// SPDX-License-Identifier: Apache-2.0
// SkeletonEngine::test_batch of the CUDA engines (FCI's stages after the skeleton, citest's
// batches) against the CPU CI tests (skeleton::make_ci_test): for every query, the statistic
// and the p-value bit for bit (EXPECT_EQ on doubles). Discrete: χ² and G², every dof rule,
// conditioning sets of 0..9 variables in any order, sparse strata (far more strata than
// samples), a single-level variable (causal-learn's rule), queries whose strata keys do not
// fit the device path (answered by the CPU test in the same call), a batch large enough to take
// two launches; Fisher-z with pcalg's and causal-learn's p-values; CMIknn with and without the
// early stop, x and y in either order (also on an engine made for level 0 only). Every test skips when this build has
// no CUDA or no device is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "sim/gaussian.hpp"
#include "sim/nonlinear.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/skeleton_engine.hpp"
#include "skeleton/test_spec.hpp"
#include "support/gpu.hpp"

using namespace cudag;

namespace {

#if CUDAG_HAVE_CUDA

/// Queries laid flat, as FlatQueries views them.
struct Batch {
    std::vector<std::int32_t> x, y, nodes;
    std::vector<std::int64_t> offsets{0};

    void add(std::int32_t a, std::int32_t b, const std::vector<std::int32_t>& s) {
        x.push_back(a);
        y.push_back(b);
        nodes.insert(nodes.end(), s.begin(), s.end());
        offsets.push_back(static_cast<std::int64_t>(nodes.size()));
    }
    std::size_t size() const { return x.size(); }
    std::span<const std::int32_t> set(std::size_t q) const {
        return std::span<const std::int32_t>(nodes).subspan(static_cast<std::size_t>(offsets[q]),
                                                            static_cast<std::size_t>(offsets[q + 1] - offsets[q]));
    }
    skeleton::FlatQueries view() const { return {x, y, offsets, nodes}; }
};

/// `count` queries over n variables: x != y (either order), S of 0..max_l distinct other
/// variables in random order (not sorted: the discrete tests' strata order follows S's).
Batch random_queries(std::int64_t n, int count, int max_l, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Batch b;
    std::vector<std::int32_t> perm(static_cast<std::size_t>(n));
    for (int t = 0; t < count; ++t) {
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        const int l = std::min<int>(t % (max_l + 1), static_cast<int>(n) - 2);
        b.add(perm[0], perm[1], std::vector<std::int32_t>(perm.begin() + 2, perm.begin() + 2 + l));
    }
    return b;
}

/// Discrete data: variable v has 2..max_card levels (level names "0", "1", ...), and copies
/// a neighbour's code (mod its levels) two times in three, else draws uniformly; with
/// `single`, variable 1 has one level.
Dataset discrete_data(std::int64_t n, std::int64_t m, int max_card, std::uint64_t seed, bool single = false) {
    std::mt19937_64 rng(seed);
    Dataset d;
    d.n_vars = n;
    d.n_samples = m;
    d.source = "test";
    d.values.resize(static_cast<std::size_t>(n * m));
    for (std::int64_t v = 0; v < n; ++v) {
        int card = 2 + static_cast<int>(rng() % static_cast<std::uint64_t>(max_card - 1));
        if (single && v == 1) card = 1;
        std::string name = "V";  // appended, not "V" + ...: GCC 12's -Wrestrict misfires on that at -O3
        name += std::to_string(v);
        d.names.push_back(name);
        std::vector<std::string> levels;
        for (int c = 0; c < card; ++c) levels.push_back(std::to_string(c));
        d.levels.push_back(levels);
        for (std::int64_t s = 0; s < m; ++s) {
            std::uint64_t draw = rng();
            if (v >= 2 && draw % 3 != 0)
                draw = static_cast<std::uint64_t>(d.column(v - 1 - static_cast<std::int64_t>(draw % 2))[s]);
            d.column(v)[s] = static_cast<double>(draw % static_cast<std::uint64_t>(card));
        }
    }
    return d;
}

std::string describe(const Batch& b, std::size_t q) {
    std::ostringstream os;
    os << "query " << q << ": " << b.x[q] << " _||_ " << b.y[q] << " | {";
    for (const std::int32_t v : b.set(q)) os << ' ' << v;
    os << " }";
    return os.str();
}

/// The engine's batch against the CPU test query by query, bit for bit.
void expect_batch_is_cpus(skeleton::SkeletonEngine& gpu, const Dataset& data, const skeleton::TestSpec& spec,
                          skeleton::Compat compat, const Batch& b, const std::string& what) {
    ASSERT_TRUE(gpu.test_batch(skeleton::FlatQueries{}, {}, {})) << what << ": no batch path";
    std::vector<double> stat(b.size(), -7.0), p(b.size(), -7.0);
    ASSERT_TRUE(gpu.test_batch(b.view(), stat, p)) << what;
    const std::unique_ptr<ci::CiTest> cpu = skeleton::make_ci_test(data, spec, compat, 1);
    int failures = 0;
    for (std::size_t q = 0; q < b.size() && failures < 10; ++q) {
        const ci::CiOutcome o = cpu->test(b.x[q], b.y[q], b.set(q));
        EXPECT_EQ(stat[q], o.statistic) << what << ", " << describe(b, q);
        EXPECT_EQ(p[q], o.p) << what << ", " << describe(b, q);
        failures += stat[q] != o.statistic || p[q] != o.p;
    }
    // What the batch exercised (a batch of p = 1 only would prove little).
    const auto inner = std::count_if(p.begin(), p.end(), [](double v) { return v > 0.0 && v < 1.0; });
    const auto small = std::count_if(p.begin(), p.end(), [](double v) { return v < 0.01; });
    std::printf("[batch] %s: %zu queries, %td with 0 < p < 1, %td with p < 0.01\n", what.c_str(), b.size(), inner,
                small);
    EXPECT_GT(inner, 0) << what;
    // The second half alone (offsets not starting at 0, as a rank's share of a batch).
    const std::size_t h = b.size() / 2;
    std::vector<double> stat2(b.size() - h, -7.0), p2(b.size() - h, -7.0);
    const auto nb = static_cast<std::size_t>(b.offsets[h]);
    ASSERT_TRUE(gpu.test_batch(skeleton::FlatQueries{std::span<const std::int32_t>(b.x).subspan(h),
                                                     std::span<const std::int32_t>(b.y).subspan(h),
                                                     std::span<const std::int64_t>(b.offsets).subspan(h),
                                                     std::span<const std::int32_t>(b.nodes).subspan(nb)},
                               stat2, p2));
    for (std::size_t q = 0; q < stat2.size(); ++q) {
        ASSERT_EQ(stat2[q], stat[h + q]) << what << ", second half, " << describe(b, h + q);
        ASSERT_EQ(p2[q], p[h + q]) << what << ", second half, " << describe(b, h + q);
    }
}

skeleton::TestSpec discrete_spec(ci::DiscreteStat stat, ci::DofRule dof) {
    skeleton::TestSpec spec;
    spec.kind = stat == ci::DiscreteStat::ChiSquare ? skeleton::TestKind::ChiSquare : skeleton::TestKind::GSquare;
    spec.discrete = {stat, dof};
    return spec;
}

const ci::DofRule kRules[] = {ci::DofRule::Gpupc, ci::DofRule::Pcalg, ci::DofRule::CausalLearn};
const ci::DiscreteStat kStats[] = {ci::DiscreteStat::ChiSquare, ci::DiscreteStat::GSquare};

std::string rule_name(ci::DiscreteStat s, ci::DofRule r) {
    return std::string(s == ci::DiscreteStat::ChiSquare ? "chi-square" : "g-square") + "/" +
           (r == ci::DofRule::Gpupc   ? "gpupc"
            : r == ci::DofRule::Pcalg ? "pcalg"
                                      : "causal-learn");
}
#endif

}  // namespace

// |S| = 0..9 over variables of 2..6 levels and 400 samples: from dense tables to strata far
// outnumbering the samples; every statistic and dof rule.
TEST(CudaBatch, DiscreteTestBatchIsTheCpusBitForBit) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const Dataset data = discrete_data(24, 400, 6, 3);
    const Batch b = random_queries(data.n_vars, 600, 9, 17);
    for (const ci::DiscreteStat stat : kStats)
        for (const ci::DofRule dof : kRules) {
            const skeleton::TestSpec spec = discrete_spec(stat, dof);
            auto gpu = cuda::make_discrete_engine(data, skeleton::TestPolicy{}, spec.discrete);
            expect_batch_is_cpus(*gpu, data, spec, skeleton::Compat::Pcalg, b, rule_name(stat, dof));
        }
#endif
}

// Many levels (up to 40: tables of 1,600 cells), few samples (pcalg's n < 10·df rule gives
// p = 1 for many), and a variable with a single level under causal-learn's rule.
TEST(CudaBatch, DiscreteManyLevelsAndSingleLevelAreTheCpus) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const Dataset wide = discrete_data(12, 300, 40, 5);
    const Batch b = random_queries(wide.n_vars, 300, 4, 23);
    for (const ci::DiscreteStat stat : kStats)
        for (const ci::DofRule dof : kRules) {
            const skeleton::TestSpec spec = discrete_spec(stat, dof);
            auto gpu = cuda::make_discrete_engine(wide, skeleton::TestPolicy{}, spec.discrete);
            expect_batch_is_cpus(*gpu, wide, spec, skeleton::Compat::Pcalg, b, "40 levels, " + rule_name(stat, dof));
        }
    const Dataset single = discrete_data(10, 250, 4, 9, true);
    Batch s = random_queries(single.n_vars, 200, 5, 29);
    s.add(1, 4, {});
    s.add(3, 1, {2, 5});
    s.add(0, 2, {1});
    for (const ci::DiscreteStat stat : kStats) {
        const skeleton::TestSpec spec = discrete_spec(stat, ci::DofRule::CausalLearn);
        auto gpu = cuda::make_discrete_engine(single, skeleton::TestPolicy{}, spec.discrete);
        expect_batch_is_cpus(*gpu, single, spec, skeleton::Compat::Pcalg, s,
                             "single level, " + rule_name(stat, ci::DofRule::CausalLearn));
    }
#endif
}

// Conditioning sets of 64 binary variables (2^64 strata keys: beyond the device path's 62
// bits) mixed with small ones: the big ones are answered by the CPU test inside the call,
// the others by the device, each in its place.
TEST(CudaBatch, DiscreteQueriesTooBigForTheDeviceAreTheCpus) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const Dataset data = discrete_data(70, 300, 2, 41);
    Batch b = random_queries(data.n_vars, 60, 6, 43);
    std::mt19937_64 rng(47);
    std::vector<std::int32_t> perm(static_cast<std::size_t>(data.n_vars));
    for (int t = 0; t < 12; ++t) {
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        const int l = 60 + t % 6;  // 2^60 .. 2^65 strata keys: both sides of the limit
        b.add(perm[0], perm[1], std::vector<std::int32_t>(perm.begin() + 2, perm.begin() + 2 + l));
    }
    for (const ci::DiscreteStat stat : kStats)
        for (const ci::DofRule dof : kRules) {
            const skeleton::TestSpec spec = discrete_spec(stat, dof);
            auto gpu = cuda::make_discrete_engine(data, skeleton::TestPolicy{}, spec.discrete);
            expect_batch_is_cpus(*gpu, data, spec, skeleton::Compat::Pcalg, b, "big sets, " + rule_name(stat, dof));
        }
#endif
}

// A batch whose scratch exceeds one launch's budget (1 GiB: about 11,000 queries of 2,000
// samples): the launches' answers are the CPU's as one launch's are.
TEST(CudaBatch, DiscreteLargeBatchIsTheCpus) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const Dataset data = discrete_data(16, 2000, 4, 51);
    const Batch b = random_queries(data.n_vars, 12000, 3, 53);
    for (const ci::DiscreteStat stat : kStats) {
        const skeleton::TestSpec spec = discrete_spec(stat, ci::DofRule::Pcalg);
        auto gpu = cuda::make_discrete_engine(data, skeleton::TestPolicy{}, spec.discrete);
        expect_batch_is_cpus(*gpu, data, spec, skeleton::Compat::Pcalg, b,
                             "12000 queries, " + rule_name(stat, ci::DofRule::Pcalg));
    }
#endif
}

// Fisher-z: r and p of every query, |S| = 0..12, pcalg's and causal-learn's p-values.
TEST(CudaBatch, FisherTestBatchIsTheCpusBitForBit) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const std::int64_t n = 40, m = 300;
    const Dataset data = sim::simulate_gaussian({n, m, 4.0 / static_cast<double>(n - 1), 61}, 0).data;
    const Batch b = random_queries(n, 1500, 12, 67);
    skeleton::TestSpec spec;
    spec.kind = skeleton::TestKind::FisherZ;
    for (const bool cl : {false, true}) {
        skeleton::TestPolicy policy;
        policy.causal_learn_pvalue = cl;
        auto gpu = cuda::make_fisher_engine(data, policy, {});
        expect_batch_is_cpus(*gpu, data, spec, cl ? skeleton::Compat::CausalLearn : skeleton::Compat::Pcalg, b,
                             cl ? "fisher-z, causal-learn p" : "fisher-z");
    }
#endif
}

// CMIknn: statistic and p of every query (x and y in either order, |S| = 0..3), with and
// without the early stop; an engine made for level 0 only answers conditional queries too.
TEST(CudaBatch, CmiKnnTestBatchIsTheCpusBitForBit) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const Dataset data = sim::simulate_nonlinear({8, 200, 0.4, 71}, 1).data;
    const Batch b = random_queries(data.n_vars, 40, 3, 73);
    struct Case {
        bool early;
        int max_level, shuffle;
    };
    // The last: a level-0 engine with more shuffle neighbours than the kernels hold answers
    // its conditional queries with the host reference.
    for (const Case c : {Case{false, -1, 5}, Case{true, -1, 5}, Case{false, 0, 5}, Case{true, 0, 80}}) {
        skeleton::TestSpec spec;
        spec.kind = skeleton::TestKind::CmiKnn;
        spec.cmi.knn = 0.1;
        spec.cmi.permutations = 49;
        spec.cmi.shuffle_neighbors = c.shuffle;
        spec.cmi.seed = 7;
        if (c.early) spec.cmi.early_stop = ci::CmiEarlyStop{0.05, false};
        auto gpu = cuda::make_cmiknn_engine(data, skeleton::TestPolicy{}, spec.cmi, c.max_level);
        expect_batch_is_cpus(*gpu, data, spec, skeleton::Compat::Pcalg, b,
                             "cmiknn" + std::string(c.early ? ", early stop" : "") +
                                 (c.max_level == 0 ? ", level-0 engine" : "") + ", shuffle " +
                                 std::to_string(c.shuffle));
    }
#endif
}
