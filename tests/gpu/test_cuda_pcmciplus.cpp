// SPDX-License-Identifier: Apache-2.0
// PCMCI+ (src/pcmci/pcmciplus.hpp) with ParCorr on a GPU against the CPU: the same run with the
// job's ParCorrBatch over the Fisher-z engine of the CPU (ci::CpuBatchTest) and of the GPU
// (skeleton::make_gpu_batch_test) gives the same parents, test counts and graph, and val_matrix
// and p_matrix bit for bit (EXPECT_EQ on doubles), on reference cases of tests/data/pcmciplus/
// (every collider rule, conflicts, reset_lagged_links, fdr_bh) and on a larger series (N 12,
// T 800, tau_max 3: about 900 tests); tigramite's pc_alpha selection (a list or None) for
// PCMCI+ and PCMCI's condition selection: the same chosen values, scores and results. Skips
// when this build has no CUDA or no device is visible.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/backend.hpp"
#include "core/dataset.hpp"
#include "mpi/communicator.hpp"
#include "pcmci/lagged.hpp"
#include "pcmci/parcorr_test.hpp"
#include "pcmci/pcmciplus.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/test_spec.hpp"
#include "support/gpu.hpp"
#include "support/pcmci_series.hpp"

using namespace cudag;
using namespace cudag::pcmci;

namespace {

const std::string kDir = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmciplus/";

Dataset read_series(const std::string& path) { return test::read_pcmci_csv(path); }

/// A linear VAR with contemporaneous links: x_t[v] = 0.5 x_{t-1}[v] + 0.4 x_t[v-1] (v % 3 == 1)
/// + 0.3 x_{t-2}[v+1] (v % 4 == 0) + noise.
Dataset var_series(std::int64_t n, std::int64_t t, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise;
    std::vector<std::vector<double>> x(static_cast<std::size_t>(t), std::vector<double>(static_cast<std::size_t>(n)));
    for (std::int64_t s = 0; s < t; ++s)
        for (std::int64_t v = 0; v < n; ++v) {
            double a = noise(rng);
            if (s >= 1) a += 0.5 * x[s - 1][v];
            if (v % 3 == 1) a += 0.4 * x[s][v - 1];
            if (s >= 2 && v % 4 == 0 && v + 1 < n) a += 0.3 * x[s - 2][v + 1];
            x[s][v] = a;
        }
    Dataset d;
    d.n_vars = n;
    d.n_samples = t;
    d.source = "var";
    for (std::int64_t v = 0; v < n; ++v) {
        std::string name = "x";  // not "x" + ...: GCC 12 warns wrongly (-Wrestrict) on that
        name += std::to_string(v);
        d.names.push_back(name);
    }
    for (std::int64_t v = 0; v < n; ++v)
        for (std::int64_t s = 0; s < t; ++s) d.values.push_back(x[s][v]);
    return d;
}

/// ParCorrBatch over the Fisher-z engine of the CPU or the GPU (null without a GPU engine).
std::unique_ptr<ci::BatchTest> parcorr(const LaggedData& lagged, bool gpu) {
    skeleton::TestSpec spec;
    spec.kind = skeleton::TestKind::FisherZ;
    std::unique_ptr<ci::BatchTest> engine = test::pcmci_engine(lagged.data, spec, gpu);
    if (!engine) return nullptr;
    return std::make_unique<ParCorrBatch>(std::move(engine), lagged.data.n_samples);
}

/// run_pcmciplus with ParCorrBatch over the Fisher-z engine of the CPU or the GPU.
Result run(const Dataset& series, const Settings& s, bool gpu) {
    const LaggedData lagged = make_lagged(series, 2 * s.tau_max);
    const auto tests = parcorr(lagged, gpu);
    if (!tests) return {};
    return run_pcmciplus(lagged, s, *tests);
}

void expect_same(const Result& cpu, const Result& gpu) {
    test::expect_same_pcmci(cpu, gpu);
    EXPECT_EQ(cpu.optimal_pc_alpha, gpu.optimal_pc_alpha);
    EXPECT_EQ(cpu.pc_alpha_scores, gpu.pc_alpha_scores);
}

}  // namespace

TEST(CudaPcmciPlus, ParCorrRunIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    struct Case {
        const char* stem;
        Settings s;
    };
    std::vector<Case> cases(4);
    cases[0] = {"c02", {}};  // conservative rule
    cases[0].s.tau_max = 1;
    cases[0].s.pc_alpha = 0.1;
    cases[0].s.contemp_collider_rule = ColliderRule::Conservative;
    cases[1] = {"c05", {}};  // reset_lagged_links
    cases[1].s.tau_max = 2;
    cases[1].s.pc_alpha = 0.05;
    cases[1].s.reset_lagged_links = true;
    cases[2] = {"c06", {}};  // fdr_bh, tau_max 3
    cases[2].s.tau_max = 3;
    cases[2].s.pc_alpha = 0.1;
    cases[2].s.fdr_bh = true;
    cases[3] = {"c13", {}};  // majority, x-x conflicts, max_conds_px_lagged
    cases[3].s.tau_max = 2;
    cases[3].s.pc_alpha = 0.1;
    cases[3].s.max_conds_px_lagged = 2;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.stem);
        const Dataset series = read_series(kDir + c.stem + ".csv");
        expect_same(run(series, c.s, false), run(series, c.s, true));
    }
}

TEST(CudaPcmciPlus, LargerSeriesIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const Dataset series = var_series(12, 800, 7);
    Settings s;
    s.tau_max = 3;
    s.pc_alpha = 0.05;
    const Result cpu = run(series, s, false), gpu = run(series, s, true);
    expect_same(cpu, gpu);
    EXPECT_GT(cpu.pc1_tests + cpu.mci_tests, 500);
}

TEST(CudaPcmciPlus, PcAlphaSelectionIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    // PCMCI+ with tigramite's default list (pc_alpha None) on s00 and a list on s01.
    Settings s;
    s.tau_max = 1;
    s.pc_alpha_list = default_pc_alpha_list(true);
    const Dataset s00 = read_series(kDir + "s00.csv");
    expect_same(run(s00, s, false), run(s00, s, true));
    s.tau_max = 2;
    s.pc_alpha_list = {0.01, 0.05, 0.2};
    const Dataset s01 = read_series(kDir + "s01.csv");
    expect_same(run(s01, s, false), run(s01, s, true));
    // PCMCI's condition selection with run_pc_stable's default list (lanes of one batch).
    const Dataset p01 = read_series(std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmci/s01.csv");
    s.tau_max = 3;
    s.pc_alpha_list = default_pc_alpha_list(false);
    const LaggedData lagged = make_lagged(p01, 2 * s.tau_max);
    Pc1Selection on_cpu, on_gpu;
    std::int64_t cpu_tests = 0, gpu_tests = 0;
    const auto cpu = run_pc_stable(lagged, s, *parcorr(lagged, false), &cpu_tests, {}, nullptr, &on_cpu);
    const auto gpu_batch = parcorr(lagged, true);
    ASSERT_TRUE(gpu_batch);
    const auto gpu = run_pc_stable(lagged, s, *gpu_batch, &gpu_tests, {}, nullptr, &on_gpu);
    EXPECT_TRUE(cpu == gpu);
    EXPECT_EQ(cpu_tests, gpu_tests);
    EXPECT_EQ(on_cpu.optimal, on_gpu.optimal);
    EXPECT_EQ(on_cpu.scores, on_gpu.scores);
}
