// SPDX-License-Identifier: Apache-2.0
// The one rule every command that computes from continuous data follows for values of
// extreme magnitude (issue 53 item 4): a scale-free computation rescales the column by a
// power of two (exact); one that depends on the scale refuses the column by name. Either
// way no sum of squares overflows or underflows into a silent wrong answer.
#pragma once

#include <cstdint>
#include <string>

#include "core/dataset.hpp"

namespace cudag {

/// A column is extreme when its largest magnitude lies beyond 2^±500 (about 1e±150): the
/// square of 2^500 still fits a double's range, and that of 2^-500 is still normal.
inline constexpr int kMagnitudeLimit = 500;

/// For a scale-free computation (Fisher-z; CMIknn on ranks, uniform or standardised
/// values): every extreme column of continuous `data` multiplied by the power of two that
/// brings its largest magnitude into [0.5, 1). Exact, so the computation sees the values it
/// sees on data of ordinary range. Returns the columns rescaled; nothing for discrete data.
std::int64_t rescale_extreme_columns(Dataset& data);

/// For a computation that depends on the scale (the BGe score, whose prior adds a fixed
/// matrix to the data's scatter): throws InputError naming the first extreme column of
/// continuous `data` and `who` ("--score bge"): rescale the data first.
void require_ordinary_magnitudes(const Dataset& data, const std::string& who);

}  // namespace cudag
