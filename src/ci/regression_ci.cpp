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
#include "core/error.hpp"
#include "core/format.hpp"

namespace cudag::ci {
namespace {

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

/// The codes of discrete variable v that occur, ascending, and each row's position among them.
struct Levels {
    std::vector<std::int64_t> counts;  ///< per occurring code, ascending
    std::vector<std::int32_t> index;   ///< per row: position of its code among the occurring ones
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
    std::vector<std::int32_t> position(static_cast<std::size_t>(n_levels), -1);
    Levels l;
    for (std::int64_t k = 0; k < n_levels; ++k)
        if (count[static_cast<std::size_t>(k)] > 0) {
            position[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(l.counts.size());
            l.counts.push_back(count[static_cast<std::size_t>(k)]);
        }
    l.index.resize(static_cast<std::size_t>(data.n_samples));
    for (std::int64_t i = 0; i < data.n_samples; ++i)
        l.index[static_cast<std::size_t>(i)] = position[static_cast<std::size_t>(c[i])];
    return l;
}

/// tigramite's entropy of a discrete variable: −Σ p log p over its level frequencies.
double entropy(const Levels& l, std::int64_t n) {
    Column terms;
    for (std::int64_t c : l.counts) {
        const double p = static_cast<double>(c) / static_cast<double>(n);
        terms.push_back(p * std::log(p));
    }
    return -numpy_sum(terms);
}

/// Appends variable v's regressor columns: itself (continuous), or one 0/1 column per level
/// that occurs (discrete, ascending codes).
void append_columns(const Dataset& data, std::int32_t v, std::vector<Column>& cols) {
    const double* c = data.column(v);
    if (!data.is_discrete(v)) {
        cols.emplace_back(c, c + data.n_samples);
        return;
    }
    const Levels l = occurring_levels(data, v);
    const std::size_t first = cols.size();
    cols.resize(first + l.counts.size(), Column(static_cast<std::size_t>(data.n_samples), 0.0));
    for (std::int64_t i = 0; i < data.n_samples; ++i)
        cols[first + static_cast<std::size_t>(l.index[static_cast<std::size_t>(i)])][static_cast<std::size_t>(i)] = 1.0;
}

// ---- least squares ------------------------------------------------------------------------

bool constant(const Column& c) {
    for (double v : c)
        if (v != c[0]) return false;
    return true;
}

/// Centres c (its mean subtracted) and returns the Euclidean norm of the result.
double centre(Column& c) {
    const double m = numpy_sum(c) / static_cast<double>(c.size());
    double ss = 0.0;
    for (double& v : c) {
        v -= m;
        ss += v * v;
    }
    return std::sqrt(ss);
}

/// The residual sum of squares of y after least squares on an intercept and the columns
/// `cols` (sklearn's LinearRegression). The intercept is taken out by centring y and every
/// column; constant columns are dropped (the intercept spans them), the others scaled to unit
/// norm (so that the rank test does not depend on the columns' scales) and triangularised by
/// Householder reflections with column pivoting. A column whose remaining norm is within
/// ε·max(n, k) of the first pivot's (1) is linearly dependent on those before it (a full
/// one-hot set against the intercept) and left out: the residual, a projection, is the same.
double residual_sum_of_squares(Column y, std::vector<Column> cols) {
    const auto n = static_cast<std::int64_t>(y.size());
    std::vector<Column> a;
    for (Column& c : cols) {
        if (constant(c)) continue;
        const double norm = centre(c);
        for (double& v : c) v /= norm;
        a.push_back(std::move(c));
    }
    centre(y);
    const auto k = static_cast<std::int64_t>(a.size());
    const double tol = kEps * static_cast<double>(std::max(n, k));
    std::int64_t rank = 0;
    Column v;
    for (std::int64_t r = 0; r < k && r < n; ++r) {
        std::int64_t pivot = r;
        double best = -1.0;
        for (std::int64_t j = r; j < k; ++j) {
            double s = 0.0;
            for (std::int64_t i = r; i < n; ++i) s += a[j][i] * a[j][i];
            if (s > best) best = s, pivot = j;
        }
        const double norm = std::sqrt(best);
        if (!(norm > tol)) break;  // every remaining column depends on the pivots before
        std::swap(a[r], a[pivot]);
        const double alpha = a[r][r] >= 0.0 ? -norm : norm;
        v.assign(a[r].begin() + r, a[r].end());
        v[0] -= alpha;
        double vv = 0.0;
        for (double e : v) vv += e * e;
        const double beta = 2.0 / vv;  // vv >= norm² > 0
        const auto reflect = [&](Column& x) {
            double s = 0.0;
            for (std::int64_t i = r; i < n; ++i) s += v[i - r] * x[i];
            s *= beta;
            for (std::int64_t i = r; i < n; ++i) x[i] -= s * v[i - r];
        };
        for (std::int64_t j = r + 1; j < k; ++j) reflect(a[j]);
        reflect(y);
        rank = r + 1;
    }
    // Qᵀy: its first `rank` entries lie in the columns' span, the rest is the residual.
    double rss = 0.0;
    for (std::int64_t i = rank; i < n; ++i) rss += y[i] * y[i];
    return rss;
}

// ---- penalised logistic regression -------------------------------------------------------

/// sklearn's LogisticRegression(C = 1) with an intercept on the rows of `x` (n × p,
/// row-major) for the classes `label` (0..k−1, k >= 2, each occurring): the minimiser of
///   f(θ) = Σᵢ [log Σ_c exp ηᵢc − ηᵢ,yᵢ] + ½ Σ (coefficients)²,  ηᵢc = xᵢ·W_c + b_c.
/// Two classes: sklearn's binary model, W_0 = 0 and b_0 = 0 (ηᵢ1 is the logit of class 1);
/// more: the symmetric multinomial, every class its W_c, and b_{k−1} = 0 (the intercepts are
/// unpenalised and determined only up to a common shift, which changes no probability).
class LogisticFit {
public:
    LogisticFit(const Column& x, std::int64_t n, int p, const std::vector<std::int32_t>& label, int k)
        : x_(x), n_(n), p_(p), k_(k), label_(label) {
        const bool binary = k == 2;
        for (int c = binary ? 1 : 0; c < k; ++c)
            for (int j = 0; j < p; ++j) params_.push_back({c, j});
        for (int c = binary ? 1 : 0; c < (binary ? 2 : k - 1); ++c) params_.push_back({c, p});
        theta_.assign(params_.size(), 0.0);
        eta_.resize(static_cast<std::size_t>(n * k));
        prob_.resize(eta_.size());
    }

    /// Newton's method from θ = 0 (sklearn's start). Far from the optimum a step is cut back
    /// until it decreases f enough (Armijo); near it (half the squared Newton decrement λ², the
    /// decrease the step predicts, below 1e-8 (1 + |f|)) full steps are taken, because there the
    /// decrease soon drops below f's rounding and could not be seen, while the coefficients,
    /// on which the deviance depends to first order, still move. The fit ends after the full
    /// step whose ½λ² is at most 1e-20 (1 + |f|) (the gradient's own rounding level).
    void solve() {
        const auto d = static_cast<int>(params_.size());
        std::vector<double> g(static_cast<std::size_t>(d)), h(static_cast<std::size_t>(d * d)),
            step(static_cast<std::size_t>(d)), trial(static_cast<std::size_t>(d));
        double f = evaluate(theta_);
        constexpr int kMaxIterations = 200;
        for (int it = 0; it < kMaxIterations; ++it) {
            gradient_hessian(g, h);
            if (!newton_step(h, g, step)) break;  // rounding made H not positive definite
            double decrement = 0.0;
            for (int a = 0; a < d; ++a) decrement -= g[a] * step[a];
            if (!(decrement > 0.0)) break;  // no descent direction left: at the optimum
            const double scale = 1.0 + std::fabs(f);
            if (0.5 * decrement <= 1e-8 * scale) {
                for (int a = 0; a < d; ++a) theta_[a] += step[a];
                f = evaluate(theta_);
                if (0.5 * decrement <= 1e-20 * scale) break;
                continue;
            }
            double t = 1.0;
            bool accepted = false;
            for (int halving = 0; halving < 60 && !accepted; ++halving, t *= 0.5) {
                for (int a = 0; a < d; ++a) trial[a] = theta_[a] + t * step[a];
                const double ft = evaluate(trial);
                if (ft <= f - 1e-4 * t * decrement) {
                    theta_ = trial;
                    f = ft;
                    accepted = true;
                }
            }
            if (!accepted) break;
        }
        evaluate(theta_);  // η and π of the final θ, for deviance()
    }

    /// tigramite's deviance at the fitted θ: 2 Σᵢ −log clip(pᵢ,yᵢ, ε, 1 − ε) with the
    /// probabilities as sklearn's predict_proba forms them (binary: expit of the logit and one
    /// minus it; multinomial: softmax after subtracting each row's largest η).
    double deviance() const {
        Column terms(static_cast<std::size_t>(n_));
        for (std::int64_t i = 0; i < n_; ++i) {
            const double* e = eta_.data() + i * k_;
            const int yi = label_[static_cast<std::size_t>(i)];
            double prob;
            if (k_ == 2) {
                const double p1 = 1.0 / (1.0 + std::exp(-e[1]));
                prob = yi == 1 ? p1 : 1.0 - p1;
            } else {
                double m = e[0];
                for (int c = 1; c < k_; ++c) m = std::max(m, e[c]);
                double s = 0.0;
                for (int c = 0; c < k_; ++c) s += std::exp(e[c] - m);
                prob = std::exp(e[yi] - m) / s;
            }
            prob = std::clamp(prob, kEps, 1.0 - kEps);
            terms[static_cast<std::size_t>(i)] = -std::log(prob);
        }
        return 2.0 * numpy_sum(terms);
    }

private:
    struct Param {
        int cls;  ///< the class whose η it enters
        int col;  ///< its column of x; p: the intercept
    };

    double u(std::int64_t i, int col) const { return col == p_ ? 1.0 : x_[static_cast<std::size_t>(i * p_ + col)]; }

    /// f(θ); leaves η and the class probabilities of θ in eta_ and prob_.
    double evaluate(const std::vector<double>& theta) {
        std::fill(eta_.begin(), eta_.end(), 0.0);
        double penalty = 0.0;
        for (std::size_t a = 0; a < params_.size(); ++a)
            if (params_[a].col < p_) penalty += theta[a] * theta[a];
        double loss = 0.0;
        for (std::int64_t i = 0; i < n_; ++i) {
            double* e = eta_.data() + i * k_;
            for (std::size_t a = 0; a < params_.size(); ++a) e[params_[a].cls] += u(i, params_[a].col) * theta[a];
            double m = e[0];
            for (int c = 1; c < k_; ++c) m = std::max(m, e[c]);
            double s = 0.0;
            for (int c = 0; c < k_; ++c) s += std::exp(e[c] - m);
            const double lse = m + std::log(s);
            for (int c = 0; c < k_; ++c) prob_[static_cast<std::size_t>(i * k_ + c)] = std::exp(e[c] - lse);
            loss += lse - e[label_[static_cast<std::size_t>(i)]];
        }
        return loss + 0.5 * penalty;
    }

    /// Gradient and Hessian of f at the θ evaluate() saw last:
    ///   g_a = Σᵢ u_ia (πᵢ,c(a) − [yᵢ = c(a)]) + θ_a [a penalised],
    ///   H_ab = Σᵢ u_ia u_ib πᵢ,c(a) ([c(a) = c(b)] − πᵢ,c(b)) + [a = b penalised].
    void gradient_hessian(std::vector<double>& g, std::vector<double>& h) const {
        const auto d = static_cast<int>(params_.size());
        std::fill(g.begin(), g.end(), 0.0);
        std::fill(h.begin(), h.end(), 0.0);
        std::vector<double> w(static_cast<std::size_t>(k_ * k_)), ua(static_cast<std::size_t>(d));
        for (std::int64_t i = 0; i < n_; ++i) {
            const double* pi = prob_.data() + i * k_;
            const int yi = label_[static_cast<std::size_t>(i)];
            for (int c = 0; c < k_; ++c)
                for (int e = 0; e < k_; ++e) w[c * k_ + e] = pi[c] * ((c == e ? 1.0 : 0.0) - pi[e]);
            for (int a = 0; a < d; ++a) ua[a] = u(i, params_[a].col);
            for (int a = 0; a < d; ++a) {
                const int ca = params_[a].cls;
                g[a] += ua[a] * (pi[ca] - (yi == ca ? 1.0 : 0.0));
                for (int b = 0; b <= a; ++b) h[a * d + b] += ua[a] * ua[b] * w[ca * k_ + params_[b].cls];
            }
        }
        for (int a = 0; a < d; ++a) {
            if (params_[a].col < p_) {
                g[a] += theta_[a];
                h[a * d + a] += 1.0;
            }
            for (int b = 0; b < a; ++b) h[b * d + a] = h[a * d + b];
        }
    }

    /// step = −H⁻¹g by Cholesky (H is positive definite: the penalty covers every coefficient
    /// and the intercepts' block is a weighted count); false where rounding makes it not so.
    static bool newton_step(std::vector<double> h, const std::vector<double>& g, std::vector<double>& step) {
        const auto d = static_cast<int>(g.size());
        for (int j = 0; j < d; ++j) {
            double s = h[j * d + j];
            for (int m = 0; m < j; ++m) s -= h[j * d + m] * h[j * d + m];
            if (!(s > 0.0)) return false;
            const double l = std::sqrt(s);
            h[j * d + j] = l;
            for (int i = j + 1; i < d; ++i) {
                double t = h[i * d + j];
                for (int m = 0; m < j; ++m) t -= h[i * d + m] * h[j * d + m];
                h[i * d + j] = t / l;
            }
        }
        for (int i = 0; i < d; ++i) {  // L z = −g
            double s = -g[i];
            for (int m = 0; m < i; ++m) s -= h[i * d + m] * step[m];
            step[i] = s / h[i * d + i];
        }
        for (int i = d - 1; i >= 0; --i) {  // Lᵀ step = z
            double s = step[i];
            for (int m = i + 1; m < d; ++m) s -= h[m * d + i] * step[m];
            step[i] = s / h[i * d + i];
        }
        return true;
    }

    const Column& x_;
    std::int64_t n_;
    int p_;
    int k_;
    const std::vector<std::int32_t>& label_;
    std::vector<Param> params_;
    std::vector<double> theta_;
    std::vector<double> eta_;   ///< n × k
    std::vector<double> prob_;  ///< n × k
};

/// tigramite's logistic deviance of the discrete dependent variable on `cols`: 0 where it has
/// one level (tigramite's DummyClassifier), else that of the penalised fit.
double logistic_deviance(const Levels& dep, const std::vector<Column>& cols, std::int64_t n) {
    const auto k = static_cast<int>(dep.counts.size());
    if (k < 2) return 0.0;
    const auto p = static_cast<int>(cols.size());
    Column x(static_cast<std::size_t>(n * p));
    for (int j = 0; j < p; ++j)
        for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i * p + j)] = cols[j][i];
    LogisticFit fit(x, n, p, dep.index, k);
    fit.solve();
    return fit.deviance();
}

}  // namespace

double normaltest_statistic(const double* values, std::int64_t n) {
    if (n < 8) return kNaN;
    const double dn = static_cast<double>(n);
    const double mean = numpy_sum(values, n) / dn;
    Column d(static_cast<std::size_t>(n)), d2(d.size()), d3(d.size()), d4(d.size());
    for (std::int64_t i = 0; i < n; ++i) {
        d[i] = values[i] - mean;
        d2[i] = d[i] * d[i];
        d3[i] = d2[i] * d[i];
        d4[i] = d2[i] * d2[i];
    }
    const double m2 = numpy_sum(d2) / dn, m3 = numpy_sum(d3) / dn, m4 = numpy_sum(d4) / dn;
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

RegressionCiResult regression_ci(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> z) {
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

    // Z's regressors, in tigramite's order; a column of ones where Z is empty.
    std::vector<Column> zcols;
    for (std::int32_t v : z) append_columns(data, v, zcols);
    if (z.empty()) zcols.emplace_back(static_cast<std::size_t>(n), 1.0);

    RegressionCiResult res;
    res.rows = n;
    const bool dx = data.is_discrete(x), dy = data.is_discrete(y);
    res.logistic = dx && dy;
    if (!dx && !dy) {
        // The more normal one is the dependent variable; a NaN K² (a comparison that fails)
        // makes it X.
        res.x_dependent = !(normaltest_statistic(data.column(x), n) >= normaltest_statistic(data.column(y), n));
    } else if (dx && dy) {
        res.x_dependent = !(entropy(occurring_levels(data, x), n) >= entropy(occurring_levels(data, y), n));
    } else {
        res.x_dependent = !dx;
    }
    const std::int32_t dep = res.x_dependent ? x : y, other = res.x_dependent ? y : x;
    std::vector<Column> rest;
    append_columns(data, other, rest);
    res.dof = static_cast<std::int64_t>(rest.size());
    rest.insert(rest.end(), zcols.begin(), zcols.end());

    if (res.logistic) {
        const Levels l = occurring_levels(data, dep);
        res.statistic = logistic_deviance(l, zcols, n) - logistic_deviance(l, rest, n);
    } else {
        const Column d(data.column(dep), data.column(dep) + n);
        const double rss_z = residual_sum_of_squares(d, zcols);
        const double rss_rest = residual_sum_of_squares(d, std::move(rest));
        res.statistic = static_cast<double>(n) * std::log(rss_z / rss_rest);
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
