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
#include <memory>
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
#include "support/pcmci_series.hpp"

using namespace cudag;
using namespace cudag::pcmci;

namespace {

const std::string kDir = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmci/";

/// A reference csv with the cells equal to 999 missing; with `series_column`, the first two
/// columns (series, time) left out and the series' first rows in `starts`.
Dataset read_series(const std::string& path, bool series_column, std::vector<std::int64_t>& starts) {
    Dataset d = test::read_pcmci_csv(path);
    starts.clear();
    if (series_column) {
        const double* id = d.column(0);
        for (std::int64_t r = 0; r < d.n_samples; ++r)
            if (r == 0 || id[r] != id[r - 1]) starts.push_back(r);
        d.values.erase(d.values.begin(), d.values.begin() + 2 * d.n_samples);
        d.names.erase(d.names.begin(), d.names.begin() + 2);
        d.n_vars -= 2;
    }
    for (double& x : d.values)
        if (x == 999.0) {
            x = std::nan("");
            ++d.missing;
        }
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
        test::expect_same_pcmci(run(series, starts, s, false, false), run(series, starts, s, true, false));
    }
}

TEST(CudaPcmciMissing, CmiKnnRunIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    std::vector<std::int64_t> starts;
    const Dataset series = read_series(kDir + "m02.csv", false, starts);
    Settings s;
    s.tau_max = 1;
    test::expect_same_pcmci(run(series, starts, s, false, true), run(series, starts, s, true, true));
}
