// SPDX-License-Identifier: Apache-2.0
#include "pcmci/lagged.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace cudag::pcmci {

std::string LaggedData::node_name(Node n) const {
    const std::string& base = data.names[static_cast<std::size_t>(column(n.var, 0))];
    return n.lag == 0 ? base : base + "(t-" + std::to_string(n.lag) + ")";
}

LaggedData make_lagged(const Dataset& series, std::int32_t max_lag, std::span<const std::int64_t> starts) {
    if (max_lag < 0) throw InputError("the largest lag must be at least 0");
    // The series' [begin, end) rows; each gives its steps max_lag..end − begin − 1.
    std::vector<std::pair<std::int64_t, std::int64_t>> parts;
    const std::int64_t one_start = 0;
    if (starts.empty()) starts = std::span<const std::int64_t>(&one_start, 1);
    for (std::size_t k = 0; k < starts.size(); ++k) {
        const std::int64_t end = k + 1 < starts.size() ? starts[k + 1] : series.n_samples;
        if (starts[k] > end || (k == 0 && starts[k] != 0) || end > series.n_samples)
            throw std::logic_error("make_lagged: the series' starts must increase from 0");
        parts.emplace_back(starts[k], end);
    }
    LaggedData out;
    out.n_vars = static_cast<std::int32_t>(series.n_vars);
    out.max_lag = max_lag;
    std::int64_t rows = 0;
    for (const auto& [b, e] : parts) {
        out.length = std::max(out.length, e - b);
        rows += std::max<std::int64_t>(0, e - b - max_lag);
    }
    if (rows == 0)
        throw InputError(std::string(parts.size() > 1 ? "every one of the series has" : "the series have") + " " +
                         std::to_string(out.length) + " time steps or fewer, no more than the largest lag " +
                         std::to_string(max_lag));
    const std::int64_t cols = series.n_vars * (max_lag + 1);
    out.data.n_samples = rows;
    out.data.n_vars = cols;
    out.data.values.resize(static_cast<std::size_t>(rows * cols));
    out.data.names.reserve(static_cast<std::size_t>(cols));
    out.data.source = series.source;
    for (std::int32_t v = 0; v < out.n_vars; ++v) {
        const double* src = series.column(v);
        for (std::int32_t lag = 0; lag <= max_lag; ++lag) {
            // Row r of a series' block is its step t = max_lag + r; the node (v, −lag) there
            // holds series v at t − lag.
            double* dst = out.data.column(out.column(v, lag));
            for (const auto& [b, e] : parts) {
                if (e - b <= max_lag) continue;
                dst = std::copy(src + b + max_lag - lag, src + e - lag, dst);
            }
            const std::string& name = series.names[static_cast<std::size_t>(v)];
            out.data.names.push_back(lag == 0 ? name : name + "(t-" + std::to_string(lag) + ")");
        }
    }
    if (series.missing > 0)
        out.data.missing =
            std::count_if(out.data.values.begin(), out.data.values.end(), [](double x) { return std::isnan(x); });
    return out;
}

}  // namespace cudag::pcmci
