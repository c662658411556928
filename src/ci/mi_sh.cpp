// SPDX-License-Identifier: Apache-2.0
#include "ci/mi_sh.hpp"

#include <algorithm>
#include <cmath>

#include "ci/discrete_test.hpp"
#include "core/error.hpp"
#include "core/format.hpp"

namespace cudag::ci {

namespace {

/// The most cells a test's table may have (bnlearn's limit is INT_MAX; this one keeps a test
/// within a few hundred MB).
constexpr double kMaxCells = 1u << 26;

}  // namespace

MiShResult mi_sh(std::span<const std::int32_t> x, int rx, std::span<const std::int32_t> y, int ry,
                 std::span<const std::int64_t> stratum, std::int64_t prod_s, bool conditional) {
    MiShResult r;
    r.df = static_cast<double>(rx - 1) * static_cast<double>(ry - 1) * static_cast<double>(prod_s);
    const auto n_obs = static_cast<std::int64_t>(x.size());
    if (n_obs <= 1) return r;  // bnlearn: no or one complete sample, independence
    const std::size_t nz = static_cast<std::size_t>(prod_s);
    const std::size_t cells = static_cast<std::size_t>(rx) * static_cast<std::size_t>(ry) * nz;
    // n[(x·ry + y)·|S| + s]: bnlearn's n[i][j][k] (k fastest)
    std::vector<double> n(cells, 0.0);
    for (std::int64_t q = 0; q < n_obs; ++q) {
        const std::size_t s = conditional ? static_cast<std::size_t>(stratum[static_cast<std::size_t>(q)]) : 0;
        n[(static_cast<std::size_t>(x[static_cast<std::size_t>(q)]) * ry + y[static_cast<std::size_t>(q)]) * nz + s] +=
            1.0;
    }
    const double total = static_cast<double>(n_obs);
    const double target = 1.0 / static_cast<double>(cells);
    double lnum = 0.0, lden = 0.0;
    for (const double c : n) {
        const double f = c / total;
        lnum += f * f;
        const double g = target - c / total;
        lden += g * g;
    }
    double lambda = lden == 0.0 ? 1.0 : (1.0 - lnum) / ((total - 1.0) * lden);
    lambda = std::clamp(lambda, 0.0, 1.0);
    for (double& c : n) c = lambda * target + (1.0 - lambda) * c / total;
    std::vector<double> ni(static_cast<std::size_t>(rx) * nz, 0.0), nj(static_cast<std::size_t>(ry) * nz, 0.0),
        nk(nz, 0.0);
    for (int i = 0; i < rx; ++i)
        for (int j = 0; j < ry; ++j)
            for (std::size_t k = 0; k < nz; ++k) {
                const double c = n[(static_cast<std::size_t>(i) * ry + j) * nz + k];
                ni[static_cast<std::size_t>(i) * nz + k] += c;
                nj[static_cast<std::size_t>(j) * nz + k] += c;
                nk[k] += c;
            }
    double res = 0.0;
    if (!conditional) {
        for (int i = 0; i < rx; ++i)
            for (int j = 0; j < ry; ++j) {
                const double c = n[static_cast<std::size_t>(i) * ry + j];
                if (c != 0.0)
                    res += c * std::log(c / (ni[static_cast<std::size_t>(i)] * nj[static_cast<std::size_t>(j)]));
            }
    } else {
        for (std::size_t k = 0; k < nz; ++k) {
            if (nk[k] == 0.0) continue;
            for (int j = 0; j < ry; ++j)
                for (int i = 0; i < rx; ++i) {
                    const double c = n[(static_cast<std::size_t>(i) * ry + j) * nz + k];
                    if (c > 0.0)
                        res += c * std::log((c * nk[k]) / (ni[static_cast<std::size_t>(i) * nz + k] *
                                                           nj[static_cast<std::size_t>(j) * nz + k]));
                }
        }
    }
    r.statistic = res * 2.0 * total;
    return r;
}

CiOutcome MiShTest::test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    const auto levels = [&](std::int32_t v) {
        const auto r = static_cast<int>(data_.levels[static_cast<std::size_t>(v)].size());
        if (r < 2)
            throw InputError("variable '" + data_.names[static_cast<std::size_t>(v)] +
                             "' has fewer than 2 levels: mi-sh needs at least 2");
        return r;
    };
    const int rx = levels(x), ry = levels(y);
    double cells = static_cast<double>(rx) * ry;
    std::int64_t prod_s = 1;
    for (const std::int32_t v : s) {
        const int r = levels(v);
        cells *= r;
        if (cells > kMaxCells)
            throw InputError("mi-sh's table for '" + data_.names[static_cast<std::size_t>(x)] + "' and '" +
                             data_.names[static_cast<std::size_t>(y)] + "' given " + std::to_string(s.size()) +
                             " variables has more than " + std::to_string(static_cast<std::int64_t>(kMaxCells)) +
                             " cells (a smaller --max-level, or mi / x2)");
        prod_s *= r;
    }
    const auto m = static_cast<std::size_t>(data_.n_samples);
    std::vector<std::int32_t> xs(m), ys(m);
    std::vector<std::int64_t> stratum(s.empty() ? 0 : m, 0);
    const double* cx = data_.column(x);
    const double* cy = data_.column(y);
    for (std::size_t q = 0; q < m; ++q) {
        xs[q] = static_cast<std::int32_t>(cx[q]);
        ys[q] = static_cast<std::int32_t>(cy[q]);
    }
    // bnlearn's configuration index: the first variable of S varies fastest
    std::int64_t radix = 1;
    for (const std::int32_t v : s) {
        const double* c = data_.column(v);
        for (std::size_t q = 0; q < m; ++q) stratum[q] += static_cast<std::int64_t>(c[q]) * radix;
        radix *= static_cast<std::int64_t>(data_.levels[static_cast<std::size_t>(v)].size());
    }
    const MiShResult r = mi_sh(xs, rx, ys, ry, stratum, prod_s, !s.empty());
    if (!std::isfinite(r.statistic))
        throw InputError("mi-sh's statistic for '" + data_.names[static_cast<std::size_t>(x)] + "' and '" +
                         data_.names[static_cast<std::size_t>(y)] + "' is not finite");
    CiOutcome o;
    o.statistic = r.statistic;
    o.p = chi2_sf(r.statistic, r.df);
    o.extra.emplace_back("dof", exact_number(r.df));
    return o;
}

}  // namespace cudag::ci
