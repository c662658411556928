// SPDX-License-Identifier: Apache-2.0
// causal-learn's integer graph matrices in tests: read the reference files,
// convert a Pdag, compare cell for cell naming the first difference.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/pdag.hpp"

namespace cudag::test {

/// A causal-learn graph matrix: m[i][j] is the mark at i of edge i-j
/// (-1 tail, 1 arrow, 0 none); i --> j is m[i][j] = -1, m[j][i] = 1.
using ClMatrix = std::vector<std::vector<int>>;

/// Read a whitespace-separated square matrix as written by numpy.savetxt (the
/// benchmark_returned_results files; integer or float text). Throws InputError
/// when the file is missing, a cell is not an integer, or rows differ in length.
inline ClMatrix read_cl_matrix(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError("cannot open causal-learn matrix " + path);
    ClMatrix m;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream row(line);
        std::vector<int> r;
        std::string cell;
        while (row >> cell) {
            std::size_t used = 0;
            double v = 0.0;
            try {
                v = std::stod(cell, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != cell.size() || v != std::round(v))
                throw InputError(path + ": row " + std::to_string(m.size() + 1) + ": not an integer: '" + cell + "'");
            r.push_back(static_cast<int>(v));
        }
        if (r.empty()) continue;
        if (!m.empty() && r.size() != m.front().size())
            throw InputError(path + ": row " + std::to_string(m.size() + 1) + " has " + std::to_string(r.size()) +
                             " cells, expected " + std::to_string(m.front().size()));
        m.push_back(std::move(r));
    }
    if (!m.empty() && m.size() != m.front().size())
        throw InputError(path + ": matrix is " + std::to_string(m.size()) + "x" + std::to_string(m.front().size()) +
                         ", not square");
    return m;
}

/// The Pdag in causal-learn's encoding: m[i][j] = end(i, j).
inline ClMatrix to_cl_matrix(const Pdag& p) {
    const auto n = static_cast<std::size_t>(p.n());
    ClMatrix m(n, std::vector<int>(n, 0));
    for (std::size_t i = 0; i < n; ++i)
        for (std::int32_t j : p.neighbours(static_cast<std::int32_t>(i)))
            m[i][static_cast<std::size_t>(j)] = static_cast<int>(p.end(static_cast<std::int32_t>(i), j));
    return m;
}

/// Success when `a` and `b` have the same shape and cells; otherwise the message
/// names the first differing cell in row-major order (by `names` when given,
/// else by 0-based index) with both values.
inline ::testing::AssertionResult cl_matrices_equal(const ClMatrix& a, const ClMatrix& b,
                                                    const std::vector<std::string>& names = {}) {
    const auto name = [&names](std::size_t i) { return i < names.size() ? names[i] : std::to_string(i); };
    if (a.size() != b.size())
        return ::testing::AssertionFailure() << "matrices have " << a.size() << " and " << b.size() << " rows";
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].size() != b[i].size())
            return ::testing::AssertionFailure()
                   << "row " << name(i) << " has " << a[i].size() << " and " << b[i].size() << " cells";
        for (std::size_t j = 0; j < a[i].size(); ++j)
            if (a[i][j] != b[i][j])
                return ::testing::AssertionFailure()
                       << "first difference at [" << name(i) << ", " << name(j) << "]: " << a[i][j] << " vs " << b[i][j]
                       << " (edge " << name(i) << "-" << name(j) << ": " << a[i][j] << "/"
                       << (j < a.size() && i < a[j].size() ? a[j][i] : 0) << " vs " << b[i][j] << "/"
                       << (j < b.size() && i < b[j].size() ? b[j][i] : 0) << ")";
    }
    return ::testing::AssertionSuccess();
}

}  // namespace cudag::test
