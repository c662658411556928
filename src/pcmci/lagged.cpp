// SPDX-License-Identifier: Apache-2.0
#include "pcmci/lagged.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace cudag::pcmci {

std::string LaggedData::node_name(Node n) const {
    const std::string& base = data.names[static_cast<std::size_t>(column(n.var, 0))];
    return n.lag == 0 ? base : base + "(t-" + std::to_string(n.lag) + ")";
}

LaggedData make_lagged(const Dataset& series, std::int32_t max_lag) {
    if (max_lag < 0) throw InputError("the largest lag must be at least 0");
    if (series.n_samples <= max_lag)
        throw InputError("the series have " + std::to_string(series.n_samples) +
                         " time steps, no more than the largest lag " + std::to_string(max_lag));
    LaggedData out;
    out.n_vars = static_cast<std::int32_t>(series.n_vars);
    out.max_lag = max_lag;
    out.length = series.n_samples;
    const std::int64_t rows = series.n_samples - max_lag;
    const std::int64_t cols = series.n_vars * (max_lag + 1);
    out.data.n_samples = rows;
    out.data.n_vars = cols;
    out.data.values.resize(static_cast<std::size_t>(rows * cols));
    out.data.names.reserve(static_cast<std::size_t>(cols));
    out.data.source = series.source;
    for (std::int32_t v = 0; v < out.n_vars; ++v) {
        const double* src = series.column(v);
        for (std::int32_t lag = 0; lag <= max_lag; ++lag) {
            // Row r is time t = max_lag + r; the node (v, −lag) there holds series v at t − lag.
            std::copy(src + max_lag - lag, src + max_lag - lag + rows, out.data.column(out.column(v, lag)));
            const std::string& name = series.names[static_cast<std::size_t>(v)];
            out.data.names.push_back(lag == 0 ? name : name + "(t-" + std::to_string(lag) + ")");
        }
    }
    return out;
}

}  // namespace cudag::pcmci
