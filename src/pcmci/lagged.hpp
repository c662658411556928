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
//
// Several independent series (tigramite's analysis_mode 'multiple', data a dict of arrays):
// construct_array takes each data set's rows t = 2·tau_max..T_m − 1 and concatenates them in
// the dict's order; a data set of no more than 2·tau_max steps gives none. The table is the
// same: the lagged rows of each series, one series after the other.
//
// Missing values (tigramite's missing_flag): a missing cell is NaN in the series and so in
// every lagged cell that copies it. construct_array (remove_missing_upto_maxlag False, its
// default) drops, test by test, the rows where one of the test's nodes is missing: the rows
// of the table that are complete in the test's columns, which is the test-wise deletion of
// the project's engines (Dataset::missing > 0).
#pragma once

#include <cstdint>
#include <span>
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
    std::int64_t length = 0;   ///< T, the series' length (several series: the longest)
    std::int32_t column(Node n) const { return n.var * (max_lag + 1) + n.lag; }
    std::int32_t column(std::int32_t var, std::int32_t lag) const { return var * (max_lag + 1) + lag; }
    /// "name" at lag 0, "name(t-3)" else.
    std::string node_name(Node n) const;
};

/// The lagged table of `series` (continuous, rows in time order; missing cells NaN, counted in
/// Dataset::missing) for lags 0..max_lag. `starts`: where each independent series begins among
/// the rows (increasing, the first 0; empty: one series), each series giving its rows
/// t = max_lag..T_m − 1. Throws InputError when no series has more than max_lag steps (no row
/// left to test on). The table's Dataset::missing counts its NaN cells.
LaggedData make_lagged(const Dataset& series, std::int32_t max_lag, std::span<const std::int64_t> starts = {});

}  // namespace cudag::pcmci
