// SPDX-License-Identifier: Apache-2.0
#include "core/missing.hpp"

#include <cmath>

#include "core/error.hpp"

namespace cudag {

MissingPolicy parse_missing(const std::string& name) {
    if (name == "error") return MissingPolicy::Error;
    if (name == "testwise") return MissingPolicy::Testwise;
    if (name == "listwise") return MissingPolicy::Listwise;
    throw InputError("--missing must be error, testwise or listwise, got '" + name + "'");
}

std::string to_string(MissingPolicy p) {
    switch (p) {
        case MissingPolicy::Error:
            return "error";
        case MissingPolicy::Testwise:
            return "testwise";
        case MissingPolicy::Listwise:
            return "listwise";
    }
    return "error";
}

void check_missing_columns(const Dataset& d) {
    if (d.missing == 0) return;
    for (std::int64_t v = 0; v < d.n_vars; ++v) {
        const double* col = d.column(v);
        bool any = false;
        for (std::int64_t k = 0; k < d.n_samples && !any; ++k) any = !std::isnan(col[k]);
        if (!any)
            throw InputError(d.source + ": column '" + d.names[static_cast<std::size_t>(v)] +
                             "' is missing in every row; drop it");
    }
}

namespace {

/// Renumber the codes of discrete variable v of `d` to the levels its rows hold.
void compact_levels(Dataset& d, std::int64_t v) {
    if (!d.is_discrete(v)) return;
    auto& levels = d.levels[static_cast<std::size_t>(v)];
    std::vector<std::int64_t> code(levels.size(), -1);
    double* col = d.column(v);
    for (std::int64_t k = 0; k < d.n_samples; ++k)
        if (!std::isnan(col[k])) code[static_cast<std::size_t>(col[k])] = 0;
    std::vector<std::string> kept;
    for (std::size_t l = 0; l < levels.size(); ++l)
        if (code[l] == 0) {
            code[l] = static_cast<std::int64_t>(kept.size());
            kept.push_back(levels[l]);
        }
    if (kept.size() == levels.size()) return;
    for (std::int64_t k = 0; k < d.n_samples; ++k)
        if (!std::isnan(col[k])) col[k] = static_cast<double>(code[static_cast<std::size_t>(col[k])]);
    levels = std::move(kept);
}

}  // namespace

std::int64_t drop_incomplete_rows(Dataset& d) {
    if (d.missing == 0) return 0;
    std::vector<char> keep(static_cast<std::size_t>(d.n_samples), 1);
    for (std::int64_t v = 0; v < d.n_vars; ++v) {
        const double* col = d.column(v);
        for (std::int64_t k = 0; k < d.n_samples; ++k)
            if (std::isnan(col[k])) keep[static_cast<std::size_t>(k)] = 0;
    }
    std::int64_t m = 0;
    for (const char c : keep) m += c;
    const std::int64_t dropped = d.n_samples - m;
    if (m == 0)
        throw InputError(d.source +
                         ": every row has a missing cell: --missing listwise leaves no data (try "
                         "--missing testwise)");
    std::vector<double> values(static_cast<std::size_t>(m * d.n_vars));
    for (std::int64_t v = 0; v < d.n_vars; ++v) {
        const double* col = d.column(v);
        double* out = values.data() + v * m;
        for (std::int64_t k = 0; k < d.n_samples; ++k)
            if (keep[static_cast<std::size_t>(k)]) *out++ = col[k];
    }
    d.values = std::move(values);
    d.n_samples = m;
    d.missing = 0;
    for (std::int64_t v = 0; v < d.n_vars; ++v) compact_levels(d, v);
    return dropped;
}

std::vector<std::int64_t> complete_rows(const Dataset& d, std::span<const std::int32_t> vars) {
    // A mask column by column (each a contiguous pass), then the rows it keeps.
    std::vector<std::uint8_t> missing(static_cast<std::size_t>(d.n_samples), 0);
    for (const std::int32_t v : vars) {
        const double* col = d.column(v);
        for (std::int64_t k = 0; k < d.n_samples; ++k) missing[static_cast<std::size_t>(k)] |= std::isnan(col[k]);
    }
    std::vector<std::int64_t> rows;
    rows.reserve(static_cast<std::size_t>(d.n_samples));
    for (std::int64_t k = 0; k < d.n_samples; ++k)
        if (!missing[static_cast<std::size_t>(k)]) rows.push_back(k);
    return rows;
}

Dataset subset(const Dataset& d, std::span<const std::int32_t> vars, std::span<const std::int64_t> rows,
               bool keep_levels) {
    Dataset s;
    s.n_samples = static_cast<std::int64_t>(rows.size());
    s.n_vars = static_cast<std::int64_t>(vars.size());
    s.source = d.source;
    s.values.resize(static_cast<std::size_t>(s.n_samples * s.n_vars));
    s.names.reserve(vars.size());
    bool discrete = false;
    for (const std::int32_t v : vars) {
        s.names.push_back(d.names[static_cast<std::size_t>(v)]);
        discrete = discrete || d.is_discrete(v);
    }
    if (discrete) s.levels.resize(vars.size());
    for (std::size_t k = 0; k < vars.size(); ++k) {
        const double* col = d.column(vars[k]);
        double* out = s.column(static_cast<std::int64_t>(k));
        for (std::size_t r = 0; r < rows.size(); ++r) out[r] = col[rows[r]];
        if (d.is_discrete(vars[k])) {
            s.levels[k] = d.levels[static_cast<std::size_t>(vars[k])];
            if (!keep_levels) compact_levels(s, static_cast<std::int64_t>(k));
        }
        for (std::size_t r = 0; r < rows.size(); ++r) s.missing += std::isnan(out[r]) ? 1 : 0;
    }
    return s;
}

}  // namespace cudag
