// SPDX-License-Identifier: Apache-2.0
// Two graphs (CPDAGs, PDAGs) compared mark by mark in tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "core/pdag.hpp"

namespace cudag::test {

/// Names the first pair whose marks differ.
inline testing::AssertionResult same_graph(const Pdag& got, const Pdag& want) {
    if (got.n() != want.n()) return testing::AssertionFailure() << "node counts differ";
    for (std::int32_t i = 0; i < got.n(); ++i)
        for (std::int32_t j = 0; j < got.n(); ++j)
            if (got.end(i, j) != want.end(i, j))
                return testing::AssertionFailure() << "mark at " << i << " of edge " << i << "-" << j << ": got "
                                                   << int(got.end(i, j)) << ", want " << int(want.end(i, j));
    return testing::AssertionSuccess();
}

}  // namespace cudag::test
