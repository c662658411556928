// SPDX-License-Identifier: Apache-2.0
// Test-wise deletion (`--missing testwise`) on the GPU against the CPU's test-wise test
// (skeleton::make_ci_test on data with missing cells: TestwiseTest), for every query the
// statistic and the p-value bit for bit (EXPECT_EQ on doubles):
//  - Fisher-z (kernels/fisher_testwise_batch.cu), with pcalg's and causal-learn's p-value
//    arithmetic, on data with 5–30 % of their cells missing and conditioning sets of 0–4
//    variables (and a few of more than 30, which the CPU test answers inside the batch); the same
//    one-line errors for a test left with too few rows or a column constant on its rows; and a
//    whole PC search (skeleton, separating sets, pMax, CPDAG) with --backend cuda equal to
//    --backend cpu;
//  - cg-lrt (kernels/cg_lrt_batch.cu with presence bitmaps) on mixed data and χ²/G²
//    (kernels/discrete_testwise_batch.cu) on discrete data, 5–30 % missing, levels that the
//    complete rows of many tests do not hold (a rare level, declared levels no row holds),
//    conditioning sets of 0–5 variables in any order, x and y either way round, every dof rule;
//    queries the device leaves to the CPU test (beyond the kernels' limits) and ones that must
//    raise the CPU's error (no complete row, a singular stratum, a variable of one level on the
//    rows), in the same batch; PC searches and whole runs on both backends; and `cudag pc`,
//    `fci` and `citest --queries` with --backend cpu and cuda writing identical files.
// Every test skips when this build has no CUDA or no device is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "mpi/communicator.hpp"
#include "pc/run.hpp"
#include "sim/gaussian.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/engines.hpp"
#include "skeleton/skeleton.hpp"
#include "skeleton/test_spec.hpp"
#include "support/cli_run.hpp"
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

/// Data of n variables and m rows, then a share `missing` of the cells blanked (NaN) at random
/// (row 0 kept whole, so no column is missing in every row). Mixed: variables 0, 3, 6, ..
/// discrete (2..5 levels, drawn partly from the variable before), the others continuous (a
/// linear mix of the two before plus noise). All discrete: the continuous ones binned into 3
/// levels as well. Variable 3's last level is held by 6 rows
/// only and variable 6 declares a level no row holds, so that many tests' complete rows hold
/// fewer levels than the data declare (the sub-table's recoding: dof, strata).
Dataset mixed_missing(std::int64_t n, std::int64_t m, double missing, std::uint64_t seed, bool all_discrete = false) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Dataset d;
    d.n_vars = n;
    d.n_samples = m;
    d.source = "test";
    d.values.resize(static_cast<std::size_t>(n * m));
    d.levels.resize(static_cast<std::size_t>(n));
    for (std::int64_t v = 0; v < n; ++v) {
        std::string name = "V";
        name += std::to_string(v);
        d.names.push_back(name);
        double* c = d.column(v);
        auto& lv = d.levels[static_cast<std::size_t>(v)];
        if (v % 3 == 0) {
            const int used = 2 + static_cast<int>(rng() % 4);
            const int card = v == 6 ? used + 1 : used;
            for (int l = 0; l < card; ++l) {
                std::string label = "L";
                label += std::to_string(l);
                lv.push_back(label);
            }
            for (std::int64_t r = 0; r < m; ++r) {
                const std::uint64_t draw = rng();
                int code = static_cast<int>(draw % static_cast<std::uint64_t>(used));
                if (v > 0 && draw % 3 == 0) code = static_cast<int>(std::fabs(d.column(v - 1)[r]) * 2.0) % used;
                c[r] = code;
            }
            if (v == 3) {
                for (std::int64_t r = 0; r < m; ++r)
                    if (c[r] == used - 1) c[r] = 0;
                for (std::int64_t r = 0; r < 6; ++r) c[(r * 7919 + 11) % m] = used - 1;
            }
        } else {
            const double b1 = 0.3 + 0.1 * static_cast<double>(v % 5), b2 = -0.2;
            for (std::int64_t r = 0; r < m; ++r) {
                double x = z(rng) * (1.0 + static_cast<double>(v % 4));
                if (v >= 1) x += b1 * d.column(v - 1)[r];
                if (v >= 2) x += b2 * d.column(v - 2)[r];
                c[r] = x + 10.0 * static_cast<double>(v % 7);
            }
        }
    }
    if (all_discrete) {
        for (std::int64_t v = 0; v < n; ++v) {
            auto& lv = d.levels[static_cast<std::size_t>(v)];
            if (!lv.empty()) continue;
            lv = {"a", "b", "c"};
            double* c = d.column(v);
            // Binned at ±0.5 of its noise's scale around its shift (monotone: the dependences stay).
            const double shift = 10.0 * static_cast<double>(v % 7), scale = 1.0 + static_cast<double>(v % 4);
            for (std::int64_t r = 0; r < m; ++r) {
                const double t = (c[r] - shift) / scale;
                c[r] = t < -0.5 ? 0.0 : (t < 0.5 ? 1.0 : 2.0);
            }
        }
    }
    d.missing = 0;
    for (std::int64_t v = 0; v < n; ++v)
        for (std::int64_t r = 1; r < m; ++r)
            if (u(rng) < missing) {
                d.column(v)[r] = std::nan("");
                ++d.missing;
            }
    return d;
}

/// Recount data.missing after cells were changed by hand.
void count_missing(Dataset& d) {
    d.missing = 0;
    for (const double v : d.values) d.missing += std::isnan(v) ? 1 : 0;
}

skeleton::TestSpec spec_of(skeleton::TestKind kind, ci::DofRule dof = ci::DofRule::Pcalg) {
    skeleton::TestSpec spec;
    spec.kind = kind;
    spec.discrete.stat = kind == skeleton::TestKind::GSquare ? ci::DiscreteStat::GSquare : ci::DiscreteStat::ChiSquare;
    spec.discrete.dof = dof;
    return spec;
}

std::string describe(const ci::QueryList& b, std::size_t q) {
    std::ostringstream os;
    os << "query " << q << ": " << b.x[q] << " _||_ " << b.y[q] << " | {";
    for (const std::int32_t v : b.set(q)) os << ' ' << v;
    os << " }";
    return os.str();
}

/// `gpu` on the queries `b` against the CPU's test-wise test, query by query, bit for bit, and
/// on the second half alone (offsets not starting at 0, as a rank's share of a batch). Returns
/// the queries with 0 < p < 1.
std::int64_t expect_batch_is_cpus(ci::BatchTest& gpu, ci::CiTest& cpu, const ci::QueryList& all,
                                  const std::string& what) {
    // The queries the CPU answers: those it refuses (a variable of one level on a test's rows
    // under the pcalg/gpupc dof rules, which random data with rare levels give) are compared by
    // expect_errors_are_cpus, not here (a batch throws the first one's error).
    ci::QueryList b;
    std::size_t refused = 0;
    for (std::size_t q = 0; q < all.size(); ++q) {
        if (message([&] { cpu.test(all.x[q], all.y[q], all.set(q)); }).empty())
            b.add(all.x[q], all.y[q], all.set(q));
        else
            ++refused;
    }
    EXPECT_GT(b.size(), all.size() / 4) << what << ": the CPU refuses most queries";
    if (refused) std::printf("[testwise] %s: %zu queries the CPU refuses left out\n", what.c_str(), refused);
    std::vector<double> stat(b.size(), -7.0), p(b.size(), -7.0);
    const auto t0 = std::chrono::steady_clock::now();
    gpu.run(b.view(), stat, p);
    const double gpu_s = seconds_since(t0);
    int failures = 0;
    std::int64_t inner = 0;
    for (std::size_t q = 0; q < b.size() && failures < 10; ++q) {
        const ci::CiOutcome o = cpu.test(b.x[q], b.y[q], b.set(q));
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
    std::printf("[testwise] %s: %zu queries, %lld with 0 < p < 1, gpu %.3f s\n", what.c_str(), b.size(),
                static_cast<long long>(inner), gpu_s);
    return inner;
}

/// For each query of `bad` in turn, the batch {a good query, that one} gives the CPU test's
/// one-line InputError for it (checked to be one).
void expect_errors_are_cpus(ci::BatchTest& gpu, ci::CiTest& cpu, const ci::QueryList& bad, std::int32_t good_x,
                            std::int32_t good_y, const std::string& what) {
    for (std::size_t t = 0; t < bad.size(); ++t) {
        ci::QueryList q;
        q.add(good_x, good_y, std::vector<std::int32_t>{});
        q.add(bad.x[t], bad.y[t], bad.set(t));
        std::vector<double> stat(2), p(2);
        const std::string want = message([&] { cpu.test(bad.x[t], bad.y[t], bad.set(t)); });
        EXPECT_FALSE(want.empty()) << what << ", " << describe(bad, t);
        EXPECT_EQ(message([&] { gpu.run(q.view(), stat, p); }), want) << what << ", " << describe(bad, t);
    }
    // Every bad query in one batch: the first one's error.
    if (bad.size() > 1) {
        std::vector<double> stat(bad.size()), p(bad.size());
        EXPECT_EQ(message([&] { gpu.run(bad.view(), stat, p); }),
                  message([&] { cpu.test(bad.x[0], bad.y[0], bad.set(0)); }))
            << what << ", all at once";
    }
}

/// The PC search (make_engine, learn_skeleton) and the whole run (run_pc) of `spec` on `d` with
/// --backend cpu and cuda: the same skeleton, separating sets, pMax (bit for bit) and CPDAG.
void expect_pc_is_cpus(const Dataset& d, const skeleton::TestSpec& spec, const std::string& what) {
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
    EXPECT_EQ(gpu->name(), "cuda") << what;
    auto t0 = std::chrono::steady_clock::now();
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(*cpu, opt);
    const double cpu_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const skeleton::SkeletonResult got = skeleton::learn_skeleton(*gpu, opt);
    const double gpu_s = seconds_since(t0);
    EXPECT_TRUE(test::same_result(got, want, 0.0)) << what;
    EXPECT_GE(want.levels.size(), 2u) << what;
    std::printf("[testwise] %s PC skeleton: %zu levels, %lld edges; cpu %.3f s, gpu %.3f s\n", what.c_str(),
                want.levels.size(), static_cast<long long>(want.skeleton.n_edges()), cpu_s, gpu_s);
    pc::PcConfig cfg;
    cfg.alpha = 0.01;
    cfg.test.kind = spec.kind;
    if (spec.is_discrete()) cfg.test.dof = spec.discrete.dof;
    cfg.backend.kind = BackendKind::Cpu;
    cfg.backend.threads = 4;
    const pc::PcResult a = pc::run_pc(d, cfg);
    cfg.backend.kind = BackendKind::Cuda;
    const pc::PcResult b = pc::run_pc(d, cfg);
    EXPECT_TRUE(a.skeleton == b.skeleton) << what;
    EXPECT_TRUE(a.sepsets == b.sepsets) << what;
    EXPECT_TRUE(a.cpdag == b.cpdag) << what;
    ASSERT_EQ(a.pmax.size(), b.pmax.size()) << what;
    for (std::size_t k = 0; k < a.pmax.size(); ++k) EXPECT_EQ(a.pmax[k].p, b.pmax[k].p) << what;
}

/// `d` as a CSV file (discrete cells as their labels, continuous ones in %.17g, missing ones
/// empty).
void write_csv(const Dataset& d, const std::filesystem::path& path) {
    std::ofstream out(path);
    for (std::int64_t v = 0; v < d.n_vars; ++v) out << (v ? "," : "") << d.names[static_cast<std::size_t>(v)];
    out << '\n';
    char buf[64];
    for (std::int64_t r = 0; r < d.n_samples; ++r) {
        for (std::int64_t v = 0; v < d.n_vars; ++v) {
            if (v) out << ',';
            const double c = d.column(v)[r];
            if (std::isnan(c)) continue;
            if (d.is_discrete(v)) {
                out << d.levels[static_cast<std::size_t>(v)][static_cast<std::size_t>(c)];
            } else {
                std::snprintf(buf, sizeof buf, "%.17g", c);
                out << buf;
            }
        }
        out << '\n';
    }
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
    // Column 0 present in rows 0..2 only (columns 1 and 3 there too); column 4 present in odd
    // rows only, where column 5 is constant (2.5; 0, 2, 4, .. elsewhere).
    for (std::int64_t s = 0; s < d.n_samples; ++s) {
        if (s >= 3) d.column(0)[s] = std::nan("");
        if (s < 3 && std::isnan(d.column(1)[s])) d.column(1)[s] = 0.25 * static_cast<double>(s) - 0.4;
        if (s < 3 && std::isnan(d.column(3)[s])) d.column(3)[s] = 0.5 - 0.3 * static_cast<double>(s);
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
    // Exactly |S| + 3 complete rows (x = 0, y = 3, S = {}: rows 0..2): no error but pcalg's
    // p = 1 (its statistic is 0 there), the same on both.
    ci::QueryList q;
    q.add(0, 3, std::vector<std::int32_t>{});
    std::vector<double> stat(1), p(1);
    const ci::CiOutcome o = cpu->test(0, 3, {});
    gpu->run(q.view(), stat, p);
    EXPECT_EQ(o.p, 1.0);
    EXPECT_EQ(stat[0], o.statistic);
    EXPECT_EQ(p[0], o.p);
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

TEST(CudaTestwise, CgLrtBatchIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const skeleton::TestSpec spec = spec_of(skeleton::TestKind::CgLrt);
    struct Case {
        std::int64_t n, m;
        double missing;
        std::uint64_t seed;
    };
    std::int64_t inner = 0;
    for (const Case c : {Case{12, 300, 0.05, 1}, Case{15, 1000, 0.15, 2}, Case{12, 3000, 0.3, 3}, Case{20, 777, 0.1, 4},
                         Case{9, 2500, 0.25, 5}}) {
        const Dataset d = mixed_missing(c.n, c.m, c.missing, c.seed);
        const auto gpu = cuda::make_cg_lrt_batch(d, 0, 4);
        EXPECT_EQ(gpu->name(), "cg-lrt");
        const auto cpu = skeleton::make_ci_test(d, spec, skeleton::Compat::Pcalg, 1);
        const ci::QueryList b = random_queries(c.n, 500, 4, c.seed * 31 + 7);
        inner += expect_batch_is_cpus(*gpu, *cpu, b,
                                      "cg-lrt " + std::to_string(c.n) + " x " + std::to_string(c.m) + ", " +
                                          std::to_string(static_cast<int>(c.missing * 100)) + " % missing");
    }
    EXPECT_GT(inner, 300);
    // All continuous (no discrete variable: one stratum) and all discrete (no row dropped).
    for (const bool discrete : {false, true}) {
        Dataset d = mixed_missing(10, 1500, 0.1, 11, discrete);
        if (!discrete) {
            for (std::int64_t v = 0; v < d.n_vars; v += 3)
                for (std::int64_t r = 0; r < d.n_samples; ++r)
                    if (!std::isnan(d.column(v)[r])) d.column(v)[r] += 0.25 * static_cast<double>(r % 7);
            d.levels.clear();
        }
        const auto gpu = cuda::make_cg_lrt_batch(d, 0, 2);
        const auto cpu = skeleton::make_ci_test(d, spec, skeleton::Compat::Pcalg, 1);
        EXPECT_GT(expect_batch_is_cpus(*gpu, *cpu, random_queries(10, 300, 3, 12),
                                       discrete ? "cg-lrt all discrete" : "cg-lrt all continuous"),
                  0);
    }
#endif
}

TEST(CudaTestwise, CgLrtFallbackAndErrorsAreCpus) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const skeleton::TestSpec spec = spec_of(skeleton::TestKind::CgLrt);
    // Beyond the kernel: 9 continuous variables in a test, a discrete variable declaring 300
    // levels; small queries among them, so that one call has both kinds.
    {
        Dataset d = mixed_missing(30, 1200, 0.05, 21);
        std::vector<std::int32_t> disc, cont;
        for (std::int32_t v = 0; v < 30; ++v) (v % 3 == 0 ? disc : cont).push_back(v);
        auto& lv = d.levels[static_cast<std::size_t>(disc[4])];
        while (lv.size() < 300u) {
            std::string label = "extra";
            label += std::to_string(lv.size());
            lv.push_back(label);
        }
        const auto gpu = cuda::make_cg_lrt_batch(d, 0, 3);
        const auto cpu = skeleton::make_ci_test(d, spec, skeleton::Compat::Pcalg, 1);
        ci::QueryList b = random_queries(30, 200, 3, 22);
        b.add(cont[1], cont[0], std::span<const std::int32_t>(cont).subspan(2, 7));  // 9 continuous
        b.add(cont[3], disc[2], std::span<const std::int32_t>(cont).subspan(5, 8));  // 9 continuous
        b.add(disc[4], cont[2], std::span<const std::int32_t>(disc).subspan(0, 3));  // 300 levels
        b.add(cont[7], cont[8], std::vector<std::int32_t>{disc[4], cont[9]});
        expect_batch_is_cpus(*gpu, *cpu, b, "cg-lrt beyond the kernel");
    }
    // Errors: no complete row (variable 1 present in even rows only, 2 in odd ones); a singular
    // stratum (4 = 3 · 5 − 1 where both are present); no complete row given a set.
    Dataset d = mixed_missing(9, 600, 0.1, 31);
    for (std::int64_t r = 0; r < d.n_samples; ++r) {
        if (r % 2 == 1) d.column(1)[r] = std::nan("");
        if (r % 2 == 0) d.column(2)[r] = std::nan("");
        if (!std::isnan(d.column(5)[r])) d.column(4)[r] = 3.0 * d.column(5)[r] - 1.0;
    }
    count_missing(d);
    const auto gpu = cuda::make_cg_lrt_batch(d, 0, 2);
    const auto cpu = skeleton::make_ci_test(d, spec, skeleton::Compat::Pcalg, 1);
    ci::QueryList bad;
    bad.add(1, 2, std::vector<std::int32_t>{});
    bad.add(5, 4, std::vector<std::int32_t>{0});
    bad.add(4, 5, std::vector<std::int32_t>{});
    bad.add(7, 8, std::vector<std::int32_t>{2, 1});
    expect_errors_are_cpus(*gpu, *cpu, bad, 7, 8, "cg-lrt");
    EXPECT_NE(message([&] { cpu->test(1, 2, std::vector<std::int32_t>{}); }).find("leaves 0 complete rows"),
              std::string::npos);
#endif
}

TEST(CudaTestwise, DiscreteBatchIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    struct Case {
        std::int64_t n, m;
        double missing;
        std::uint64_t seed;
    };
    std::int64_t inner = 0;
    for (const Case c :
         {Case{12, 400, 0.05, 41}, Case{16, 1500, 0.15, 42}, Case{10, 4000, 0.3, 43}, Case{20, 900, 0.1, 44}}) {
        const Dataset d = mixed_missing(c.n, c.m, c.missing, c.seed, true);
        const ci::QueryList b = random_queries(c.n, 400, 5, c.seed * 17 + 3);
        for (const skeleton::TestKind kind : {skeleton::TestKind::ChiSquare, skeleton::TestKind::GSquare})
            for (const ci::DofRule dof : {ci::DofRule::Pcalg, ci::DofRule::Gpupc, ci::DofRule::CausalLearn}) {
                const skeleton::TestSpec spec = spec_of(kind, dof);
                const auto gpu = cuda::make_discrete_testwise_batch(d, spec, 4, 0);
                EXPECT_EQ(gpu->name(), spec.name());
                const auto cpu = skeleton::make_ci_test(d, spec, skeleton::Compat::Pcalg, 1);
                inner += expect_batch_is_cpus(*gpu, *cpu, b,
                                              spec.name() + " (dof rule " + std::to_string(static_cast<int>(dof)) +
                                                  ") " + std::to_string(c.n) + " x " + std::to_string(c.m) + ", " +
                                                  std::to_string(static_cast<int>(c.missing * 100)) + " % missing");
            }
    }
    EXPECT_GT(inner, 1000);
#endif
}

TEST(CudaTestwise, DiscreteFallbackAndErrorsAreCpus) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    // Strata keys beyond 62 bits (variables 0..9 declaring 256 levels, most held by no row: a
    // set of 8 of them), beside small queries.
    {
        Dataset d = mixed_missing(16, 1500, 0.05, 51, true);
        for (std::size_t v = 0; v < 10; ++v)
            while (d.levels[v].size() < 256u) {
                std::string label = "x";  // appended: GCC 12's -Wrestrict misfires on "x" + ...
                label += std::to_string(d.levels[v].size());
                d.levels[v].push_back(label);
            }
        for (const skeleton::TestKind kind : {skeleton::TestKind::ChiSquare, skeleton::TestKind::GSquare}) {
            const skeleton::TestSpec spec = spec_of(kind);
            const auto gpu = cuda::make_discrete_testwise_batch(d, spec, 3, 0);
            const auto cpu = skeleton::make_ci_test(d, spec, skeleton::Compat::Pcalg, 1);
            ci::QueryList b = random_queries(16, 150, 3, 52);
            b.add(10, 11, std::vector<std::int32_t>{7, 1, 2, 3, 4, 5, 6, 0});
            b.add(12, 13, std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 8, 9});
            b.add(0, 1, std::vector<std::int32_t>{2, 3, 4, 5, 6, 7, 8, 9});
            expect_batch_is_cpus(*gpu, *cpu, b, spec.name() + " beyond the kernel");
        }
    }
    // Errors: no complete row (variable 1 present in even rows only, 2 in odd ones); variable 4
    // of one level where 3 is present (the CPU refuses it unless the dof rule is causal-learn's,
    // which tests it with df = 0: then it is a result, the CPU's too).
    Dataset d = mixed_missing(9, 800, 0.1, 53, true);
    for (std::int64_t r = 0; r < d.n_samples; ++r) {
        if (r % 2 == 1) d.column(1)[r] = std::nan("");
        if (r % 2 == 0) d.column(2)[r] = std::nan("");
        if (r % 3 != 0) d.column(3)[r] = std::nan("");
        if (r % 3 == 0) d.column(4)[r] = 0.0;
    }
    count_missing(d);
    for (const skeleton::TestKind kind : {skeleton::TestKind::ChiSquare, skeleton::TestKind::GSquare}) {
        const skeleton::TestSpec spec = spec_of(kind);
        const auto gpu = cuda::make_discrete_testwise_batch(d, spec, 2, 0);
        const auto cpu = skeleton::make_ci_test(d, spec, skeleton::Compat::Pcalg, 1);
        ci::QueryList bad;
        bad.add(1, 2, std::vector<std::int32_t>{});
        bad.add(3, 4, std::vector<std::int32_t>{});
        bad.add(5, 4, std::vector<std::int32_t>{3});
        bad.add(7, 8, std::vector<std::int32_t>{2, 1});
        expect_errors_are_cpus(*gpu, *cpu, bad, 7, 8, spec.name());
        const skeleton::TestSpec cl = spec_of(kind, ci::DofRule::CausalLearn);
        const auto gpu_cl = cuda::make_discrete_testwise_batch(d, cl, 2, 0);
        const auto cpu_cl = skeleton::make_ci_test(d, cl, skeleton::Compat::Pcalg, 1);
        ci::QueryList ok;
        ok.add(3, 4, std::vector<std::int32_t>{});
        ok.add(5, 4, std::vector<std::int32_t>{3});
        ok.add(4, 6, std::vector<std::int32_t>{3, 0});
        ok.add(0, 5, std::vector<std::int32_t>{});
        expect_batch_is_cpus(*gpu_cl, *cpu_cl, ok, cl.name() + " causal-learn, a variable of one level");
    }
#endif
}

TEST(CudaTestwise, MakeGpuBatchTestGivesThem) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    const Dataset mixed = mixed_missing(12, 1000, 0.1, 61);
    const Dataset discrete = mixed_missing(12, 1000, 0.1, 62, true);
    skeleton::TestPolicy policy;
    BackendContext backend;
    backend.kind = BackendKind::Cuda;
    backend.threads = 2;
    mpi::SerialCommunicator self;
    for (const skeleton::TestKind kind :
         {skeleton::TestKind::CgLrt, skeleton::TestKind::ChiSquare, skeleton::TestKind::GSquare}) {
        const Dataset& d = kind == skeleton::TestKind::CgLrt ? mixed : discrete;
        const skeleton::TestSpec spec = spec_of(kind);
        backend.kind = BackendKind::Cuda;
        const auto batch = skeleton::make_gpu_batch_test(d, spec, policy, 3, backend, self);
        ASSERT_TRUE(batch) << "no GPU batch for test-wise " << spec.name();
        EXPECT_EQ(batch->name(), spec.name());
        EXPECT_NE(batch->where().find("cuda"), std::string::npos) << batch->where();
        const auto cpu = skeleton::make_ci_test(d, spec, skeleton::Compat::Pcalg, 1);
        EXPECT_GT(
            expect_batch_is_cpus(*batch, *cpu, random_queries(12, 200, 3, 63), "make_gpu_batch_test " + spec.name()),
            0);
        backend.kind = BackendKind::Cpu;
        EXPECT_FALSE(skeleton::make_gpu_batch_test(d, spec, policy, 3, backend, self));
    }
#endif
}

TEST(CudaTestwise, CgLrtAndDiscretePcAreCpus) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    expect_pc_is_cpus(mixed_missing(45, 2000, 0.1, 71), spec_of(skeleton::TestKind::CgLrt), "cg-lrt");
    const Dataset d = mixed_missing(40, 2500, 0.1, 72, true);
    // causal-learn's dof rule: a variable of one level on a test's rows is a result (df 0),
    // where pcalg's and gpupc's rules end the run (random data with rare levels give some).
    expect_pc_is_cpus(d, spec_of(skeleton::TestKind::GSquare, ci::DofRule::CausalLearn), "g-square");
    expect_pc_is_cpus(d, spec_of(skeleton::TestKind::ChiSquare, ci::DofRule::CausalLearn), "chi-square");
#endif
}

// `cudag pc`, `fci` and `citest --queries` with --missing testwise: --backend cuda writes the
// files --backend cpu writes, byte for byte.
TEST(CudaTestwise, CliFilesAreCpus) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("cudag_gpu_testwise_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    write_csv(mixed_missing(30, 1500, 0.1, 81), dir / "mixed.csv");
    write_csv(mixed_missing(30, 1500, 0.1, 82, true), dir / "discrete.csv");
    {
        std::ofstream q(dir / "queries.tsv");
        q << "x\ty\tgiven\n";
        std::mt19937_64 rng(83);
        for (int t = 0; t < 300; ++t) {
            std::vector<int> v(30);
            std::iota(v.begin(), v.end(), 0);
            std::shuffle(v.begin(), v.end(), rng);
            q << 'V' << v[0] << "\tV" << v[1] << '\t';
            for (int k = 0; k < t % 4; ++k) q << (k ? "," : "") << 'V' << v[static_cast<std::size_t>(2 + k)];
            q << '\n';
        }
    }
    const std::vector<std::pair<std::string, std::string>> runs = {
        {"mixed.csv", "cg-lrt"}, {"discrete.csv", "g-square"}, {"discrete.csv", "chi-square"}};
    for (const auto& [file, kind] : runs) {
        const std::string common = " --data " + (dir / file).string() + " --missing testwise --test " + kind +
                                   (kind == "cg-lrt" ? "" : " --dof causal-learn");
        for (const std::string cmd : {"pc", "fci"}) {
            std::string got[2];
            for (int g = 0; g < 2; ++g) {
                const std::string be = g ? "cuda" : "cpu";
                const fs::path out = dir / (cmd + "-" + kind + "-" + be + ".h5");
                const test::CliRun r = test::run_cudag(cmd + " -q" + common + " --alpha 0.01 --backend " + be +
                                                           " --out " + out.string() + " --format edges,amat",
                                                       dir);
                ASSERT_EQ(r.code, 0) << cmd << " " << kind << " " << be << ": " << r.err;
                // Every file the run wrote beside the HDF5 result (whose provenance names the
                // backend), in name order.
                std::vector<fs::path> files;
                for (const auto& e : fs::directory_iterator(dir)) {
                    const std::string name = e.path().filename().string();
                    if (name.rfind(out.stem().string() + ".", 0) == 0 && e.path().extension() != ".h5")
                        files.push_back(e.path());
                }
                std::sort(files.begin(), files.end());
                for (const fs::path& f : files)
                    got[g] += f.filename().string().substr(out.stem().string().size()) + "\n" + test::slurp(f);
            }
            EXPECT_FALSE(got[0].empty()) << cmd << " " << kind;
            EXPECT_EQ(got[1], got[0]) << cmd << " " << kind;
        }
        std::string out[2];
        for (int g = 0; g < 2; ++g) {
            const test::CliRun r = test::run_cudag("citest" + common + " --queries " + (dir / "queries.tsv").string() +
                                                       " --backend " + (g ? "cuda" : "cpu"),
                                                   dir);
            ASSERT_EQ(r.code, 0) << "citest " << kind << ": " << r.err;
            out[g] = r.out;
        }
        EXPECT_EQ(std::count(out[0].begin(), out[0].end(), '\n'), 301) << kind;
        EXPECT_EQ(out[1], out[0]) << "citest --queries " << kind;
    }
    fs::remove_all(dir);
#endif
}
