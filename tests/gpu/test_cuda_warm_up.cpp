// SPDX-License-Identifier: Apache-2.0
// The run context's kernel warm-up (run/context.hpp's GpuWarmUp, core/backend.hpp's
// load_gpu_kernels): CUDA loads a kernel at its first launch (lazy loading, the default since
// 12.2), so a run loads its engine's kernels on the warm-up thread while the data are read.
// Checked: every kernel of each plan loads (the count of the kernels and CUB routines listed
// in kernels/*.cu's preload functions), once a context (a later load or run of the process
// loads none again, until the context is destroyed), a PC run through run::run_pc (as the command line,
// Python and R run it) loads them before its first level, and its result equals, bit for bit,
// the same run's without the warm-up (CUDAG_WARM_UP_KERNELS=0) made first in the same
// process (each test runs in a process of its own: the first run's kernels are cold), and the
// CPU engine's (skeleton and separating sets exactly, pMax bit for bit). The level-1 seconds
// with and without the warm-up are printed, not asserted. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/dataset.hpp"
#include "cudag/config.hpp"
#include "mpi/environment.hpp"
#include "run/pc.hpp"
#include "sim/gaussian.hpp"
#include "support/gpu.hpp"

using namespace cudag;

namespace {

/// Kernels (and CUB routines) the preload functions list: compaction 4 + 3 CUB routines;
/// correlation 10; level 0: 2; levels: 11 + 3 per compiled level (the runtime-l ones and
/// L = 1..6); entry scans 1 + 6; resident levels 2 + 6 (start, pack, L = 1..6); the deep scan 1;
/// the discrete level kernel 1.
constexpr int kCompact = 4 + 3, kCorrelation = 10, kLevel0 = 2, kLevels = 11 + 3 * 7, kScan = 1 + 6, kResident = 2 + 6,
              kDeep = 1;
constexpr int kFisherAll = kCompact + kCorrelation + kLevel0 + kLevels + kScan + kResident + kDeep;
/// m.max = 1: levels 0 and 1 only (the runtime-l and L = 1 level kernels, L = 1's entry scan
/// and resident level, no deep scan).
constexpr int kFisherLevel1 = kCompact + kCorrelation + kLevel0 + (11 + 3 * 2) + (1 + 1) + (2 + 1);
constexpr int kFisherLevel0 = kCompact + kCorrelation + kLevel0;

/// The process's MPI environment (one process), made once: MPI starts once a process.
mpi::Environment& environment() {
    static std::unique_ptr<mpi::Environment> env = [] {
        int argc = 0;
        char* none[] = {nullptr};
        char** argv = none;
        return std::make_unique<mpi::Environment>(argc, argv);
    }();
    return *env;
}

struct PcOutcome {
    pc::PcResult result;
    double level1_seconds = -1.0;
};

/// PC-stable (Fisher-z, alpha 0.01) on `data` through run::run_pc, in process.
PcOutcome run_pc(const Dataset& data, const std::string& backend) {
    run::PcJob job;
    job.data = "warm-up test data";
    job.test = skeleton::TestKind::FisherZ;
    job.backend = parse_backend(backend);
    job.quiet = true;
    job.cfg.alpha = 0.01;
    run::PcHooks hooks;
    hooks.in_process = true;
    hooks.whole_result = true;
    hooks.read = [&data](const io::ReadOptions&) { return data; };
    PcOutcome out;
    hooks.level = [&out](const skeleton::LevelStats& s) {
        if (s.level == 1) out.level1_seconds = s.seconds;
    };
    mpi::Environment& env = environment();
    std::unique_ptr<mpi::Communicator> comm = env.world();
    std::optional<pc::PcResult> r = std::move(run::run_pc(job, "test_cuda_warm_up", env, comm, hooks).result);
    if (!r) throw std::runtime_error("no result on rank 0");
    out.result = std::move(*r);
    return out;
}

Dataset simulated() {
    sim::GaussianSimSpec spec{40, 2000, 4.0 / 39.0, 7};
    return sim::simulate_gaussian(spec, 0).data;
}

void expect_same_pmax(const pc::PcResult& a, const pc::PcResult& b, double rel) {
    ASSERT_EQ(a.pmax.size(), b.pmax.size());
    for (std::size_t k = 0; k < a.pmax.size(); ++k) {
        EXPECT_EQ(a.pmax[k].i, b.pmax[k].i);
        EXPECT_EQ(a.pmax[k].j, b.pmax[k].j);
        if (rel == 0.0) {
            EXPECT_EQ(a.pmax[k].p, b.pmax[k].p) << "pair " << a.pmax[k].i << "-" << a.pmax[k].j;
        } else {
            EXPECT_NEAR(a.pmax[k].p, b.pmax[k].p, rel * std::max(1e-300, std::abs(b.pmax[k].p)))
                << "pair " << a.pmax[k].i << "-" << a.pmax[k].j;
        }
    }
}

TEST(CudaWarmUp, EveryKernelOfEachPlanLoadsOnceAContext) {
    CUDAG_REQUIRE_GPU();
    const long long before = gpu_kernels_loaded();
    GpuKernelPlan fisher;
    fisher.fisher = true;
    GpuKernelPlan level1 = fisher;
    level1.max_level = 1;
    GpuKernelPlan level0 = fisher;
    level0.max_level = 0;
    GpuKernelPlan discrete;
    discrete.discrete = true;
    EXPECT_FALSE(gpu_kernels_ready(0, level0));
    EXPECT_EQ(load_gpu_kernels(0, level0), kFisherLevel0);
    EXPECT_TRUE(gpu_kernels_ready(0, level0));
    EXPECT_FALSE(gpu_kernels_ready(0, level1));
    // Level 1 on top of level 0: its level kernels and scan only.
    EXPECT_EQ(load_gpu_kernels(0, level1), kFisherLevel1 - kFisherLevel0);
    EXPECT_FALSE(gpu_kernels_ready(0, fisher));
    // Every level: the compiled levels and scans again (loaded once more, counted), the deep scan.
    EXPECT_EQ(load_gpu_kernels(0, fisher), kLevels + kScan + kResident + kDeep);
    EXPECT_TRUE(gpu_kernels_ready(0, fisher));
    EXPECT_TRUE(gpu_kernels_ready(0, level1));
    // Loaded already: nothing again.
    EXPECT_EQ(load_gpu_kernels(0, fisher), 0);
    EXPECT_EQ(load_gpu_kernels(0, level1), 0);
    EXPECT_FALSE(gpu_kernels_ready(0, discrete));
    EXPECT_EQ(load_gpu_kernels(0, discrete), 1) << "the compaction is loaded: the discrete level kernel alone";
    EXPECT_TRUE(gpu_kernels_ready(0, discrete));
    EXPECT_EQ(load_gpu_kernels(0, GpuKernelPlan{}), 0);
    EXPECT_FALSE(gpu_kernels_ready(0, GpuKernelPlan{})) << "a plan of none says nothing of the context";
    EXPECT_EQ(gpu_kernels_loaded() - before, kFisherLevel1 + kLevels + kScan + kResident + kDeep + 1);
    const int visible = visible_gpus();
    EXPECT_EQ(load_gpu_kernels(visible, fisher), 0) << "a device that is not there: nothing, no throw";
    EXPECT_FALSE(gpu_kernels_ready(visible, fisher));
    // A context destroyed takes its kernels: the next load loads them all again.
    drop_gpu_context(0);
    EXPECT_FALSE(gpu_kernels_ready(0, level0));
    EXPECT_EQ(load_gpu_kernels(0, fisher), kFisherAll);
    EXPECT_TRUE(gpu_kernels_ready(0, fisher));
}

TEST(CudaWarmUp, RunLoadsItsKernelsBeforeTheLevelsAndGivesTheColdRunsResult) {
    CUDAG_REQUIRE_GPU();
    const Dataset data = simulated();
    // A fresh context, whatever ran before in this process (the binary run whole: the test
    // above leaves every kernel loaded, and the warm run below would load none).
    drop_gpu_context(0);
    // Cold: the kernels load at their first launch, inside the levels.
    ASSERT_EQ(setenv("CUDAG_WARM_UP_KERNELS", "0", 1), 0);
    const long long start = gpu_kernels_loaded();
    const PcOutcome cold = run_pc(data, "cuda");
    EXPECT_EQ(gpu_kernels_loaded(), start) << "CUDAG_WARM_UP_KERNELS=0 loads none";
    ASSERT_EQ(unsetenv("CUDAG_WARM_UP_KERNELS"), 0);
    const PcOutcome warm = run_pc(data, "cuda");
    EXPECT_EQ(gpu_kernels_loaded() - start, kFisherAll) << "the warm-up loaded the Fisher-z engine's kernels";
    // A second warm run in the process (a Python or R session's next call): nothing loaded again.
    const PcOutcome again = run_pc(data, "cuda");
    EXPECT_EQ(gpu_kernels_loaded() - start, kFisherAll) << "kernels loaded once a context";
    EXPECT_TRUE(again.result.skeleton == warm.result.skeleton);
    EXPECT_TRUE(again.result.sepsets == warm.result.sepsets);
    expect_same_pmax(again.result, warm.result, 0.0);
    std::printf("level 1: %.6f s cold (kernels loaded at their first launch), %.6f s after the warm-up\n",
                cold.level1_seconds, warm.level1_seconds);
    EXPECT_TRUE(warm.result.skeleton == cold.result.skeleton);
    EXPECT_TRUE(warm.result.sepsets == cold.result.sepsets);
    EXPECT_TRUE(warm.result.cpdag == cold.result.cpdag);
    expect_same_pmax(warm.result, cold.result, 0.0);
    // The CPU engine's result: no warm-up there (nothing loaded).
    const long long before_cpu = gpu_kernels_loaded();
    const PcOutcome cpu = run_pc(data, "cpu");
    EXPECT_EQ(gpu_kernels_loaded(), before_cpu);
    EXPECT_TRUE(warm.result.skeleton == cpu.result.skeleton);
    EXPECT_TRUE(warm.result.sepsets == cpu.result.sepsets);
    EXPECT_TRUE(warm.result.cpdag == cpu.result.cpdag);
    expect_same_pmax(warm.result, cpu.result, 0.0);
    EXPECT_GT(warm.result.skeleton.n_edges(), 0);
    EXPECT_GT(cold.level1_seconds, 0.0);
}

}  // namespace
