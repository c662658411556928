// SPDX-License-Identifier: Apache-2.0
#include "core/magnitude.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace cudag {

namespace {

/// The binary exponent e of column v's largest magnitude (largest = f 2^e, f in [0.5, 1));
/// 0 for a column of zeros. The maximum over eight running maxima (exact, so the same value
/// in any order; a NaN is passed over by each), not one chain of dependent comparisons.
int largest_exponent(const Dataset& data, std::int64_t v, double& largest) {
    const double* x = data.column(v);
    constexpr int kLanes = 8;
    double lane[kLanes] = {};
    const std::int64_t m = data.n_samples, whole = m / kLanes * kLanes;
    for (std::int64_t s = 0; s < whole; s += kLanes)
        for (int k = 0; k < kLanes; ++k) lane[k] = std::max(lane[k], std::fabs(x[s + k]));
    largest = 0.0;
    for (std::int64_t s = whole; s < m; ++s) largest = std::max(largest, std::fabs(x[s]));
    for (int k = 0; k < kLanes; ++k) largest = std::max(largest, lane[k]);
    if (!(largest > 0.0) || !std::isfinite(largest)) return 0;
    int e = 0;
    std::frexp(largest, &e);
    return e;
}

}  // namespace

std::int64_t rescale_extreme_columns(Dataset& data) {
    if (data.discrete() || data.n_samples == 0) return 0;
    std::int64_t rescaled = 0;
    for (std::int64_t v = 0; v < data.n_vars; ++v) {
        double largest = 0.0;
        const int e = largest_exponent(data, v, largest);
        if (e <= kMagnitudeLimit && e >= -kMagnitudeLimit) continue;
        double* x = data.column(v);
        for (std::int64_t s = 0; s < data.n_samples; ++s) x[s] = std::ldexp(x[s], -e);
        ++rescaled;
    }
    return rescaled;
}

void require_ordinary_magnitudes(const Dataset& data, const std::string& who) {
    if (data.discrete() || data.n_samples == 0) return;
    for (std::int64_t v = 0; v < data.n_vars; ++v) {
        double largest = 0.0;
        const int e = largest_exponent(data, v, largest);
        if (e <= kMagnitudeLimit && e >= -kMagnitudeLimit) continue;
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", largest);
        throw InputError(data.source + ": column '" + data.names[static_cast<std::size_t>(v)] + "' reaches magnitude " +
                         buf + ", beyond 1e" + (e > 0 ? "+" : "-") + "150 where its squares " +
                         (e > 0 ? "overflow" : "underflow") + "; " + who +
                         " depends on the data's scale: rescale the column (e.g. to unit variance) first");
    }
}

}  // namespace cudag
