// SPDX-License-Identifier: Apache-2.0
// Missing values (issue 55): what a command does with them (--missing), listwise deletion,
// and the complete rows of a test's variables (test-wise deletion).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/dataset.hpp"

namespace cudag {

/// --missing: refuse missing cells (the default), delete the rows a test cannot use, test by
/// test (causal-learn's mv_fisherz, micd's test-wise deletion), or delete every row with a
/// missing cell before anything runs.
enum class MissingPolicy { Error, Testwise, Listwise };

/// "error", "testwise" or "listwise"; anything else is an InputError naming the choices.
MissingPolicy parse_missing(const std::string& name);
std::string to_string(MissingPolicy p);

/// A variable of `d` missing in every row is an InputError naming it (nothing can test it).
void check_missing_columns(const Dataset& d);

/// Listwise deletion: remove every row of `d` with a missing cell, then give each discrete
/// variable only the levels its remaining rows hold (codes renumbered in the labels' order),
/// as if the file had held those rows only. Returns the rows removed; an InputError when
/// none is left.
std::int64_t drop_incomplete_rows(Dataset& d);

/// Test-wise deletion: the rows of `d` complete in every variable of `vars` (increasing).
std::vector<std::int64_t> complete_rows(const Dataset& d, std::span<const std::int32_t> vars);

/// The data set of the variables `vars` (in that order: variable k of the result is vars[k])
/// on the rows `rows` of `d`; discrete variables keep only the levels those rows hold, as
/// drop_incomplete_rows, or with `keep_levels` every level of `d` (bnlearn's declared
/// levels). Names and source as in `d`.
Dataset subset(const Dataset& d, std::span<const std::int32_t> vars, std::span<const std::int64_t> rows,
               bool keep_levels = false);

}  // namespace cudag
