// SPDX-License-Identifier: Apache-2.0
// PCMCI (src/pcmci/pcmci.hpp) with tigramite's missing values and several series on a GPU
// against the CPU: with missing cells the lagged table goes to the test-wise engines (each test
// on the rows complete in its columns), on the CPU skeleton::ci_test_factory's TestwiseTest, on
// the GPU skeleton::make_gpu_batch_test's test-wise batch (kernels/fisher_testwise_batch.cu,
// kernels/cmi_knn_testwise_batch.cu). ParCorr (ParCorrBatch with each test's row count) on the
// missing-flag reference cases of tests/data/pcmci/ (m00-m03, g01: several series with missing
// cells) and CMIknn on m02 give the same parents, test counts and graph, and val_matrix and
// p_matrix bit for bit. Skips when this build has no CUDA or no device is visible.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/dataset.hpp"
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
    const skeleton::TestSpec spec = skeleton::resolve_test(options, lagged.data, 0.05, skeleton::Compat::Pcalg);
    std::unique_ptr<ci::BatchTest> engine = test::pcmci_engine(lagged.data, spec, gpu);
    if (!engine) return {};
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
                          Case{"m03", 2, 0.2, false}, Case{"g01", 2, 0.1, true}}) {
        SCOPED_TRACE(c.stem);
        std::vector<std::int64_t> starts;
        const Dataset series = test::read_pcmci_case(kDir + c.stem + ".csv", 999.0, c.several, starts);
        Settings s;
        s.tau_max = c.tau_max;
        s.pc_alpha = c.pc_alpha;
        test::expect_same_pcmci(run(series, starts, s, false, false), run(series, starts, s, true, false));
    }
}

TEST(CudaPcmciMissing, CmiKnnRunIsEquivalentToCpu) {
    CUDAG_REQUIRE_GPU();
    std::vector<std::int64_t> starts;
    const Dataset series = test::read_pcmci_case(kDir + "m02.csv", 999.0, false, starts);
    Settings s;
    s.tau_max = 1;
    test::expect_same_pcmci(run(series, starts, s, false, true), run(series, starts, s, true, true));
}
