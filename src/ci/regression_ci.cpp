// SPDX-License-Identifier: Apache-2.0
#include "ci/regression_ci.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ci/batch.hpp"
#include "ci/discrete_test.hpp"
#include "ci/regression_core.hpp"
#include "core/error.hpp"
#include "core/format.hpp"

namespace cudag::ci {
namespace {

namespace core = regression_core;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = std::numeric_limits<double>::epsilon();

using Column = std::vector<double>;

/// numpy's sum of a contiguous double array (pairwise: blocks of at most 128 summed with eight
/// accumulators), so that means and entropies round as numpy's do and ties between X and Y
/// break as tigramite's.
double numpy_sum(const double* a, std::int64_t n) {
    if (n < 8) {
        double s = 0.0;
        for (std::int64_t i = 0; i < n; ++i) s += a[i];
        return s;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; ++j) r[j] = a[j];
        const std::int64_t m = n - n % 8;
        for (std::int64_t i = 8; i < m; i += 8)
            for (int j = 0; j < 8; ++j) r[j] += a[i + j];
        double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (std::int64_t i = m; i < n; ++i) s += a[i];
        return s;
    }
    std::int64_t half = n / 2;
    half -= half % 8;
    return numpy_sum(a, half) + numpy_sum(a + half, n - half);
}

double numpy_sum(const Column& c) { return numpy_sum(c.data(), static_cast<std::int64_t>(c.size())); }

/// Variable v as messages name it: 'name', or "variable v" where the data have no names.
std::string variable(const Dataset& data, std::int32_t v) {
    return static_cast<std::size_t>(v) < data.names.size() ? "'" + data.names[static_cast<std::size_t>(v)] + "'"
                                                           : "variable " + std::to_string(v);
}

/// The codes of discrete variable v that occur, ascending, and each code's position among them.
struct Levels {
    std::vector<std::int64_t> counts;    ///< per occurring code, ascending
    std::vector<std::int32_t> position;  ///< per code: its position among the occurring ones (−1: none)
};

Levels occurring_levels(const Dataset& data, std::int32_t v) {
    const auto n_levels = static_cast<std::int64_t>(data.levels[static_cast<std::size_t>(v)].size());
    std::vector<std::int64_t> count(static_cast<std::size_t>(n_levels), 0);
    const double* c = data.column(v);
    for (std::int64_t i = 0; i < data.n_samples; ++i) {
        const double code = c[i];
        if (!(code >= 0.0 && code < static_cast<double>(n_levels) && code == std::floor(code)))
            throw InputError("regression test: " + variable(data, v) + " has the value " + exact_number(code) +
                             " at sample " + std::to_string(i) + ", not one of its " + std::to_string(n_levels) +
                             " level codes");
        ++count[static_cast<std::size_t>(code)];
    }
    Levels l;
    l.position.assign(static_cast<std::size_t>(n_levels), -1);
    for (std::int64_t k = 0; k < n_levels; ++k)
        if (count[static_cast<std::size_t>(k)] > 0) {
            l.position[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(l.counts.size());
            l.counts.push_back(count[static_cast<std::size_t>(k)]);
        }
    return l;
}

}  // namespace

double level_entropy(std::span<const std::int64_t> counts, std::int64_t n) {
    Column terms;
    for (const std::int64_t c : counts) {
        if (c == 0) continue;
        const double p = static_cast<double>(c) / static_cast<double>(n);
        terms.push_back(p * std::log(p));
    }
    return -numpy_sum(terms);
}

double normaltest_from_moments(std::int64_t n, double mean, double m2, double m3, double m4) {
    if (n < 8) return kNaN;
    const double dn = static_cast<double>(n);
    if (m2 <= (kEps * mean) * (kEps * mean)) return kNaN;  // scipy: a constant column
    // skewtest (D'Agostino 1970)
    double y = m3 / std::pow(m2, 1.5) * std::sqrt(((dn + 1) * (dn + 3)) / (6.0 * (dn - 2)));
    const double beta2 =
        3.0 * (dn * dn + 27 * dn - 70) * (dn + 1) * (dn + 3) / ((dn - 2.0) * (dn + 5) * (dn + 7) * (dn + 9));
    const double w2 = -1 + std::sqrt(2 * (beta2 - 1));
    const double delta = 1 / std::sqrt(0.5 * std::log(w2));
    const double alpha = std::sqrt(2.0 / (w2 - 1));
    if (y == 0) y = 1.0;  // as scipy
    const double zs = delta * std::log(y / alpha + std::sqrt((y / alpha) * (y / alpha) + 1));
    // kurtosistest (Anscombe & Glynn 1983)
    const double b2 = m4 / (m2 * m2);
    const double e = 3.0 * (dn - 1) / (dn + 1);
    const double varb2 = 24.0 * dn * (dn - 2) * (dn - 3) / ((dn + 1) * (dn + 1.) * (dn + 3) * (dn + 5));
    const double xk = (b2 - e) / std::sqrt(varb2);
    const double sqrtbeta1 = 6.0 * (dn * dn - 5 * dn + 2) / ((dn + 7) * (dn + 9)) *
                             std::sqrt((6.0 * (dn + 3) * (dn + 5)) / (dn * (dn - 2) * (dn - 3)));
    const double a = 6.0 + 8.0 / sqrtbeta1 * (2.0 / sqrtbeta1 + std::sqrt(1 + 4.0 / (sqrtbeta1 * sqrtbeta1)));
    const double term1 = 1 - 2 / (9.0 * a);
    const double denom = 1 + xk * std::sqrt(2 / (a - 4.0));
    if (denom == 0.0) return kNaN;
    const double term2 = std::copysign(std::pow((1 - 2.0 / a) / std::fabs(denom), 1.0 / 3.0), denom);
    const double zk = (term1 - term2) / std::sqrt(2 / (9.0 * a));
    return zs * zs + zk * zk;
}

double normaltest_statistic(const double* values, std::int64_t n) {
    if (n < 8) return kNaN;
    // regression_core::moments' values (the GPU's), its streamed sums taken over arrays here.
    const double dn = static_cast<double>(n);
    const double mean = numpy_sum(values, n) / dn;
    Column d2(static_cast<std::size_t>(n)), d3(d2.size()), d4(d2.size());
    for (std::int64_t i = 0; i < n; ++i) {
        const double d = values[i] - mean;
        d2[i] = d * d;
        d3[i] = d2[i] * d;
        d4[i] = d2[i] * d2[i];
    }
    return normaltest_from_moments(n, mean, numpy_sum(d2) / dn, numpy_sum(d3) / dn, numpy_sum(d4) / dn);
}

double linear_statistic(std::int64_t n, double rss_z, double rss_zx) {
    return static_cast<double>(n) * std::log(rss_z / rss_zx);
}

RegressionCiResult regression_ci(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> z,
                                 LogisticStop stop) {
    const std::int64_t n = data.n_samples;
    const auto check = [&](std::int32_t v) {
        if (v < 0 || v >= data.n_vars)
            throw InputError("regression test: variable " + std::to_string(v) + " out of range (the data have " +
                             std::to_string(data.n_vars) + ")");
        const double* c = data.column(v);
        for (std::int64_t i = 0; i < n; ++i)
            if (!std::isfinite(c[i]))
                throw InputError("regression test: " + variable(data, v) +
                                 " has a value that is not finite at sample " + std::to_string(i));
    };
    check(x);
    check(y);
    for (std::int32_t v : z) check(v);
    if (n < 1) throw InputError("regression test: no samples");

    // Each variable's regressors: itself (continuous), or one 0/1 column per level that occurs
    // (discrete, ascending codes); Z's in tigramite's order, a column of ones where Z is empty.
    std::vector<Levels> levels;  // of the discrete variables, in the order met
    levels.reserve(z.size() + 2);
    const auto var_of = [&](std::int32_t v) {
        core::DesignVar d;
        d.col = data.column(v);
        if (data.is_discrete(v)) {
            levels.push_back(occurring_levels(data, v));
            d.kind = core::kDiscrete;
            d.map = levels.back().position.data();
            d.width = static_cast<std::int32_t>(levels.back().counts.size());
        }
        return d;
    };
    std::vector<core::DesignVar> vars(1);  // [the other of x, y], Z's variables
    for (std::int32_t v : z) vars.push_back(var_of(v));
    if (z.empty()) {
        core::DesignVar ones;
        ones.kind = core::kOnes;
        vars.push_back(ones);
    }
    const core::DesignVar vx = var_of(x);
    const core::DesignVar vy = var_of(y);

    RegressionCiResult res;
    res.rows = n;
    const bool dx = data.is_discrete(x), dy = data.is_discrete(y);
    res.logistic = dx && dy;
    if (!dx && !dy) {
        // The more normal one is the dependent variable; a NaN K² (a comparison that fails)
        // makes it X.
        res.x_dependent = !(normaltest_statistic(data.column(x), n) >= normaltest_statistic(data.column(y), n));
    } else if (dx && dy) {
        const std::size_t lx = levels.size() - 2, ly = levels.size() - 1;
        res.x_dependent = !(level_entropy(levels[lx].counts, n) >= level_entropy(levels[ly].counts, n));
    } else {
        res.x_dependent = !dx;
    }
    const core::DesignVar& dep = res.x_dependent ? vx : vy;
    vars[0] = res.x_dependent ? vy : vx;
    res.dof = vars[0].width;
    int p_rest = 0;
    for (const core::DesignVar& v : vars) p_rest += v.width;
    const core::Design rest{nullptr, n, vars.data(), static_cast<int>(vars.size()), p_rest};
    const core::Design given{nullptr, n, vars.data() + 1, static_cast<int>(vars.size()) - 1, p_rest - vars[0].width};

    if (res.logistic) {
        const int k = dep.width;
        std::vector<double> work(static_cast<std::size_t>(core::logistic_doubles(n, p_rest, k)));
        const bool optimum = stop == LogisticStop::Optimum;
        const double dev_z = core::logistic_deviance(given, dep, k, optimum, work.data());
        const double dev_zx = core::logistic_deviance(rest, dep, k, optimum, work.data());
        res.statistic = dev_z - dev_zx;
    } else {
        std::vector<double> work(static_cast<std::size_t>(core::linear_doubles(n, p_rest)));
        std::vector<std::int32_t> perm(static_cast<std::size_t>(p_rest));
        const double rss_z = core::residual_sum_of_squares(given, dep.col, work.data(), perm.data());
        const double rss_zx = core::residual_sum_of_squares(rest, dep.col, work.data(), perm.data());
        res.statistic = linear_statistic(n, rss_z, rss_zx);
    }
    res.p = chi2_sf(res.statistic, static_cast<double>(res.dof));
    if (!is_result(res.statistic, res.p)) throw_not_finite("regression", x, y, res.statistic, res.p, data.names);
    return res;
}

CiOutcome RegressionCiTest::test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    const RegressionCiResult r = regression_ci(data_, x, y, s);
    CiOutcome o;
    o.statistic = r.statistic;
    o.p = r.p;
    o.extra.emplace_back("dof", std::to_string(r.dof));
    return o;
}

}  // namespace cudag::ci
