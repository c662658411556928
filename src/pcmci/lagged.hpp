// SPDX-License-Identifier: Apache-2.0
// Time series as the table of lagged variables every PCMCI test reads (issue 56).
//
// tigramite builds the array of a test X ⟂ Y | Z, its nodes (variable, −lag), from the rows
// t = 2·tau_max, ..., T − 1 (construct_array's default cut_off '2xtau_max': every test of a run
// on the same samples, whatever its lags), the node (v, −lag) holding series v at t − lag.
// Conditions reach lag 2·tau_max (MCI shifts X's parents by X's lag), so every node a run can
// name is a column of one table: column v·(L + 1) + lag, lag = 0..L = 2·tau_max, rows
// t = L..T − 1. A test is then a test on columns of an ordinary data set, and
// every CI engine of the project (CPU workers, GPU batches, MPI ranks) answers it unchanged.
#pragma once

#include <cstdint>
#include <string>

#include "core/dataset.hpp"

namespace cudag::pcmci {

/// A node of the time-series graph: variable `var` at t − lag (tigramite's (var, −lag)).
struct Node {
    std::int32_t var = 0;
    std::int32_t lag = 0;
    bool operator==(const Node&) const = default;
};

struct LaggedData {
    Dataset data;              ///< the lagged table: column(v, lag), rows t = max_lag..T − 1
    std::int32_t n_vars = 0;   ///< series
    std::int32_t max_lag = 0;  ///< L: lags 0..L are columns
    std::int64_t length = 0;   ///< T, the series' length
    std::int32_t column(Node n) const { return n.var * (max_lag + 1) + n.lag; }
    std::int32_t column(std::int32_t var, std::int32_t lag) const { return var * (max_lag + 1) + lag; }
    /// "name" at lag 0, "name(t-3)" else.
    std::string node_name(Node n) const;
};

/// The lagged table of `series` (continuous, no missing cells, rows in time order) for lags
/// 0..max_lag. Throws InputError when the series has no more than max_lag steps (no row
/// left to test on).
LaggedData make_lagged(const Dataset& series, std::int32_t max_lag);

}  // namespace cudag::pcmci
