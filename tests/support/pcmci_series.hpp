// SPDX-License-Identifier: Apache-2.0
// PCMCI's test inputs and results: a reference case's csv (scripts/dev/pcmci*_reference.py) as a
// Dataset, the tests of a run on the CPU or a GPU, and two runs' results compared (bit for bit).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/backend.hpp"
#include "core/dataset.hpp"
#include "mpi/communicator.hpp"
#include "pcmci/pcmci.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::test {

/// A csv of numbers with a header row, every column a variable.
inline Dataset read_pcmci_csv(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    Dataset d;
    {
        std::stringstream s(line);
        for (std::string cell; std::getline(s, cell, ',');) d.names.push_back(cell);
    }
    d.n_vars = static_cast<std::int64_t>(d.names.size());
    std::vector<std::vector<double>> cols(d.names.size());
    while (std::getline(in, line)) {
        std::stringstream s(line);
        std::string cell;
        for (std::size_t j = 0; j < cols.size() && std::getline(s, cell, ','); ++j) cols[j].push_back(std::stod(cell));
    }
    d.n_samples = static_cast<std::int64_t>(cols[0].size());
    for (const auto& c : cols) d.values.insert(d.values.end(), c.begin(), c.end());
    d.source = path;
    return d;
}

/// A reference case's input as tigramite's DataFrame reads it (scripts/dev/pcmci_reference.py):
/// the csv with the cells equal to `flag` missing (NaN, counted); with `series_columns`, its
/// first two columns (series, time; rows grouped by series) left out and the first row of each
/// series in `starts`.
inline Dataset read_pcmci_case(const std::string& path, std::optional<double> flag, bool series_columns,
                               std::vector<std::int64_t>& starts) {
    Dataset d = read_pcmci_csv(path);
    starts.clear();
    if (series_columns) {
        const double* id = d.column(0);
        for (std::int64_t r = 0; r < d.n_samples; ++r)
            if (r == 0 || id[r] != id[r - 1]) starts.push_back(r);
        d.values.erase(d.values.begin(), d.values.begin() + 2 * d.n_samples);
        d.names.erase(d.names.begin(), d.names.begin() + 2);
        d.n_vars -= 2;
    }
    if (flag)
        for (double& x : d.values)
            if (x == *flag) {
                x = std::nan("");
                ++d.missing;
            }
    return d;
}

/// The tests of a PCMCI run on `lagged` (the lagged table): the CPU's (ci::CpuBatchTest over
/// skeleton::ci_test_factory, 2 threads) or the GPU's (skeleton::make_gpu_batch_test, GPU 0); with
/// missing cells, the test-wise engines. Null (and a failure) when the GPU has no batch test.
inline std::unique_ptr<ci::BatchTest> pcmci_engine(const Dataset& lagged, const skeleton::TestSpec& spec, bool gpu) {
    const int max_cond = static_cast<int>(lagged.n_vars - 2);
    if (!gpu)
        return std::make_unique<ci::CpuBatchTest>(skeleton::ci_test_factory(lagged, spec, skeleton::Compat::Pcalg, 2),
                                                  2, lagged.names);
    BackendContext ctx;
    ctx.kind = BackendKind::Cuda;
    ctx.threads = 2;
    mpi::SerialCommunicator self;
    std::unique_ptr<ci::BatchTest> engine =
        skeleton::make_gpu_batch_test(lagged, spec, skeleton::TestPolicy{}, max_cond, ctx, self);
    EXPECT_TRUE(engine) << "no GPU batch test for " << spec.name();
    return engine;
}

/// The same graph, values, p-values (bit for bit), test counts and parents.
inline void expect_same_pcmci(const pcmci::Result& cpu, const pcmci::Result& gpu) {
    EXPECT_EQ(cpu.graph, gpu.graph);
    EXPECT_EQ(cpu.val_matrix, gpu.val_matrix);
    EXPECT_EQ(cpu.p_matrix, gpu.p_matrix);
    EXPECT_EQ(cpu.pc1_tests, gpu.pc1_tests);
    EXPECT_EQ(cpu.mci_tests, gpu.mci_tests);
    ASSERT_EQ(cpu.parents.size(), gpu.parents.size());
    for (std::size_t j = 0; j < cpu.parents.size(); ++j)
        EXPECT_TRUE(cpu.parents[j] == gpu.parents[j]) << "parents of " << j;
}

}  // namespace cudag::test
