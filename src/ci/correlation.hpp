// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include "core/dataset.hpp"

namespace cudag::ci {

/// Pearson correlation matrix of the data set's variables, n×n row-major in
/// double, unit diagonal. Columns are standardised (mean 0, unit norm) first.
/// Throws InputError naming the first constant column.
std::vector<double> correlation_matrix(const Dataset& data, int threads);

/// Throws InputError naming the first variable whose values are all equal.
void check_no_constant_columns(const Dataset& data);

}  // namespace cudag::ci
