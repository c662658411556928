// SPDX-License-Identifier: Apache-2.0
#include "ci/test_inputs.hpp"

#include <cmath>
#include <cstddef>

#include "core/error.hpp"
#include "core/format.hpp"

namespace cudag::ci {

std::string quoted_variable(const Dataset& d, std::int32_t v) {
    return v >= 0 && static_cast<std::size_t>(v) < d.names.size() ? "'" + d.names[static_cast<std::size_t>(v)] + "'"
                                                                   : "variable " + std::to_string(v);
}

std::string test_label(const std::string& test, const Dataset& d, std::int32_t x, std::int32_t y,
                       std::span<const std::int32_t> s) {
    std::string t = "the " + test + " test of " + quoted_variable(d, x) + " and " + quoted_variable(d, y);
    if (!s.empty()) {
        t += " given {";
        for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + quoted_variable(d, s[i]);
        t += "}";
    }
    return t;
}

void check_test_values(const Dataset& d, std::span<const std::int32_t> vars, const std::string& label) {
    for (std::int32_t v : vars)
        if (v < 0 || v >= d.n_vars) throw InputError(label + ": variable index " + std::to_string(v) + " out of range");
    for (std::int32_t v : vars) {
        const double* col = d.column(v);
        const bool discrete = d.is_discrete(v);
        const auto levels = discrete ? static_cast<double>(d.levels[static_cast<std::size_t>(v)].size()) : 0.0;
        for (std::int64_t r = 0; r < d.n_samples; ++r) {
            const double c = col[r];
            if (discrete ? !(c >= 0.0 && c < levels && c == std::floor(c)) : !std::isfinite(c))
                throw InputError(label + ": " + quoted_variable(d, v) + " has " + (discrete ? "the code " : "the value ") +
                                 exact_number(c) + " at row " + std::to_string(r) +
                                 (discrete ? ", not one of its levels" : ", not a finite number"));
        }
    }
}

}  // namespace cudag::ci
