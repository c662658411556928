// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/resample.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/choice.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"

namespace cudag::bootstrap {

namespace {

/// The stream of replicate r: a tag in the high bits keeps the resamples' streams apart
/// from the other users of the same --seed (CMIknn's permutations and noise).
constexpr std::uint64_t kResampleStreamTag = 0xB007'5A3D'0000'0000ull;

/// The columns `kept` of `d`, in their order.
Dataset select_columns(const Dataset& d, const std::vector<std::int32_t>& kept) {
    Dataset out;
    out.n_samples = d.n_samples;
    out.n_vars = static_cast<std::int64_t>(kept.size());
    out.source = d.source;
    out.values.reserve(static_cast<std::size_t>(out.n_vars * out.n_samples));
    for (std::int32_t v : kept) {
        out.values.insert(out.values.end(), d.column(v), d.column(v) + d.n_samples);
        out.names.push_back(d.names[static_cast<std::size_t>(v)]);
        if (!d.levels.empty()) out.levels.push_back(d.levels[static_cast<std::size_t>(v)]);
        for (std::int64_t s = 0; s < d.n_samples; ++s) out.missing += std::isnan(d.column(v)[s]) ? 1 : 0;
    }
    return out;
}

}  // namespace

bool constant_column(const Dataset& d, std::int64_t v) {
    const double* x = d.column(v);
    for (std::int64_t s = 1; s < d.n_samples; ++s)
        if (x[s] != x[0]) return false;
    return true;
}

Knowledge knowledge_on(const Knowledge& k, const std::vector<std::int32_t>& kept) {
    const auto n = static_cast<std::int32_t>(kept.size());
    Knowledge out(n);
    for (std::int32_t a = 0; a < n; ++a)
        if (k.tier(kept[a]) >= 0) out.set_tier(a, k.tier(kept[a]));
    const auto& pairs = k.undirected_required_pairs();
    for (std::int32_t a = 0; a < n; ++a)
        for (std::int32_t b = 0; b < n; ++b) {
            if (a == b) continue;
            const std::int32_t x = kept[a], y = kept[b];
            if (k.forbidden(x, y) && !(k.tier(x) >= 0 && k.tier(y) >= 0 && k.tier(x) > k.tier(y)))
                out.forbid_direction(a, b);
            if (k.required(x, y)) out.require_direction(a, b);
            if (a < b && pairs.count({x, y})) out.require_pair(a, b);
        }
    return out;
}

namespace {
constexpr Choice<Resample> kResamples[] = {{"bootstrap", Resample::Bootstrap}, {"half", Resample::Half}};
}  // namespace

const char* to_string(Resample r) { return choice_word(kResamples, r); }
Resample parse_resample(const std::string& s) { return parse_choice(kResamples, "--resample", s); }

void validate(const Options& b, std::int64_t n_samples) {
    if (b.replicates < 1) throw InputError("--bootstrap must be at least 1, got " + std::to_string(b.replicates));
    if (b.replicates > (std::int64_t{1} << 30))
        throw InputError("--bootstrap must be at most 2^30, got " + std::to_string(b.replicates));
    if (!(b.consensus > 0.0 && b.consensus <= 1.0)) {
        std::ostringstream os;
        os << "--consensus must be in (0, 1], got " << b.consensus;
        throw InputError(os.str());
    }
    const std::int64_t need = b.resample == Resample::Half ? 2 : 1;
    if (n_samples < need)
        throw InputError("--resample " + std::string(to_string(b.resample)) + " needs at least " +
                         std::to_string(need) + " samples, the data have " + std::to_string(n_samples));
}

std::vector<std::int64_t> resample_rows(std::int64_t n_samples, const Options& b, std::int64_t replicate) {
    CUDAG_EXPECTS(n_samples >= 0 && replicate >= 0, "resample_rows: negative size or replicate");
    CounterRng rng(b.seed, kResampleStreamTag + static_cast<std::uint64_t>(replicate));
    // floor(u * k) for u in [0, 1): an index below k (the min guards k near 2^53).
    const auto below = [&rng](std::int64_t k) {
        const auto x = static_cast<std::int64_t>(rng.uniform() * static_cast<double>(k));
        return std::min(x, k - 1);
    };
    std::vector<std::int64_t> rows;
    if (b.resample == Resample::Bootstrap) {
        rows.resize(static_cast<std::size_t>(n_samples));
        for (std::int64_t& r : rows) r = below(n_samples);
    } else {
        // A partial Fisher-Yates shuffle: the first floor(m/2) places drawn.
        std::vector<std::int64_t> all(static_cast<std::size_t>(n_samples));
        for (std::int64_t s = 0; s < n_samples; ++s) all[static_cast<std::size_t>(s)] = s;
        const std::int64_t k = n_samples / 2;
        for (std::int64_t t = 0; t < k; ++t)
            std::swap(all[static_cast<std::size_t>(t)], all[static_cast<std::size_t>(t + below(n_samples - t))]);
        rows.assign(all.begin(), all.begin() + k);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

void resample_into(const Dataset& data, std::span<const std::int64_t> rows, const std::string& source, Dataset& d,
                   int threads, bool keep_levels) {
    d.n_vars = data.n_vars;
    d.n_samples = static_cast<std::int64_t>(rows.size());
    d.names = data.names;
    d.source = source;
    // The same size again keeps the values' memory (a worker's replicates one after another).
    d.values.resize(static_cast<std::size_t>(d.n_vars * d.n_samples));
    if (!data.levels.empty())  // discrete or mixed data
        d.levels.resize(static_cast<std::size_t>(d.n_vars));
    else
        d.levels.clear();
    // Missing cells (--missing testwise) travel with their rows.
    std::vector<std::int64_t> missing(static_cast<std::size_t>(d.n_vars), 0);
    // Column by column, each column on one thread: the same values on any number of threads.
    parallel_for(0, d.n_vars, threads, 64, [&](std::int64_t v, int) {
        const double* from = data.column(v);
        double* to = d.column(v);
        for (std::int64_t s = 0; s < d.n_samples; ++s) to[s] = from[rows[static_cast<std::size_t>(s)]];
        if (data.missing > 0)
            for (std::int64_t s = 0; s < d.n_samples; ++s) missing[static_cast<std::size_t>(v)] += std::isnan(to[s]);
        if (!data.is_discrete(v)) {
            if (!d.levels.empty()) d.levels[static_cast<std::size_t>(v)].clear();
            return;
        }
        // Discrete: only the levels the resample holds, in their order (as the reader codes
        // the written labels).
        const auto& levels = data.levels[static_cast<std::size_t>(v)];
        auto& kept_levels = d.levels[static_cast<std::size_t>(v)];
        if (keep_levels) {
            kept_levels = levels;
            return;
        }
        kept_levels.clear();
        std::vector<std::int64_t> code(levels.size(), -1);
        for (std::int64_t s = 0; s < d.n_samples; ++s)
            if (!std::isnan(to[s])) code[static_cast<std::size_t>(to[s])] = 0;
        std::int64_t next = 0;
        for (std::size_t k = 0; k < levels.size(); ++k)
            if (code[k] == 0) {
                code[k] = next++;
                kept_levels.push_back(levels[k]);
            }
        for (std::int64_t s = 0; s < d.n_samples; ++s)
            if (!std::isnan(to[s])) to[s] = static_cast<double>(code[static_cast<std::size_t>(to[s])]);
    });
    d.missing = 0;
    for (const std::int64_t m : missing) d.missing += m;
}

Dataset resample_data(const Dataset& data, std::span<const std::int64_t> rows, const std::string& source) {
    Dataset d;
    resample_into(data, rows, source, d, 1);
    return d;
}

Dataset drop_constant_columns(Dataset d, std::vector<std::int32_t>& kept) {
    kept.clear();
    for (std::int64_t v = 0; v < d.n_vars; ++v)
        if (!constant_column(d, v)) kept.push_back(static_cast<std::int32_t>(v));
    if (static_cast<std::int64_t>(kept.size()) == d.n_vars) return d;
    return select_columns(d, kept);
}

std::int64_t replicate_samples(const Options& b, std::int64_t n_samples) {
    return b.resample == Resample::Half ? n_samples / 2 : n_samples;
}

std::string replicate_source(const std::string& source, std::int64_t replicate) {
    std::string s = source;
    s += " (bootstrap replicate ";
    s += std::to_string(replicate);
    s += ')';
    return s;
}

}  // namespace cudag::bootstrap
