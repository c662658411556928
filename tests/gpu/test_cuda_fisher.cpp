// SPDX-License-Identifier: Apache-2.0
// CUDA Gaussian skeleton engine (kernels/) against the CPU reference engine: the same
// skeleton, the same separating sets and pMax (all exactly: bit for bit) on
// random linear-Gaussian data, for cuPC-S and cuPC-E, levels 0..l, row blocks, the
// template<int L> and the runtime-l kernels. Every test skips when this build has no
// CUDA or no device is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "ci/correlation.hpp"
#include "ci/fisher_z.hpp"
#include "core/combinations.hpp"
#include "core/error.hpp"
#include "cudag/config.hpp"
#include "mpi/communicator.hpp"
#include "sim/gaussian.hpp"
#include "sim/network.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/skeleton.hpp"
#include "support/gpu.hpp"
#include "support/names.hpp"
#include "support/skeleton_compare.hpp"

#if CUDAG_HAVE_CUDA
#include "kernels/combination_walk.hpp"
#include "kernels/engines.hpp"
#include "kernels/pc_gaussian.cuh"
#endif

using namespace cudag;
using cudag::test::close;
using cudag::test::same_result;

namespace {

#if CUDAG_HAVE_CUDA
using test::seconds_since;

/// cuPC's generator with about `degree` neighbours per variable (d = degree / (n-1)).
Dataset simulate(std::int64_t n, std::int64_t m, double degree, std::uint64_t seed) {
    sim::GaussianSimSpec spec{n, m, std::min(1.0, degree / static_cast<double>(n - 1)), seed};
    return sim::simulate_gaussian(spec, 0).data;
}

/// LevelOutput entries [e0, e1): flags and sets exactly, pmax within `rel`. An entry
/// (i, j) with j < i whose mirror (j, i) is separated in `want` (and lies in [e0, e1)) is
/// left to the engine: the lower endpoint's set decides the edge, so the GPU may skip it.
testing::AssertionResult same_level(const skeleton::LevelOutput& got, const skeleton::LevelOutput& want,
                                    const Adjacency& snap, std::int64_t e0, std::int64_t e1, double rel) {
    std::int64_t row = 0;
    for (std::int64_t e = e0; e < e1; ++e) {
        while (snap.offsets[row + 1] <= e) ++row;
        const std::int32_t j = snap.nbrs[e];
        if (j < row) {
            const auto* b = snap.nbrs.data() + snap.offsets[j];
            const auto* f = std::lower_bound(b, snap.nbrs.data() + snap.offsets[j + 1], static_cast<std::int32_t>(row));
            const std::int64_t mirror = f - snap.nbrs.data();
            // The mirror entry separated the edge: this side's flags and p-value are free.
            if (mirror >= e0 && mirror < e1 && (want.flags[mirror] & skeleton::kSeparated)) continue;
        }
        if (got.flags[e] != want.flags[e])
            return testing::AssertionFailure()
                   << "entry " << e << ": flags gpu " << int(got.flags[e]) << ", cpu " << int(want.flags[e]);
        if ((want.flags[e] & skeleton::kSeparated) &&
            !std::ranges::equal(got.set(static_cast<std::size_t>(e)), want.set(static_cast<std::size_t>(e))))
            return testing::AssertionFailure() << "entry " << e << ": separating sets differ";
        if (!close(got.pmax[e], want.pmax[e], rel))
            return testing::AssertionFailure()
                   << "entry " << e << ": pmax gpu " << got.pmax[e] << ", cpu " << want.pmax[e];
    }
    return testing::AssertionSuccess();
}
#endif  // CUDAG_HAVE_CUDA

}  // namespace

// ---- the fast unrank used by the kernels ------------------------------------------------

TEST(CombinationWalk, FastUnrankMatchesCombinationUnrank) {
#if CUDAG_HAVE_CUDA
    for (int n = 1; n <= 14; ++n)
        for (int k = 1; k <= n; ++k) {
            const std::int64_t total = binomial(n, k);
            std::vector<int> a(k), b(k);
            for (std::int64_t r = 0; r < total; ++r) {
                combination_unrank(r, k, n, a.data());
                cuda::combination_unrank_fast(r, k, n, b.data());
                ASSERT_EQ(a, b) << "n=" << n << " k=" << k << " rank=" << r;
            }
        }
    std::mt19937_64 rng(3);
    for (auto [n, k] :
         {std::pair{400, 3}, std::pair{60, 8}, std::pair{1000, 5}, std::pair{90, 12}, std::pair{64, 20}}) {
        const std::int64_t total = binomial(n, k);
        std::uniform_int_distribution<std::int64_t> pick(0, total - 1);
        std::vector<int> a(k), b(k);
        for (int t = 0; t < 2000; ++t) {
            const std::int64_t r = t == 0 ? total - 1 : pick(rng);
            combination_unrank(r, k, n, a.data());
            cuda::combination_unrank_fast(r, k, n, b.data());
            ASSERT_EQ(a, b) << "n=" << n << " k=" << k << " rank=" << r;
            ASSERT_EQ(combination_rank(b.data(), k, n), r);
        }
    }
#else
    GTEST_SKIP() << "this build has no CUDA (CUDAG_HAVE_CUDA is 0)";
#endif
}

#if CUDAG_HAVE_CUDA

// ---- whole skeleton: GPU engine on the CPU's correlation matrix ---------------------------

/// Kernel choice of a parity case: 's' / 'e' the paper's variants at every level, 'x' the
/// template entry scan at every level it covers (the deep scan above), 'r' that scan in
/// rounds at every template level from a first round of 2 sets (so that most rows reach
/// the later rounds, where rows with few entries left split each entry's sets over a
/// warp's lanes), 'D' the deep scan at every level from 2, 'd' the defaults (resident
/// levels where the search is small enough). Every choice but 'd' runs each level through
/// the level loop.
cuda::FisherTunables tunables_for(char kernel) {
    cuda::FisherTunables t;
    if (kernel == 'd') return t;
    t.resident_entries = 0;
    t.variant = kernel == 'e' ? 'e' : 's';
    t.scan_levels = kernel == 'x' || kernel == 'r' || kernel == 'D' ? kScanAllLevels : 0;
    t.scan_deep_from = kernel == 'D' ? 2 : cuda::kMaxTemplateLevel + 1;
    if (kernel == 'r') {
        t.scan_round_levels = cuda::kMaxTemplateLevel;
        t.scan_first_round = 2;
        t.scan_one_round_tests = 0;  // rounds however small the level
    }
    return t;
}

struct ParityCase {
    std::int64_t n;
    std::int64_t m;
    double degree;
    std::uint64_t seed;
    char variant;
    double alpha;
};

std::string case_name(const testing::TestParamInfo<ParityCase>& info) {
    const ParityCase& c = info.param;
    return "n" + std::to_string(c.n) + "_deg" + std::to_string(static_cast<int>(c.degree)) + "_seed" +
           std::to_string(c.seed) + "_" + std::string(1, c.variant) + "_a" +
           std::to_string(static_cast<int>(std::lround(c.alpha * 1000)));
}

class CudaSkeletonParity : public testing::TestWithParam<ParityCase> {};

TEST_P(CudaSkeletonParity, SkeletonIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const ParityCase& c = GetParam();
    const Dataset data = simulate(c.n, c.m, c.degree, c.seed);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = c.alpha;
    skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
    auto t0 = std::chrono::steady_clock::now();
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
    const double cpu_s = seconds_since(t0);

    const cuda::FisherTunables t = tunables_for(c.variant);
    auto gpu = cuda::make_fisher_engine_from_corr(cpu.correlation(), c.n, c.m, opt.policy, t);
    t0 = std::chrono::steady_clock::now();
    const skeleton::SkeletonResult got = skeleton::learn_skeleton(*gpu, opt);
    const double gpu_s = seconds_since(t0);
    EXPECT_TRUE(same_result(got, want, 0.0));

    std::int64_t cpu_tests = 0, gpu_tests = 0;
    for (const auto& s : want.levels) cpu_tests += s.tests;
    for (const auto& s : got.levels) gpu_tests += s.tests;
    std::printf(
        "[parity] n=%lld m=%lld deg=%.0f seed=%llu variant=%c alpha=%g: %zu levels, %lld edges, "
        "%zu sepsets; cpu %.3f s %lld tests, gpu %.3f s %lld tests\n",
        static_cast<long long>(c.n), static_cast<long long>(c.m), c.degree, static_cast<unsigned long long>(c.seed),
        c.variant, c.alpha, want.levels.size(), static_cast<long long>(want.skeleton.n_edges()), want.sepsets.size(),
        cpu_s, static_cast<long long>(cpu_tests), gpu_s, static_cast<long long>(gpu_tests));
    EXPECT_GE(want.levels.size(), 3u) << "the case should reach level 2";
}

std::vector<ParityCase> parity_cases() {
    std::vector<ParityCase> v;
    for (char var : {'s', 'e', 'x', 'D'}) {
        v.push_back({100, 500, 3, 1, var, 0.01});
        v.push_back({100, 300, 8, 2, var, 0.05});
        v.push_back({100, 2000, 12, 3, var, 0.01});
        v.push_back({500, 1000, 4, 4, var, 0.01});
        v.push_back({500, 500, 10, 5, var, 0.05});
        v.push_back({2000, 1000, 4, 6, var, 0.01});
        v.push_back({2000, 800, 8, 7, var, 0.01});
    }
    v.push_back({100, 2000, 12, 3, 'r', 0.01});
    v.push_back({500, 500, 10, 5, 'r', 0.05});
    v.push_back({2000, 800, 8, 7, 'r', 0.01});
    v.push_back({100, 500, 3, 1, 'd', 0.01});
    v.push_back({100, 300, 8, 2, 'd', 0.05});
    v.push_back({100, 2000, 12, 3, 'd', 0.01});
    v.push_back({500, 1000, 4, 4, 'd', 0.01});
    v.push_back({500, 500, 10, 5, 'd', 0.05});
    v.push_back({2000, 800, 8, 7, 'd', 0.01});
    return v;
}

INSTANTIATE_TEST_SUITE_P(Random, CudaSkeletonParity, testing::ValuesIn(parity_cases()), case_name);

// ---- one level at a time, entry by entry, on row blocks --------------------------------------

class CudaLevelParity : public testing::TestWithParam<std::tuple<char, int>> {};

TEST_P(CudaLevelParity, RunLevelIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const auto [variant, generic_from] = GetParam();
    const std::int64_t n = 150, m = 400;
    const Dataset data = simulate(n, m, 9, 21);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
    cuda::FisherTunables t = tunables_for(variant);
    t.generic_from_level = generic_from;
    auto gpu = cuda::make_fisher_engine_from_corr(cpu.correlation(), n, m, opt.policy, t);
    int levels_checked = 0;
    for (int l = 1;; ++l) {
        skeleton::SkeletonOptions upto = opt;
        upto.max_level = l - 1;
        const Graph g = skeleton::learn_skeleton(cpu, upto).skeleton;
        if (g.max_degree() - 1 < l) break;
        const Adjacency snap = Adjacency::from_graph(g);
        skeleton::LevelOutput want, got;
        want.reset(snap.nbrs.size(), l, false);
        got.reset(snap.nbrs.size(), l, false);
        cpu.run_level(l, snap, skeleton::LevelBlock::rows(snap, 0, n), want);
        gpu->run_level(l, snap, skeleton::LevelBlock::rows(snap, 0, n), got);
        EXPECT_TRUE(same_level(got, want, snap, 0, static_cast<std::int64_t>(snap.nbrs.size()), 0.0)) << "level " << l;
        // A block of rows: only its entries are written.
        const std::int64_t rb = n / 3, re = 2 * n / 3;
        skeleton::LevelOutput part;
        part.reset(snap.nbrs.size(), l, false);
        gpu->run_level(l, snap, skeleton::LevelBlock::rows(snap, rb, re), part);
        EXPECT_TRUE(same_level(part, want, snap, snap.offsets[rb], snap.offsets[re], 0.0))
            << "level " << l << " rows [" << rb << ", " << re << ")";
        for (std::int64_t e = 0; e < snap.offsets[rb]; ++e) ASSERT_EQ(part.flags[e], 0) << e;
        for (std::int64_t e = snap.offsets[re]; e < snap.offsets[n]; ++e) ASSERT_EQ(part.flags[e], 0) << e;
        // A block that cuts the heaviest row (and the rows around) in the middle, as a rank
        // of a multi-GPU search gets it: its entries as the whole run, nothing else written.
        std::int64_t hub = 0;
        for (std::int64_t i = 0; i < n; ++i)
            if (snap.degree(i) > snap.degree(hub)) hub = i;
        skeleton::LevelBlock cut;
        cut.entry_begin = snap.offsets[hub] + snap.degree(hub) / 2;
        cut.entry_end = std::min(snap.offsets[n], snap.offsets[std::min(n, hub + 3)] + 1);
        cut.row_begin = hub;
        cut.row_end =
            std::upper_bound(snap.offsets.begin(), snap.offsets.end(), cut.entry_end - 1) - snap.offsets.begin();
        skeleton::LevelOutput piece;
        piece.reset(snap.nbrs.size(), l, false);
        gpu->run_level(l, snap, cut, piece);
        EXPECT_TRUE(same_level(piece, want, snap, cut.entry_begin, cut.entry_end, 0.0))
            << "level " << l << " entries [" << cut.entry_begin << ", " << cut.entry_end << ") cutting row " << hub;
        for (std::int64_t e = 0; e < cut.entry_begin; ++e) ASSERT_EQ(piece.flags[e], 0) << e;
        for (std::int64_t e = cut.entry_end; e < snap.offsets[n]; ++e) ASSERT_EQ(piece.flags[e], 0) << e;
        ++levels_checked;
    }
    EXPECT_GE(levels_checked, 2);
}

INSTANTIATE_TEST_SUITE_P(Variants, CudaLevelParity,
                         testing::Values(std::tuple{'s', 0}, std::tuple{'e', 0}, std::tuple{'s', 1}, std::tuple{'e', 1},
                                         std::tuple{'x', 0}, std::tuple{'r', 0}, std::tuple{'D', 0},
                                         std::tuple{'d', 0}),
                         [](const auto& info) {
                             return std::string(1, std::get<0>(info.param)) +
                                    (std::get<1>(info.param) ? "_runtime_l" : "_template_l");
                         });

// ---- the runtime-l kernels on a whole run, and a level above the templates ---------------

TEST(CudaFisher, RuntimeLevelKernelsAreEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const std::int64_t n = 60, m = 3000;
    const Dataset data = simulate(n, m, 20, 8);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.2;  // keeps many edges, so the search goes deep
    skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
    for (char variant : {'s', 'e', 'x', 'D', 'd'}) {
        cuda::FisherTunables t = tunables_for(variant);
        t.generic_from_level = 1;  // 'x': the scan up to its last level, runtime-l kernels after
        auto gpu = cuda::make_fisher_engine_from_corr(cpu.correlation(), n, m, opt.policy, t);
        EXPECT_TRUE(same_result(skeleton::learn_skeleton(*gpu, opt), want, 0.0)) << variant;
    }
    std::printf("[deep] n=%lld: %zu levels\n", static_cast<long long>(n), want.levels.size());
}

// ---- resident levels (kernels/fisher_resident.cuh) -------------------------------------------

/// The GPU engine behind a wrapper that counts the levels its run_levels() ran.
class CountingEngine final : public skeleton::SkeletonEngine {
public:
    explicit CountingEngine(skeleton::SkeletonEngine& e) : e_(e) {}
    std::string name() const override { return e_.name(); }
    std::int64_t n_vars() const override { return e_.n_vars(); }
    void level0(std::int64_t rb, std::int64_t re, bool dense, Graph& g, skeleton::Level0Output& out) override {
        e_.level0(rb, re, dense, g, out);
    }
    bool level0_on_every_rank() const override { return e_.level0_on_every_rank(); }
    void run_level(int l, const Adjacency& snap, const skeleton::LevelBlock& b, skeleton::LevelOutput& out) override {
        ++loop_levels;
        e_.run_level(l, snap, b, out);
    }
    bool splits_rows() const override { return e_.splits_rows(); }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override {
        return e_.p_value(i, j, s);
    }
    skeleton::DeviceResults* device_results() override { return e_.device_results(); }
    int run_levels(int first, int last, const Adjacency& snap, skeleton::SepSetLog& log,
                   std::vector<ResidentLevel>& levels, Adjacency& next) override {
        const int ran = e_.run_levels(first, last, snap, log, levels, next);
        resident_levels += ran;
        return ran;
    }
    int resident_levels = 0, loop_levels = 0;

private:
    skeleton::SkeletonEngine& e_;
};

struct ResidentCase {
    std::int64_t n, m;
    double degree;
    std::uint64_t seed;
    double alpha;
    int max_level;
    std::int64_t dense_pmax_limit;  ///< below n: the sparse pMax table
    bool strict;
};

TEST(CudaFisher, ResidentLevelsAreEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const std::vector<ResidentCase> cases = {
        {60, 1000, 6, 11, 0.05, -1, 4096, false},  // cuPC's example's shape
        {100, 500, 3, 1, 0.01, -1, 4096, false},   // a sparse graph
        {100, 300, 8, 2, 0.05, -1, 10, false},     // sparse pMax table
        {150, 400, 9, 21, 0.05, 2, 4096, false},   // stopped by max_level
        {200, 2000, 12, 3, 0.01, -1, 4096, true},  // independent iff p > alpha; level 7 by the loop
        {60, 3000, 20, 8, 0.2, -1, 4096, false},   // dense
        {400, 600, 5, 9, 0.1, -1, 100, false},     // level 6's walks beyond kResidentMaxSets: the loop's
    };
    int handed_back = 0;
    for (const ResidentCase& c : cases) {
        const Dataset data = simulate(c.n, c.m, c.degree, c.seed);
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = c.alpha;
        opt.policy.strict = c.strict;
        opt.max_level = c.max_level;
        opt.dense_pmax_limit = c.dense_pmax_limit;
        skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
        const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
        auto gpu = cuda::make_fisher_engine_from_corr(cpu.correlation(), c.n, c.m, opt.policy, cuda::FisherTunables{});
        CountingEngine counted(*gpu);
        std::vector<skeleton::LevelStats> seen;
        const skeleton::SkeletonResult got =
            skeleton::learn_skeleton(counted, opt, [&](const skeleton::LevelStats& st) { seen.push_back(st); });
        const std::string label = "n " + std::to_string(c.n) + " seed " + std::to_string(c.seed);
        EXPECT_TRUE(same_result(got, want, 0.0)) << label;
        EXPECT_GE(counted.resident_levels, 1) << label;
        handed_back += counted.loop_levels > 0;
        // Per level: what was removed and what is left as on the CPU.
        ASSERT_EQ(got.levels.size(), want.levels.size()) << label;
        ASSERT_EQ(seen.size(), want.levels.size()) << label;
        for (std::size_t k = 1; k < want.levels.size(); ++k) {
            EXPECT_EQ(got.levels[k].level, want.levels[k].level) << label;
            EXPECT_EQ(got.levels[k].removed, want.levels[k].removed) << label << " level " << k;
            EXPECT_EQ(got.levels[k].edges_after, want.levels[k].edges_after) << label << " level " << k;
            EXPECT_GT(got.levels[k].tests, 0) << label << " level " << k;
            EXPECT_GE(got.levels[k].seconds, 0.0) << label << " level " << k;
        }
        // Level 1's tests are the walk's count: each lower entry (i, j > i) up to its first
        // separating set, each upper one whose lower entry kept the edge likewise.
        skeleton::SkeletonOptions upto = opt;
        upto.max_level = 0;
        const Adjacency snap = Adjacency::from_graph(skeleton::learn_skeleton(cpu, upto).skeleton);
        std::vector<char> separated(snap.nbrs.size(), 0);
        std::int64_t walk = 0;
        for (int upper = 0; upper < 2; ++upper)
            for (std::int64_t i = 0; i < c.n; ++i) {
                if (snap.degree(i) < 2) continue;
                for (std::int64_t e = snap.offsets[i]; e < snap.offsets[i + 1]; ++e) {
                    const std::int32_t j = snap.nbrs[e];
                    if ((j < i) != (upper == 1)) continue;
                    if (upper && separated[snap.find(j, static_cast<std::int32_t>(i))]) continue;
                    for (std::int64_t f = snap.offsets[i]; f < snap.offsets[i + 1]; ++f) {
                        if (f == e) continue;
                        ++walk;
                        if (opt.policy.independent(cpu.p_value(static_cast<std::int32_t>(i), j, {snap.nbrs[f]}))) {
                            separated[e] = 1;
                            break;
                        }
                    }
                }
            }
        if (want.levels.size() > 1) {
            EXPECT_EQ(got.levels[1].tests, walk) << label;
        }
        std::printf("[resident] %s: %zu levels, %d resident, %d by the loop, %lld edges\n", label.c_str(),
                    want.levels.size(), counted.resident_levels, counted.loop_levels,
                    static_cast<long long>(want.skeleton.n_edges()));
    }
    EXPECT_GE(handed_back, 1) << "a case should hand its deeper levels back to the loop";
}

// ---- level 0 ---------------------------------------------------------------------------------

TEST(CudaFisher, Level0IsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const std::int64_t n = 700, m = 400;
    const Dataset data = simulate(n, m, 6, 9);
    skeleton::TestPolicy policy;
    policy.alpha = 0.01;
    skeleton::CpuFisherEngine cpu(data, policy, 0);
    // Level 0's bit rows at once, and in blocks of 7 rows (the genome-scale pass); C held
    // whole, or not (corr-limit): each entry tested in the correlation kernel (128 x 128 and
    // 128 x 64 tiles), or row blocks of C (64 x 64) read by the level-0 kernel.
    cuda::FisherTunables blocked;
    blocked.level0_bits_bytes = 7 * ((n + 63) / 64) * 8;
    std::vector<cuda::FisherTunables> all;
    for (const auto& base : {cuda::FisherTunables{}, blocked})
        for (int c : {-1, int{kCorrTiles128}, int{kCorrTiles128x64}, int{kCorrTiles64}}) {  // -1: C held whole
            cuda::FisherTunables t = base;
            if (c >= 0) t.corr_limit_bytes = 1;
            t.corr_tile = c < 0 ? t.corr_tile : c;
            t.level0_fused = c != kCorrTiles64;
            all.push_back(t);
        }
    for (const auto& tunables : all)
        for (bool dense : {true, false})
            for (auto [rb, re] : {std::pair<std::int64_t, std::int64_t>{0, n}, {123, 456}}) {
                auto gpu = tunables.corr_limit_bytes == 0
                               ? cuda::make_fisher_engine_from_corr(cpu.correlation(), n, m, policy, tunables)
                               : cuda::make_fisher_engine(data, policy, tunables);
                Graph gc(n), gg(n);
                skeleton::Level0Output oc, og;
                if (dense) {
                    oc.dense_p.assign(static_cast<std::size_t>(n * (n - 1) / 2), -7.0);
                    og.dense_p = oc.dense_p;
                }
                cpu.level0(rb, re, dense, gc, oc);
                gpu->level0(rb, re, dense, gg, og);
                // Without dense p-values the GPU lists the kept pairs as a CSR over all rows
                // and leaves the graph alone: turn both into the CPU engine's form.
                ASSERT_EQ(og.kept_offsets.empty(), dense);
                if (!dense) {
                    ASSERT_EQ(og.kept_offsets.size(), static_cast<std::size_t>(n + 1));
                    EXPECT_EQ(gg.n_edges(), 0);
                    for (std::int64_t i = 0; i < n; ++i) {
                        const std::int64_t b = og.kept_offsets[static_cast<std::size_t>(i)];
                        const std::int64_t e = og.kept_offsets[static_cast<std::size_t>(i) + 1];
                        if (i < rb || i >= re) {
                            EXPECT_EQ(b, e) << "row " << i << " is outside the block";
                        }
                        for (std::int64_t k = b; k < e; ++k) {
                            const std::int32_t j = og.kept_cols[static_cast<std::size_t>(k)];
                            if (k > b) {
                                EXPECT_LT(og.kept_cols[static_cast<std::size_t>(k) - 1], j) << "row " << i;
                            }
                            og.kept_p.push_back(
                                {static_cast<std::int32_t>(i), j, og.kept_pvals[static_cast<std::size_t>(k)]});
                            gg.add(i, j);
                        }
                    }
                }
                EXPECT_TRUE(gc == gg) << "dense " << dense << " rows " << rb << ".." << re << " bits "
                                      << tunables.level0_bits_bytes << " C whole " << (tunables.corr_limit_bytes == 0)
                                      << " tile " << tunables.corr_tile << " fused " << tunables.level0_fused;
                EXPECT_EQ(oc.tests, og.tests);
                for (std::size_t k = 0; k < oc.dense_p.size(); ++k)
                    ASSERT_TRUE(close(oc.dense_p[k], og.dense_p[k], 1e-12))
                        << k << ": " << oc.dense_p[k] << " vs " << og.dense_p[k];
                auto by_pair = [](const skeleton::PairP& x, const skeleton::PairP& y) {
                    return x.i != y.i ? x.i < y.i : x.j < y.j;
                };
                std::sort(oc.kept_p.begin(), oc.kept_p.end(), by_pair);
                ASSERT_EQ(oc.kept_p.size(), og.kept_p.size());
                for (std::size_t k = 0; k < oc.kept_p.size(); ++k) {
                    ASSERT_EQ(oc.kept_p[k].i, og.kept_p[k].i) << k;  // the GPU lists rows in order
                    ASSERT_EQ(oc.kept_p[k].j, og.kept_p[k].j) << k;
                    ASSERT_TRUE(close(oc.kept_p[k].p, og.kept_p[k].p, 1e-12)) << k;
                }
            }
}

// ---- single tests (orientation rules) ----------------------------------------------------------

TEST(CudaFisher, PValueIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const std::int64_t n = 40, m = 200;
    const Dataset data = simulate(n, m, 5, 10);
    skeleton::TestPolicy policy;
    skeleton::CpuFisherEngine cpu(data, policy, 1);
    auto gpu = cuda::make_fisher_engine_from_corr(cpu.correlation(), n, m, policy, {});
    std::mt19937_64 rng(11);
    for (int t = 0; t < 200; ++t) {
        std::vector<std::int32_t> perm(n);
        for (int k = 0; k < n; ++k) perm[k] = k;
        std::shuffle(perm.begin(), perm.end(), rng);
        const int l = t % 12;
        std::vector<std::int32_t> s(perm.begin() + 2, perm.begin() + 2 + l);
        std::sort(s.begin(), s.end());
        // Same gathered values, same host arithmetic: bit-identical.
        EXPECT_EQ(cpu.p_value(perm[0], perm[1], s), gpu->p_value(perm[0], perm[1], s)) << t;
    }
}

// FCI's batch path (SkeletonEngine::partial_correlations): every query's r is the CPU
// engine's partial_correlation bit for bit, sets of 0..13 nodes, regular and singular
// blocks (exact copies force the pseudo-inverse), in one call and split into two calls.
TEST(CudaFisher, BatchPartialCorrelationsAreTheCpusBitForBit) {
    CUDAG_REQUIRE_GPU();
    const std::int64_t n = 60, m = 300;
    Dataset data = simulate(n, m, 5, 21);
    for (std::int64_t s = 0; s < m; ++s) data.column(9)[s] = data.column(4)[s];
    skeleton::TestPolicy policy;
    skeleton::CpuFisherEngine cpu(data, policy, 1);
    auto gpu = cuda::make_fisher_engine_from_corr(cpu.correlation(), n, m, policy, {});
    std::mt19937_64 rng(5);
    std::vector<std::int32_t> x, y, nodes;
    std::vector<std::int64_t> off{0};
    std::vector<double> want;
    for (int t = 0; t < 3000; ++t) {
        std::vector<std::int32_t> perm(n);
        for (int k = 0; k < n; ++k) perm[k] = k;
        std::shuffle(perm.begin(), perm.end(), rng);
        const int l = t % 14;
        std::vector<std::int32_t> s(perm.begin() + 2, perm.begin() + 2 + l);
        if (t % 5 == 0 && l >= 2) {  // 4 and 9 (equal columns) together: singular C[S, S]
            std::erase(s, 4);
            std::erase(s, 9);
            s.resize(static_cast<std::size_t>(l - 2));
            s.push_back(4);
            s.push_back(9);
            if (perm[0] == 4 || perm[0] == 9 || perm[1] == 4 || perm[1] == 9) continue;
        }
        std::sort(s.begin(), s.end());
        x.push_back(perm[0]);
        y.push_back(perm[1]);
        nodes.insert(nodes.end(), s.begin(), s.end());
        off.push_back(static_cast<std::int64_t>(nodes.size()));
        want.push_back(cpu.partial_correlation(perm[0], perm[1], s));
    }
    std::vector<double> got(want.size(), -7.0);
    ASSERT_TRUE(gpu->partial_correlations(skeleton::FlatQueries{x, y, off, nodes}, got));
    for (std::size_t q = 0; q < want.size(); ++q) ASSERT_EQ(got[q], want[q]) << q;
    // The second half alone (offsets not starting at 0, as a rank's share).
    const std::size_t h = want.size() / 2;
    std::vector<double> half(want.size() - h, -7.0);
    const auto nb = static_cast<std::size_t>(off[h]);
    ASSERT_TRUE(gpu->partial_correlations(
        skeleton::FlatQueries{std::span<const std::int32_t>(x).subspan(h), std::span<const std::int32_t>(y).subspan(h),
                              std::span<const std::int64_t>(off).subspan(h),
                              std::span<const std::int32_t>(nodes).subspan(nb)},
        half));
    for (std::size_t q = 0; q < half.size(); ++q) ASSERT_EQ(half[q], want[h + q]) << q;
}

// ---- singular conditioning blocks (pseudo-inverse fallback) --------------------------------------

TEST(CudaFisher, SingularBlocksAreEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const std::int64_t n = 80, m = 600;
    Dataset data = simulate(n, m, 6, 12);
    // Exact copies and an exact linear combination make C[S,S] singular for sets that
    // hold them together, so the Jacobi pseudo-inverse path runs (same code, no FMA).
    for (std::int64_t s = 0; s < m; ++s) {
        data.column(7)[s] = data.column(3)[s];
        data.column(21)[s] = data.column(40)[s];
        data.column(55)[s] = data.column(3)[s] - 0.5 * data.column(40)[s];
    }
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
    for (char variant : {'s', 'e'}) {
        cuda::FisherTunables t;
        t.variant = variant;
        auto gpu = cuda::make_fisher_engine_from_corr(cpu.correlation(), n, m, opt.policy, t);
        EXPECT_TRUE(same_result(skeleton::learn_skeleton(*gpu, opt), want, 0.0)) << variant;
    }
}

// ---- strict (p > alpha) decisions -------------------------------------------------------------

TEST(CudaFisher, StrictPolicyIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const std::int64_t n = 300, m = 500;
    const Dataset data = simulate(n, m, 6, 13);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    opt.policy.strict = true;
    skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
    auto gpu = cuda::make_fisher_engine_from_corr(cpu.correlation(), n, m, opt.policy, {});
    EXPECT_TRUE(same_result(skeleton::learn_skeleton(*gpu, opt), want, 0.0));
}

// ---- pMax and separating sets kept on the device (DeviceResults) ------------------------------

TEST(CudaFisher, KeptResultsMatchCpuWithSparsePmaxCheckpointsAndResume) {
    CUDAG_REQUIRE_GPU();
    const std::int64_t n = 400, m = 600;
    const Dataset data = simulate(n, m, 7, 17);
    for (const bool sparse : {false, true}) {
        SCOPED_TRACE(sparse ? "sparse pMax" : "dense pMax");
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = 0.05;
        if (sparse) opt.dense_pmax_limit = 0;  // the table over level 0's kept pairs
        skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
        auto gpu = cuda::make_fisher_engine_from_corr(cpu.correlation(), n, m, opt.policy, {});
        ASSERT_NE(gpu->device_results(), nullptr);
        const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
        ASSERT_GE(want.levels.size(), 4u);
        EXPECT_TRUE(same_result(skeleton::learn_skeleton(*gpu, opt), want, 0.0));
        // Checkpoints take the table back from the device after every level.
        std::vector<skeleton::PairPList> want_p, got_p;
        skeleton::SkeletonHooks hw, hg;
        hw.on_checkpoint = [&](const skeleton::SkeletonState& st) { want_p.push_back(st.pmax); };
        hg.on_checkpoint = [&](const skeleton::SkeletonState& st) { got_p.push_back(st.pmax); };
        mpi::SerialCommunicator serial;
        skeleton::learn_skeleton(cpu, opt, serial, {}, hw);
        skeleton::learn_skeleton(*gpu, opt, serial, {}, hg);
        ASSERT_EQ(want_p.size(), got_p.size());
        for (std::size_t k = 0; k < want_p.size(); ++k) {
            ASSERT_EQ(want_p[k].size(), got_p[k].size()) << "checkpoint " << k;
            for (std::size_t q = 0; q < want_p[k].size(); ++q) {
                ASSERT_TRUE(want_p[k][q].i == got_p[k][q].i && want_p[k][q].j == got_p[k][q].j) << k << "/" << q;
                ASSERT_TRUE(close(want_p[k][q].p, got_p[k][q].p, 0.0)) << k << "/" << q;
            }
        }
        // Stopped after level 1 and resumed: the engine adopts the checkpoint's table.
        skeleton::SkeletonHooks stop;
        std::optional<skeleton::SkeletonState> saved;
        stop.on_checkpoint = [&](const skeleton::SkeletonState& st) { saved = st; };
        stop.stop_after_level = 1;
        EXPECT_THROW(skeleton::learn_skeleton(*gpu, opt, serial, {}, stop), skeleton::StoppedAfterLevel);
        skeleton::SkeletonHooks resume;
        resume.resume = std::move(saved);
        EXPECT_TRUE(same_result(skeleton::learn_skeleton(*gpu, opt, serial, {}, resume), want, 0.0));
    }
}

// ---- the full GPU path: correlation on the device -------------------------------------------------

TEST(CudaFisher, FullGpuPathIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    for (auto [n, m, deg, seed] :
         {std::tuple<std::int64_t, std::int64_t, double, std::uint64_t>{300, 1000, 5, 14}, {1500, 700, 6, 15}}) {
        const Dataset data = simulate(n, m, deg, seed);
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = 0.01;
        skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
        // The GPU sums every entry in the CPU's order: C is the same bit for bit.
        const std::vector<double> c = cuda::gpu_correlation(data);
        ASSERT_EQ(c.size(), cpu.correlation().size());
        std::size_t differ = 0;
        for (std::size_t k = 0; k < c.size(); ++k)
            differ += std::memcmp(&c[k], &cpu.correlation()[k], sizeof(double)) != 0;
        EXPECT_EQ(differ, 0u) << "n=" << n;
        const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
        for (char variant : {'s', 'e'}) {
            cuda::FisherTunables t;
            t.variant = variant;
            auto gpu = cuda::make_fisher_engine(data, opt.policy, t);
            // Same C: the same decisions and sets; p differs by the ulps of erfc/log1p only.
            EXPECT_TRUE(same_result(skeleton::learn_skeleton(*gpu, opt), want, 0.0)) << "n=" << n << " " << variant;
        }
    }
}

TEST(CudaFisher, CorrelationNotHeldWholeGivesTheSameResult) {
    CUDAG_REQUIRE_GPU();
    // A limit far below n² doubles: level 0 tests each entry in the correlation kernel (or,
    // in the second run, writes C in row blocks of the 64-wide kernel for the level-0
    // kernel), levels >= 1 hold a few rows of C and sum every other entry again from the
    // data; levels >= 2 run the entry scan on each row's neighbourhood block of C, or
    // (row-blocks off, the second run) cuPC-S/E.
    for (auto [n, m, deg, seed, rows] :
         {std::tuple<std::int64_t, std::int64_t, double, std::uint64_t, std::int64_t>{300, 1000, 5, 31, 20},
          {500, 400, 8, 32, 300},
          {700, 2000, 4, 33, 0}}) {
        const Dataset data = simulate(n, m, deg, seed);
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = 0.05;
        skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
        const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
        for (char variant : {'s', 'e'}) {
            for (const bool blocks : {true, false}) {
                cuda::FisherTunables t;
                t.variant = variant;
                t.row_blocks = blocks;
                t.level0_fused = blocks;
                t.corr_tile = blocks ? kCorrTilesAuto : kCorrTiles64;
                t.corr_limit_bytes = std::max<std::int64_t>(rows * n * 8, 1);
                auto gpu = cuda::make_fisher_engine(data, opt.policy, t);
                EXPECT_NE(gpu->setup_note().find("does not fit"), std::string::npos) << gpu->setup_note();
                EXPECT_TRUE(same_result(skeleton::learn_skeleton(*gpu, opt), want, 0.0))
                    << "n=" << n << " " << variant << " rows " << rows << " row blocks " << blocks;
                // Orientation's p-values read C through the same path.
                const std::vector<std::int32_t> s{3, 7};
                EXPECT_NEAR(gpu->p_value(1, static_cast<std::int32_t>(n - 1), s),
                            cpu.p_value(1, static_cast<std::int32_t>(n - 1), s), 1e-12);
            }
        }
    }
}

TEST(CudaFisher, RowBlocksRunHubLevelsAsTheCpuDoes) {
    CUDAG_REQUIRE_GPU();
    // Scale-free data (hubs): with C not held whole, levels >= 2 read the rows'
    // neighbourhood blocks through the template scan (levels 2-4) and the deep scan (5 and
    // up); the CPU's skeleton, separating sets and pMax at every level.
    sim::GaussianSimSpec base{800, 300, 0.0, 91};
    sim::NetworkSimSpec net;
    net.graph = sim::GraphKind::ScaleFree;
    net.degree = 2;
    const Dataset data = sim::simulate_network(base, net).data;
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
    ASSERT_GE(want.levels.size(), 7u) << "the set should reach the deep scan's levels";
    for (const std::int64_t rows : {std::int64_t{0}, std::int64_t{200}}) {
        cuda::FisherTunables t;
        t.corr_limit_bytes = std::max<std::int64_t>(rows * data.n_vars * 8, 1);
        auto gpu = cuda::make_fisher_engine(data, opt.policy, t);
        EXPECT_NE(gpu->setup_note().find("does not fit"), std::string::npos) << gpu->setup_note();
        const skeleton::SkeletonResult got = skeleton::learn_skeleton(*gpu, opt);
        EXPECT_TRUE(same_result(got, want, 0.0)) << "held rows " << rows;
        EXPECT_EQ(got.levels.size(), want.levels.size()) << "held rows " << rows;
    }
}

TEST(CudaFisher, CorrelationRowBlocksEqualTheWholeMatrix) {
    CUDAG_REQUIRE_GPU();
    // m not a multiple of the kernel's 16-sample chunks, n not of its 64-row tiles.
    const Dataset data = simulate(203, 77, 4, 21);
    const std::vector<double> whole = ci::correlation_matrix(data, 3);
    const std::int64_t n = data.n_vars;
    for (auto [r0, r1] : {std::pair<std::int64_t, std::int64_t>{0, 203}, {0, 64}, {5, 70}, {130, 203}, {202, 203}}) {
        const std::vector<double> rows = cuda::gpu_correlation_rows(data, r0, r1);
        ASSERT_EQ(static_cast<std::int64_t>(rows.size()), (r1 - r0) * n);
        std::size_t differ = 0;
        for (std::int64_t k = 0; k < (r1 - r0) * n; ++k)
            differ += std::memcmp(&rows[k], &whole[r0 * n + k], sizeof(double)) != 0;
        EXPECT_EQ(differ, 0u) << "rows " << r0 << ".." << r1;
        EXPECT_EQ(rows[0 * n + r0], 1.0);
    }
}

TEST(CudaFisher, CorrelationTilesGiveTheCpuEntriesBitForBit) {
    CUDAG_REQUIRE_GPU();
    // Each tile kernel (64 x 64; 128 x 128 and 128 x 64 staged 8 samples at a time) and the
    // entry-a-thread kernel (automatic below 2^16 entries: n = 70, 131 and 203 here, and each
    // block of rows) on shapes that cut its tiles, chunks and block groups: m below one chunk,
    // not a multiple of 8, 16 or 128 and above several chunks (the standardisation's too);
    // n not a multiple of 16, 64 or 128, and above 16 row tiles of 128 (a second group).
    for (auto [n, m, seed] : {std::tuple<std::int64_t, std::int64_t, std::uint64_t>{203, 77, 21},
                              {131, 5, 22},
                              {2100, 41, 23},
                              {70, 1037, 24}}) {
        const Dataset data = simulate(n, m, 4, seed);
        const std::vector<double> whole = ci::correlation_matrix(data, 3);
        for (const int tile : {kCorrTilesAuto, kCorrEntries, kCorrTiles64, kCorrTiles128x64, kCorrTiles128}) {
            const std::vector<double> c = cuda::gpu_correlation(data, 0, tile);
            ASSERT_EQ(c.size(), whole.size());
            std::size_t differ = 0;
            for (std::size_t k = 0; k < c.size(); ++k) differ += std::memcmp(&c[k], &whole[k], sizeof(double)) != 0;
            EXPECT_EQ(differ, 0u) << "n=" << n << " m=" << m << " tile " << tile;
            for (auto [r0, r1] :
                 {std::pair<std::int64_t, std::int64_t>{0, 1}, {3, std::min<std::int64_t>(130, n)}, {n - 7, n}}) {
                const std::vector<double> rows = cuda::gpu_correlation_rows(data, r0, r1, 0, tile);
                ASSERT_EQ(static_cast<std::int64_t>(rows.size()), (r1 - r0) * n);
                differ = 0;
                for (std::int64_t k = 0; k < (r1 - r0) * n; ++k)
                    differ += std::memcmp(&rows[k], &whole[r0 * n + k], sizeof(double)) != 0;
                EXPECT_EQ(differ, 0u) << "n=" << n << " rows " << r0 << ".." << r1 << " tile " << tile;
            }
        }
    }
}

// ---- errors ----------------------------------------------------------------------------------

TEST(CudaFisher, CausalLearnCompatIsRejected) {
    CUDAG_REQUIRE_GPU();
    skeleton::TestPolicy policy;
    policy.exhaustive = true;
    policy.strict = true;
    const std::vector<double> c = {1.0, 0.5, 0.5, 1.0};
    try {
        cuda::make_fisher_engine_from_corr(c, 2, 100, policy, {});
        FAIL() << "no exception";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("CPU backend only"), std::string::npos) << e.what();
    }
}

TEST(CudaFisher, BadTunablesAreInputErrors) {
    CUDAG_REQUIRE_GPU();
    const std::vector<double> c = {1.0, 0.5, 0.5, 1.0};
    cuda::FisherTunables t;
    t.variant = 'x';
    EXPECT_THROW(cuda::make_fisher_engine_from_corr(c, 2, 100, {}, t), InputError);
    t = {};
    t.theta = 2048;
    EXPECT_THROW(cuda::make_fisher_engine_from_corr(c, 2, 100, {}, t), InputError);
    t = {};
    t.scan_levels = -1;
    EXPECT_THROW(cuda::make_fisher_engine_from_corr(c, 2, 100, {}, t), InputError);
    t = {};
    t.scan_deep_from = 1;
    EXPECT_THROW(cuda::make_fisher_engine_from_corr(c, 2, 100, {}, t), InputError);
    t = {};
    t.scan_round_levels = -1;
    EXPECT_THROW(cuda::make_fisher_engine_from_corr(c, 2, 100, {}, t), InputError);
    t = {};
    t.scan_first_round = 0;
    EXPECT_THROW(cuda::make_fisher_engine_from_corr(c, 2, 100, {}, t), InputError);
    t = {};
    t.level0_bits_bytes = 7;
    EXPECT_THROW(cuda::make_fisher_engine_from_corr(c, 2, 100, {}, t), InputError);
}

TEST(CudaFisher, ConstantColumnIsAnInputError) {
    CUDAG_REQUIRE_GPU();
    Dataset data = simulate(5, 50, 2, 16);
    for (std::int64_t s = 0; s < 50; ++s) data.column(2)[s] = 3.0;
    EXPECT_THROW(cuda::make_fisher_engine(data, {}, {}), InputError);
}

namespace {
Dataset wide_data(std::int64_t n) {
    Dataset data;
    data.n_vars = n;
    data.n_samples = 4;
    data.values.resize(static_cast<std::size_t>(data.n_vars * data.n_samples));
    for (std::size_t k = 0; k < data.values.size(); ++k) data.values[k] = static_cast<double>(k % 7) + 0.25 * (k % 4);
    for (std::int64_t v = 0; v < data.n_vars; ++v) data.names.push_back(cudag::test::indexed_name("V", v));
    data.source = "big";
    return data;
}
}  // namespace

TEST(CudaFisher, OversizedCorrelationIsNotHeldWhole) {
    CUDAG_REQUIRE_GPU();
    // 200,000 variables: C needs 298 GiB, more than any single GPU has; the engine says
    // so and holds the standardised data instead.
    auto eng = cuda::make_fisher_engine(wide_data(200000), {}, {});
    const std::string note = eng->setup_note();
    EXPECT_NE(note.find("does not fit: it needs 298.02 GiB"), std::string::npos) << note;
    EXPECT_NE(note.find("free"), std::string::npos) << note;
    std::printf("[not whole] %s\n", note.c_str());
}

TEST(CudaFisher, MillionsOfVariablesNeedNoBitMatrix) {
    CUDAG_REQUIRE_GPU();
    // 1,500,000 variables: the n²/8-byte bit adjacency would be 262 GiB; level 0 runs its
    // bit rows in 1 GiB blocks instead, so the engine holds the data and one block.
    auto eng = cuda::make_fisher_engine(wide_data(1500000), {}, {});
    EXPECT_NE(eng->setup_note().find("does not fit"), std::string::npos) << eng->setup_note();
    EXPECT_EQ(eng->n_vars(), 1500000);
}

TEST(CudaFisher, Level0InBlocksGivesTheSameSearch) {
    CUDAG_REQUIRE_GPU();
    // The whole search with level 0 in blocks of 5 rows, the pMax table sparse (as at
    // large n), with C whole and not: the CPU's skeleton, separating sets and pMax.
    const std::int64_t n = 400, m = 500;
    const Dataset data = simulate(n, m, 5, 77);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.02;
    opt.dense_pmax_limit = 0;
    skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
    const skeleton::SkeletonResult want = skeleton::learn_skeleton(cpu, opt);
    for (const bool whole : {true, false}) {
        cuda::FisherTunables t;
        t.level0_bits_bytes = 5 * ((n + 63) / 64) * 8;
        if (!whole) t.corr_limit_bytes = 64 * n * 8;
        auto gpu = cuda::make_fisher_engine(data, opt.policy, t);
        EXPECT_TRUE(same_result(skeleton::learn_skeleton(*gpu, opt), want, 0.0)) << "C whole " << whole;
    }
}

TEST(CudaFisher, DeviceReportNamesEachDevice) {
    CUDAG_REQUIRE_GPU();
    const std::string r = cuda::device_report();
    EXPECT_NE(r.find("GPU 0:"), std::string::npos) << r;
    std::printf("[devices] %s\n", r.c_str());
}

// ---- timings (not run by default: --gtest_also_run_disabled_tests) -------------------------------

namespace {

struct BenchSet {
    std::int64_t n, m;
    double density;  ///< per-pair edge probability of the generator
    bool cpu;        ///< also time the CPU engine
};

void bench_one(const char* label, skeleton::SkeletonEngine& eng, const skeleton::SkeletonOptions& opt, double setup_s,
               skeleton::SkeletonResult* keep) {
    const auto t0 = std::chrono::steady_clock::now();
    skeleton::SkeletonResult r = skeleton::learn_skeleton(eng, opt, [&](const skeleton::LevelStats& s) {
        std::printf("[bench]   %-6s level %d: %lld tests, %lld removed, %lld edges left, %.3f s\n", label, s.level,
                    static_cast<long long>(s.tests), static_cast<long long>(s.removed),
                    static_cast<long long>(s.edges_after), s.seconds);
        std::fflush(stdout);
    });
    const double secs = seconds_since(t0);
    std::int64_t tests = 0;
    for (const auto& s : r.levels) tests += s.tests;
    std::printf("[bench] %-6s setup %.3f s, skeleton %.3f s, %zu levels, %lld edges, %.3g tests/s\n", label, setup_s,
                secs, r.levels.size(), static_cast<long long>(r.skeleton.n_edges()), static_cast<double>(tests) / secs);
    std::fflush(stdout);
    if (keep) *keep = std::move(r);
}

}  // namespace

TEST(CudaFisherBench, DISABLED_TimingsAgainstCpu) {
    CUDAG_REQUIRE_GPU();
    std::vector<BenchSet> sets = {{1643, 850, 10.0 / 1642, true},
                                  {20000, 1000, 5.0 / 19999, true},
                                  {1000, 10000, 0.1, false},
                                  {2000, 10000, 0.1, false}};
    for (BenchSet b : sets) {
        Dataset data;
        for (;;) {
            try {
                data = sim::simulate_gaussian({b.n, b.m, b.density, 1}, 0).data;
                break;
            } catch (const Error& e) {
                std::printf("[bench] simulate n=%lld d=%g refused (%s); halving d\n", static_cast<long long>(b.n),
                            b.density, e.what());
                b.density /= 2;
            }
        }
        std::printf("[bench] set n=%lld m=%lld d=%g\n", static_cast<long long>(b.n), static_cast<long long>(b.m),
                    b.density);
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = 0.01;
        skeleton::SkeletonResult ref, got;
        if (b.cpu) {
            auto t0 = std::chrono::steady_clock::now();
            skeleton::CpuFisherEngine cpu(data, opt.policy, 0);
            bench_one("cpu", cpu, opt, seconds_since(t0), &ref);
        }
        for (char variant : {'s', 'e'}) {
            cuda::FisherTunables t;
            t.variant = variant;
            auto t0 = std::chrono::steady_clock::now();
            auto gpu = cuda::make_fisher_engine(data, opt.policy, t);
            const double setup = seconds_since(t0);
            bench_one(variant == 's' ? "gpu-s" : "gpu-e", *gpu, opt, setup, &got);
            if (b.cpu) {
                EXPECT_TRUE(got.skeleton == ref.skeleton && got.sepsets == ref.sepsets) << variant;
            }
        }
    }
}

#else  // !CUDAG_HAVE_CUDA

TEST(CudaFisher, SkippedWithoutCuda) { CUDAG_REQUIRE_GPU(); }

#endif

#if CUDAG_HAVE_CUDA
// Host-only: the kernels decide on |r| outside the band and on p inside it; outside the
// band the |r| decision must equal the p decision for r of either sign.
TEST(CudaDecisionBand, AgreesWithThePValueOutsideANarrowBand) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    int checked = 0;
    for (std::int64_t m : {12, 50, 850, 10000, 1000000})
        for (int l : {0, 1, 3, 7})
            for (double alpha : {1e-8, 0.01, 0.05, 0.5})
                for (bool strict : {false, true}) {
                    const auto [lo, hi] = cuda::decision_band(m, l, alpha, strict);
                    ASSERT_LT(lo, hi);
                    ASSERT_GT(lo, 0.0) << "m " << m << " l " << l << " alpha " << alpha;
                    ASSERT_LT(hi - lo, 1e-5 * hi);
                    const auto indep = [&](double r) {
                        const double p = ci::fisher_z_pvalue(r, m, l);
                        return strict ? p > alpha : p >= alpha;
                    };
                    EXPECT_TRUE(indep(lo) && indep(-lo));
                    EXPECT_FALSE(indep(hi) || indep(-hi));
                    for (int k = 0; k < 2000; ++k) {
                        // Half the draws near the boundary, half anywhere.
                        const double r = k % 2 ? u(rng) : 0.5 * (lo + hi) * (1.0 + 1e-4 * u(rng));
                        if (std::fabs(r) < lo) {
                            EXPECT_TRUE(indep(r)) << r;
                        } else if (std::fabs(r) > hi) {
                            EXPECT_FALSE(indep(r)) << r;
                        }
                        ++checked;
                    }
                }
    EXPECT_EQ(checked, 5 * 4 * 4 * 2 * 2000);
}

TEST(CudaDecisionBand, DecidesEverythingOnPWhenNoCorrelationIsDependent) {
    // m = 5, l = 1 (one degree of freedom): with alpha below p at the largest |r| the
    // test never rejects, so there is no boundary and every test is decided on p.
    const double p_max_r = ci::fisher_z_pvalue(ci::kMaxAbsCorrelation, 5, 1);
    ASSERT_GT(p_max_r, 1e-18);
    ASSERT_LT(p_max_r, 1e-15);
    const auto [lo, hi] = cuda::decision_band(5, 1, p_max_r / 10, false);
    EXPECT_LT(lo, 0.0);
    EXPECT_GT(hi, 1.0);
}
#endif
