// SPDX-License-Identifier: Apache-2.0
// The "format" attribute of each result file cudag writes, so that readers (io/graph_reader)
// know them without including the learners that write them (pc/result_file, bn/mcmc_result).
#pragma once

namespace cudag::io {

inline constexpr const char* pc_result_format = "cudag-pc-result-1";
inline constexpr const char* mcmc_result_format = "cudag-mcmc-result-1";

}  // namespace cudag::io
