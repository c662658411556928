// SPDX-License-Identifier: Apache-2.0
// Discrete data as the χ²/G² engines (CPU and GPU) and the BDeu/K2 scores hold them, and
// which discrete test a run uses.
#pragma once

#include <cstdint>
#include <vector>

#include "ci/discrete_test.hpp"
#include "core/dataset.hpp"

namespace cudag::ci {

/// Which discrete test a run uses.
struct DiscreteTestSpec {
    DiscreteStat stat = DiscreteStat::ChiSquare;
    DofRule dof = DofRule::Pcalg;
};

/// Discrete data as the engines hold it: one byte per code, variable-major
/// (codes[v * n_samples + s]), and each variable's number of levels.
struct DiscreteCodes {
    std::int64_t n_vars = 0;
    std::int64_t n_samples = 0;
    std::vector<std::uint8_t> codes;
    std::vector<std::int32_t> cards;  ///< levels per variable, 2..kMaxLevels

    const std::uint8_t* column(std::int64_t v) const { return codes.data() + v * n_samples; }
};

/// Codes of a discrete Dataset (Dataset::discrete()). Throws InputError naming the
/// variable when one has a single level (its tests have no degrees of freedom) unless
/// `allow_single_level` (the causal-learn rule defines them: df = 0 gives p = 1, so such
/// a variable ends isolated), and LogicError when the data are not discrete.
DiscreteCodes encode_discrete(const Dataset& data, bool allow_single_level = false);

}  // namespace cudag::ci
