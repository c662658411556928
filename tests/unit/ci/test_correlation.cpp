// SPDX-License-Identifier: Apache-2.0
// The correlation matrix's arithmetic is defined, not left to the tiling: each entry is
// Σ_s z_i[s]·z_j[s] over the samples in order, one fused multiply-add a sample, clamped to
// [-1, 1] (the GPU kernels sum the same way; tests/gpu checks them against this).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ci/correlation.hpp"
#include "core/rng.hpp"

using namespace cudag;

namespace {

Dataset noisy_columns(std::int64_t n, std::int64_t m, std::uint64_t seed) {
    Dataset d;
    d.n_vars = n;
    d.n_samples = m;
    d.source = "test";
    d.values.resize(static_cast<std::size_t>(n * m));
    for (std::int64_t k = 0; k < n * m; ++k) {
        const Philox4x32Block b = philox_block(seed, 0, static_cast<std::uint64_t>(k));
        d.values[static_cast<std::size_t>(k)] = uniform_from_bits(b.v[0], b.v[1]);
    }
    // A shared component, so that the entries are not all near zero.
    for (std::int64_t v = 1; v < n; ++v)
        for (std::int64_t s = 0; s < m; ++s) d.values[v * m + s] += 0.5 * d.values[s];
    return d;
}

/// The definition, written plainly: standardise as the library does, then one std::fma
/// a sample in order.
double reference_entry(const Dataset& d, std::int64_t i, std::int64_t j) {
    const std::int64_t m = d.n_samples;
    auto z = [&](std::int64_t v) {
        const double* x = d.column(v);
        double mean = 0.0;
        for (std::int64_t s = 0; s < m; ++s) mean += x[s];
        mean /= static_cast<double>(m);
        std::vector<double> out(static_cast<std::size_t>(m));
        double ss = 0.0;
        for (std::int64_t s = 0; s < m; ++s) {
            out[s] = x[s] - mean;
            ss += out[s] * out[s];
        }
        const double inv = 1.0 / std::sqrt(ss);
        for (std::int64_t s = 0; s < m; ++s) out[s] *= inv;
        return out;
    };
    const std::vector<double> zi = z(i), zj = z(j);
    double acc = 0.0;
    for (std::int64_t s = 0; s < m; ++s) acc = std::fma(zi[s], zj[s], acc);
    return acc > 1.0 ? 1.0 : (acc < -1.0 ? -1.0 : acc);
}

}  // namespace

TEST(Correlation, EveryEntryIsTheInOrderFusedSum) {
    // n not a multiple of the 4-row tiles or of the 32-row blocks; m odd.
    const Dataset d = noisy_columns(37, 101, 7);
    const std::vector<double> c = ci::correlation_matrix(d, 1);
    for (std::int64_t i = 0; i < d.n_vars; ++i)
        for (std::int64_t j = 0; j < d.n_vars; ++j) {
            const double want = i == j ? 1.0 : reference_entry(d, std::min(i, j), std::max(i, j));
            ASSERT_EQ(c[i * d.n_vars + j], want) << i << ", " << j;
        }
}

TEST(Correlation, ThreadsDoNotChangeABit) {
    const Dataset d = noisy_columns(70, 64, 11);
    const std::vector<double> one = ci::correlation_matrix(d, 1);
    const std::vector<double> four = ci::correlation_matrix(d, 4);
    ASSERT_EQ(one.size(), four.size());
    for (std::size_t k = 0; k < one.size(); ++k) ASSERT_EQ(one[k], four[k]) << k;
}
