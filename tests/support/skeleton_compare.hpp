// SPDX-License-Identifier: Apache-2.0
// Comparing two skeleton results in parity tests (GPU engine vs CPU reference).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "skeleton/skeleton.hpp"

namespace cudag::test {

/// Relative closeness; p-values below 1e-300 (subnormal range, where erfc keeps few
/// significant bits) compare absolutely.
inline bool close(double a, double b, double rel) {
    if (a == b) return true;
    return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)) + 1e-300;
}

/// Skeleton and separating sets exactly, pMax within `rel`, same per-level removals.
inline testing::AssertionResult same_result(const skeleton::SkeletonResult& got, const skeleton::SkeletonResult& want,
                                            double rel) {
    if (!(got.skeleton == want.skeleton)) {
        for (std::int64_t i = 0; i < want.skeleton.n(); ++i)
            for (std::int64_t j = i + 1; j < want.skeleton.n(); ++j)
                if (got.skeleton.has(i, j) != want.skeleton.has(i, j))
                    return testing::AssertionFailure() << "edge " << i << "-" << j << ": gpu " << got.skeleton.has(i, j)
                                                       << ", cpu " << want.skeleton.has(i, j);
        return testing::AssertionFailure() << "skeletons differ";
    }
    if (!(got.sepsets == want.sepsets)) {
        for (const auto& [k, s] : want.sepsets.all()) {
            if (!got.sepsets.has(k.first, k.second))
                return testing::AssertionFailure() << "gpu has no sepset for " << k.first << "-" << k.second;
            if (got.sepsets.get(k.first, k.second) != std::vector<std::int32_t>(s.begin(), s.end())) {
                auto out = testing::AssertionFailure();
                out << "sepset of " << k.first << "-" << k.second << ": gpu {";
                for (auto v : got.sepsets.get(k.first, k.second)) out << v << ' ';
                out << "} cpu {";
                for (auto v : s) out << v << ' ';
                return out << "}";
            }
        }
        return testing::AssertionFailure()
               << "gpu has " << got.sepsets.size() << " sepsets, cpu " << want.sepsets.size();
    }
    if (got.pmax.size() != want.pmax.size())
        return testing::AssertionFailure() << "pmax: gpu " << got.pmax.size() << " pairs, cpu " << want.pmax.size();
    for (std::size_t k = 0; k < want.pmax.size(); ++k) {
        const skeleton::PairP& a = got.pmax[k];
        const skeleton::PairP& b = want.pmax[k];
        if (a.i != b.i || a.j != b.j)
            return testing::AssertionFailure()
                   << "pmax pair " << k << ": gpu " << a.i << "-" << a.j << ", cpu " << b.i << "-" << b.j;
        if (!close(a.p, b.p, rel))
            return testing::AssertionFailure() << "pmax of " << a.i << "-" << a.j << ": gpu " << a.p << ", cpu " << b.p;
    }
    if (got.levels.size() != want.levels.size())
        return testing::AssertionFailure() << "gpu ran " << got.levels.size() << " levels, cpu " << want.levels.size();
    for (std::size_t l = 0; l < want.levels.size(); ++l)
        if (got.levels[l].removed != want.levels[l].removed)
            return testing::AssertionFailure()
                   << "level " << l << ": gpu removed " << got.levels[l].removed << ", cpu " << want.levels[l].removed;
    return testing::AssertionSuccess();
}

}  // namespace cudag::test
