// SPDX-License-Identifier: Apache-2.0
// The cg-lrt test's GPU batches (kernels/cg_lrt_batch.cu) against ci::cg_lrt: for every query
// the statistic and the p-value bit for bit (EXPECT_EQ on doubles). Random mixed data (several
// seeds, 200..5000 rows, discrete variables of 2..5 levels, one with a level of a few rows
// only: tiny strata left out; one with a declared level no row holds), conditioning sets of
// 0..3 variables in any order, x and y either way round; all-continuous and all-discrete data;
// queries beyond the kernel's limits (answered by the CPU in the same call); a singular
// stratum and a refused value (the CPU's one-line errors); the batch as make_gpu_batch_test
// gives it for --backend cuda. Every test skips when this build has no CUDA or no device is
// visible.
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
#include "ci/cg_lrt.hpp"
#include "core/error.hpp"
#include "mpi/communicator.hpp"
#include "pc/run.hpp"
#include "skeleton/engines.hpp"
#include "skeleton/skeleton.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/test_spec.hpp"
#include "support/gpu.hpp"
#include "support/skeleton_compare.hpp"

using namespace cudag;

namespace {

#if CUDAG_HAVE_CUDA

/// Mixed data of m rows: variables 0, 3, 6, ... discrete (2..5 levels, drawn from the
/// variable before when there is one), the others continuous (a linear mix of the two
/// variables before, shifted by a discrete parent's level, plus noise). With `rare`, the
/// first discrete variable of 4 or more levels holds its last level in 3 rows only; variable
/// `unused` (discrete) declares one level more than its rows hold.
Dataset mixed_data(std::int64_t n, std::int64_t m, std::uint64_t seed, bool rare = true, int unused = 3) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    Dataset d;
    d.n_vars = n;
    d.n_samples = m;
    d.source = "test";
    d.values.resize(static_cast<std::size_t>(n * m));
    d.levels.resize(static_cast<std::size_t>(n));
    bool rare_done = !rare;
    for (std::int64_t v = 0; v < n; ++v) {
        std::string name = "V";
        name += std::to_string(v);
        d.names.push_back(name);
        double* c = d.column(v);
        if (v % 3 == 0) {
            const int card = 2 + static_cast<int>(rng() % 4);
            const int used = v == unused ? card - 1 : card;
            for (int l = 0; l < card; ++l) {
                std::string label = "L";  // appended: GCC 12's -Wrestrict misfires on "L" + ...
                label += std::to_string(l);
                d.levels[static_cast<std::size_t>(v)].push_back(label);
            }
            for (std::int64_t r = 0; r < m; ++r) {
                const std::uint64_t draw = rng();
                int code = static_cast<int>(draw % static_cast<std::uint64_t>(used));
                if (v > 0 && draw % 3 == 0) code = static_cast<int>(std::fabs(d.column(v - 1)[r]) * 2.0) % used;
                c[r] = code;
            }
            if (!rare_done && used >= 4) {
                rare_done = true;
                for (std::int64_t r = 0; r < m; ++r)
                    if (c[r] == used - 1) c[r] = 0;
                for (std::int64_t r = 0; r < 3; ++r) c[(r * 7919 + 11) % m] = used - 1;
            }
        } else {
            const double b1 = 0.3 + 0.1 * static_cast<double>(v % 5), b2 = -0.2;
            for (std::int64_t r = 0; r < m; ++r) {
                double x = z(rng) * (1.0 + static_cast<double>(v % 4));
                if (v >= 1) x += b1 * d.column(v - 1)[r];
                if (v >= 2) x += b2 * d.column(v - 2)[r];
                x += 10.0 * static_cast<double>(v % 7);
                c[r] = x;
            }
        }
    }
    return d;
}

/// Every column continuous (levels empty) or every column discrete.
Dataset all_of_one_kind(std::int64_t n, std::int64_t m, std::uint64_t seed, bool discrete) {
    Dataset d = mixed_data(n, m, seed, false, -1);
    if (discrete) {
        for (std::int64_t v = 0; v < n; ++v) {
            auto& lv = d.levels[static_cast<std::size_t>(v)];
            if (!lv.empty()) continue;
            lv = {"a", "b", "c"};
            double* c = d.column(v);
            for (std::int64_t r = 0; r < m; ++r)
                c[r] = static_cast<double>(static_cast<std::int64_t>(std::fabs(c[r]) * 3.0) % 3);
        }
    } else {
        std::normal_distribution<double> z(0.0, 1.0);
        std::mt19937_64 rng(seed + 99);
        for (std::int64_t v = 0; v < n; v += 3)
            for (std::int64_t r = 0; r < m; ++r) d.column(v)[r] += 0.5 * z(rng);
        d.levels.clear();
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

/// The batch against ci::cg_lrt query by query, bit for bit; returns the queries with 0 < p < 1.
std::int64_t expect_batch_is_cpus(ci::BatchTest& gpu, const Dataset& data, const ci::QueryList& b,
                                  const std::string& what) {
    std::vector<double> stat(b.size(), -7.0), p(b.size(), -7.0);
    gpu.run(b.view(), stat, p);
    int failures = 0;
    std::int64_t inner = 0;
    for (std::size_t q = 0; q < b.size() && failures < 10; ++q) {
        const ci::CgLrtResult r = ci::cg_lrt(data, b.x[q], b.y[q], b.set(q));
        EXPECT_EQ(stat[q], r.statistic) << what << ", " << describe(b, q);
        EXPECT_EQ(p[q], r.p) << what << ", " << describe(b, q);
        failures += stat[q] != r.statistic || p[q] != r.p;
        inner += r.p > 0.0 && r.p < 1.0;
    }
    // A slice (offsets not starting at 0, as a rank's share of a batch).
    const std::size_t h = b.size() / 2;
    std::vector<double> stat2(b.size() - h, -7.0), p2(b.size() - h, -7.0);
    gpu.run(b.view().slice(h, b.size()), stat2, p2);
    for (std::size_t q = h; q < b.size() && failures < 10; ++q) {
        EXPECT_EQ(stat2[q - h], stat[q]) << what << " (second half), " << describe(b, q);
        EXPECT_EQ(p2[q - h], p[q]) << what << " (second half), " << describe(b, q);
        failures += stat2[q - h] != stat[q] || p2[q - h] != p[q];
    }
    std::printf("[cg-lrt batch] %s: %zu queries, %lld with 0 < p < 1\n", what.c_str(), b.size(),
                static_cast<long long>(inner));
    return inner;
}

TEST(CudaCgLrt, BatchIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    struct Case {
        std::int64_t n, m;
        std::uint64_t seed;
    };
    for (const Case c : {Case{12, 200, 1}, Case{15, 1000, 2}, Case{12, 5000, 3}, Case{20, 777, 4}, Case{9, 2500, 5}}) {
        const Dataset data = mixed_data(c.n, c.m, c.seed);
        const auto gpu = cuda::make_cg_lrt_batch(data, 0, 4);
        const ci::QueryList b = random_queries(c.n, 400, 3, c.seed * 31 + 7);
        const std::string what =
            "mixed " + std::to_string(c.n) + " x " + std::to_string(c.m) + ", seed " + std::to_string(c.seed);
        EXPECT_GT(expect_batch_is_cpus(*gpu, data, b, what), 0) << what;
    }
}

TEST(CudaCgLrt, AllContinuousAndAllDiscreteAreCpus) {
    CUDAG_REQUIRE_GPU();
    for (const bool discrete : {false, true}) {
        const Dataset data = all_of_one_kind(10, 1500, 11, discrete);
        const auto gpu = cuda::make_cg_lrt_batch(data, 0, 2);
        const ci::QueryList b = random_queries(10, 300, 3, 12);
        EXPECT_GT(expect_batch_is_cpus(*gpu, data, b, discrete ? "all discrete" : "all continuous"), 0);
    }
}

TEST(CudaCgLrt, QueriesBeyondTheKernelAreCpus) {
    CUDAG_REQUIRE_GPU();
    // 30 variables: 10 discrete, 20 continuous (sets of 7 with x, y continuous: 9 > 8); small
    // queries among them, so that one call has both kinds.
    Dataset data = mixed_data(30, 800, 21);
    std::vector<std::int32_t> disc, cont;
    for (std::int32_t v = 0; v < 30; ++v) (v % 3 == 0 ? disc : cont).push_back(v);
    // Every discrete variable declares 5 levels (5^9 configurations and more pass 2^20), one
    // declares 300 (codes beyond a byte).
    for (const std::int32_t v : disc) {
        auto& lv = data.levels[static_cast<std::size_t>(v)];
        while (lv.size() < (v == disc[4] ? 300u : 5u)) lv.push_back("extra" + std::to_string(lv.size()));
    }
    const auto gpu = cuda::make_cg_lrt_batch(data, 0, 3);
    ci::QueryList b = random_queries(30, 100, 3, 22);
    b.add(disc[0], disc[1], std::span<const std::int32_t>(disc).subspan(2));     // 10 discrete
    b.add(cont[1], cont[0], std::span<const std::int32_t>(cont).subspan(2, 7));  // 9 continuous
    b.add(cont[3], disc[2], std::span<const std::int32_t>(cont).subspan(5, 8));  // 9 continuous
    b.add(disc[9], cont[2], std::span<const std::int32_t>(disc).subspan(0, 9));
    expect_batch_is_cpus(*gpu, data, b, "beyond the kernel");
}

TEST(CudaCgLrt, ErrorsAreCpus) {
    CUDAG_REQUIRE_GPU();
    Dataset data = mixed_data(9, 600, 31);
    // Variable 2 (continuous) a multiple of variable 1 plus a constant: singular given anything.
    for (std::int64_t r = 0; r < data.n_samples; ++r) data.column(2)[r] = 3.0 * data.column(1)[r] - 1.0;
    const auto gpu = cuda::make_cg_lrt_batch(data, 0, 2);
    ci::QueryList b;
    b.add(4, 5, std::vector<std::int32_t>{7});
    b.add(2, 4, std::vector<std::int32_t>{1, 0});  // singular: the error
    b.add(1, 2, std::vector<std::int32_t>{});      // singular too: later in the batch
    std::string cpu_error;
    try {
        (void)ci::cg_lrt(data, 2, 4, b.set(1));
    } catch (const InputError& e) {
        cpu_error = e.what();
    }
    ASSERT_FALSE(cpu_error.empty());
    std::vector<double> stat(b.size()), p(b.size());
    try {
        gpu->run(b.view(), stat, p);
        ADD_FAILURE() << "no error for a singular stratum";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), cpu_error);
    }
    // A refused value (a continuous NaN): the CPU's message, through the CPU in the batch.
    Dataset bad = mixed_data(9, 300, 33);
    bad.column(4)[17] = std::nan("");
    const auto gpu_bad = cuda::make_cg_lrt_batch(bad, 0, 2);
    ci::QueryList q;
    q.add(1, 4, std::vector<std::int32_t>{0});
    std::string bad_error;
    try {
        (void)ci::cg_lrt(bad, 1, 4, q.set(0));
    } catch (const InputError& e) {
        bad_error = e.what();
    }
    ASSERT_FALSE(bad_error.empty());
    std::vector<double> s1(1), p1(1);
    try {
        gpu_bad->run(q.view(), s1, p1);
        ADD_FAILURE() << "no error for a NaN";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), bad_error);
    }
}

TEST(CudaCgLrt, MakeGpuBatchTestGivesIt) {
    CUDAG_REQUIRE_GPU();
    const Dataset data = mixed_data(12, 1200, 41);
    skeleton::TestSpec spec;
    spec.kind = ci::TestKind::CgLrt;
    skeleton::TestPolicy policy;
    BackendContext backend;
    backend.kind = BackendKind::Cuda;
    backend.threads = 2;
    mpi::SerialCommunicator self;
    const auto batch = skeleton::make_gpu_batch_test(data, spec, policy, 3, backend, self);
    ASSERT_TRUE(batch) << "no GPU batch for cg-lrt";
    EXPECT_EQ(batch->name(), "cg-lrt");
    const ci::QueryList b = random_queries(12, 200, 3, 42);
    EXPECT_GT(expect_batch_is_cpus(*batch, data, b, "make_gpu_batch_test"), 0);
    backend.kind = BackendKind::Cpu;
    EXPECT_FALSE(skeleton::make_gpu_batch_test(data, spec, policy, 3, backend, self));
}

// PC's search with cg-lrt on the GPU (skeleton::BatchTestEngine over the batch, as
// `cudag pc --test cg-lrt --backend cuda` runs it) against the CPU's engine of single tests,
// and the whole run (separating sets, pMax, CPDAG).
TEST(CudaCgLrt, PcSearchIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const Dataset d = mixed_data(45, 2000, 77, false, -1);
    skeleton::TestSpec spec;
    spec.kind = ci::TestKind::CgLrt;
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
    EXPECT_TRUE(test::same_result(got, want, 0.0));
    ASSERT_GE(want.levels.size(), 2u);
    pc::PcConfig cfg;
    cfg.alpha = 0.01;
    cfg.test.kind = ci::TestKind::CgLrt;
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

#else

TEST(CudaCgLrt, BatchIsEquivalentToCpu) { CUDAG_REQUIRE_GPU(); }

#endif

}  // namespace
