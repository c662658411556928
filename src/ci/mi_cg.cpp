// SPDX-License-Identifier: Apache-2.0
#include "ci/mi_cg.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "ci/discrete_test.hpp"
#include "ci/test_inputs.hpp"
#include "core/error.hpp"
#include "core/format.hpp"

namespace cudag::ci {
namespace {

/// √ε (2⁻²⁶): bnlearn's tolerance for singular regressions and correlations.
constexpr double kTol = 1.490116119384765625e-08;
/// log √(2π).
constexpr double kLogSqrt2Pi = 0.918938533204672741780329736406;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// The accumulators' type. bnlearn sums in long double; double keeps its statistics within
/// 3e-11 relative (the p-values within 4e-13) on the comparison sets at a third less time.
using Real = double;

/// log of the normal density of v with mean mu and standard deviation sigma (R's dnorm with
/// log = TRUE), `log_sigma` = log(sigma).
double log_normal(double v, double mu, double sigma, double log_sigma) {
    if (sigma == 0.0) return v == mu ? std::numeric_limits<double>::infinity() : kNegInf;
    double z = (v - mu) / sigma;
    if (!std::isfinite(z)) return kNegInf;
    z = std::fabs(z);
    if (z >= 2.0 * std::sqrt(std::numeric_limits<double>::max())) return kNegInf;
    return -(kLogSqrt2Pi + 0.5 * z * z + log_sigma);
}

/// Configurations of the discrete variables `vars` over the rows: id[r] numbered by first
/// occurrence; returns how many occur. No variables: every row configuration 0.
std::int32_t configurations(const Dataset& d, std::span<const std::int32_t> vars, std::vector<std::int32_t>& id) {
    const auto n = static_cast<std::size_t>(d.n_samples);
    id.assign(n, 0);
    if (vars.empty()) return n > 0 ? 1 : 0;
    std::int32_t count = 1;          // every row in configuration 0 before the first variable
    std::vector<std::int32_t> seen;  // (previous configuration, code) -> new configuration
    for (std::size_t pos = 0; pos < vars.size(); ++pos) {
        const std::int32_t v = vars[pos];
        const auto levels = static_cast<std::size_t>(d.levels[static_cast<std::size_t>(v)].size());
        const double* col = d.column(v);
        seen.assign(static_cast<std::size_t>(count) * levels, -1);
        count = 0;
        for (std::size_t r = 0; r < n; ++r) {
            std::int32_t& slot = seen[static_cast<std::size_t>(id[r]) * levels + static_cast<std::size_t>(col[r])];
            if (slot < 0) slot = count++;
            id[r] = slot;
        }
    }
    return count;
}

/// The product of the numbers of levels of `vars` (bnlearn's count of configurations, those
/// no row takes included); 0 for none.
double level_product(const Dataset& d, std::span<const std::int32_t> vars) {
    if (vars.empty()) return 0.0;
    double f = 1.0;
    for (std::int32_t v : vars) f *= static_cast<double>(d.levels[static_cast<std::size_t>(v)].size());
    return f;
}

/// Least-squares coefficients of y on an intercept and p <= 2 regressors from one
/// configuration's n rows: their means (index 0: y) and centred cross-products c[a][b] (a <= b),
/// with bnlearn's rules for a singular regressor (its variance, or with two regressors their
/// correlation beyond 1 − √ε: that regressor left out). `stratified`: bnlearn's conditional
/// form, whose checks look at sums of squares; otherwise its unconditional form's, at variances
/// (divided by n − 1).
struct Line {
    double a0 = 0.0, b1 = 0.0, b2 = 0.0;
};
Line closed_form(const Real* mean, const Real (*c)[3], std::size_t p, bool stratified, std::int64_t n) {
    const auto scale = [&](Real ss) { return stratified ? ss : (n > 1 ? ss / static_cast<Real>(n - 1) : Real{0}); };
    Line f;
    if (p == 0) {
        f.a0 = static_cast<double>(mean[0]);
    } else if (p == 1) {
        const bool singular = std::fabs(static_cast<double>(scale(c[1][1]))) < kTol;
        f.b1 = singular ? 0.0 : static_cast<double>(c[0][1] / c[1][1]);
        f.a0 = static_cast<double>(mean[0] - mean[1] * static_cast<Real>(f.b1));
    } else {
        const double v1 = static_cast<double>(scale(c[1][1])), v2 = static_cast<double>(scale(c[2][2]));
        const double v12 = static_cast<double>(scale(c[1][2]));
        const bool s1 = std::fabs(v1) < kTol;
        const bool s2 = std::fabs(v2) < kTol || std::fabs(v12) / std::sqrt(v1 * v2) > 1.0 - kTol;
        if (s1 && !s2) {
            f.b2 = static_cast<double>(c[0][2] / c[2][2]);
        } else if (!s1 && s2) {
            f.b1 = static_cast<double>(c[0][1] / c[1][1]);
        } else if (!s1 && !s2) {
            const Real den = c[1][1] * c[2][2] - c[1][2] * c[1][2];
            f.b1 = static_cast<double>((c[2][2] * c[0][1] - c[1][2] * c[0][2]) / den);
            f.b2 = static_cast<double>((c[1][1] * c[0][2] - c[1][2] * c[0][1]) / den);
        }
        f.a0 = static_cast<double>(mean[0] - mean[1] * static_cast<Real>(f.b1) - mean[2] * static_cast<Real>(f.b2));
    }
    return f;
}

/// Least squares of y on an intercept and p >= 3 regressors `regs` over `rows` (one
/// configuration): the fitted values written at fitted[row], and the residual standard
/// deviation (0 where the rows are too few).
double fit_qr(const double* y, const std::vector<const double*>& regs, const std::vector<std::int64_t>& rows,
              std::vector<double>& fitted) {
    const auto n = static_cast<std::int64_t>(rows.size());
    const std::size_t p = regs.size();
    // Householder QR of [1, regs...] with LINPACK dqrdc2's limited pivoting: a column whose
    // norm, less its projections on the columns before, falls below √ε of its initial norm
    // is moved to the end and left out.
    const std::size_t m = p + 1;
    const auto rows_n = static_cast<std::size_t>(n);
    if (n == 1) {
        fitted[static_cast<std::size_t>(rows[0])] = y[rows[0]];
        return 0.0;
    }
    std::vector<double> a(rows_n * m), res(rows_n);
    for (std::size_t i = 0; i < rows_n; ++i) {
        const std::int64_t r = rows[i];
        a[i] = 1.0;
        for (std::size_t j = 0; j < p; ++j) a[(j + 1) * rows_n + i] = regs[j][r];
        res[i] = y[r];
    }
    const auto column_norm = [&](std::size_t j, std::size_t from) {
        Real s = 0;
        for (std::size_t i = from; i < rows_n; ++i) s += static_cast<Real>(a[j * rows_n + i]) * a[j * rows_n + i];
        return static_cast<double>(std::sqrt(s));
    };
    std::vector<double> initial(m);
    for (std::size_t j = 0; j < m; ++j) {
        initial[j] = column_norm(j, 0);
        if (initial[j] == 0.0) initial[j] = 1.0;
    }
    std::size_t keep = m;  // columns [0, keep) not found negligible
    const std::size_t steps = std::min(rows_n, m);
    std::size_t rank = 0;
    for (std::size_t l = 0; l < steps; ++l) {
        // cycle negligible columns to the end (at most once each)
        while (l < keep && column_norm(l, l) < initial[l] * kTol) {
            std::rotate(a.begin() + static_cast<std::ptrdiff_t>(l * rows_n),
                        a.begin() + static_cast<std::ptrdiff_t>((l + 1) * rows_n), a.end());
            std::rotate(initial.begin() + static_cast<std::ptrdiff_t>(l),
                        initial.begin() + static_cast<std::ptrdiff_t>(l + 1), initial.end());
            --keep;
        }
        if (l >= keep) break;
        rank = l + 1;
        if (l + 1 == rows_n) break;  // the last row: nothing below the diagonal to zero
        double* col = a.data() + l * rows_n;
        double norm = column_norm(l, l);
        if (norm == 0.0) continue;
        if (col[l] < 0.0) norm = -norm;
        for (std::size_t i = l; i < rows_n; ++i) col[i] /= norm;
        col[l] += 1.0;
        // apply I − v vᵀ / v_l to the later columns and to the response
        const auto reflect = [&](double* w) {
            Real t = 0;
            for (std::size_t i = l; i < rows_n; ++i) t += static_cast<Real>(col[i]) * w[i];
            const double s = -static_cast<double>(t) / col[l];
            for (std::size_t i = l; i < rows_n; ++i) w[i] += s * col[i];
        };
        for (std::size_t j = l + 1; j < m; ++j) reflect(a.data() + j * rows_n);
        reflect(res.data());
    }
    // the residual: Q (0, ..., 0, (Qᵀy)_{rank..}) — the first `rank` entries of Qᵀy zeroed,
    // then the reflections undone in reverse order
    for (std::size_t i = 0; i < rank; ++i) res[i] = 0.0;
    for (std::size_t l = rank; l-- > 0;) {
        if (l + 1 == rows_n) continue;
        const double* col = a.data() + l * rows_n;
        if (col[l] == 0.0) continue;
        Real t = 0;
        for (std::size_t i = l; i < rows_n; ++i) t += static_cast<Real>(col[i]) * res[i];
        const double s = -static_cast<double>(t) / col[l];
        for (std::size_t i = l; i < rows_n; ++i) res[i] += s * col[i];
    }
    Real ssr = 0;
    for (std::size_t i = 0; i < rows_n; ++i) {
        fitted[static_cast<std::size_t>(rows[i])] = y[rows[i]] - res[i];
        ssr += static_cast<Real>(res[i]) * res[i];
    }
    const auto q = static_cast<std::int64_t>(m);
    return n <= q ? 0.0 : std::sqrt(static_cast<double>(ssr / static_cast<Real>(n - q)));
}

/// L(v | regs; configuration ids `id` of `n_cfg` configurations, or none when `id` is null):
/// the CLG log-likelihood over all rows in row order, −∞ where some configuration's
/// residual standard deviation is below √ε.
double clg_loglik(const Dataset& d, const double* v, const std::vector<const double*>& regs,
                  const std::vector<std::int32_t>* id, std::int32_t n_cfg) {
    const auto n = static_cast<std::size_t>(d.n_samples);
    const auto groups = static_cast<std::size_t>(id ? n_cfg : 1);
    const auto group = [&](std::size_t r) { return id ? static_cast<std::size_t>((*id)[r]) : std::size_t{0}; };
    // per-thread scratch: a test runs many of these
    thread_local std::vector<double> fitted, sd, log_sd;
    fitted.resize(n);
    sd.assign(groups, 0.0);
    const std::size_t p = regs.size();
    if (p <= 2) {
        // each configuration's sums, centred cross-products and residuals in row order: the
        // sums a pass over its rows in order would make
        thread_local std::vector<Real> mean, cross, ssr;
        thread_local std::vector<std::int64_t> count;
        thread_local std::vector<Line> line;
        count.assign(groups, 0);
        mean.assign(groups * 3, Real{0});
        for (std::size_t r = 0; r < n; ++r) {
            const std::size_t g = group(r);
            ++count[g];
            mean[g * 3] += v[r];
            for (std::size_t a = 0; a < p; ++a) mean[g * 3 + a + 1] += regs[a][r];
        }
        for (std::size_t g = 0; g < groups; ++g)
            for (std::size_t a = 0; a <= p; ++a) mean[g * 3 + a] /= static_cast<Real>(count[g]);
        cross.assign(groups * 9, Real{0});
        for (std::size_t r = 0; r < n; ++r) {
            const std::size_t g = group(r);
            Real dev[3];
            dev[0] = static_cast<Real>(v[r]) - mean[g * 3];
            for (std::size_t a = 0; a < p; ++a) dev[a + 1] = static_cast<Real>(regs[a][r]) - mean[g * 3 + a + 1];
            for (std::size_t a = 0; a <= p; ++a)
                for (std::size_t b = a; b <= p; ++b) cross[g * 9 + a * 3 + b] += dev[a] * dev[b];
        }
        line.resize(groups);
        for (std::size_t g = 0; g < groups; ++g) {
            Real c[3][3];
            for (std::size_t a = 0; a < 3; ++a)
                for (std::size_t b = 0; b < 3; ++b) c[a][b] = cross[g * 9 + a * 3 + b];
            line[g] = closed_form(mean.data() + g * 3, c, p, id != nullptr, count[g]);
        }
        ssr.assign(groups, Real{0});
        for (std::size_t r = 0; r < n; ++r) {
            const std::size_t g = group(r);
            double f = line[g].a0;
            if (p >= 1) f += line[g].b1 * regs[0][r];
            if (p >= 2) f += line[g].b2 * regs[1][r];
            fitted[r] = f;
            const double e = v[r] - f;
            ssr[g] += static_cast<Real>(e * e);
        }
        const auto q = static_cast<std::int64_t>(p) + 1;
        for (std::size_t g = 0; g < groups; ++g) {
            sd[g] = count[g] <= q ? 0.0 : std::sqrt(static_cast<double>(ssr[g] / static_cast<Real>(count[g] - q)));
            if (sd[g] < kTol) return kNegInf;
        }
    } else {
        std::vector<std::vector<std::int64_t>> rows(groups);
        for (std::size_t r = 0; r < n; ++r) rows[group(r)].push_back(static_cast<std::int64_t>(r));
        for (std::size_t g = 0; g < groups; ++g) {
            sd[g] = fit_qr(v, regs, rows[g], fitted);
            if (sd[g] < kTol) return kNegInf;
        }
    }
    log_sd.resize(groups);
    for (std::size_t g = 0; g < groups; ++g) log_sd[g] = std::log(sd[g]);
    double l = 0.0;
    for (std::size_t r = 0; r < n; ++r) l += log_normal(v[r], fitted[r], sd[group(r)], log_sd[group(r)]);
    return l;
}

/// (L(v | regs; id1) − L(v | regs; id0)) / n, 0 where either is not finite (bnlearn: a
/// singular model is rejected).
double clg_gain(const Dataset& d, const double* v, const std::vector<const double*>& regs,
                const std::vector<std::int32_t>* id0, std::int32_t n0, const std::vector<std::int32_t>* id1,
                std::int32_t n1) {
    const double l0 = clg_loglik(d, v, regs, id0, n0);
    const double l1 = clg_loglik(d, v, regs, id1, n1);
    return std::isfinite(l0) && std::isfinite(l1) ? (l1 - l0) / static_cast<double>(d.n_samples) : 0.0;
}

/// Σ n_xyk log(n_xyk n_k / (n_xk n_yk)) over the configurations `id` (none: one).
double mi_kernel(const Dataset& d, std::int32_t x, std::int32_t y, const std::vector<std::int32_t>& id,
                 std::int32_t n_cfg) {
    const auto lx = static_cast<std::size_t>(d.levels[static_cast<std::size_t>(x)].size());
    const auto ly = static_cast<std::size_t>(d.levels[static_cast<std::size_t>(y)].size());
    const auto nk = static_cast<std::size_t>(n_cfg);
    std::vector<std::int64_t> nxyk(nk * lx * ly, 0), nxk(nk * lx, 0), nyk(nk * ly, 0), nkk(nk, 0);
    const double* cx = d.column(x);
    const double* cy = d.column(y);
    for (std::int64_t r = 0; r < d.n_samples; ++r) {
        const auto k = static_cast<std::size_t>(id[static_cast<std::size_t>(r)]);
        const auto i = static_cast<std::size_t>(cx[r]);
        const auto j = static_cast<std::size_t>(cy[r]);
        ++nxyk[(k * lx + i) * ly + j];
        ++nxk[k * lx + i];
        ++nyk[k * ly + j];
        ++nkk[k];
    }
    Real sum = 0;
    for (std::size_t k = 0; k < nk; ++k)
        for (std::size_t i = 0; i < lx; ++i)
            for (std::size_t j = 0; j < ly; ++j) {
                const auto c = static_cast<double>(nxyk[(k * lx + i) * ly + j]);
                if (c == 0.0) continue;
                sum += c * std::log(c * static_cast<double>(nkk[k]) /
                                    (static_cast<double>(nxk[k * lx + i]) * static_cast<double>(nyk[k * ly + j])));
            }
    return static_cast<double>(sum);
}

/// The marginal test of a continuous v and a discrete d (r levels): 2 (L₁ − L₀), the
/// Gaussian within each level against one Gaussian, unbiased σ's.
double marginal_mixed(const Dataset& d, std::int32_t v, std::int32_t disc) {
    const auto n = static_cast<std::size_t>(d.n_samples);
    const double* y = d.column(v);
    const double* c = d.column(disc);
    const std::size_t r = d.levels[static_cast<std::size_t>(disc)].size();
    Real total = 0;
    for (std::size_t i = 0; i < n; ++i) total += y[i];
    const auto mean = static_cast<double>(total / static_cast<Real>(n));
    Real sse = 0;
    for (std::size_t i = 0; i < n; ++i) sse += static_cast<Real>((y[i] - mean) * (y[i] - mean));
    const double sd = std::sqrt(static_cast<double>(sse) / static_cast<double>(n - 1));
    std::vector<double> mu(r, 0.0), ss(r, 0.0);
    std::vector<std::int64_t> count(r, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(c[i]);
        mu[k] += y[i];
        ++count[k];
    }
    for (std::size_t k = 0; k < r; ++k) mu[k] /= static_cast<double>(count[k]);
    for (std::size_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(c[i]);
        ss[k] += (y[i] - mu[k]) * (y[i] - mu[k]);
    }
    for (std::size_t k = 0; k < r; ++k)
        ss[k] = count[k] <= 1 ? 0.0 : std::sqrt(ss[k] / static_cast<double>(count[k] - 1));
    std::vector<double> log_ss(r);
    for (std::size_t k = 0; k < r; ++k) log_ss[k] = std::log(ss[k]);
    const double log_sd = std::log(sd);
    double l0 = 0.0, l1 = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(c[i]);
        l0 += log_normal(y[i], mean, sd, log_sd);
        l1 += log_normal(y[i], mu[k], ss[k], log_ss[k]);
    }
    return 2.0 * static_cast<double>(n) * ((l1 - l0) / static_cast<double>(n));
}

/// −n log(1 − r²), r Pearson's correlation of two continuous columns (0 where either sum of
/// squares is below √ε).
double marginal_gaussian(const Dataset& d, std::int32_t x, std::int32_t y) {
    const auto n = static_cast<std::size_t>(d.n_samples);
    const double* a = d.column(x);
    const double* b = d.column(y);
    Real sa = 0, sb = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sa += a[i];
        sb += b[i];
    }
    const auto ma = static_cast<double>(sa / static_cast<Real>(n)), mb = static_cast<double>(sb / static_cast<Real>(n));
    Real ssa = 0, ssb = 0, sab = 0;
    for (std::size_t i = 0; i < n; ++i) {
        ssa += static_cast<Real>((a[i] - ma) * (a[i] - ma));
        ssb += static_cast<Real>((b[i] - mb) * (b[i] - mb));
        sab += static_cast<Real>((a[i] - ma) * (b[i] - mb));
    }
    const auto va = static_cast<double>(ssa), vb = static_cast<double>(ssb);
    Real r = (va < kTol || vb < kTol) ? Real{0} : sab / std::sqrt(static_cast<Real>(va) * vb);
    r = std::clamp(r, Real{-1}, Real{1});
    const auto rd = static_cast<double>(r);
    return 2.0 * static_cast<double>(n) * (-0.5 * std::log(1.0 - rd * rd));
}

}  // namespace

double mi_cg_dof(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    const bool dx = data.is_discrete(x), dy = data.is_discrete(y);
    const auto levels = [&](std::int32_t v) {
        return static_cast<double>(data.levels[static_cast<std::size_t>(v)].size());
    };
    if (s.empty()) {
        if (dx && dy) return (levels(x) - 1.0) * (levels(y) - 1.0);
        if (!dx && !dy) return 1.0;
        return 2.0 * (levels(dx ? x : y) - 1.0);
    }
    std::vector<std::int32_t> sd;  // S's discrete variables
    for (std::int32_t v : s)
        if (data.is_discrete(v)) sd.push_back(v);
    const double f_s = level_product(data, sd);  // 0 without a discrete variable, as bnlearn's
    const double f_s1 = std::max(f_s, 1.0);
    const auto k = static_cast<double>(s.size() - sd.size());  // S's continuous variables
    if (!dx && !dy) return f_s1;
    if (dx != dy) return (levels(dx ? x : y) - 1.0) * f_s1 * (k + 2.0);
    // two factors: bnlearn's chain rule adds its regressions' parameters over S's continuous ones
    return (levels(x) - 1.0) * (levels(y) - 1.0) * f_s1 +
           (k > 0 ? f_s * (k * (k + 3.0) / 2.0) * (levels(y) - 1.0) : 0.0);
}

MiCgResult mi_cg(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    const std::string label = test_label("mi-cg", data, x, y, s);
    std::vector<std::int32_t> all(s.begin(), s.end());
    all.push_back(x);
    all.push_back(y);
    check_test_values(data, all, label);
    if (data.n_samples < 2) throw InputError(label + ": it needs at least 2 rows");
    const bool dx = data.is_discrete(x), dy = data.is_discrete(y);
    const auto n = static_cast<double>(data.n_samples);
    MiCgResult res;
    if (s.empty()) {
        if (dx && dy) {
            std::vector<std::int32_t> one;
            configurations(data, {}, one);
            res.statistic = 2.0 * n * (mi_kernel(data, x, y, one, 1) / n);
        } else if (!dx && !dy) {
            res.statistic = marginal_gaussian(data, x, y);
        } else {
            const std::int32_t disc = dx ? x : y;
            res.statistic = marginal_mixed(data, dx ? y : x, disc);
        }
    } else {
        std::vector<std::int32_t> sd, sc;  // S's discrete and continuous variables, in S's order
        for (std::int32_t v : s) (data.is_discrete(v) ? sd : sc).push_back(v);
        std::vector<std::int32_t> z;
        const std::int32_t nz = configurations(data, sd, z);
        const std::vector<std::int32_t>* z0 = sd.empty() ? nullptr : &z;
        std::vector<const double*> gz;
        for (std::int32_t v : sc) gz.push_back(data.column(v));
        if (!dx && !dy) {
            std::vector<const double*> with_x{data.column(x)};
            with_x.insert(with_x.end(), gz.begin(), gz.end());
            const double l0 = clg_loglik(data, data.column(y), gz, z0, nz);
            const double l1 = clg_loglik(data, data.column(y), with_x, z0, nz);
            res.statistic = 2.0 * n * (std::isfinite(l0) && std::isfinite(l1) ? (l1 - l0) / n : 0.0);
        } else if (dx != dy) {
            const std::int32_t disc = dx ? x : y, cont = dx ? y : x;
            std::vector<std::int32_t> with_d{disc};
            with_d.insert(with_d.end(), sd.begin(), sd.end());
            std::vector<std::int32_t> z1;
            const std::int32_t n1 = configurations(data, with_d, z1);
            res.statistic = 2.0 * n * clg_gain(data, data.column(cont), gz, z0, nz, &z1, n1);
        } else {
            const double mi = mi_kernel(data, x, y, z, nz) / n;
            if (sc.empty()) {
                res.statistic = 2.0 * n * mi;
            } else {
                // bnlearn's chain rule over S's continuous variables (see the header)
                std::vector<std::int32_t> zx;
                const std::int32_t nx = configurations(data, std::vector<std::int32_t>{x}, zx);
                std::vector<std::int32_t> with_y{y};
                with_y.insert(with_y.end(), sd.begin(), sd.end());
                std::vector<std::int32_t> zy;
                const std::int32_t ny = configurations(data, with_y, zy);
                double num = mi, den = 0.0;
                for (std::size_t i = 0; i < gz.size(); ++i) {
                    const std::vector<const double*> rest(gz.begin() + static_cast<std::ptrdiff_t>(i + 1), gz.end());
                    num += clg_gain(data, gz[i], rest, z0, nz, &zx, nx);
                }
                for (std::size_t i = 0; i < gz.size(); ++i) {
                    const std::vector<const double*> rest(gz.begin() + static_cast<std::ptrdiff_t>(i + 1), gz.end());
                    den += clg_gain(data, gz[i], rest, &zy, ny, &zx, nx);
                }
                res.statistic = 2.0 * n * n * (std::isfinite(num) && std::isfinite(den) ? (num - den) / n : 0.0);
            }
        }
    }
    res.dof = mi_cg_dof(data, x, y, s);
    res.p = res.dof > 0.0 ? chi2_sf(res.statistic, res.dof) : 1.0;
    if (!is_result(res.statistic, res.p))
        throw InputError(label + ": the statistic is not finite (" + exact_number(res.statistic) +
                         (s.empty() && dx != dy
                              ? "): a level of the discrete variable whose rows hold one value has variance 0"
                              : "): the variables are perfectly correlated"));
    return res;
}

CiOutcome MiCgTest::test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    const MiCgResult r = mi_cg(data_, x, y, s);
    CiOutcome o;
    o.statistic = r.statistic;
    o.p = r.p;
    o.extra.emplace_back("dof", exact_number(r.dof));
    return o;
}

}  // namespace cudag::ci
