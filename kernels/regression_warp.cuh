// SPDX-License-Identifier: Apache-2.0
// The regression test's arithmetic (ci/regression_core.hpp) run by one warp per query
// (kernels/regression_batch.cu), the bits of the host's single-threaded functions:
//  - rows are spread over the lanes (row t on lane t mod 32) wherever each row's values are
//    independent (building the design, the raw predictions, per-row losses and gradients);
//  - numpy's pairwise sums (means, moments, the logistic loss and deviance) in numpy's own
//    tree: its leaves of up to 128 values four at a time, eight lanes a leaf (the eight
//    accumulators), the accumulators combined by shuffles in numpy's order, the remainder and
//    the halves' sums added as numpy adds them;
//  - the least-squares fit's sums (regression_core::lane_sum: lane i mod 32, then halves), by
//    a butterfly of shuffles;
//  - the logistic fit's sums over rows of the gradient and Hessian, which the host adds row by
//    row: one lane per entry, over the rows in order (the rows' factors computed beforehand by
//    all lanes); its small dense algebra (Cholesky, solves) by lane, in the host's order.
// Every lane of a warp holds the same control state (the sums are broadcast), so that branches
// on them are uniform; __syncwarp orders a lane's writes before other lanes' reads.
#pragma once

#include <cstdint>

#include "ci/regression_core.hpp"
#include "core/exact_math.hpp"

namespace cudag::cuda::regression_warp {

namespace core = ci::regression_core;

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarp = core::kLanes;
constexpr int kMaxColumns = 64;  ///< regressor columns of a least-squares fit (its pivot order)

__device__ inline int lane_id() { return static_cast<int>(threadIdx.x) & (kWarp - 1); }

/// Every lane's v summed as core::combine_lanes adds them; the same bits on every lane.
__device__ inline double lanes_total(double v) {
    for (int w = kWarp / 2; w >= 1; w /= 2) v += __shfl_xor_sync(kFull, v, w);
    return v;
}

/// core::lane_sum(lo, hi, f) by the warp: f(i) is called on lane i mod 32 only.
template <class F>
__device__ double lane_sum(std::int64_t lo, std::int64_t hi, F f) {
    double s = 0.0;
    for (std::int64_t i = lo + ((lane_id() - lo) & (kWarp - 1)); i < hi; i += kWarp) s += f(i);
    return lanes_total(s);
}

/// numpy's sum of f(0), ..., f(n − 1) (core::pairwise_sum's bits); every lane gets it. f(i) is
/// called once per i (below 8 values: by every lane), on any lane.
template <class F>
__device__ double pairwise_sum(std::int64_t n, F f) {
    if (n < 8) {
        double s = 0.0;
        for (std::int64_t i = 0; i < n; ++i) s += f(i);
        return s;
    }
    const int lane = lane_id(), group = lane / 8, j = lane % 8;
    core::PairwiseTree walk, sums;  // walk runs ahead, listing the leaves; sums adds their sums
    walk.start(n);
    sums.start(n);
    std::int64_t at = 0;  // the first value of walk's leaf
    while (!sums.done) {
        std::int64_t my_at = 0, my_len = 0;
        int leaves = 0;
        for (; leaves < 4 && !walk.done; ++leaves) {
            if (leaves == group) my_at = at, my_len = walk.leaf;
            at += walk.leaf;
            walk.finish(0.0);
        }
        // numpy's leaf: r[j] = a[j], r[j] += a[i + j] for i = 8, 16, ... below len − len % 8.
        const std::int64_t m = my_len - my_len % 8;
        double r = 0.0;
        if (my_len > 0) {
            r = f(my_at + j);
            for (std::int64_t i = 8 + j; i < m; i += 8) r += f(my_at + i);
        }
        // ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) on every lane of the group.
        r += __shfl_xor_sync(kFull, r, 1);
        r += __shfl_xor_sync(kFull, r, 2);
        r += __shfl_xor_sync(kFull, r, 4);
        if (j == 0)
            for (std::int64_t i = m; i < my_len; ++i) r += f(my_at + i);
        for (int g = 0; g < leaves; ++g) sums.finish(__shfl_sync(kFull, r, 8 * g));
    }
    return sums.total;
}

/// core::moments by the warp.
__device__ inline core::Moments moments(const double* col, const std::int32_t* rows, std::int64_t n) {
    const auto value = [col, rows](std::int64_t t) { return col[rows ? rows[t] : t]; };
    const double dn = static_cast<double>(n);
    core::Moments m;
    m.mean = pairwise_sum(n, value) / dn;
    const double mean = m.mean;
    // Σ dᵏ / n for k = 2, 3, 4 (d² · d and d² · d², as core::moments forms them).
    const auto central = [&](int k) {
        return pairwise_sum(n,
                            [&](std::int64_t t) {
                                const double d = value(t) - mean;
                                const double d2 = d * d;
                                return k == 2 ? d2 : (k == 3 ? d2 * d : d2 * d2);
                            }) /
               dn;
    };
    m.m2 = central(2);
    m.m3 = central(3);
    m.m4 = central(4);
    return m;
}

/// core::SerialRows' interface on a warp: row i on lane i mod 32.
struct WarpRows {
    template <class F>
    __device__ void each(std::int64_t lo, std::int64_t hi, F&& f) const {
        for (std::int64_t i = lo + ((lane_id() - lo) & (kWarp - 1)); i < hi; i += kWarp) f(i);
    }
    template <class F>
    __device__ double sum(std::int64_t lo, std::int64_t hi, F&& f) const {
        return regression_warp::lane_sum(lo, hi, f);
    }
    __device__ bool all(bool b) const { return __all_sync(kFull, b); }
    __device__ void sync() const { __syncwarp(); }
    __device__ double mean(const double* c, std::int64_t n) const {
        return pairwise_sum(n, [c](std::int64_t i) { return c[i]; }) / static_cast<double>(n);
    }
};

/// core::residual_sum_of_squares by the warp (work: core::linear_doubles(n, p); p <= 64).
__device__ inline double residual_sum_of_squares(const core::Design& d, const double* dep, double* work) {
    std::int32_t perm[kMaxColumns];  // the same on every lane
    return core::residual_sum_of_squares(WarpRows{}, d, dep, work, perm);
}

// ---- the logistic fit -------------------------------------------------------------------

/// Doubles of workspace a warp's Logistic of n rows, p columns and k classes needs.
__host__ __device__ inline std::int64_t logistic_doubles(std::int64_t n, int p, int k) {
    const std::int64_t m = core::logistic_outputs(k), d = m * (p + 1);
    // raw, trial raw, raw step, per-row factors g and h (n × m each), the design (n × p), the
    // per-row losses (n); θ, trial θ, g, trial g, s, scratch g, the solve's z, per-column
    // values (d each); H, L (d × d each); the lanes' solves (32 × d).
    return 5 * n * m + n * p + n + 8 * d + 2 * d * d + kWarp * d;
}

/// core::Logistic by one warp, step for step and bit for bit (see core::Logistic for what
/// each step is; only the work's distribution differs), the same core::NewtonSteps.
class Logistic : public core::NewtonSteps<Logistic> {
    friend class core::NewtonSteps<Logistic>;

public:
    __device__ Logistic(const core::Design& x, const core::DesignVar& dep, int k, double* work)
        : x_(x),
          dep_(dep),
          n_(x.n),
          p_(x.p),
          m_(core::logistic_outputs(k)),
          d_(m_ * (x.p + 1)),
          l2_(1.0 / static_cast<double>(x.n)),
          lane_(lane_id()) {
        const std::int64_t nm = n_ * m_;
        raw_ = work;
        trial_raw_ = raw_ + nm;
        raw_step_ = trial_raw_ + nm;
        row_g_ = raw_step_ + nm;
        row_h_ = row_g_ + nm;
        design_ = row_h_ + nm;
        row_loss_ = design_ + n_ * p_;
        coef_ = row_loss_ + n_;
        trial_coef_ = coef_ + d_;
        g_ = trial_coef_ + d_;
        trial_g_ = g_ + d_;
        s_ = trial_g_ + d_;
        scratch_g_ = s_ + d_;
        z_ = scratch_g_ + d_;
        col_ = z_ + d_;
        h_ = col_ + d_;
        l_ = h_ + static_cast<std::int64_t>(d_) * d_;
        lanes_ = l_ + static_cast<std::int64_t>(d_) * d_;
        for (int a = lane_; a < d_; a += kWarp) coef_[a] = 0.0;
        // The design, column-major: regressor j of row t at design_[j n + t].
        for (std::int64_t t = lane_; t < n_; t += kWarp) {
            const std::int64_t r = core::data_row(x_, t);
            for (int j = 0; j < p_; ++j) design_[j * n_ + t] = core::column_value(x_, r, j);
        }
        __syncwarp();
    }

    __device__ double deviance() {
        __syncwarp();
        for (std::int64_t t = lane_; t < n_; t += kWarp) {
            double* eta = raw_step_ + t * m_;  // free by now
            eta_of(coef_, t, eta);
            row_loss_[t] = core::deviance_term(eta, m_, label(t), row_h_ + t * m_);
        }
        __syncwarp();
        const double* terms = row_loss_;
        return 2.0 * pairwise_sum(n_, [terms](std::int64_t t) { return terms[t]; });
    }

private:
    __device__ int label(std::int64_t t) const { return core::code_position(dep_, core::data_row(x_, t)); }
    __device__ int at(int c, int j) const { return j * m_ + c; }

    /// η of row t under coef (core::Logistic::eta_of).
    __device__ void eta_of(const double* coef, std::int64_t t, double* out) const {
        for (int c = 0; c < m_; ++c) {
            double s = 0.0;
            for (int j = 0; j < p_; ++j) s += design_[j * n_ + t] * coef[at(c, j)];
            out[c] = s + coef[at(c, p_)];
        }
    }

    /// raw = η of every row under coef (coef written before by any lane).
    __device__ void raw_of(const double* coef, double* raw) {
        __syncwarp();
        for (std::int64_t t = lane_; t < n_; t += kWarp) eta_of(coef, t, raw + t * m_);
        __syncwarp();
    }

    /// grad[a] for a = at(c, j): Σ over the rows in order of row_g_[t m + c] xᵢⱼ, plus the
    /// penalty's l2 W[c, j] (core::Logistic's add_gradient_row per row, add_penalty_gradient).
    __device__ void gradient_from_rows(const double* coef, double* grad) const {
        for (int a = lane_; a < d_; a += kWarp) {
            const int j = a / m_, c = a % m_;
            double s = 0.0;
            if (j == p_) {
                for (std::int64_t t = 0; t < n_; ++t) s += row_g_[t * m_ + c] * 1.0;
            } else {
                const double* xj = design_ + j * n_;
                for (std::int64_t t = 0; t < n_; ++t) s += row_g_[t * m_ + c] * xj[t];
            }
            if (j < p_) s += l2_ * coef[a];
            grad[a] = s;
        }
    }

    /// core::Logistic::loss_gradient.
    __device__ double loss_gradient(const double* coef, const double* raw, double* grad) {
        const double inv_n = 1.0 / static_cast<double>(n_);
        __syncwarp();
        for (std::int64_t t = lane_; t < n_; t += kWarp) {
            const double* r = raw + t * m_;
            double* gi = row_g_ + t * m_;
            const int yi = label(t);
            if (m_ == 1) {
                gi[0] = core::binomial_loss_gradient(r[0], yi, row_loss_[t]);
            } else {
                const double lse = softmax_row(r, gi);
                row_loss_[t] = lse - r[yi];
                for (int c = 0; c < m_; ++c) gi[c] = gi[c] - (yi == c ? 1.0 : 0.0);
            }
            for (int c = 0; c < m_; ++c) gi[c] *= inv_n;
        }
        __syncwarp();
        const double* terms = row_loss_;
        const double loss = pairwise_sum(n_, [terms](std::int64_t t) { return terms[t]; });
        gradient_from_rows(coef, grad);
        __syncwarp();
        return loss / static_cast<double>(n_) + penalty(coef);
    }

    /// core::Logistic::gradient_hessian. Per row: row_g_ the scaled gradient factors, row_h_
    /// the probabilities (multinomial) or the weight |w|/n (binary); then each entry of the
    /// Hessian's filled blocks (feature pairs q <= j) by one lane over the rows in order.
    __device__ bool gradient_hessian(double* grad, double* hess) {
        const double inv_n = 1.0 / static_cast<double>(n_);
        int not_positive = 0;  // this lane's rows
        __syncwarp();
        for (std::int64_t t = lane_; t < n_; t += kWarp) {
            const double* r = raw_ + t * m_;
            double* gi = row_g_ + t * m_;
            const int yi = label(t);
            if (m_ == 1) {
                double w;
                gi[0] = core::binomial_gradient_hessian(r[0], yi, w);
                if (!(w > 0.0)) ++not_positive;
                row_h_[t] = fabs(w) * inv_n;
            } else {
                double* prob = row_h_ + t * m_;
                softmax_row(r, prob);
                for (int c = 0; c < m_; ++c) gi[c] = prob[c] - (yi == c ? 1.0 : 0.0);
            }
            for (int c = 0; c < m_; ++c) gi[c] *= inv_n;
        }
        std::int64_t not_positive_all = 0;
        for (int w = kWarp / 2; w >= 1; w /= 2) not_positive += __shfl_xor_sync(kFull, not_positive, w);
        not_positive_all = not_positive;
        __syncwarp();
        // The filled entries: (at(c, j), at(l, q)) for q <= j, numbered (j (j + 1) / 2 + q) m² + c m + l.
        const int mm = m_ * m_;
        const int entries = (p_ + 1) * (p_ + 2) / 2 * mm;
        struct Entry {
            int c, l, a, b;         // classes, H's row and column
            const double *xj, *xq;  // the features' columns (null: the intercept's 1)
        };
        const auto entry = [&](int e) {
            const int pq = e / mm, cl = e % mm, c = cl / m_, l = cl % m_;
            int j = 0;
            while ((j + 1) * (j + 2) / 2 <= pq) ++j;
            const int q = pq - j * (j + 1) / 2;
            return Entry{
                c, l, at(c, j), at(l, q), j == p_ ? nullptr : design_ + j * n_, q == p_ ? nullptr : design_ + q * n_};
        };
        const auto term = [&](const Entry& u, std::int64_t t) {
            double w;
            if (m_ == 1) {
                w = row_h_[t];
            } else {
                const double* prob = row_h_ + t * m_;
                w = u.c == u.l ? prob[u.c] * (1 - prob[u.c]) * inv_n : -prob[u.c] * prob[u.l] * inv_n;
            }
            return (u.xj ? u.xj[t] : 1.0) * w * (u.xq ? u.xq[t] : 1.0);
        };
        // Two entries a lane at a time (two independent sums in flight), each over the rows in order.
        for (int e = lane_; e < entries; e += 2 * kWarp) {
            const bool two = e + kWarp < entries;
            const Entry u = entry(e), v = entry(two ? e + kWarp : e);
            double hu = 0.0, hv = 0.0;
            for (std::int64_t t = 0; t < n_; ++t) {
                hu += term(u, t);
                hv += term(v, t);
            }
            hess[static_cast<std::int64_t>(u.a) * d_ + u.b] = hu;
            if (two) hess[static_cast<std::int64_t>(v.a) * d_ + v.b] = hv;
        }
        gradient_from_rows(coef_, grad);
        __syncwarp();
        for (int a = lane_; a < d_; a += kWarp)
            for (int b = (a / m_ + 1) * m_; b < d_; ++b)
                hess[static_cast<std::int64_t>(a) * d_ + b] = hess[static_cast<std::int64_t>(b) * d_ + a];
        __syncwarp();
        for (int a = lane_; a < d_; a += kWarp)
            if (a / m_ < p_) hess[static_cast<std::int64_t>(a) * (d_ + 1)] += l2_;
        __syncwarp();
        if (m_ > 1) {
            const int last = d_ - 1;
            if (lane_ == 0) grad[last] = 0.0;
            for (int a = lane_; a < d_; a += kWarp)
                hess[static_cast<std::int64_t>(a) * d_ + last] = hess[static_cast<std::int64_t>(last) * d_ + a] = 0.0;
            __syncwarp();
        }
        return !(m_ == 1 && 4 * not_positive_all > n_);
    }

    /// core::Logistic::newton_step.
    __device__ bool newton_step(const double* g, const double* h, double* s, bool sklearn) {
        const int d = m_ > 1 ? d_ - 1 : d_;
        double* l = l_;
        __syncwarp();
        for (int i = lane_; i < d; i += kWarp)
            for (int j = 0; j < d; ++j) l[i * d + j] = h[static_cast<std::int64_t>(i) * d_ + j];
        __syncwarp();
        // The 1-norm: column sums by lane, their maximum in column order.
        for (int j = lane_; j < d; j += kWarp) {
            double col = 0.0;
            for (int i = 0; i < d; ++i) col += fabs(l[i * d + j]);
            col_[j] = col;
        }
        __syncwarp();
        double norm1 = 0.0;
        for (int j = 0; j < d; ++j) norm1 = core::max_of(norm1, col_[j]);
        __syncwarp();
        if (!cholesky(l, d)) return false;
        if (sklearn) {
            // ‖H⁻¹‖₁: column j of H⁻¹ by lane j mod 32 (its own solve), the maximum in order.
            for (int j = lane_; j < d; j += kWarp) {
                double* zj = lanes_ + static_cast<std::int64_t>(lane_) * d_;
                solve_unit(l, d, j, zj);
                double col = 0.0;
                for (int a = 0; a < d; ++a) col += fabs(zj[a]);
                col_[j] = col;
            }
            __syncwarp();
            double inv_norm1 = 0.0;
            for (int j = 0; j < d; ++j) inv_norm1 = core::max_of(inv_norm1, col_[j]);
            if (!(1.0 / (norm1 * inv_norm1) >= 0.5 * core::kEps)) return false;
        }
        if (lane_ == 0) {
            cholesky_solve_neg(l, d, g, z_);
            for (int a = 0; a < d_; ++a) s[a] = a < d ? z_[a] : 0.0;
        }
        __syncwarp();
        double gs = 0.0;
        for (int a = 0; a < d_; ++a) gs += g[a] * s[a];
        return !(gs > 0.0);
    }

    /// core::Logistic::cholesky by the warp: column j's entries below the diagonal by lane.
    __device__ bool cholesky(double* a, int d) const {
        for (int j = 0; j < d; ++j) {
            double s = a[j * d + j];
            for (int m = 0; m < j; ++m) s -= a[j * d + m] * a[j * d + m];
            if (!(s > 0.0)) return false;
            const double lj = sqrt(s);
            __syncwarp();  // every lane has read a[j d + j]
            if (lane_ == 0) a[j * d + j] = lj;
            for (int i = j + 1 + lane_; i < d; i += kWarp) {
                double t = a[i * d + j];
                for (int m = 0; m < j; ++m) t -= a[i * d + m] * a[j * d + m];
                a[i * d + j] = t / lj;
            }
            __syncwarp();
        }
        return true;
    }

    /// core::Logistic::cholesky_solve of e_j (one lane).
    __device__ static void solve_unit(const double* l, int d, int unit, double* x) {
        for (int i = 0; i < d; ++i) {
            double s = i == unit ? 1.0 : 0.0;
            for (int m = 0; m < i; ++m) s -= l[i * d + m] * x[m];
            x[i] = s / l[i * d + i];
        }
        back_substitute(l, d, x);
    }
    /// core::Logistic::cholesky_solve of −g (one lane).
    __device__ static void cholesky_solve_neg(const double* l, int d, const double* g, double* x) {
        for (int i = 0; i < d; ++i) {
            double s = -g[i];
            for (int m = 0; m < i; ++m) s -= l[i * d + m] * x[m];
            x[i] = s / l[i * d + i];
        }
        back_substitute(l, d, x);
    }
    __device__ static void back_substitute(const double* l, int d, double* x) {
        for (int i = d - 1; i >= 0; --i) {
            double s = x[i];
            for (int m = i + 1; m < d; ++m) s -= l[m * d + i] * x[m];
            x[i] = s / l[i * d + i];
        }
    }

    /// core::Logistic::quadratic_form: (H s)_a by lane, then Σ s_a (H s)_a in order.
    __device__ double quadratic_form(const double* h, const double* s) {
        __syncwarp();
        for (int a = lane_; a < d_; a += kWarp) {
            double r = 0.0;
            for (int b = 0; b < d_; ++b) r += h[static_cast<std::int64_t>(a) * d_ + b] * s[b];
            col_[a] = r;
        }
        __syncwarp();
        double q = 0.0;
        for (int a = 0; a < d_; ++a) q += s[a] * col_[a];
        __syncwarp();
        return q;
    }

    /// core::Logistic::trial_step.
    __device__ void trial_step(double t, const double* s) {
        __syncwarp();  // the last trial's readers done
        for (int a = lane_; a < d_; a += kWarp) trial_coef_[a] = coef_[a] + t * s[a];
        const std::int64_t nm = n_ * m_;
        for (std::int64_t q = lane_; q < nm; q += kWarp) trial_raw_[q] = raw_[q] + t * raw_step_[q];
    }

    /// θ += s.
    __device__ void add_step() {
        __syncwarp();
        for (int a = lane_; a < d_; a += kWarp) coef_[a] += s_[a];
        __syncwarp();
    }

    __device__ void finalize() {
        __syncwarp();
        if (m_ == 1) return;
        double mean = 0.0;
        for (int c = 0; c < m_; ++c) mean += coef_[at(c, p_)];
        mean /= m_;
        __syncwarp();
        if (lane_ == 0)
            for (int c = 0; c < m_; ++c) coef_[at(c, p_)] -= mean;
        __syncwarp();
    }

    core::Design x_;
    core::DesignVar dep_;
    std::int64_t n_;
    int p_;
    int m_;
    int d_;
    double l2_;
    int lane_;
    double *raw_, *trial_raw_, *raw_step_, *row_g_, *row_h_, *design_, *row_loss_;
    double *coef_, *trial_coef_, *g_, *trial_g_, *s_, *scratch_g_, *z_, *col_;
    double *h_, *l_, *lanes_;
};

/// core::logistic_deviance by the warp (sklearn's stop; work: logistic_doubles(n, p, k)).
__device__ inline double logistic_deviance(const core::Design& x, const core::DesignVar& dep, int k, double* work) {
    if (k < 2) return 0.0;
    Logistic fit(x, dep, k, work);
    if (!fit.fit_sklearn()) fit.fit_optimum();
    return fit.deviance();
}

}  // namespace cudag::cuda::regression_warp
