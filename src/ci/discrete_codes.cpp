// SPDX-License-Identifier: Apache-2.0
#include "ci/discrete_codes.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace cudag::ci {

DiscreteCodes encode_discrete(const Dataset& data, bool allow_single_level) {
    CUDAG_ASSERT(data.discrete());
    DiscreteCodes d;
    d.n_vars = data.n_vars;
    d.n_samples = data.n_samples;
    d.cards.resize(static_cast<std::size_t>(data.n_vars));
    d.codes.resize(data.values.size());
    for (std::int64_t v = 0; v < data.n_vars; ++v) {
        const auto& levels = data.levels[static_cast<std::size_t>(v)];
        if (levels.size() < 2 && !(allow_single_level && levels.size() == 1))
            throw InputError(data.source + ": variable '" + data.names[v] + "' (column " + std::to_string(v + 1) +
                             ") has a single level" + (levels.empty() ? std::string() : " '" + levels[0] + "'") +
                             "; a discrete CI test needs at least 2 levels (drop the column, or "
                             "use --dof causal-learn, which tests it with df = 0, p = 1)");
        CUDAG_ASSERT(levels.size() <= 256);
        d.cards[v] = static_cast<std::int32_t>(levels.size());
    }
    std::transform(data.values.begin(), data.values.end(), d.codes.begin(),
                   [](double x) { return static_cast<std::uint8_t>(x); });
    return d;
}

}  // namespace cudag::ci
