// SPDX-License-Identifier: Apache-2.0
// The bootstrap on the CUDA engines against the CPU engine: the same counts per pair and
// kind, hence the same frequencies and consensus graph (Fisher-z, G², CMIknn). Skips
// without a GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "pc/bootstrap.hpp"
#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"
#include "sim/nonlinear.hpp"
#include "support/cli_fixture.hpp"
#include "support/gpu.hpp"

namespace cudag {
namespace {

/// The CPU engine's counts against the CUDA engine's, `at_once` replicates at once on each
/// GPU (0: the automatic choice), on `devices` (empty: GPU 0 alone).
testing::AssertionResult same_counts_on_cuda(const Dataset& data, pc::PcConfig cfg, const bootstrap::Options& b,
                                             int at_once = 0, const std::vector<int>& devices = {}) {
    mpi::SerialCommunicator serial;
    cfg.backend.kind = BackendKind::Cpu;
    cfg.backend.threads = 2;
    const bootstrap::Table want = pc::run_bootstrap(data, cfg, b, serial);
    cfg.backend.kind = BackendKind::Cuda;
    cfg.backend.device = 0;
    cfg.backend.tunables.replicates_at_once = at_once;
    cfg.backend.replicate_devices = devices;
    const bootstrap::Table got = pc::run_bootstrap(data, cfg, b, serial);
    if (want.size() == 0) return testing::AssertionFailure() << "no pair adjacent in any replicate";
    if (got.pairs != want.pairs)
        return testing::AssertionFailure() << got.size() << " pairs on CUDA, " << want.size() << " on the CPU";
    for (std::size_t k = 0; k < want.counts.size(); ++k)
        if (got.counts[k] != want.counts[k])
            return testing::AssertionFailure()
                   << "pair (" << want.pairs[2 * (k / 5)] << ", " << want.pairs[2 * (k / 5) + 1] << ") kind " << k % 5
                   << ": " << got.counts[k] << " on CUDA, " << want.counts[k] << " on the CPU";
    return testing::AssertionSuccess();
}

TEST(CudaBootstrap, FisherZIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const Dataset data = sim::simulate_gaussian({64, 400, 0.06, 3}, 1).data;
    pc::PcConfig cfg;
    cfg.alpha = 0.01;
    EXPECT_TRUE(
        same_counts_on_cuda(data, cfg, {.replicates = 8, .resample = bootstrap::Resample::Bootstrap, .seed = 5}));
    EXPECT_TRUE(same_counts_on_cuda(data, cfg, {.replicates = 6, .resample = bootstrap::Resample::Half, .seed = 5}));
}

TEST(CudaBootstrap, FisherZReplicatesAtOnceOnOneGpuCountAsOneAtATime) {
    CUDAG_REQUIRE_GPU();
    // Engines on streams of their own, driven from several host threads: the same counts as
    // the CPU engine's however many run at once (rounds of 11 replicates not a multiple).
    const Dataset data = sim::simulate_gaussian({150, 300, 0.04, 8}, 1).data;
    pc::PcConfig cfg;
    cfg.alpha = 0.05;
    for (int at_once : {1, 3, 8})
        EXPECT_TRUE(same_counts_on_cuda(
            data, cfg, {.replicates = 11, .resample = bootstrap::Resample::Bootstrap, .seed = 9}, at_once))
            << at_once << " at once";
}

/// CMIknn with 39 permutations, k = 10% of the samples.
pc::PcConfig cmi_config() {
    pc::PcConfig cfg;
    cfg.test.kind = skeleton::TestKind::CmiKnn;
    cfg.alpha = 0.05;
    cfg.test.cmi.knn = 0.1;
    cfg.test.cmi.permutations = 39;
    cfg.test.cmi.seed = 7;
    return cfg;
}

/// Every visible GPU, or GPU 0 twice over where there is one (two workers' lists of
/// replicates on it, as on two GPUs).
std::vector<int> every_gpu() {
    std::vector<int> all;
    for (const DeviceInfo& d : gpu_devices()) all.push_back(d.id);
    if (all.size() == 1) all.push_back(all.front());
    return all;
}

TEST(CudaBootstrap, FisherZOnSeveralGpusOfOneProcessCountsAsTheCpu) {
    CUDAG_REQUIRE_GPU();
    const Dataset data = sim::simulate_gaussian({150, 300, 0.04, 8}, 1).data;
    pc::PcConfig cfg;
    cfg.alpha = 0.05;
    for (int at_once : {1, 3})
        EXPECT_TRUE(same_counts_on_cuda(
            data, cfg, {.replicates = 13, .resample = bootstrap::Resample::Bootstrap, .seed = 9}, at_once, every_gpu()))
            << at_once << " at once on each of " << every_gpu().size() << " GPUs";
}

TEST(CudaBootstrap, DiscreteAndCmiKnnOnEveryGpuOfOneProcessCountAsTheCpu) {
    CUDAG_REQUIRE_GPU();
    if (gpu_devices().size() < 2) GTEST_SKIP() << "needs 2 GPUs (one engine a GPU at a time)";
    std::vector<int> all;
    for (const DeviceInfo& d : gpu_devices()) all.push_back(d.id);
    const Dataset discrete = sim::forward_sample(sim::random_network({36, 800, 0.1, 3, 9}), 800, 10, 1);
    pc::PcConfig cfg;
    cfg.test.kind = skeleton::TestKind::GSquare;
    EXPECT_TRUE(same_counts_on_cuda(discrete, cfg,
                                    {.replicates = 7, .resample = bootstrap::Resample::Bootstrap, .seed = 5}, 0, all));
    const Dataset nonlinear = sim::simulate_nonlinear({7, 120, 0.4, 5}, 1).data;
    EXPECT_TRUE(same_counts_on_cuda(nonlinear, cmi_config(),
                                    {.replicates = 5, .resample = bootstrap::Resample::Half, .seed = 5}, 0, all));
}

TEST(CudaBootstrap, GSquareIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const Dataset data = sim::forward_sample(sim::random_network({36, 800, 0.1, 3, 9}), 800, 10, 1);
    pc::PcConfig cfg;
    cfg.test.kind = skeleton::TestKind::GSquare;
    EXPECT_TRUE(
        same_counts_on_cuda(data, cfg, {.replicates = 6, .resample = bootstrap::Resample::Bootstrap, .seed = 5}));
}

TEST(CudaBootstrap, CmiKnnIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    const Dataset data = sim::simulate_nonlinear({7, 120, 0.4, 5}, 1).data;
    EXPECT_TRUE(
        same_counts_on_cuda(data, cmi_config(), {.replicates = 3, .resample = bootstrap::Resample::Half, .seed = 5}));
}

using CudaBootstrapCli = test::Cli;

TEST_F(CudaBootstrapCli, McmcOnEveryGpuOfOneProcessCountsAsTheCpu) {
    CUDAG_REQUIRE_GPU();
    // cudag mcmc --bootstrap runs a replicate at a time on each visible GPU (one process):
    // the frequencies of the CPU's replicates, one at a time.
    const std::string d = (dir_ / "d.csv").string();
    test::CliRun r =
        run("simulate discrete --vars 9 --samples 500 --density 0.3 --states 3 --max-parents 2 --seed 4 "
            "--out " +
            d + " -q");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string mcmc =
        "mcmc --data " + d + " --score bdeu --iterations 1200 --seed 6 --bootstrap 7 --format freq";
    r = run(mcmc + " --backend cpu -q --out " + (dir_ / "cpu.h5").string());
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(mcmc + " --backend cuda -v --out " + (dir_ / "gpu.h5").string());
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string cpu = test::slurp(dir_ / "cpu.freq.tsv");
    EXPECT_GT(cpu.size(), 0u);
    EXPECT_EQ(test::slurp(dir_ / "gpu.freq.tsv"), cpu);
    if (gpu_devices().size() > 1) {
        EXPECT_NE(r.err.find("on 1 rank, GPUs 0, 1"), std::string::npos) << r.err;
    }
}

}  // namespace
}  // namespace cudag
