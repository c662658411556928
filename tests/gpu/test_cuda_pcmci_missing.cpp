// SPDX-License-Identifier: Apache-2.0
// PCMCI (src/pcmci/pcmci.hpp) with tigramite's missing values and several series on a GPU
// against the CPU: with missing cells the lagged table goes to the test-wise engines (each test
// on the rows complete in its columns), on the CPU skeleton::ci_test_factory's TestwiseTest, on
// the GPU skeleton::make_gpu_batch_test's test-wise batch (kernels/fisher_testwise_batch.cu,
// kernels/cmi_knn_testwise_batch.cu). ParCorr (ParCorrBatch with each test's row count) on the
// missing-flag reference cases of tests/data/pcmci/ (m00-m03, s01: several series with missing
// cells) and CMIknn on m02 give the same parents, test counts and graph, and val_matrix and
// p_matrix bit for bit. Skips when this build has no CUDA or no device is visible.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/backend.hpp"
#include "core/dataset.hpp"
#include "mpi/communicator.hpp"
#include "pcmci/lagged.hpp"
#include "pcmci/parcorr_test.hpp"
#include "pcmci/pcmci.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/test_spec.hpp"
#include "support/gpu.hpp"

using namespace cudag;
using namespace cudag::pcmci;

namespace {

const std::string kDir = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmci/";

/// A reference csv with the cells equal to 999 missing; with `series_column`, the first two
/// columns (series, time) left out and the series' first rows in `starts`.
Dataset read_series(const std::string& path, bool series_column, std::vector<std::int64_t>& starts) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    Dataset d;
    {
        std::stringstream s(line);
        for (std::string cell; std::getline(s, cell, ',');) d.names.push_back(cell);
    }
    std::vector<std::vector<double>> cols(d.names.size());
    while (std::getline(in, line)) {
        std::stringstream s(line);
        std::string cell;
        for (std::size_t j = 0; j < cols.size() && std::getline(s, cell, ','); ++j) cols[j].push_back(std::stod(cell));
    }
    starts.clear();
    std::size_t first = 0;
    if (series_column) {
        for (std::size_t r = 0; r < cols[0].size(); ++r)
            if (r == 0 || cols[0][r] != cols[0][r - 1]) starts.push_back(static_cast<std::int64_t>(r));
        first = 2;
        d.names.erase(d.names.begin(), d.names.begin() + 2);
    }
    d.n_vars = static_cast<std::int64_t>(d.names.size());
    d.n_samples = static_cast<std::int64_t>(cols[0].size());
    for (std::size_t c = first; c < cols.size(); ++c)
        for (double x : cols[c]) {
            if (x == 999.0) {
                x = std::nan("");
                ++d.missing;
            }
            d.values.push_back(x);
        }
    d.source = path;
    return d;
}

/// run_pcmci on the CPU's or the GPU's test-wise engine (ParCorr, or CMIknn with `cmi`).
Result run(const Dataset& series, const std::vector<std::int64_t>& starts, const Settings& s, bool gpu, bool cmi) {
    const LaggedData lagged = make_lagged(series, 2 * s.tau_max, starts);
    EXPECT_GT(lagged.data.missing, 0);
    skeleton::TestOptions options;
    options.kind = cmi ? skeleton::TestKind::CmiKnn : skeleton::TestKind::FisherZ;
    if (cmi) {
        options.cmi.knn = 0.1;
        options.cmi.permutations = 19;
        options.cmi_early_stop = false;
    }
    const int max_cond = static_cast<int>(lagged.data.n_vars - 2);
    const skeleton::TestSpec spec = skeleton::resolve_test(options, lagged.data, 0.05, skeleton::Compat::Pcalg);
    std::unique_ptr<ci::BatchTest> engine;
    if (gpu) {
        BackendContext ctx;
        ctx.kind = BackendKind::Cuda;
        ctx.threads = 2;
        mpi::SerialCommunicator self;
        engine = skeleton::make_gpu_batch_test(lagged.data, spec, skeleton::TestPolicy{}, max_cond, ctx, self);
        EXPECT_TRUE(engine) << "no GPU test-wise batch test for " << spec.name();
        if (!engine) return {};
    } else {
        engine = std::make_unique<ci::CpuBatchTest>(
            skeleton::ci_test_factory(lagged.data, spec, skeleton::Compat::Pcalg, 2), 2, lagged.data.names);
    }
    if (cmi) return run_pcmci(lagged, s, *engine);
    ParCorrBatch tests(std::move(engine), lagged.data, 2);
    return run_pcmci(lagged, s, tests);
}

void expect_same(const Result& cpu, const Result& gpu) {
    EXPECT_EQ(cpu.graph, gpu.graph);
    EXPECT_EQ(cpu.val_matrix, gpu.val_matrix);
    EXPECT_EQ(cpu.p_matrix, gpu.p_matrix);
    EXPECT_EQ(cpu.pc1_tests, gpu.pc1_tests);
    EXPECT_EQ(cpu.mci_tests, gpu.mci_tests);
    ASSERT_EQ(cpu.parents.size(), gpu.parents.size());
    for (std::size_t j = 0; j < cpu.parents.size(); ++j)
        EXPECT_TRUE(cpu.parents[j] == gpu.parents[j]) << "parents of " << j;
}

}  // namespace

TEST(CudaPcmciMissing, ParCorrRunIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    struct Case {
        const char* stem;
        int tau_max;
        double pc_alpha;
        bool several;
    };
    for (const Case& c : {Case{"m00", 2, 0.2, false}, Case{"m01", 3, 0.05, false}, Case{"m02", 1, 0.2, false},
                          Case{"m03", 2, 0.2, false}, Case{"s01", 2, 0.1, true}}) {
        SCOPED_TRACE(c.stem);
        std::vector<std::int64_t> starts;
        const Dataset series = read_series(kDir + c.stem + ".csv", c.several, starts);
        Settings s;
        s.tau_max = c.tau_max;
        s.pc_alpha = c.pc_alpha;
        expect_same(run(series, starts, s, false, false), run(series, starts, s, true, false));
    }
}

TEST(CudaPcmciMissing, CmiKnnRunIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    std::vector<std::int64_t> starts;
    const Dataset series = read_series(kDir + "m02.csv", false, starts);
    Settings s;
    s.tau_max = 1;
    expect_same(run(series, starts, s, false, true), run(series, starts, s, true, true));
}
