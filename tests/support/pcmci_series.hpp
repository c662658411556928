// SPDX-License-Identifier: Apache-2.0
// PCMCI's test inputs and results: a reference case's csv (scripts/dev/pcmci*_reference.py) as a
// Dataset, and two runs' results compared (CPU against GPU: bit for bit).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/dataset.hpp"
#include "pcmci/pcmci.hpp"

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
