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
/// row-major) for the classes `label` (0..k−1, k >= 2, each occurring), in sklearn's
/// parameterisation and scaling (LinearModelLoss): it minimises the mean loss plus the L2
/// penalty with l2_reg_strength = 1 / (C · n),
///   f(θ) = (1/n) Σᵢ ℓ(yᵢ, ηᵢ) + (1/2n) Σ (coefficients)²
/// (intercepts not penalised). Two classes (HalfBinomialLoss): θ = (w_0..w_{p−1}, b), one
/// raw prediction ηᵢ = xᵢ·w + b, ℓ = log(1 + e^η) − yη. More (HalfMultinomialLoss, the
/// symmetric multinomial): θ holds W (k × (p + 1), the last column the intercepts) ravelled
/// in Fortran order, θ[j·k + c] = W[c, j], ηᵢc = xᵢ·W_c + b_c, ℓ = log Σ_c e^ηᵢc − ηᵢ,yᵢ.
class LogisticModel {
public:
    LogisticModel(const Column& x, std::int64_t n, int p, const std::vector<std::int32_t>& label, int k)
        : x_(x), n_(n), p_(p), m_(k == 2 ? 1 : k), d_(m_ * (p + 1)), label_(label), l2_(1.0 / static_cast<double>(n)) {
        coef_.assign(static_cast<std::size_t>(d_), 0.0);
    }

    /// sklearn 1.9.1's NewtonCholeskySolver(tol = 1e-4, max_iter = 100) from θ = 0, step for
    /// step (NewtonSolver.solve):
    ///   1. gradient g and Hessian H at θ (the raw predictions the line search left behind);
    ///      multinomial: the last class's intercept is held at 0 (its entry of g and its row
    ///      and column of H are zeroed, and the system solved without them);
    ///   2. the Newton step s = −H⁻¹g (scipy.linalg.solve; a Hessian that is singular or
    ///      ill-conditioned (rcond < ε/2), or g·s > 0, sends sklearn to L-BFGS);
    ///   3. backtracking from t = 1, halving up to 20 times, accepting t when
    ///      f(θ + ts) − f(θ) <= t·2⁻¹¹·g·s, or, where |f(θ + ts) − f(θ)| <= 16ε|f(θ)|, when
    ///      the new gradient's L1 norm is below the old one's (L-BFGS when no t passes);
    ///   4. converged when max|g(θ + ts)| <= tol and ½ sᵀHs <= tol (H and s of step 1, 2).
    /// Multinomial: the intercepts are centred at the end (sklearn's finalize). Returns false
    /// where sklearn falls back to L-BFGS-B (not reproduced; the caller then solves to the
    /// optimum from where sklearn stopped).
    bool fit_sklearn() {
        constexpr double kTol = 1e-4;
        constexpr int kMaxIter = 100;
        raw_of(coef_, raw_);
        Column grad_unused(static_cast<std::size_t>(d_));
        double f = loss_gradient(coef_, raw_, grad_unused);
        Column g(static_cast<std::size_t>(d_)), h(static_cast<std::size_t>(d_ * d_)), s(g.size());
        for (int iteration = 1; iteration <= kMaxIter; ++iteration) {
            if (!gradient_hessian(g, h)) return false;
            if (!newton_step(g, h, s, true)) return false;
            const LineSearch ls = line_search(f, g, s);
            if (!ls.accepted) return false;
            f = ls.f;
            double g_max = 0.0;
            for (double v : ls.gradient) g_max = std::max(g_max, std::fabs(v));
            if (g_max <= kTol && 0.5 * quadratic_form(h, s) <= kTol) break;
        }
        // (max_iter reached without convergence: sklearn warns and keeps θ; so does this.)
        finalize();
        return true;
    }

    /// The optimum of f, by the same Newton steps, from the current θ: backtracking as
    /// sklearn's far from it; near it (½ sᵀHs <= 1e-8 (1/n + |f|)) full steps, because there
    /// the decrease drops below f's rounding and could not be seen while the coefficients, on
    /// which the deviance depends to first order, still move. Ends after the full step whose
    /// ½ sᵀHs is at most 1e-20 (1/n + |f|) (the gradient's rounding level), or where rounding
    /// leaves no descent direction.
    void fit_optimum() {
        raw_of(coef_, raw_);
        Column g(static_cast<std::size_t>(d_)), h(static_cast<std::size_t>(d_ * d_)), s(g.size());
        double f = loss_gradient(coef_, raw_, g);
        constexpr int kMaxIterations = 200;
        for (int it = 0; it < kMaxIterations; ++it) {
            gradient_hessian(g, h);
            if (!newton_step(g, h, s, false)) break;
            const double half_decrement = 0.5 * quadratic_form(h, s);
            const double scale = 1.0 / static_cast<double>(n_) + std::fabs(f);
            if (half_decrement <= 1e-8 * scale) {
                for (int a = 0; a < d_; ++a) coef_[a] += s[a];
                raw_of(coef_, raw_);
                f = loss_gradient(coef_, raw_, g);
                if (half_decrement <= 1e-20 * scale) break;
                continue;
            }
            const LineSearch ls = line_search(f, g, s);
            if (!ls.accepted) break;
            f = ls.f;
        }
        finalize();
    }

    /// tigramite's deviance at the fitted θ: 2 Σᵢ −log clip(pᵢ,yᵢ, ε, 1 − ε), the
    /// probabilities as sklearn's predict_proba forms them from the decision function
    /// xW + b (binary: expit and one minus it; multinomial: softmax after subtracting each
    /// row's largest η).
    double deviance() const {
        Column eta;
        raw_of(coef_, eta);
        Column terms(static_cast<std::size_t>(n_));
        Column e(static_cast<std::size_t>(m_));
        for (std::int64_t i = 0; i < n_; ++i) {
            const double* r = eta.data() + i * m_;
            const int yi = label_[static_cast<std::size_t>(i)];
            double prob;
            if (m_ == 1) {
                const double p1 = 1.0 / (1.0 + std::exp(-r[0]));
                prob = yi == 1 ? p1 : 1.0 - p1;
            } else {
                double mx = r[0];
                for (int c = 1; c < m_; ++c) mx = std::max(mx, r[c]);
                double sum = 0.0;
                for (int c = 0; c < m_; ++c) sum += (e[c] = std::exp(r[c] - mx));
                prob = e[yi] / sum;
            }
            prob = std::clamp(prob, kEps, 1.0 - kEps);
            terms[static_cast<std::size_t>(i)] = -std::log(prob);
        }
        return 2.0 * numpy_sum(terms);
    }

private:
    struct LineSearch {
        bool accepted = false;
        double f = 0.0;
        Column gradient;
    };

    double u(std::int64_t i, int j) const { return j == p_ ? 1.0 : x_[static_cast<std::size_t>(i * p_ + j)]; }
    /// θ's entry of class (column of W) c, feature j (p: the intercept).
    int at(int c, int j) const { return j * m_ + c; }

    /// η = xWᵀ + b (n × m, row-major) of `coef`.
    void raw_of(const Column& coef, Column& raw) const {
        raw.assign(static_cast<std::size_t>(n_ * m_), 0.0);
        for (std::int64_t i = 0; i < n_; ++i)
            for (int c = 0; c < m_; ++c) {
                double s = 0.0;
                for (int j = 0; j < p_; ++j) s += u(i, j) * coef[at(c, j)];
                raw[static_cast<std::size_t>(i * m_ + c)] = s + coef[at(c, p_)];
            }
    }

    /// Row i's class probabilities (multinomial) as sklearn's sum_exp_minus_max, the log of
    /// the sum of exponentials in lse.
    void softmax_row(const double* r, double* prob, double& lse) const {
        double mx = r[0];
        for (int c = 1; c < m_; ++c)
            if (mx < r[c]) mx = r[c];
        double sum = 0.0;
        for (int c = 0; c < m_; ++c) sum += (prob[c] = std::exp(r[c] - mx));
        for (int c = 0; c < m_; ++c) prob[c] /= sum;
        lse = std::log(sum) + mx;
    }

    double penalty(const Column& coef) const {
        double w2 = 0.0;
        for (int j = 0; j < p_; ++j)
            for (int c = 0; c < m_; ++c) w2 += coef[at(c, j)] * coef[at(c, j)];
        return 0.5 * l2_ * w2;
    }

    /// f at `coef` (whose raw predictions are `raw`) and its gradient (LinearModelLoss.
    /// loss_gradient).
    double loss_gradient(const Column& coef, const Column& raw, Column& grad) const {
        const double inv_n = 1.0 / static_cast<double>(n_);
        Column loss(static_cast<std::size_t>(n_)), gp(static_cast<std::size_t>(n_ * m_)), prob(m_);
        for (std::int64_t i = 0; i < n_; ++i) {
            const double* r = raw.data() + i * m_;
            double* gi = gp.data() + i * m_;
            const int yi = label_[static_cast<std::size_t>(i)];
            if (m_ == 1) {
                const double y = yi, e = r[0];
                if (e <= -37) {
                    const double t = std::exp(e);
                    loss[i] = t - y * e, gi[0] = t - y;
                } else if (e <= -2) {
                    const double t = std::exp(e);
                    loss[i] = std::log1p(t) - y * e, gi[0] = ((1 - y) * t - y) / (1 + t);
                } else {
                    const double t = std::exp(-e);
                    loss[i] = (e <= 18 ? std::log1p(t) : t) + (1 - y) * e;
                    gi[0] = ((1 - y) - y * t) / (1 + t);
                }
            } else {
                double lse;
                softmax_row(r, prob.data(), lse);
                loss[i] = lse - r[yi];
                for (int c = 0; c < m_; ++c) gi[c] = prob[c] - (yi == c ? 1.0 : 0.0);
            }
            for (int c = 0; c < m_; ++c) gi[c] *= inv_n;
        }
        accumulate_gradient(coef, gp, grad);
        return numpy_sum(loss) / static_cast<double>(n_) + penalty(coef);
    }

    /// grad[c, j] = Σᵢ gpᵢc xᵢj + l2 W[c, j] (j < p), Σᵢ gpᵢc (the intercepts).
    void accumulate_gradient(const Column& coef, const Column& gp, Column& grad) const {
        grad.assign(static_cast<std::size_t>(d_), 0.0);
        for (std::int64_t i = 0; i < n_; ++i)
            for (int j = 0; j <= p_; ++j) {
                const double xij = u(i, j);
                for (int c = 0; c < m_; ++c) grad[at(c, j)] += gp[static_cast<std::size_t>(i * m_ + c)] * xij;
            }
        for (int j = 0; j < p_; ++j)
            for (int c = 0; c < m_; ++c) grad[at(c, j)] += l2_ * coef[at(c, j)];
    }

    /// Gradient and Hessian of f at coef_ (raw predictions raw_; LinearModelLoss.
    /// gradient_hessian): H = (1/n) Σᵢ uᵢuᵢᵀ ⊗ hᵢ + l2 on the coefficients' diagonal, with
    /// hᵢ = pᵢ(1 − pᵢ) (binary, its absolute value) or hᵢ,cl = pᵢc([c = l] − pᵢl)
    /// (multinomial). False where sklearn would fall back to L-BFGS: binary, more than a
    /// quarter of the hᵢ not positive (g and H are complete all the same).
    bool gradient_hessian(Column& grad, Column& hess) const {
        const double inv_n = 1.0 / static_cast<double>(n_);
        Column gp(static_cast<std::size_t>(n_ * m_)), w(static_cast<std::size_t>(m_ * m_)), prob(m_), ui(p_ + 1);
        std::fill(hess.begin(), hess.end(), 0.0);
        std::int64_t not_positive = 0;
        for (std::int64_t i = 0; i < n_; ++i) {
            const double* r = raw_.data() + i * m_;
            double* gi = gp.data() + i * m_;
            const int yi = label_[static_cast<std::size_t>(i)];
            if (m_ == 1) {
                const double y = yi;
                if (r[0] > -37) {
                    const double t = std::exp(-r[0]);
                    gi[0] = ((1 - y) - y * t) / (1 + t);
                    w[0] = t / ((1 + t) * (1 + t));
                } else {
                    w[0] = std::exp(r[0]);
                    gi[0] = w[0] - y;
                }
                if (!(w[0] > 0.0)) ++not_positive;
                w[0] = std::fabs(w[0]) * inv_n;
            } else {
                double lse;
                softmax_row(r, prob.data(), lse);
                for (int c = 0; c < m_; ++c) {
                    gi[c] = prob[c] - (yi == c ? 1.0 : 0.0);
                    w[c * m_ + c] = prob[c] * (1 - prob[c]) * inv_n;
                    for (int l = c + 1; l < m_; ++l) w[c * m_ + l] = w[l * m_ + c] = -prob[c] * prob[l] * inv_n;
                }
            }
            for (int c = 0; c < m_; ++c) gi[c] *= inv_n;
            for (int j = 0; j <= p_; ++j) ui[j] = u(i, j);
            for (int j = 0; j <= p_; ++j)
                for (int c = 0; c < m_; ++c) {
                    double* row = hess.data() + static_cast<std::size_t>(at(c, j)) * d_;
                    for (int q = 0; q <= j; ++q)
                        for (int l = 0; l < m_; ++l) row[at(l, q)] += ui[j] * w[c * m_ + l] * ui[q];
                }
        }
        accumulate_gradient(coef_, gp, grad);
        // Filled: the blocks of feature pairs q <= j (all of a diagonal block); mirror the rest.
        for (int a = 0; a < d_; ++a)
            for (int b = (a / m_ + 1) * m_; b < d_; ++b)
                hess[static_cast<std::size_t>(a) * d_ + b] = hess[static_cast<std::size_t>(b) * d_ + a];
        for (int j = 0; j < p_; ++j)
            for (int c = 0; c < m_; ++c) hess[static_cast<std::size_t>(at(c, j)) * (d_ + 1)] += l2_;
        if (m_ > 1) {  // the last class's intercept is held at 0
            const int last = d_ - 1;
            grad[last] = 0.0;
            for (int a = 0; a < d_; ++a)
                hess[static_cast<std::size_t>(a) * d_ + last] = hess[static_cast<std::size_t>(last) * d_ + a] = 0.0;
        }
        return !(m_ == 1 && 4 * not_positive > n_);
    }

    /// s = −H⁻¹g over the free entries (all but a multinomial's last intercept, whose s is
    /// 0), by Cholesky; false where H is not positive definite to rounding, s is not a
    /// descent direction, or (`sklearn`) scipy.linalg.solve would warn: the reciprocal
    /// 1-norm condition number below ε/2.
    bool newton_step(const Column& g, const Column& h, Column& s, bool sklearn) const {
        const int d = m_ > 1 ? d_ - 1 : d_;
        Column l(static_cast<std::size_t>(d * d));
        for (int i = 0; i < d; ++i)
            for (int j = 0; j < d; ++j) l[i * d + j] = h[static_cast<std::size_t>(i) * d_ + j];
        double norm1 = 0.0;
        for (int j = 0; j < d; ++j) {
            double col = 0.0;
            for (int i = 0; i < d; ++i) col += std::fabs(l[i * d + j]);
            norm1 = std::max(norm1, col);
        }
        if (!cholesky(l, d)) return false;
        Column z(static_cast<std::size_t>(d)), e(static_cast<std::size_t>(d));
        if (sklearn) {
            // ‖H⁻¹‖₁ (exactly, where LAPACK's sycon estimates it from below): the largest
            // column sum of |H⁻¹|, one column at a time.
            double inv_norm1 = 0.0;
            for (int j = 0; j < d; ++j) {
                std::fill(e.begin(), e.end(), 0.0);
                e[j] = 1.0;
                cholesky_solve(l, d, e, z);
                double col = 0.0;
                for (double v : z) col += std::fabs(v);
                inv_norm1 = std::max(inv_norm1, col);
            }
            if (!(1.0 / (norm1 * inv_norm1) >= 0.5 * kEps)) return false;  // dlamch('E') = ε/2
        }
        for (int a = 0; a < d; ++a) e[a] = -g[a];
        cholesky_solve(l, d, e, z);
        std::fill(s.begin(), s.end(), 0.0);
        std::copy(z.begin(), z.end(), s.begin());
        double gs = 0.0;
        for (int a = 0; a < d_; ++a) gs += g[a] * s[a];
        return !(gs > 0.0);
    }

    /// In place: the lower triangle of a (d × d) becomes L, a = LLᵀ; false if not positive
    /// definite to rounding.
    static bool cholesky(Column& a, int d) {
        for (int j = 0; j < d; ++j) {
            double s = a[j * d + j];
            for (int m = 0; m < j; ++m) s -= a[j * d + m] * a[j * d + m];
            if (!(s > 0.0)) return false;
            const double lj = std::sqrt(s);
            a[j * d + j] = lj;
            for (int i = j + 1; i < d; ++i) {
                double t = a[i * d + j];
                for (int m = 0; m < j; ++m) t -= a[i * d + m] * a[j * d + m];
                a[i * d + j] = t / lj;
            }
        }
        return true;
    }

    /// x = (LLᵀ)⁻¹ b.
    static void cholesky_solve(const Column& l, int d, const Column& b, Column& x) {
        for (int i = 0; i < d; ++i) {
            double s = b[i];
            for (int m = 0; m < i; ++m) s -= l[i * d + m] * x[m];
            x[i] = s / l[i * d + i];
        }
        for (int i = d - 1; i >= 0; --i) {
            double s = x[i];
            for (int m = i + 1; m < d; ++m) s -= l[m * d + i] * x[m];
            x[i] = s / l[i * d + i];
        }
    }

    double quadratic_form(const Column& h, const Column& s) const {
        double q = 0.0;
        for (int a = 0; a < d_; ++a) {
            double r = 0.0;
            for (int b = 0; b < d_; ++b) r += h[static_cast<std::size_t>(a) * d_ + b] * s[b];
            q += s[a] * r;
        }
        return q;
    }

    /// sklearn's NewtonSolver.line_search from coef_ (f its loss, g the gradient of step 1,
    /// s the step): θ + ts with the raw predictions updated as η + t·η(s); on success coef_
    /// and raw_ move there.
    LineSearch line_search(double f, const Column& g, const Column& s) {
        constexpr double kBeta = 0.5, kSigma = 0.00048828125;  // 1/2, 2⁻¹¹
        const double eps16 = 16 * kEps;
        double gs = 0.0;
        for (int a = 0; a < d_; ++a) gs += g[a] * s[a];
        const double armijo = kSigma * gs;
        Column raw_step;
        raw_of(s, raw_step);
        double l1_old = -1.0;
        LineSearch r;
        Column coef(coef_.size()), raw(raw_.size());
        double t = 1.0;
        for (int i = 0; i < 21; ++i, t *= kBeta) {
            for (int a = 0; a < d_; ++a) coef[a] = coef_[a] + t * s[a];
            for (std::size_t q = 0; q < raw.size(); ++q) raw[q] = raw_[q] + t * raw_step[q];
            r.f = loss_gradient(coef, raw, r.gradient);
            const double improvement = r.f - f;
            bool ok = improvement <= t * armijo;
            if (!ok && std::fabs(improvement) <= std::fabs(f * eps16)) {
                if (l1_old < 0) {
                    l1_old = 0.0;
                    for (double v : g) l1_old += std::fabs(v);
                }
                double l1 = 0.0;
                for (double v : r.gradient) l1 += std::fabs(v);
                ok = l1 < l1_old;
            }
            if (ok) {
                coef_ = coef;
                raw_ = raw;
                r.accepted = true;
                return r;
            }
        }
        return r;
    }

    /// sklearn's finalize: a multinomial's intercepts centred (no probability changes).
    void finalize() {
        if (m_ == 1) return;
        double mean = 0.0;
        for (int c = 0; c < m_; ++c) mean += coef_[at(c, p_)];
        mean /= m_;
        for (int c = 0; c < m_; ++c) coef_[at(c, p_)] -= mean;
    }

    const Column& x_;
    std::int64_t n_;
    int p_;
    int m_;  ///< raw predictions per row: 1 (binary), k (multinomial)
    int d_;  ///< parameters: m (p + 1)
    const std::vector<std::int32_t>& label_;
    double l2_;  ///< l2_reg_strength = 1 / (C n)
    Column coef_;
    Column raw_;  ///< n × m, as the solver carries it (updated along the line search)
};

/// tigramite's logistic deviance of the discrete dependent variable on `cols`: 0 where it has
/// one level (tigramite's DummyClassifier), else that of the penalised fit, stopped where
/// sklearn's newton-cholesky stops (or at the optimum).
double logistic_deviance(const Levels& dep, const std::vector<Column>& cols, std::int64_t n, LogisticStop stop) {
    const auto k = static_cast<int>(dep.counts.size());
    if (k < 2) return 0.0;
    const auto p = static_cast<int>(cols.size());
    Column x(static_cast<std::size_t>(n * p));
    for (int j = 0; j < p; ++j)
        for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i * p + j)] = cols[j][i];
    LogisticModel fit(x, n, p, dep.index, k);
    if (stop == LogisticStop::Optimum || !fit.fit_sklearn()) fit.fit_optimum();
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
        res.statistic = logistic_deviance(l, zcols, n, stop) - logistic_deviance(l, rest, n, stop);
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
