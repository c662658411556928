// SPDX-License-Identifier: Apache-2.0
// The host memory plan announced before level 0 (pc::host_memory_plan, issue 35): the bit
// graphs and the dense pMax table while n is small, lists that grow with the pairs level 0
// keeps above the graphs' dense limit (no n² term at a million variables), the CPU engine's
// correlation matrix only on the CPU.
#include <gtest/gtest.h>

#include <string>

#include "ci/correlation.hpp"
#include "core/graph.hpp"
#include "core/parallel.hpp"
#include "pc/run.hpp"

namespace cudag {
namespace {

Dataset shape(std::int64_t n, std::int64_t m) {
    Dataset d;
    d.n_vars = n;
    d.n_samples = m;  // the plan reads the shape only
    return d;
}

TEST(HostMemoryPlan, SmallRunsHoldBitGraphsAndTheDensePmaxTable) {
    pc::PcConfig cfg;
    const pc::HostMemoryPlan p = pc::host_memory_plan(shape(1000, 200), cfg, false);
    EXPECT_DOUBLE_EQ(p.graphs, 4.0 * 1000 * 1000 / 8);
    EXPECT_DOUBLE_EQ(p.pmax, 8.0 * 1000 * 1000);
    EXPECT_DOUBLE_EQ(p.correlation, 8.0 * 1000 * 1000);  // CPU engine
    // The standardised data and, while C is computed, each worker's packed rows (m x 36).
    EXPECT_DOUBLE_EQ(p.data, ci::correlation_work_bytes(1000, 200, resolve_threads(0)));
    EXPECT_GE(p.data, 8.0 * 1000 * 200 + 8.0 * 200 * 36);
    EXPECT_EQ(p.per_kept_pair, 0.0);
    EXPECT_EQ(pc::host_memory_plan(shape(1000, 200), cfg, true).correlation, 0.0);  // C on the GPU
    EXPECT_DOUBLE_EQ(pc::host_memory_plan(shape(1000, 200), cfg, true).data, 8.0 * 1000 * 200);
    EXPECT_DOUBLE_EQ(pc::estimate_host_bytes(shape(1000, 200), cfg, false), p.known());
}

TEST(HostMemoryPlan, CorrelationPackingGrowsWithSamplesAndWorkers) {
    // Issue 53 item 3: computing C packs m x 36 doubles per worker (no more workers than
    // blocks of 32 rows); with many samples and few variables that outweighs the data.
    EXPECT_DOUBLE_EQ(ci::correlation_work_bytes(20, 300000, 8), 8.0 * 20 * 300000 + 1 * 8.0 * 300000 * 36);
    EXPECT_DOUBLE_EQ(ci::correlation_work_bytes(1000, 100, 4), 8.0 * 1000 * 100 + 4 * 8.0 * 100 * 36);
}

TEST(HostMemoryPlan, GenomeScaleRunsHoldNothingQuadratic) {
    pc::PcConfig cfg;
    const std::int64_t n = 1000000;
    ASSERT_GT(n, Graph::dense_limit());
    const pc::HostMemoryPlan p = pc::host_memory_plan(shape(n, 500), cfg, true);
    EXPECT_EQ(p.pmax, 0.0);
    EXPECT_EQ(p.correlation, 0.0);
    EXPECT_LT(p.graphs, 1e9);  // lists: linear in n (the bits would be 500 GB)
    EXPECT_DOUBLE_EQ(p.data, 8.0 * n * 500);
    EXPECT_GT(p.per_kept_pair, 0.0);
    const std::string text = p.describe();
    EXPECT_NE(text.find("data 3.7 GiB"), std::string::npos) << text;
    EXPECT_NE(text.find("per pair level 0 keeps"), std::string::npos) << text;
}

}  // namespace
}  // namespace cudag
