// SPDX-License-Identifier: Apache-2.0
#include "ci/mi_g_sh.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>

#include "ci/discrete_test.hpp"
#include "ci/fisher_z.hpp"
#include "core/error.hpp"

namespace cudag::ci {

namespace {

const double kTol = std::sqrt(DBL_EPSILON);  // bnlearn's MACHINE_TOL

/// bnlearn's SAFE_COR and COR_BOUNDS.
double safe_cor(long double cov, long double xvar, long double yvar) {
    if (xvar < kTol || yvar < kTol) return 0.0;
    return std::clamp(static_cast<double>(cov / std::sqrt(xvar * yvar)), -1.0, 1.0);
}

}  // namespace

double mi_g_sh_correlation(std::span<const double* const> cols, std::int64_t n) {
    const auto d = static_cast<int>(cols.size());
    const auto nd = static_cast<double>(n);
    std::vector<double> mean(static_cast<std::size_t>(d));
    for (int i = 0; i < d; ++i) {
        long double sum = 0.0L;
        for (std::int64_t k = 0; k < n; ++k) sum += cols[static_cast<std::size_t>(i)][k];
        mean[static_cast<std::size_t>(i)] = static_cast<double>(sum / nd);
    }
    if (d == 2) {
        const double* x = cols[0];
        const double* y = cols[1];
        long double xsse = 0.0L, ysse = 0.0L, sxy = 0.0L;
        for (std::int64_t k = 0; k < n; ++k) {
            const double dx = x[k] - mean[0], dy = y[k] - mean[1];
            xsse += dx * dx;
            ysse += dy * dy;
            sxy += dx * dy;
        }
        const double cor = safe_cor(sxy, xsse, ysse);
        const long double c = cor * std::sqrt(static_cast<double>(xsse) * static_cast<double>(ysse)) / (nd - 1.0);
        long double lambda = 0.0L;
        for (std::int64_t k = 0; k < n; ++k) {
            const long double t = (x[k] - mean[0]) * (y[k] - mean[1]) - c;
            lambda += t * t;
        }
        if (lambda > kTol) {
            lambda = std::exp(std::log(lambda) - std::log(c * c) + std::log(nd) - 3.0 * std::log(nd - 1.0));
            lambda = std::clamp(lambda, 0.0L, 1.0L);
        } else {
            lambda = 0.0L;
        }
        return cor * (1.0 - static_cast<double>(lambda));
    }
    // The (n - 1) covariance, its shrinkage intensity and the shrunk matrix.
    std::vector<double> cov(static_cast<std::size_t>(d) * d);
    for (int i = 0; i < d; ++i)
        for (int j = i; j < d; ++j) {
            long double t = 0.0L;
            for (std::int64_t k = 0; k < n; ++k)
                t += (cols[static_cast<std::size_t>(i)][k] - mean[static_cast<std::size_t>(i)]) *
                     (cols[static_cast<std::size_t>(j)][k] - mean[static_cast<std::size_t>(j)]);
            cov[static_cast<std::size_t>(i) * d + j] = cov[static_cast<std::size_t>(j) * d + i] =
                static_cast<double>(t / (nd - 1.0));
        }
    long double sum_cov_vars = 0.0L, sum_covs = 0.0L;
    for (int i = 0; i < d; ++i)
        for (int j = i + 1; j < d; ++j) {
            const double cij = cov[static_cast<std::size_t>(i) * d + j];
            for (std::int64_t k = 0; k < n; ++k) {
                const long double t = (cols[static_cast<std::size_t>(i)][k] - mean[static_cast<std::size_t>(i)]) *
                                          (cols[static_cast<std::size_t>(j)][k] - mean[static_cast<std::size_t>(j)]) -
                                      (cij * (nd - 1.0) / nd);
                sum_cov_vars += t * t;
            }
            sum_covs += static_cast<long double>(cij) * cij;
        }
    long double lambda = 0.0L;
    if (sum_cov_vars > kTol) {
        lambda = std::exp(std::log(sum_cov_vars) + std::log(nd) - 3.0 * std::log(nd - 1.0) - std::log(sum_covs));
        lambda = std::clamp(lambda, 0.0L, 1.0L);
    }
    for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j)
            if (i != j) cov[static_cast<std::size_t>(i) * d + j] *= 1.0 - static_cast<double>(lambda);
    // The partial correlation of x (0) and y (1) given the rest from the shrunk matrix
    // scaled to unit diagonal (a partial correlation is scale free), by the Fisher-z
    // engine's conditioning block: Cholesky of C[S,S], its pseudo-inverse where that fails.
    std::vector<double> sd(static_cast<std::size_t>(d));
    for (int i = 0; i < d; ++i) {
        sd[static_cast<std::size_t>(i)] = std::sqrt(cov[static_cast<std::size_t>(i) * d + i]);
        if (!(sd[static_cast<std::size_t>(i)] > 0.0)) return 0.0;  // a constant column: bnlearn's 0
    }
    for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j)
            cov[static_cast<std::size_t>(i) * d + j] =
                i == j ? 1.0
                       : cov[static_cast<std::size_t>(i) * d + j] /
                             (sd[static_cast<std::size_t>(i)] * sd[static_cast<std::size_t>(j)]);
    const int l = d - 2;
    std::vector<int> given(static_cast<std::size_t>(l));
    std::iota(given.begin(), given.end(), 2);
    std::vector<double> lmat(static_cast<std::size_t>(l) * l), work(2 * static_cast<std::size_t>(l) * l),
        yx(static_cast<std::size_t>(l)), yy(static_cast<std::size_t>(l));
    ConditioningBlock block;
    block.lmat = lmat.data();
    const DenseCorrelation corr{cov.data(), d};
    block.factorise_with(corr, given.data(), l, work.data());
    block.project_with(corr, given.data(), 0, yx.data());
    block.project_with(corr, given.data(), 1, yy.data());
    return partial_correlation(block, cov[1], yx.data(), yy.data());
}

CiOutcome MiGShTest::test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    std::vector<const double*> cols{data_.column(x), data_.column(y)};
    for (const std::int32_t v : s) cols.push_back(data_.column(v));
    const std::int64_t n = data_.n_samples;
    if (n < 2) throw InputError("mi-g-sh needs at least 2 samples (" + std::to_string(n) + " given)");
    // Two rows given any S: x's and y's residuals on S vanish, the partial correlation is 0/0
    // (bnlearn's pseudo-inverse answers with an infinite or near-infinite statistic).
    if (n == 2 && !s.empty())
        throw InputError("mi-g-sh of '" + data_.names[static_cast<std::size_t>(x)] + "' and '" +
                         data_.names[static_cast<std::size_t>(y)] + "' given " + std::to_string(s.size()) +
                         " variable(s) on 2 rows: the partial correlation is undefined (0/0)");
    const double r = mi_g_sh_correlation(cols, n);
    CiOutcome o;
    o.statistic = -static_cast<double>(n) * std::log(1.0 - r * r);
    if (!std::isfinite(o.statistic))
        throw InputError("mi-g-sh's statistic for '" + data_.names[static_cast<std::size_t>(x)] + "' and '" +
                         data_.names[static_cast<std::size_t>(y)] +
                         "' is not finite (a shrunk correlation of 1: a column repeated?)");
    o.p = chi2_sf(o.statistic, 1.0);
    o.extra.emplace_back("dof", "1");
    return o;
}

}  // namespace cudag::ci
