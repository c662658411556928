// SPDX-License-Identifier: Apache-2.0
#include "ci/cg_lrt.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ci/batch.hpp"
#include "ci/discrete_test.hpp"
#include "core/error.hpp"
#include "core/format.hpp"

namespace cudag::ci {
namespace {

/// A Cholesky pivot at or below this fraction of its diagonal entry (1 − R² of the variable on
/// the ones before it) makes a stratum's covariance singular.
constexpr double kSingular = 1e-10;

std::string var_name(const Dataset& d, std::int32_t v) {
    return static_cast<std::size_t>(v) < d.names.size() ? "'" + d.names[static_cast<std::size_t>(v)] + "'"
                                                        : "variable " + std::to_string(v);
}

std::string test_label(const Dataset& d, std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    std::string t = "the cg-lrt test of " + var_name(d, x) + " and " + var_name(d, y);
    if (!s.empty()) {
        t += " given {";
        for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + var_name(d, s[i]);
        t += "}";
    }
    return t;
}

/// Strata of `rows` by the configuration of the discrete variables `vars`, numbered by first
/// occurrence (row order): id[i] is row rows[i]'s stratum; returns the number of strata.
/// Each variable refines the previous numbering (key = id · levels + code), so the numbering
/// is the same whatever the order of `vars`.
std::int32_t number_strata(const Dataset& d, std::span<const std::int32_t> vars, const std::vector<std::int64_t>& rows,
                           std::vector<std::int32_t>& id) {
    id.assign(rows.size(), 0);
    std::int32_t count = rows.empty() ? 0 : 1;
    std::unordered_map<std::int64_t, std::int32_t> seen;
    for (std::int32_t v : vars) {
        const auto levels = static_cast<std::int64_t>(d.levels[static_cast<std::size_t>(v)].size());
        const double* col = d.column(v);
        seen.clear();
        count = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const std::int64_t key =
                static_cast<std::int64_t>(id[i]) * levels + static_cast<std::int64_t>(col[rows[i]]);
            const auto [it, fresh] = seen.emplace(key, count);
            if (fresh) ++count;
            id[i] = it->second;
        }
    }
    return count;
}

/// Σ_s n_s log n_s and Σ_s n_s log det Σ_s of one set of variables (continuous `cont`,
/// discrete `disc`) over `rows`.
struct SetTerms {
    double multinomial = 0.0;
    double gaussian = 0.0;
};

SetTerms set_terms(const Dataset& d, std::span<const std::int32_t> cont, std::span<const std::int32_t> disc,
                   const std::vector<std::int64_t>& rows, const std::string& label) {
    std::vector<std::int32_t> id;
    const std::int32_t n_strata = number_strata(d, disc, rows, id);
    const std::size_t p = cont.size();
    const std::size_t tri = p * (p + 1) / 2;
    const auto ns = static_cast<std::size_t>(n_strata);
    // Per stratum: count, first row (the shift), sums and lower-triangle cross-products of
    // the values less the shift, accumulated in row order.
    std::vector<std::int64_t> count(ns, 0), first(ns, -1);
    std::vector<double> sum(ns * p, 0.0), cross(ns * tri, 0.0), dev(p);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto s = static_cast<std::size_t>(id[i]);
        if (count[s]++ == 0) first[s] = rows[i];
        for (std::size_t a = 0; a < p; ++a) dev[a] = d.column(cont[a])[rows[i]] - d.column(cont[a])[first[s]];
        double* sm = sum.data() + s * p;
        double* cr = cross.data() + s * tri;
        for (std::size_t a = 0, t = 0; a < p; ++a) {
            sm[a] += dev[a];
            for (std::size_t b = 0; b <= a; ++b, ++t) cr[t] += dev[a] * dev[b];
        }
    }
    SetTerms out;
    std::vector<double> l(tri);
    for (std::size_t s = 0; s < ns; ++s) {
        const auto n = static_cast<double>(count[s]);
        out.multinomial += n * std::log(n);
        if (p == 0) continue;
        const double* sm = sum.data() + s * p;
        const double* cr = cross.data() + s * tri;
        // Maximum-likelihood covariance (divided by n), then its Cholesky factor in place.
        for (std::size_t a = 0, t = 0; a < p; ++a)
            for (std::size_t b = 0; b <= a; ++b, ++t) l[t] = (cr[t] - sm[a] * sm[b] / n) / n;
        double logdet = 0.0;
        for (std::size_t j = 0; j < p; ++j) {
            const std::size_t jj = j * (j + 1) / 2;
            const double diag = l[jj + j];
            double pivot = diag;
            for (std::size_t k = 0; k < j; ++k) pivot -= l[jj + k] * l[jj + k];
            if (!(diag > 0.0) || !(pivot > kSingular * diag)) {
                std::string vars;
                for (std::size_t a = 0; a < p; ++a) vars += (a ? ", " : "") + var_name(d, cont[a]);
                std::string where;
                for (std::int32_t v : disc) {
                    const auto code = static_cast<std::size_t>(d.column(v)[first[s]]);
                    where += (where.empty() ? " where " : ", ") + var_name(d, v) + " = " +
                             d.levels[static_cast<std::size_t>(v)][code];
                }
                throw InputError(label + ": the covariance of " + vars + " among the " + std::to_string(count[s]) +
                                 " rows" + where +
                                 " is singular (a constant or collinear continuous variable given the discrete "
                                 "ones): the conditional-Gaussian likelihood is unbounded");
            }
            const double root = std::sqrt(pivot);
            l[jj + j] = root;
            logdet += 2.0 * std::log(root);
            for (std::size_t i = j + 1; i < p; ++i) {
                const std::size_t ii = i * (i + 1) / 2;
                double v = l[ii + j];
                for (std::size_t k = 0; k < j; ++k) v -= l[ii + k] * l[jj + k];
                l[ii + j] = v / root;
            }
        }
        out.gaussian += n * logdet;
    }
    return out;
}

/// Number of levels of discrete variable v that occur among `rows`.
double observed_levels(const Dataset& d, std::int32_t v, const std::vector<std::int64_t>& rows) {
    std::vector<char> seen(d.levels[static_cast<std::size_t>(v)].size(), 0);
    double n = 0.0;
    for (std::int64_t r : rows) {
        char& f = seen[static_cast<std::size_t>(d.column(v)[r])];
        if (!f) f = 1, n += 1.0;
    }
    return n;
}

/// dof of a set: F (p + p(p + 1)/2) + F − 1.
double set_dof(double f, std::size_t p) {
    const auto q = static_cast<double>(p);
    return f * (q + q * (q + 1.0) / 2.0) + f - 1.0;
}

}  // namespace

CgLrtResult cg_lrt(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    const std::string label = test_label(data, x, y, s);
    if (x > y) std::swap(x, y);
    std::vector<std::int32_t> given(s.begin(), s.end());
    std::sort(given.begin(), given.end());
    std::vector<std::int32_t> all = given;
    all.push_back(x);
    all.push_back(y);
    for (std::int32_t v : all)
        if (v < 0 || v >= data.n_vars)
            throw InputError(label + ": variable index " + std::to_string(v) + " out of range");
    // Every value checked once: continuous finite, discrete a code of one of its levels.
    for (std::int32_t v : all) {
        const double* col = data.column(v);
        const bool discrete = data.is_discrete(v);
        const auto levels = discrete ? static_cast<double>(data.levels[static_cast<std::size_t>(v)].size()) : 0.0;
        for (std::int64_t r = 0; r < data.n_samples; ++r) {
            const double c = col[r];
            if (discrete ? !(c >= 0.0 && c < levels && c == std::floor(c)) : !std::isfinite(c))
                throw InputError(label + ": " + var_name(data, v) + " has " + (discrete ? "the code " : "the value ") +
                                 exact_number(c) + " at row " + std::to_string(r) +
                                 (discrete ? ", not one of its levels" : ", not a finite number"));
        }
    }
    // The four sets' variables: continuous and discrete, S's in ascending order, then x, y.
    std::vector<std::int32_t> cont_s, disc_s;
    for (std::int32_t v : given) (data.is_discrete(v) ? disc_s : cont_s).push_back(v);
    const auto with = [&](std::vector<std::int32_t> base, std::initializer_list<std::int32_t> extra, bool discrete) {
        for (std::int32_t v : extra)
            if (data.is_discrete(v) == discrete) base.push_back(v);
        return base;
    };
    const std::vector<std::int32_t> cont_xys = with(cont_s, {x, y}, false), disc_xys = with(disc_s, {x, y}, true);
    const std::vector<std::int32_t> cont_xs = with(cont_s, {x}, false), disc_xs = with(disc_s, {x}, true);
    const std::vector<std::int32_t> cont_ys = with(cont_s, {y}, false), disc_ys = with(disc_s, {y}, true);

    // Rows kept: those whose configuration of all the discrete variables occurs in more rows
    // than there are continuous variables (else its covariance is singular).
    std::vector<std::int64_t> every(static_cast<std::size_t>(data.n_samples));
    for (std::int64_t r = 0; r < data.n_samples; ++r) every[static_cast<std::size_t>(r)] = r;
    std::vector<std::int32_t> id;
    const std::int32_t n_cells = number_strata(data, disc_xys, every, id);
    std::vector<std::int64_t> cell_rows(static_cast<std::size_t>(n_cells), 0);
    for (std::int32_t c : id) ++cell_rows[static_cast<std::size_t>(c)];
    const auto k_all = static_cast<std::int64_t>(cont_xys.size());
    std::vector<std::int64_t> rows;
    rows.reserve(every.size());
    for (std::size_t i = 0; i < every.size(); ++i)
        if (cell_rows[static_cast<std::size_t>(id[i])] > k_all) rows.push_back(every[i]);

    CgLrtResult res;
    res.rows = static_cast<std::int64_t>(rows.size());
    if (rows.empty()) return res;  // statistic 0, dof 0, p 1

    double f_s = 1.0;
    for (std::int32_t v : disc_s) f_s *= observed_levels(data, v, rows);
    const double f_x = data.is_discrete(x) ? observed_levels(data, x, rows) : 1.0;
    const double f_y = data.is_discrete(y) ? observed_levels(data, y, rows) : 1.0;
    res.dof = set_dof(f_s * f_x * f_y, cont_xys.size()) - set_dof(f_s * f_x, cont_xs.size()) -
              set_dof(f_s * f_y, cont_ys.size()) + set_dof(f_s, cont_s.size());

    const SetTerms xys = set_terms(data, cont_xys, disc_xys, rows, label);
    const SetTerms xs = set_terms(data, cont_xs, disc_xs, rows, label);
    const SetTerms ys = set_terms(data, cont_ys, disc_ys, rows, label);
    const SetTerms zs = set_terms(data, cont_s, disc_s, rows, label);
    res.statistic = 2.0 * (((xys.multinomial - xs.multinomial) - ys.multinomial) + zs.multinomial) -
                    (((xys.gaussian - xs.gaussian) - ys.gaussian) + zs.gaussian);
    res.p = res.dof > 0.0 ? chi2_sf(res.statistic, res.dof) : 1.0;
    if (!is_result(res.statistic, res.p)) throw_not_finite("cg-lrt", x, y, res.statistic, res.p, data.names);
    return res;
}

CiOutcome CgLrtTest::test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    const CgLrtResult r = cg_lrt(data_, x, y, s);
    CiOutcome o;
    o.statistic = r.statistic;
    o.p = r.p;
    o.extra.emplace_back("dof", exact_number(r.dof));
    o.extra.emplace_back("rows", std::to_string(r.rows));
    return o;
}

}  // namespace cudag::ci
