// SPDX-License-Identifier: Apache-2.0
#include "bn/cg_bic.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/format.hpp"

namespace cudag::bn {
namespace {

std::string var_name(const Dataset& d, std::int32_t v) {
    return static_cast<std::size_t>(v) < d.names.size() ? "'" + d.names[static_cast<std::size_t>(v)] + "'"
                                                        : "variable " + std::to_string(v);
}

std::string family_label(const Dataset& d, std::int32_t v, std::span<const std::int32_t> parents) {
    std::string t = "cg-bic: the local score of " + var_name(d, v);
    if (parents.empty()) return t + " with no parent";
    t += " given {";
    for (std::size_t i = 0; i < parents.size(); ++i) t += (i ? ", " : "") + var_name(d, parents[i]);
    return t + "}";
}

/// Key spans up to this many strata are ranked through a dense table (else by sorting).
constexpr std::uint64_t kDenseSpan = std::uint64_t{1} << 16;

/// The stratum ids of rows [0, keys.size()) whose keep flag is set: the number of distinct
/// keys of those rows (returned), id[i] the rank of row i's key among them in increasing
/// order (-1 for a row not kept). Keys lie in [0, span); `slot` is scratch (all -1 on entry
/// and on return when span <= kDenseSpan).
std::size_t rank_keys(const std::vector<std::uint64_t>& keys, const std::vector<char>& keep, std::uint64_t span,
                      std::vector<std::int32_t>& slot, std::vector<std::uint64_t>& distinct,
                      std::vector<std::int32_t>& id) {
    distinct.clear();
    id.assign(keys.size(), -1);
    if (span <= kDenseSpan) {
        if (slot.size() < span) slot.resize(span, -1);
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keep[i] && slot[keys[i]] < 0) slot[keys[i]] = 0, distinct.push_back(keys[i]);
        std::sort(distinct.begin(), distinct.end());
        for (std::size_t r = 0; r < distinct.size(); ++r) slot[distinct[r]] = static_cast<std::int32_t>(r);
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keep[i]) id[i] = slot[keys[i]];
        for (const std::uint64_t k : distinct) slot[k] = -1;
        return distinct.size();
    }
    for (std::size_t i = 0; i < keys.size(); ++i)
        if (keep[i]) distinct.push_back(keys[i]);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (std::size_t i = 0; i < keys.size(); ++i)
        if (keep[i])
            id[i] = static_cast<std::int32_t>(std::lower_bound(distinct.begin(), distinct.end(), keys[i]) -
                                              distinct.begin());
    return distinct.size();
}

/// A thread's buffers for local(), reused from call to call.
struct Scratch {
    std::vector<std::uint64_t> key, key_p, distinct;
    std::vector<char> keep;
    std::vector<std::int32_t> id_f, id_p, slot;
    std::vector<std::int64_t> count;
    std::vector<double> rec_f, rec_p;
};

}  // namespace

CgBicScorer::CgBicScorer(Dataset data, bool declared_levels) : data_(std::move(data)) {
    const std::string what = data_.source.empty() ? std::string("the data") : data_.source;
    if (data_.n_samples < kCgMinSamples)
        throw InputError(what + ": " + std::to_string(data_.n_samples) + " sample" + (data_.n_samples == 1 ? "" : "s") +
                         "; cg-bic needs at least " + std::to_string(kCgMinSamples));
    const auto n = static_cast<std::size_t>(data_.n_vars);
    radix_.assign(n, 0);
    observed_.assign(n, 1.0);
    for (std::int32_t v = 0; v < data_.n_vars; ++v) {
        const double* col = data_.column(v);
        const bool discrete = data_.is_discrete(v);
        const auto levels = discrete ? data_.levels[static_cast<std::size_t>(v)].size() : std::size_t{0};
        std::vector<char> seen(levels, 0);
        double observed = 0.0;
        for (std::int64_t r = 0; r < data_.n_samples; ++r) {
            const double c = col[r];
            if (discrete ? !(c >= 0.0 && c < static_cast<double>(levels) && c == std::floor(c)) : !std::isfinite(c))
                throw InputError(what + ": cg-bic: " + var_name(data_, v) + " has " +
                                 (discrete ? "the code " : "the value ") + exact_number(c) + " at row " +
                                 std::to_string(r) + (discrete ? ", not one of its levels" : ", not a finite number"));
            if (discrete && !seen[static_cast<std::size_t>(c)]) seen[static_cast<std::size_t>(c)] = 1, observed += 1.0;
        }
        if (discrete) {
            radix_[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(levels);
            observed_[static_cast<std::size_t>(v)] = declared_levels ? static_cast<double>(levels) : observed;
        }
    }
    half_log_n_ = 0.5 * xm::log(static_cast<double>(data_.n_samples));
    one_log_2pi_ = 1.0 + xm::log(2.0 * std::numbers::pi);
}

double CgBicScorer::local(std::int32_t node, std::span<const std::int32_t> parents_in) const {
    CUDAG_ASSERT(node >= 0 && node < data_.n_vars);
    std::vector<std::int32_t> parents(parents_in.begin(), parents_in.end());
    std::sort(parents.begin(), parents.end());
    const Dataset& d = data_;
    const std::int64_t m = d.n_samples;
    const bool cont_child = !d.is_discrete(node);
    // P's discrete variables (increasing ids) and continuous ones; the family's continuous
    // variables are P's then v.
    std::vector<std::int32_t> disc, cont;
    for (const std::int32_t u : parents) (d.is_discrete(u) ? disc : cont).push_back(u);
    const int p_p = static_cast<int>(cont.size());
    std::vector<std::int32_t> cont_f = cont;
    if (cont_child) cont_f.push_back(node);
    const int p_f = static_cast<int>(cont_f.size());
    if (p_f > kCgMaxContinuous)
        throw InputError(family_label(d, node, parents) + ": " + std::to_string(p_f) +
                         " continuous variables; cg-bic scores at most " + std::to_string(kCgMaxContinuous));
    const std::uint64_t r = cont_child ? 1 : static_cast<std::uint64_t>(radix_[static_cast<std::size_t>(node)]);

    // Each row's family key (mixed radix, see the header); the product of the radices must
    // stay below 2^63.
    thread_local Scratch t;
    std::vector<std::uint64_t>& key = t.key;
    key.assign(static_cast<std::size_t>(m), 0);
    double span = 1.0;
    const auto add_digit = [&](std::int32_t u) {
        const auto radix = static_cast<std::uint64_t>(radix_[static_cast<std::size_t>(u)]);
        span *= static_cast<double>(radix);
        if (span >= 9.2e18)
            throw InputError(family_label(d, node, parents) +
                             ": the discrete variables' configurations number more than 2^63");
        const double* col = d.column(u);
        for (std::int64_t i = 0; i < m; ++i) key[i] = key[i] * radix + static_cast<std::uint64_t>(col[i]);
    };
    for (const std::int32_t u : disc) add_digit(u);
    if (!cont_child) add_digit(node);
    const auto span_f = static_cast<std::uint64_t>(span);

    // Rows kept: those of family strata of more than p_f rows.
    std::vector<char>& keep = t.keep;
    keep.assign(static_cast<std::size_t>(m), 1);
    std::vector<std::int32_t>&id_f = t.id_f, &id_p = t.id_p;
    std::size_t strata_f = rank_keys(key, keep, span_f, t.slot, t.distinct, id_f);
    std::int64_t n_kept = m;
    if (p_f > 0) {
        t.count.assign(strata_f, 0);
        for (const std::int32_t s : id_f) ++t.count[static_cast<std::size_t>(s)];
        for (std::int64_t i = 0; i < m; ++i)
            if (t.count[static_cast<std::size_t>(id_f[i])] <= p_f) keep[i] = 0, --n_kept;
        if (n_kept < m) strata_f = rank_keys(key, keep, span_f, t.slot, t.distinct, id_f);
    }
    std::vector<std::uint64_t>& key_p = t.key_p;
    key_p.resize(key.size());
    for (std::size_t i = 0; i < key.size(); ++i) key_p[i] = key[i] / r;
    const std::size_t strata_p = rank_keys(key_p, keep, span_f / r, t.slot, t.distinct, id_p);

    // Records in row order; then each set's terms in increasing key order.
    const int w_f = cg_record_doubles(p_f), w_p = cg_record_doubles(p_p);
    std::vector<double>&rec_f = t.rec_f, &rec_p = t.rec_p;
    rec_f.assign(strata_f * static_cast<std::size_t>(w_f), 0.0);
    rec_p.assign(strata_p * static_cast<std::size_t>(w_p), 0.0);
    for (std::int64_t i = 0; i < m; ++i) {
        if (!keep[i]) continue;
        cg_record_add(rec_f.data() + static_cast<std::size_t>(id_f[i]) * w_f, p_f, d.values.data(), m, cont_f.data(),
                      i);
        cg_record_add(rec_p.data() + static_cast<std::size_t>(id_p[i]) * w_p, p_p, d.values.data(), m, cont.data(), i);
    }
    std::vector<double> l(static_cast<std::size_t>(ci::cg_lrt_core::triangle(p_f))),
        roots(static_cast<std::size_t>(p_f));
    double mult_f = 0.0, gauss_f = 0.0, mult_p = 0.0, gauss_p = 0.0;
    const auto singular = [&](const double* rec, std::span<const std::int32_t> vars, std::span<const std::int32_t> by) {
        std::string names;
        for (std::size_t a = 0; a < vars.size(); ++a) names += (a ? ", " : "") + var_name(d, vars[a]);
        std::string where;
        const auto first = static_cast<std::int64_t>(rec[1]);
        for (const std::int32_t u : by)
            where += (where.empty() ? " where " : ", ") + var_name(d, u) + " = " +
                     d.levels[static_cast<std::size_t>(u)][static_cast<std::size_t>(d.column(u)[first])];
        throw InputError(family_label(d, node, parents) + ": the covariance of " + names + " among the " +
                         std::to_string(static_cast<std::int64_t>(rec[0])) + " rows" + where +
                         " is singular (a constant or collinear continuous variable given the discrete ones): the "
                         "conditional-Gaussian likelihood is unbounded");
    };
    std::vector<std::int32_t> disc_f = disc;
    if (!cont_child) disc_f.push_back(node);
    for (std::size_t s = 0; s < strata_f; ++s) {
        const double* rec = rec_f.data() + s * static_cast<std::size_t>(w_f);
        if (!cg_record_terms(rec, p_f, l.data(), roots.data(), &mult_f, &gauss_f)) singular(rec, cont_f, disc_f);
    }
    for (std::size_t s = 0; s < strata_p; ++s) {
        const double* rec = rec_p.data() + s * static_cast<std::size_t>(w_p);
        if (!cg_record_terms(rec, p_p, l.data(), roots.data(), &mult_p, &gauss_p)) singular(rec, cont, disc);
    }
    double f_p = 1.0;
    for (const std::int32_t u : disc) f_p *= observed_[static_cast<std::size_t>(u)];
    const double k_diff = cg_bic_k_diff(f_p, observed_[static_cast<std::size_t>(node)], p_p, cont_child);
    const double score = cg_bic_combine(mult_f, gauss_f, mult_p, gauss_p, static_cast<double>(n_kept), cont_child,
                                        k_diff, half_log_n_, one_log_2pi_);
    if (!std::isfinite(score))
        throw InputError(family_label(d, node, parents) + " is " + exact_number(score) + ", not finite");
    return score;
}

}  // namespace cudag::bn
