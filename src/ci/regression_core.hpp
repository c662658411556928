// SPDX-License-Identifier: Apache-2.0
// The arithmetic of the regression test (ci/regression_ci.hpp) that the CPU (ci/regression_ci.cpp)
// and the GPU batch (kernels/regression_batch.cu) share, so that both round alike: numpy's
// pairwise sum as a stream of values, the moments of scipy's normaltest, the least-squares
// residual (centred, scaled columns, Householder QR with column pivoting; its sums of squares and
// dot products over rows in the order a warp of 32 lanes forms them, lane_sum, so that the GPU
// runs a query's rows on a warp's lanes with the same bits) and the logistic fits
// (scikit-learn 1.9.1's newton-cholesky, step for step, and its deviance). Everything here is
// +, −, ×, ÷ and sqrt (each correctly rounded on both sides; callers compile without FMA
// contraction: the library with -ffp-contract=off, the kernel file with --fmad=false) and
// xm::exp / xm::log (core/exact_math.hpp: the same bits on the host and the device, where
// glibc's and CUDA's exp and log differ in the last bit), with log1p built from them (xm::log1p). The
// functions read the regressors through a Design (row list, column pointers, level maps), so
// the same code walks a Dataset's columns on the host and the uploaded columns on the device,
// and keep every array in a caller's workspace (host vectors, or a slice of device memory).
// What stays on the host (glibc's log and pow): the entropy and the rest of normaltest's K²
// from these moments (which only choose the dependent variable), n log(RSS_Z / RSS_ZX) and
// chi2.sf.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/exact_math.hpp"
#include "core/hd.hpp"

/// Before a CUDAG_HD template whose GPU-only instantiations call __device__ functions (the
/// warp's, kernels/regression_warp.cuh): nvcc's execution-space check off for it.
#if defined(__CUDACC__)
#define CUDAG_HD_TEMPLATE _Pragma("nv_exec_check_disable")
#else
#define CUDAG_HD_TEMPLATE
#endif

namespace cudag::ci::regression_core {

inline constexpr double kEps = 0x1p-52;  ///< double's machine epsilon

/// numpy's pairwise recursion over n values (an array above 128 values summed as its halves,
/// split at n/2 rounded down to a multiple of 8; below, one leaf), walked leaf by leaf: `leaf`
/// is the current leaf's length; finish(its sum) adds it as numpy does and moves to the next
/// leaf, or, after the last, sets `done` and `total`.
struct PairwiseTree {
    static constexpr int kDepth = 32;  ///< halvings of n down to 128 (n < 2³⁹)
    std::int64_t right[kDepth];
    double left[kDepth];
    bool has_left[kDepth];
    int depth = 0;
    std::int64_t leaf = 0;
    bool done = false;
    double total = 0.0;

    CUDAG_HD void start(std::int64_t n) {
        depth = 0;
        done = false;
        descend(n);
    }
    /// Splits n down to its first leaf, pushing the right halves.
    CUDAG_HD void descend(std::int64_t n) {
        while (n > 128) {
            std::int64_t half = n / 2;
            half -= half % 8;
            right[depth] = n - half;
            has_left[depth] = false;
            ++depth;
            n = half;
        }
        leaf = n;
    }
    CUDAG_HD void finish(double val) {
        while (depth > 0) {
            const int t = depth - 1;
            if (!has_left[t]) {
                left[t] = val;
                has_left[t] = true;
                descend(right[t]);
                return;
            }
            val = left[t] + val;
            --depth;
        }
        total = val;
        done = true;
    }
};

/// numpy's sum of a contiguous double array (pairwise: blocks of at most 128 summed with eight
/// accumulators, halves of a longer array summed apart, the split at n/2 rounded down to a
/// multiple of 8), fed one value at a time in array order: start(n), n × add(v), then value().
/// Bit for bit numpy_sum of the same n values (tests/unit/ci/test_regression_core.cpp).
class PairwiseSum {
public:
    CUDAG_HD void start(std::int64_t n) {
        tree_.start(n);
        begin_leaf();
    }
    CUDAG_HD void add(double v) {
        if (leaf_n_ < 8) {
            s_ += v;
        } else if (leaf_c_ < 8) {
            r_[leaf_c_] = v;
        } else if (leaf_c_ < leaf_m_) {
            r_[leaf_c_ % 8] += v;
        } else {
            if (leaf_c_ == leaf_m_) s_ = tree();
            s_ += v;
        }
        if (++leaf_c_ == leaf_n_) {
            tree_.finish(leaf_n_ >= 8 && leaf_m_ == leaf_n_ ? tree() : s_);
            if (!tree_.done) begin_leaf();
        }
    }
    /// The sum, once the n values are in (0 for none).
    CUDAG_HD double value() const { return tree_.done ? tree_.total : 0.0; }

private:
    CUDAG_HD double tree() const { return ((r_[0] + r_[1]) + (r_[2] + r_[3])) + ((r_[4] + r_[5]) + (r_[6] + r_[7])); }
    CUDAG_HD void begin_leaf() {
        leaf_n_ = tree_.leaf;
        leaf_m_ = leaf_n_ - leaf_n_ % 8;
        leaf_c_ = 0;
        s_ = 0.0;
    }

    PairwiseTree tree_;
    std::int64_t leaf_n_ = 0, leaf_m_ = 0, leaf_c_ = 0;
    double r_[8];
    double s_ = 0.0;
};

/// numpy's sum of the leaf of n <= 128 values at a: below 8 a plain loop from 0, else eight
/// accumulators combined as a tree, then the rest.
CUDAG_HD inline double pairwise_leaf(const double* a, std::int64_t n) {
    if (n < 8) {
        double s = 0.0;
        for (std::int64_t i = 0; i < n; ++i) s += a[i];
        return s;
    }
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    const std::int64_t m = n - n % 8;
    for (std::int64_t i = 8; i < m; i += 8)
        for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (std::int64_t i = m; i < n; ++i) s += a[i];
    return s;
}

/// numpy's sum of the n values at a (PairwiseSum's bits, without its per-value bookkeeping):
/// the halves' sums, left then right, by an explicit stack (no recursion on the device).
CUDAG_HD inline double pairwise_sum(const double* a, std::int64_t n) {
    if (n <= 128) return pairwise_leaf(a, n);
    struct Frame {
        const double* a;
        std::int64_t n;
        double left;
        int state;  ///< 0: left half not summed, 1: right half not summed, 2: both
    };
    Frame st[32];
    int depth = 1;
    st[0] = Frame{a, n, 0.0, 0};
    double ret = 0.0;  // the sum the last finished frame returned
    while (depth > 0) {
        Frame& f = st[depth - 1];
        if (f.n <= 128) {
            ret = pairwise_leaf(f.a, f.n);
            --depth;
            continue;
        }
        std::int64_t half = f.n / 2;
        half -= half % 8;
        if (f.state == 0) {
            f.state = 1;
            st[depth++] = Frame{f.a, half, 0.0, 0};
        } else if (f.state == 1) {
            f.left = ret;
            f.state = 2;
            st[depth++] = Frame{f.a + half, f.n - half, 0.0, 0};
        } else {
            ret = f.left + ret;
            --depth;
        }
    }
    return ret;
}

/// The lanes of the warp that runs one query on the GPU (kernels/regression_batch.cu).
inline constexpr int kLanes = 32;

/// The sum of kLanes partial sums part[0 .. 32) in halves, part[j] + part[j + 16], then + 8,
/// 4, 2, 1: the value every lane holds after a butterfly of shuffles (xor 16, 8, 4, 2, 1; a + b
/// and b + a are the same double). Overwrites part.
CUDAG_HD inline double combine_lanes(double* part) {
    for (int w = kLanes / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) part[j] = part[j] + part[j + w];
    return part[0];
}

/// Σ f(i) over lo <= i < hi in the order a warp forms it with row i on lane i mod 32: each
/// lane's values in increasing i from 0.0, then combine_lanes. Not numpy's order: used where
/// tigramite's own arithmetic (LAPACK's) differs anyway (the least-squares fit's sums).
template <class F>
CUDAG_HD double lane_sum(std::int64_t lo, std::int64_t hi, F&& f) {
    double part[kLanes];
    for (int j = 0; j < kLanes; ++j) part[j] = 0.0;
    for (std::int64_t i = lo; i < hi; ++i) part[i & (kLanes - 1)] += f(i);
    return combine_lanes(part);
}

// ---- the regressors ---------------------------------------------------------------------

/// How a variable enters the design: as its value, as one 0/1 column per level that occurs,
/// or (Z empty) as tigramite's single column of ones.
enum VarKind : std::int32_t { kContinuous = 0, kDiscrete = 1, kOnes = 2 };

/// One variable of a design (or the dependent one). `col`: its values by data row (codes for a
/// discrete one); `map` (discrete): code → position among the levels that occur on the rows
/// (each row's code occurs); `width`: the columns it adds (1, or its levels that occur).
struct DesignVar {
    const double* col = nullptr;
    const std::int32_t* map = nullptr;
    std::int32_t width = 1;
    std::int32_t kind = kContinuous;
};

/// The rows and regressor columns of one fit: row t (0 ≤ t < n) is data row rows[t] (rows
/// null: t itself); the columns are those of vars[0 .. n_vars) in order, p in all.
struct Design {
    const std::int32_t* rows = nullptr;
    std::int64_t n = 0;
    const DesignVar* vars = nullptr;
    int n_vars = 0;
    int p = 0;
};

CUDAG_HD inline std::int64_t data_row(const Design& d, std::int64_t t) { return d.rows ? d.rows[t] : t; }

CUDAG_HD inline std::int32_t code_position(const DesignVar& v, std::int64_t r) {
    return v.map[static_cast<std::int32_t>(v.col[r])];
}

/// u[0 .. p): the regressors of data row r.
CUDAG_HD inline void fill_row(const Design& d, std::int64_t r, double* u) {
    int j = 0;
    for (int k = 0; k < d.n_vars; ++k) {
        const DesignVar& v = d.vars[k];
        if (v.kind == kContinuous) {
            u[j] = v.col[r];
        } else if (v.kind == kOnes) {
            u[j] = 1.0;
        } else {
            for (int l = 0; l < v.width; ++l) u[j + l] = 0.0;
            u[j + code_position(v, r)] = 1.0;
        }
        j += v.width;
    }
}

/// Regressor column j of data row r.
CUDAG_HD inline double column_value(const Design& d, std::int64_t r, int j) {
    for (int k = 0; k < d.n_vars; ++k) {
        const DesignVar& v = d.vars[k];
        if (j < v.width) {
            if (v.kind == kContinuous) return v.col[r];
            if (v.kind == kOnes) return 1.0;
            return code_position(v, r) == j ? 1.0 : 0.0;
        }
        j -= v.width;
    }
    return 0.0;
}

// ---- normaltest's moments ---------------------------------------------------------------

/// The mean and the central moments m2, m3, m4 (each Σ dᵏ / n, d = value − mean, the sums
/// numpy's) of column `col` on the design's rows, as scipy.stats.normaltest forms them.
struct Moments {
    double mean = 0.0, m2 = 0.0, m3 = 0.0, m4 = 0.0;
};

CUDAG_HD inline Moments moments(const double* col, const std::int32_t* rows, std::int64_t n) {
    PairwiseSum s;
    s.start(n);
    for (std::int64_t t = 0; t < n; ++t) s.add(col[rows ? rows[t] : t]);
    const double dn = static_cast<double>(n);
    Moments m;
    m.mean = s.value() / dn;
    PairwiseSum s2, s3, s4;
    s2.start(n);
    s3.start(n);
    s4.start(n);
    for (std::int64_t t = 0; t < n; ++t) {
        const double d = col[rows ? rows[t] : t] - m.mean;
        const double d2 = d * d;
        s2.add(d2);
        s3.add(d2 * d);
        s4.add(d2 * d2);
    }
    m.m2 = s2.value() / dn;
    m.m3 = s3.value() / dn;
    m.m4 = s4.value() / dn;
    return m;
}

// ---- least squares ----------------------------------------------------------------------

/// Doubles of workspace residual_sum_of_squares needs for n rows and p columns (and p ints).
CUDAG_HD inline std::int64_t linear_doubles(std::int64_t n, int p) { return (static_cast<std::int64_t>(p) + 1) * n; }

/// One thread's rows for the least-squares fit below (every row, in order): a Rows gives
/// each(lo, hi, f) (f(i) on its rows i in [lo, hi)), sum(lo, hi, f) (lane_sum's value, on
/// every thread), all(b), sync() (its threads' writes seen by all) and mean(c, n) (numpy's sum
/// / n). The GPU's warp (kernels/regression_warp.cuh) has row i on lane i mod 32.
struct SerialRows {
    template <class F>
    CUDAG_HD void each(std::int64_t lo, std::int64_t hi, F&& f) const {
        for (std::int64_t i = lo; i < hi; ++i) f(i);
    }
    template <class F>
    CUDAG_HD double sum(std::int64_t lo, std::int64_t hi, F&& f) const {
        return regression_core::lane_sum(lo, hi, f);
    }
    CUDAG_HD bool all(bool b) const { return b; }
    CUDAG_HD void sync() const {}
    CUDAG_HD double mean(const double* c, std::int64_t n) const { return pairwise_sum(c, n) / static_cast<double>(n); }
};

/// Centres c (n values; its mean, numpy's sum over n, subtracted) and returns the Euclidean
/// norm of the result (squares summed by lane_sum).
CUDAG_HD_TEMPLATE
template <class Rows>
CUDAG_HD double centre(const Rows& rows, double* c, std::int64_t n) {
    rows.sync();
    const double m = rows.mean(c, n);
    rows.sync();
    rows.each(0, n, [c, m](std::int64_t i) { c[i] -= m; });
    return sqrt(rows.sum(0, n, [c](std::int64_t i) { return c[i] * c[i]; }));
}

/// The residual sum of squares of the dependent column `dep` after least squares on an
/// intercept and the design's columns (sklearn's LinearRegression). The intercept is taken out
/// by centring the dependent variable and every column; constant columns are dropped (the
/// intercept spans them), the others scaled to unit norm (so that the rank test does not depend
/// on the columns' scales) and triangularised by Householder reflections with column pivoting
/// (the largest remaining norm first, the first of equal ones). A column whose remaining norm
/// is within ε·max(n, k) of the first pivot's (1) is linearly dependent on those before it (a
/// full one-hot set against the intercept) and left out: the residual, a projection, is the
/// same. `work`: linear_doubles(n, p) doubles; `perm`: p ints. `rows`: SerialRows, or the
/// GPU's warp.
CUDAG_HD_TEMPLATE
template <class Rows>
CUDAG_HD double residual_sum_of_squares(const Rows& rows, const Design& d, const double* dep, double* work,
                                        std::int32_t* perm) {
    const std::int64_t n = d.n;
    double* y = work;
    double* a = work + n;  // column c at a + c·n
    int k = 0;
    for (int j = 0; j < d.p; ++j) {
        double* c = a + static_cast<std::int64_t>(k) * n;
        const double first = column_value(d, data_row(d, 0), j);
        bool constant = true;
        rows.each(0, n, [&](std::int64_t t) {
            c[t] = column_value(d, data_row(d, t), j);
            constant = constant && c[t] == first;
        });
        if (rows.all(constant)) continue;
        const double norm = centre(rows, c, n);
        rows.each(0, n, [c, norm](std::int64_t t) { c[t] /= norm; });
        perm[k] = k;
        ++k;
    }
    rows.each(0, n, [&](std::int64_t t) { y[t] = dep[data_row(d, t)]; });
    centre(rows, y, n);
    const double tol = kEps * static_cast<double>(n > k ? n : k);
    std::int64_t rank = 0;
    for (std::int64_t r = 0; r < k && r < n; ++r) {
        rows.sync();  // v[r] below may be another thread's
        std::int64_t pivot = r;
        double best = -1.0;
        for (std::int64_t j = r; j < k; ++j) {
            const double* c = a + static_cast<std::int64_t>(perm[j]) * n;
            const double s = rows.sum(r, n, [c](std::int64_t i) { return c[i] * c[i]; });
            if (s > best) best = s, pivot = j;
        }
        const double norm = sqrt(best);
        if (!(norm > tol)) break;  // every remaining column depends on the pivots before
        const std::int32_t swap = perm[r];
        perm[r] = perm[pivot];
        perm[pivot] = swap;
        // The reflector v: the pivot column from row r, its first entry less alpha.
        const double* v = a + static_cast<std::int64_t>(perm[r]) * n;
        const double alpha = v[r] >= 0.0 ? -norm : norm;
        const double v0 = v[r] - alpha;
        const double vv = rows.sum(r, n, [v, v0, r](std::int64_t i) { return i == r ? v0 * v0 : v[i] * v[i]; });
        const double beta = 2.0 / vv;  // vv >= norm² > 0
        // Each thread reads and writes its own rows of x (and only reads v).
        const auto reflect = [&](double* x) {
            double s = rows.sum(r, n, [v, v0, r, x](std::int64_t i) { return i == r ? v0 * x[r] : v[i] * x[i]; });
            s *= beta;
            rows.each(r, n, [x, s, v, v0, r](std::int64_t i) { x[i] -= s * (i == r ? v0 : v[i]); });
        };
        for (std::int64_t j = r + 1; j < k; ++j) reflect(a + static_cast<std::int64_t>(perm[j]) * n);
        reflect(y);
        rank = r + 1;
    }
    // Qᵀy: its first `rank` entries lie in the columns' span, the rest is the residual.
    return rows.sum(rank, n, [y](std::int64_t i) { return y[i] * y[i]; });
}

/// residual_sum_of_squares on one thread.
CUDAG_HD inline double residual_sum_of_squares(const Design& d, const double* dep, double* work, std::int32_t* perm) {
    return residual_sum_of_squares(SerialRows{}, d, dep, work, perm);
}

// ---- penalised logistic regression ------------------------------------------------------

/// Raw predictions per row of a fit of k classes: 1 (binary), k (multinomial).
CUDAG_HD inline int logistic_outputs(int k) { return k == 2 ? 1 : k; }

/// Doubles of workspace a Logistic of n rows, p columns and k classes needs.
CUDAG_HD inline std::int64_t logistic_doubles(std::int64_t n, int p, int k) {
    const std::int64_t m = logistic_outputs(k), d = m * (p + 1);
    return 3 * n * m + 2 * d * d + 8 * d + (p + 1) + 2 * m + m * m;
}

/// std::max's choice: b where a < b, else a.
CUDAG_HD inline double max_of(double a, double b) { return a < b ? b : a; }

/// HalfBinomialLoss at raw prediction e for label y (0 or 1), in sklearn's branches: the loss
/// into `loss`, ∂ℓ/∂η returned.
CUDAG_HD inline double binomial_loss_gradient(double e, double y, double& loss) {
    if (e <= -37) {
        const double q = xm::exp(e);
        loss = q - y * e;
        return q - y;
    }
    if (e <= -2) {
        const double q = xm::exp(e);
        loss = xm::log1p(q) - y * e;
        return ((1 - y) * q - y) / (1 + q);
    }
    const double q = xm::exp(-e);
    loss = (e <= 18 ? xm::log1p(q) : q) + (1 - y) * e;
    return ((1 - y) - y * q) / (1 + q);
}

/// HalfBinomialLoss's gradient_hessian at e for label y: the pointwise Hessian into `w`, ∂ℓ/∂η
/// returned.
CUDAG_HD inline double binomial_gradient_hessian(double e, double y, double& w) {
    if (e > -37) {
        const double q = xm::exp(-e);
        w = q / ((1 + q) * (1 + q));
        return ((1 - y) - y * q) / (1 + q);
    }
    w = xm::exp(e);
    return w - y;
}

/// A row's deviance term −log clip(p_y, ε, 1 − ε), p as predict_proba forms it from the raw
/// predictions eta (m values; m = 1: binary, expit and one minus it; else the softmax after
/// subtracting the largest, its exponentials in scratch).
CUDAG_HD inline double deviance_term(const double* eta, int m, int yi, double* scratch) {
    double prob;
    if (m == 1) {
        const double p1 = 1.0 / (1.0 + xm::exp(-eta[0]));
        prob = yi == 1 ? p1 : 1.0 - p1;
    } else {
        double mx = eta[0];
        for (int c = 1; c < m; ++c) mx = max_of(mx, eta[c]);
        double sum = 0.0;
        for (int c = 0; c < m; ++c) sum += (scratch[c] = xm::exp(eta[c] - mx));
        prob = scratch[yi] / sum;
    }
    prob = prob < kEps ? kEps : (1.0 - kEps < prob ? 1.0 - kEps : prob);
    return -xm::log(prob);
}

/// The order of scikit-learn's Newton steps over a logistic fit's arithmetic, shared by
/// Logistic below (one thread) and the GPU's warp (kernels/regression_warp.cuh): Fit (derived
/// from NewtonSteps<Fit>, which it befriends) has raw_of, loss_gradient, gradient_hessian,
/// newton_step, quadratic_form, trial_step (line_search's trial point), add_step (θ += s),
/// and finalize, on its arrays coef_, trial_coef_, raw_, trial_raw_, raw_step_, g_,
/// trial_g_, scratch_g_, h_, s_ (d_ parameters, n_ rows).
template <class Fit>
class NewtonSteps {
public:
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
    CUDAG_HD_TEMPLATE
    CUDAG_HD bool fit_sklearn() {
        Fit& x = static_cast<Fit&>(*this);
        constexpr double kTol = 1e-4;
        constexpr int kMaxIter = 100;
        x.raw_of(x.coef_, x.raw_);
        double f = x.loss_gradient(x.coef_, x.raw_, x.scratch_g_);
        for (int iteration = 1; iteration <= kMaxIter; ++iteration) {
            if (!x.gradient_hessian(x.g_, x.h_)) return false;
            if (!x.newton_step(x.g_, x.h_, x.s_, true)) return false;
            if (!x.line_search(f, x.g_, x.s_, f)) return false;
            double g_max = 0.0;
            for (int a = 0; a < x.d_; ++a) g_max = max_of(g_max, fabs(x.trial_g_[a]));
            if (g_max <= kTol && 0.5 * x.quadratic_form(x.h_, x.s_) <= kTol) break;
        }
        // (max_iter reached without convergence: sklearn warns and keeps θ; so does this.)
        x.finalize();
        return true;
    }

    /// The optimum of f, by the same Newton steps, from the current θ: backtracking as
    /// sklearn's far from it; near it (½ sᵀHs <= 1e-8 (1/n + |f|)) full steps, because there
    /// the decrease drops below f's rounding and could not be seen while the coefficients, on
    /// which the deviance depends to first order, still move. Ends after the full step whose
    /// ½ sᵀHs is at most 1e-20 (1/n + |f|) (the gradient's rounding level), or where rounding
    /// leaves no descent direction.
    CUDAG_HD_TEMPLATE
    CUDAG_HD void fit_optimum() {
        Fit& x = static_cast<Fit&>(*this);
        x.raw_of(x.coef_, x.raw_);
        double f = x.loss_gradient(x.coef_, x.raw_, x.g_);
        constexpr int kMaxIterations = 200;
        for (int it = 0; it < kMaxIterations; ++it) {
            x.gradient_hessian(x.g_, x.h_);
            if (!x.newton_step(x.g_, x.h_, x.s_, false)) break;
            const double half_decrement = 0.5 * x.quadratic_form(x.h_, x.s_);
            const double scale = 1.0 / static_cast<double>(x.n_) + fabs(f);
            if (half_decrement <= 1e-8 * scale) {
                x.add_step();
                x.raw_of(x.coef_, x.raw_);
                f = x.loss_gradient(x.coef_, x.raw_, x.g_);
                if (half_decrement <= 1e-20 * scale) break;
                continue;
            }
            if (!x.line_search(f, x.g_, x.s_, f)) break;
        }
        x.finalize();
    }

    /// sklearn's NewtonSolver.line_search from coef_ (f its loss, g the gradient of step 1,
    /// s the step): θ + ts with the raw predictions updated as η + t·η(s); on success coef_
    /// and raw_ move there, the new loss goes to f_out and the new gradient is trial_g_.
    CUDAG_HD_TEMPLATE
    CUDAG_HD bool line_search(double f, const double* g, const double* s, double& f_out) {
        Fit& x = static_cast<Fit&>(*this);
        constexpr double kBeta = 0.5, kSigma = 0.00048828125;  // 1/2, 2⁻¹¹
        const double eps16 = 16 * kEps;
        double gs = 0.0;
        for (int a = 0; a < x.d_; ++a) gs += g[a] * s[a];
        const double armijo = kSigma * gs;
        x.raw_of(s, x.raw_step_);
        double l1_old = -1.0;
        double t = 1.0;
        for (int i = 0; i < 21; ++i, t *= kBeta) {
            x.trial_step(t, s);
            const double f_new = x.loss_gradient(x.trial_coef_, x.trial_raw_, x.trial_g_);
            const double improvement = f_new - f;
            bool ok = improvement <= t * armijo;
            if (!ok && fabs(improvement) <= fabs(f * eps16)) {
                if (l1_old < 0) {
                    l1_old = 0.0;
                    for (int a = 0; a < x.d_; ++a) l1_old += fabs(g[a]);
                }
                double l1 = 0.0;
                for (int a = 0; a < x.d_; ++a) l1 += fabs(x.trial_g_[a]);
                ok = l1 < l1_old;
            }
            if (ok) {
                double* c = x.coef_;
                x.coef_ = x.trial_coef_;
                x.trial_coef_ = c;
                double* r = x.raw_;
                x.raw_ = x.trial_raw_;
                x.trial_raw_ = r;
                f_out = f_new;
                return true;
            }
        }
        return false;
    }

protected:
    /// Row r's class probabilities (multinomial) as sklearn's sum_exp_minus_max, the log of
    /// the sum of exponentials returned.
    CUDAG_HD double softmax_row(const double* r, double* prob) const {
        const int m = static_cast<const Fit&>(*this).m_;
        double mx = r[0];
        for (int c = 1; c < m; ++c)
            if (mx < r[c]) mx = r[c];
        double sum = 0.0;
        for (int c = 0; c < m; ++c) sum += (prob[c] = xm::exp(r[c] - mx));
        for (int c = 0; c < m; ++c) prob[c] /= sum;
        return xm::log(sum) + mx;
    }

    /// The L2 penalty ½ l2 Σ W[c, j]² (j < p) of coef.
    CUDAG_HD double penalty(const double* coef) const {
        const Fit& x = static_cast<const Fit&>(*this);
        double w2 = 0.0;
        for (int j = 0; j < x.p_; ++j)
            for (int c = 0; c < x.m_; ++c) w2 += coef[x.at(c, j)] * coef[x.at(c, j)];
        return 0.5 * x.l2_ * w2;
    }
};

/// sklearn's LogisticRegression(C = 1) with an intercept on the design's rows for the classes
/// `label(r)` = dep.map[code of data row r] (0..k−1, k >= 2, each occurring), in sklearn's
/// parameterisation and scaling (LinearModelLoss): it minimises the mean loss plus the L2
/// penalty with l2_reg_strength = 1 / (C · n),
///   f(θ) = (1/n) Σᵢ ℓ(yᵢ, ηᵢ) + (1/2n) Σ (coefficients)²
/// (intercepts not penalised). Two classes (HalfBinomialLoss): θ = (w_0..w_{p−1}, b), one
/// raw prediction ηᵢ = xᵢ·w + b, ℓ = log(1 + e^η) − yη. More (HalfMultinomialLoss, the
/// symmetric multinomial): θ holds W (k × (p + 1), the last column the intercepts) ravelled
/// in Fortran order, θ[j·k + c] = W[c, j], ηᵢc = xᵢ·W_c + b_c, ℓ = log Σ_c e^ηᵢc − ηᵢ,yᵢ.
/// Every array lives in `work` (logistic_doubles(n, p, k) doubles).
class Logistic : public NewtonSteps<Logistic> {
    friend class NewtonSteps<Logistic>;

public:
    CUDAG_HD Logistic(const Design& x, const DesignVar& dep, int k, double* work)
        : x_(x),
          dep_(dep),
          n_(x.n),
          p_(x.p),
          m_(logistic_outputs(k)),
          d_(m_ * (x.p + 1)),
          l2_(1.0 / static_cast<double>(x.n)) {
        const std::int64_t nm = n_ * m_;
        raw_ = work;
        trial_raw_ = raw_ + nm;
        raw_step_ = trial_raw_ + nm;
        coef_ = raw_step_ + nm;
        trial_coef_ = coef_ + d_;
        g_ = trial_coef_ + d_;
        trial_g_ = g_ + d_;
        s_ = trial_g_ + d_;
        z_ = s_ + d_;
        e_ = z_ + d_;
        scratch_g_ = e_ + d_;
        h_ = scratch_g_ + d_;
        l_ = h_ + static_cast<std::int64_t>(d_) * d_;
        ui_ = l_ + static_cast<std::int64_t>(d_) * d_;
        prob_ = ui_ + (p_ + 1);
        gi_ = prob_ + m_;
        w_ = gi_ + m_;
        for (int a = 0; a < d_; ++a) coef_[a] = 0.0;
    }

    /// tigramite's deviance at the fitted θ: 2 Σᵢ −log clip(pᵢ,yᵢ, ε, 1 − ε) (numpy's sum),
    /// the probabilities as sklearn's predict_proba forms them from the decision function
    /// xW + b (binary: expit and one minus it; multinomial: softmax after subtracting each
    /// row's largest η).
    CUDAG_HD double deviance() {
        PairwiseSum terms;
        terms.start(n_);
        double* eta = gi_;  // m values
        for (std::int64_t t = 0; t < n_; ++t) {
            const std::int64_t r = data_row(x_, t);
            row_raw(r, coef_, eta);
            terms.add(deviance_term(eta, m_, label(r), prob_));
        }
        return 2.0 * terms.value();
    }

private:
    CUDAG_HD int label(std::int64_t r) const { return code_position(dep_, r); }
    /// θ's entry of class (column of W) c, feature j (p: the intercept).
    CUDAG_HD int at(int c, int j) const { return j * m_ + c; }

    /// ui_[0 .. p] of data row r: its regressors and the intercept's 1.
    CUDAG_HD void load_row(std::int64_t r) {
        fill_row(x_, r, ui_);
        ui_[p_] = 1.0;
    }

    /// η of data row r under `coef` (m values), its regressors in ui_ (load_row first).
    CUDAG_HD void eta_of(const double* coef, double* out) const {
        for (int c = 0; c < m_; ++c) {
            double s = 0.0;
            for (int j = 0; j < p_; ++j) s += ui_[j] * coef[at(c, j)];
            out[c] = s + coef[at(c, p_)];
        }
    }
    CUDAG_HD void row_raw(std::int64_t r, const double* coef, double* out) {
        load_row(r);
        eta_of(coef, out);
    }

    /// η = xWᵀ + b (n × m, row-major) of `coef`.
    CUDAG_HD void raw_of(const double* coef, double* raw) {
        for (std::int64_t t = 0; t < n_; ++t) row_raw(data_row(x_, t), coef, raw + t * m_);
    }

    /// grad[c, j] += gi[c] xᵢj for row i (regressors in ui_): accumulate_gradient's row.
    CUDAG_HD void add_gradient_row(double* grad) const {
        for (int j = 0; j <= p_; ++j) {
            const double xij = ui_[j];
            for (int c = 0; c < m_; ++c) grad[at(c, j)] += gi_[c] * xij;
        }
    }
    /// accumulate_gradient's end: + l2 W[c, j] (j < p).
    CUDAG_HD void add_penalty_gradient(const double* coef, double* grad) const {
        for (int j = 0; j < p_; ++j)
            for (int c = 0; c < m_; ++c) grad[at(c, j)] += l2_ * coef[at(c, j)];
    }

    /// f at `coef` (whose raw predictions are `raw`) and its gradient (LinearModelLoss.
    /// loss_gradient): per row the loss, gᵢ = ∂ℓ/∂η / n, then grad[c, j] = Σᵢ gᵢc xᵢj (rows in
    /// order) + l2 W[c, j]; f = numpy's sum of the losses / n + the penalty.
    CUDAG_HD double loss_gradient(const double* coef, const double* raw, double* grad) {
        const double inv_n = 1.0 / static_cast<double>(n_);
        for (int a = 0; a < d_; ++a) grad[a] = 0.0;
        PairwiseSum loss;
        loss.start(n_);
        for (std::int64_t t = 0; t < n_; ++t) {
            const std::int64_t row = data_row(x_, t);
            const double* r = raw + t * m_;
            const int yi = label(row);
            if (m_ == 1) {
                double term;
                gi_[0] = binomial_loss_gradient(r[0], yi, term);
                loss.add(term);
            } else {
                const double lse = softmax_row(r, prob_);
                loss.add(lse - r[yi]);
                for (int c = 0; c < m_; ++c) gi_[c] = prob_[c] - (yi == c ? 1.0 : 0.0);
            }
            for (int c = 0; c < m_; ++c) gi_[c] *= inv_n;
            load_row(row);
            add_gradient_row(grad);
        }
        add_penalty_gradient(coef, grad);
        return loss.value() / static_cast<double>(n_) + penalty(coef);
    }

    /// Gradient and Hessian of f at coef_ (raw predictions raw_; LinearModelLoss.
    /// gradient_hessian): H = (1/n) Σᵢ uᵢuᵢᵀ ⊗ hᵢ + l2 on the coefficients' diagonal, with
    /// hᵢ = pᵢ(1 − pᵢ) (binary, its absolute value) or hᵢ,cl = pᵢc([c = l] − pᵢl)
    /// (multinomial). False where sklearn would fall back to L-BFGS: binary, more than a
    /// quarter of the hᵢ not positive (g and H are complete all the same).
    CUDAG_HD bool gradient_hessian(double* grad, double* hess) {
        const double inv_n = 1.0 / static_cast<double>(n_);
        const std::int64_t dd = static_cast<std::int64_t>(d_) * d_;
        for (std::int64_t a = 0; a < dd; ++a) hess[a] = 0.0;
        for (int a = 0; a < d_; ++a) grad[a] = 0.0;
        std::int64_t not_positive = 0;
        for (std::int64_t t = 0; t < n_; ++t) {
            const std::int64_t row = data_row(x_, t);
            const double* r = raw_ + t * m_;
            const int yi = label(row);
            if (m_ == 1) {
                gi_[0] = binomial_gradient_hessian(r[0], yi, w_[0]);
                if (!(w_[0] > 0.0)) ++not_positive;
                w_[0] = fabs(w_[0]) * inv_n;
            } else {
                softmax_row(r, prob_);
                for (int c = 0; c < m_; ++c) {
                    gi_[c] = prob_[c] - (yi == c ? 1.0 : 0.0);
                    w_[c * m_ + c] = prob_[c] * (1 - prob_[c]) * inv_n;
                    for (int l = c + 1; l < m_; ++l) w_[c * m_ + l] = w_[l * m_ + c] = -prob_[c] * prob_[l] * inv_n;
                }
            }
            for (int c = 0; c < m_; ++c) gi_[c] *= inv_n;
            load_row(row);
            for (int j = 0; j <= p_; ++j)
                for (int c = 0; c < m_; ++c) {
                    double* hrow = hess + static_cast<std::int64_t>(at(c, j)) * d_;
                    for (int q = 0; q <= j; ++q)
                        for (int l = 0; l < m_; ++l) hrow[at(l, q)] += ui_[j] * w_[c * m_ + l] * ui_[q];
                }
            add_gradient_row(grad);
        }
        add_penalty_gradient(coef_, grad);
        // Filled: the blocks of feature pairs q <= j (all of a diagonal block); mirror the rest.
        for (int a = 0; a < d_; ++a)
            for (int b = (a / m_ + 1) * m_; b < d_; ++b)
                hess[static_cast<std::int64_t>(a) * d_ + b] = hess[static_cast<std::int64_t>(b) * d_ + a];
        for (int j = 0; j < p_; ++j)
            for (int c = 0; c < m_; ++c) hess[static_cast<std::int64_t>(at(c, j)) * (d_ + 1)] += l2_;
        if (m_ > 1) {  // the last class's intercept is held at 0
            const int last = d_ - 1;
            grad[last] = 0.0;
            for (int a = 0; a < d_; ++a)
                hess[static_cast<std::int64_t>(a) * d_ + last] = hess[static_cast<std::int64_t>(last) * d_ + a] = 0.0;
        }
        return !(m_ == 1 && 4 * not_positive > n_);
    }

    /// s = −H⁻¹g over the free entries (all but a multinomial's last intercept, whose s is
    /// 0), by Cholesky; false where H is not positive definite to rounding, s is not a
    /// descent direction, or (`sklearn`) scipy.linalg.solve would warn: the reciprocal
    /// 1-norm condition number below ε/2.
    CUDAG_HD bool newton_step(const double* g, const double* h, double* s, bool sklearn) {
        const int d = m_ > 1 ? d_ - 1 : d_;
        double* l = l_;
        for (int i = 0; i < d; ++i)
            for (int j = 0; j < d; ++j) l[i * d + j] = h[static_cast<std::int64_t>(i) * d_ + j];
        double norm1 = 0.0;
        for (int j = 0; j < d; ++j) {
            double col = 0.0;
            for (int i = 0; i < d; ++i) col += fabs(l[i * d + j]);
            norm1 = max_of(norm1, col);
        }
        if (!cholesky(l, d)) return false;
        if (sklearn) {
            // ‖H⁻¹‖₁ (exactly, where LAPACK's sycon estimates it from below): the largest
            // column sum of |H⁻¹|, one column at a time.
            double inv_norm1 = 0.0;
            for (int j = 0; j < d; ++j) {
                for (int a = 0; a < d; ++a) e_[a] = 0.0;
                e_[j] = 1.0;
                cholesky_solve(l, d, e_, z_);
                double col = 0.0;
                for (int a = 0; a < d; ++a) col += fabs(z_[a]);
                inv_norm1 = max_of(inv_norm1, col);
            }
            if (!(1.0 / (norm1 * inv_norm1) >= 0.5 * kEps)) return false;  // dlamch('E') = ε/2
        }
        for (int a = 0; a < d; ++a) e_[a] = -g[a];
        cholesky_solve(l, d, e_, z_);
        for (int a = 0; a < d_; ++a) s[a] = a < d ? z_[a] : 0.0;
        double gs = 0.0;
        for (int a = 0; a < d_; ++a) gs += g[a] * s[a];
        return !(gs > 0.0);
    }

    /// In place: the lower triangle of a (d × d) becomes L, a = LLᵀ; false if not positive
    /// definite to rounding.
    CUDAG_HD static bool cholesky(double* a, int d) {
        for (int j = 0; j < d; ++j) {
            double s = a[j * d + j];
            for (int m = 0; m < j; ++m) s -= a[j * d + m] * a[j * d + m];
            if (!(s > 0.0)) return false;
            const double lj = sqrt(s);
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
    CUDAG_HD static void cholesky_solve(const double* l, int d, const double* b, double* x) {
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

    CUDAG_HD double quadratic_form(const double* h, const double* s) const {
        double q = 0.0;
        for (int a = 0; a < d_; ++a) {
            double r = 0.0;
            for (int b = 0; b < d_; ++b) r += h[static_cast<std::int64_t>(a) * d_ + b] * s[b];
            q += s[a] * r;
        }
        return q;
    }

    /// line_search's trial point θ + ts and its raw predictions η + t·η(s).
    CUDAG_HD void trial_step(double t, const double* s) {
        for (int a = 0; a < d_; ++a) trial_coef_[a] = coef_[a] + t * s[a];
        const std::int64_t nm = n_ * m_;
        for (std::int64_t q = 0; q < nm; ++q) trial_raw_[q] = raw_[q] + t * raw_step_[q];
    }

    /// θ += s (fit_optimum's full step).
    CUDAG_HD void add_step() {
        for (int a = 0; a < d_; ++a) coef_[a] += s_[a];
    }

    /// sklearn's finalize: a multinomial's intercepts centred (no probability changes).
    CUDAG_HD void finalize() {
        if (m_ == 1) return;
        double mean = 0.0;
        for (int c = 0; c < m_; ++c) mean += coef_[at(c, p_)];
        mean /= m_;
        for (int c = 0; c < m_; ++c) coef_[at(c, p_)] -= mean;
    }

    Design x_;
    DesignVar dep_;
    std::int64_t n_;
    int p_;
    int m_;                                 ///< raw predictions per row: 1 (binary), k (multinomial)
    int d_;                                 ///< parameters: m (p + 1)
    double l2_;                             ///< l2_reg_strength = 1 / (C n)
    double *raw_, *trial_raw_, *raw_step_;  ///< n × m each
    double *coef_, *trial_coef_, *g_, *trial_g_, *s_, *z_, *e_, *scratch_g_;  ///< d each
    double *h_, *l_;                                                          ///< d × d each
    double *ui_, *prob_, *gi_, *w_;                                           ///< p + 1, m, m, m × m
};

/// tigramite's logistic deviance of the discrete dependent variable (k levels on the rows) on
/// the design: 0 where it has one level (tigramite's DummyClassifier), else that of the
/// penalised fit, stopped where sklearn's newton-cholesky stops (or, `optimum`, at the optimum;
/// also where sklearn would leave for L-BFGS-B). `work`: logistic_doubles(n, p, k) doubles.
CUDAG_HD inline double logistic_deviance(const Design& x, const DesignVar& dep, int k, bool optimum, double* work) {
    if (k < 2) return 0.0;
    Logistic fit(x, dep, k, work);
    if (optimum || !fit.fit_sklearn()) fit.fit_optimum();
    return fit.deviance();
}

}  // namespace cudag::ci::regression_core
