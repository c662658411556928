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
#include "ci/cg_lrt_core.hpp"
#include "ci/discrete_test.hpp"
#include "ci/test_inputs.hpp"
#include "core/error.hpp"
#include "core/format.hpp"

namespace cudag::ci {
namespace {

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

using cg_lrt_core::SetTerms;

/// Σ_s n_s log n_s and Σ_s n_s log det Σ_s of one set of variables (continuous `cont`,
/// discrete `disc`) over `rows`.
SetTerms set_terms(const Dataset& d, std::span<const std::int32_t> cont, std::span<const std::int32_t> disc,
                   const std::vector<std::int64_t>& rows, const std::string& label) {
    std::vector<std::int32_t> id;
    const std::int32_t n_strata = number_strata(d, disc, rows, id);
    const int p = static_cast<int>(cont.size());
    const auto pz = static_cast<std::size_t>(p);
    const auto tri = static_cast<std::size_t>(cg_lrt_core::triangle(p));
    const auto ns = static_cast<std::size_t>(n_strata);
    // Per stratum: count, first row (the shift), sums and lower-triangle cross-products of
    // the values less the shift, accumulated in row order.
    std::vector<std::int64_t> count(ns, 0), first(ns, -1);
    std::vector<double> sum(ns * pz, 0.0), cross(ns * tri, 0.0), dev(pz);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto s = static_cast<std::size_t>(id[i]);
        if (count[s]++ == 0) first[s] = rows[i];
        for (std::size_t a = 0; a < pz; ++a) dev[a] = d.column(cont[a])[rows[i]] - d.column(cont[a])[first[s]];
        cg_lrt_core::add_row(dev.data(), p, sum.data() + s * pz, cross.data() + s * tri);
    }
    SetTerms out;
    std::vector<double> l(tri), roots(pz);
    for (std::size_t s = 0; s < ns; ++s) {
        const auto n = static_cast<double>(count[s]);
        out.multinomial += n * std::log(n);
        if (p == 0) continue;
        // Maximum-likelihood covariance (divided by n), its Cholesky factor, log det from its roots.
        if (cg_lrt_core::cholesky_roots(n, sum.data() + s * pz, cross.data() + s * tri, p, l.data(), roots.data()) >=
            0) {
            std::string vars;
            for (std::size_t a = 0; a < pz; ++a) vars += (a ? ", " : "") + quoted_variable(d, cont[a]);
            std::string where;
            for (std::int32_t v : disc) {
                const auto code = static_cast<std::size_t>(d.column(v)[first[s]]);
                where += (where.empty() ? " where " : ", ") + quoted_variable(d, v) + " = " +
                         d.levels[static_cast<std::size_t>(v)][code];
            }
            throw InputError(label + ": the covariance of " + vars + " among the " + std::to_string(count[s]) +
                             " rows" + where +
                             " is singular (a constant or collinear continuous variable given the discrete "
                             "ones): the conditional-Gaussian likelihood is unbounded");
        }
        out.gaussian += n * cg_lrt_core::log_det(roots.data(), p);
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

}  // namespace

CgLrtResult cg_lrt(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    const std::string label = test_label("cg-lrt", data, x, y, s);
    if (x > y) std::swap(x, y);
    std::vector<std::int32_t> given(s.begin(), s.end());
    std::sort(given.begin(), given.end());
    std::vector<std::int32_t> all = given;
    all.push_back(x);
    all.push_back(y);
    check_test_values(data, all, label);  // every value once: continuous finite, discrete a level's code
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
    res.dof = cg_lrt_core::test_dof(f_s, f_x, f_y, static_cast<int>(cont_s.size()), data.is_discrete(x) ? 0 : 1,
                                    data.is_discrete(y) ? 0 : 1);

    const SetTerms xys = set_terms(data, cont_xys, disc_xys, rows, label);
    const SetTerms xs = set_terms(data, cont_xs, disc_xs, rows, label);
    const SetTerms ys = set_terms(data, cont_ys, disc_ys, rows, label);
    const SetTerms zs = set_terms(data, cont_s, disc_s, rows, label);
    res.statistic = cg_lrt_core::statistic(xys, xs, ys, zs);
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
