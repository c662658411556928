// SPDX-License-Identifier: Apache-2.0
// Fisher-z conditional-independence test on a correlation matrix (cuPC §4.3–4.4,
// pcalg gaussCItest). Shared by the CPU engine and the CUDA kernels; its log1p, log and erfc
// are core/exact_math.hpp's, so the CPU's and the GPU's p-values are the same bits.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/exact_math.hpp"
#include "core/hd.hpp"

namespace cudag::ci {

/// |r| is clamped here before the z-transform, as pcalg's pcorOrder does.
constexpr double kMaxAbsCorrelation = 0.9999999;
/// A Cholesky pivot at or below this makes the conditioning block singular; the
/// test then falls back to the Moore–Penrose pseudo-inverse.
constexpr double kPivotTolerance = 1e-10;
/// Relative cut-off below which eigenvalues count as zero in the pseudo-inverse.
constexpr double kEigenTolerance = 1e-12;

/// √(m − l − 3): the factor of |z| in fisher_z_pvalue (fisher_z_pvalue_root takes it
/// computed once for the many tests of a level).
CUDAG_HD inline double fisher_z_root(std::int64_t m, int l) { return sqrt(static_cast<double>(m - l - 3)); }

/// fisher_z_pvalue with its √(m − l − 3) given (fisher_z_root): the same bits.
CUDAG_HD inline double fisher_z_pvalue_root(double r, double root, bool causal_learn = false) {
    if (!(r == r)) r = 0.0;  // NaN (degenerate residual) counts as r = 0, as in pcalg
    // |r|: the p-value is even in r, and taken on |r| it is so to the bit (the GPU keeps an
    // entry's smallest |r|, and its p must be the CPU's largest p of the same tests).
    r = fabs(r);
    if (causal_learn) {
        const double one_minus_eps = 1.0 - 2.220446049250313e-16;
        if (r >= 1.0) r = one_minus_eps;
        const double z = 0.5 * xm::log((1.0 + r) / (1.0 - r));
        const double x = root * z;
        const double cdf = 1.0 - 0.5 * xm::erfc(x * 0.70710678118654752440);
        return 2.0 * (1.0 - cdf);
    }
    if (r > kMaxAbsCorrelation) r = kMaxAbsCorrelation;
    const double z = 0.5 * xm::log1p(2.0 * r / (1.0 - r));
    const double stat = root * z;
    return xm::erfc(stat * 0.70710678118654752440);  // 2(1 − Φ(x)) = erfc(x/√2)
}

/// Two-sided p-value of the Fisher z-statistic of partial correlation r, with
/// m samples and a conditioning set of size l: 2(1 − Φ(√(m−l−3)·|atanh r|)).
/// Requires m − l − 3 > 0 (the caller checks up front).
///
/// causal_learn = true reproduces causal-learn's arithmetic instead: |r| < 1 − ε,
/// z = ½ log((1+r)/(1−r)) and p = 2(1 − Φ(x)) with Φ(x) = 1 − ½ erfc(x/√2) as
/// scipy's ndtr forms it, so p underflows to exactly 0 for x ≳ 8.3 as it does there.
/// Its maxP orientation rules compare such p-values, and ties at 0 decide them.
CUDAG_HD inline double fisher_z_pvalue(double r, std::int64_t m, int l, bool causal_learn = false) {
    return fisher_z_pvalue_root(r, fisher_z_root(m, l), causal_learn);
}

/// Partial correlation from the 2×2 residual block H (H11, H22 residual variances,
/// H12 residual covariance). Degenerate residuals (variance <= 0) give r = 0.
CUDAG_HD inline double partial_from_residual(double h11, double h12, double h22) {
    const double d = h11 * h22;
    if (!(d > 0.0)) return 0.0;
    const double r = h12 / sqrt(d);
    return r > 1.0 ? 1.0 : (r < -1.0 ? -1.0 : r);  // rounding in near-singular blocks
}

/// A thread's scratch in the GPU batch kernels, interleaved with its neighbours' (element k
/// at p[k·stride]) so that a warp's threads reach their k-th elements in one transaction.
/// The algebra below takes it wherever it takes a double*: the same operations in the same
/// order, so the same bits.
struct StridedDoubles {
    double* p = nullptr;
    std::int64_t stride = 1;
    CUDAG_HD double& operator[](std::int64_t k) const { return p[k * stride]; }
    CUDAG_HD StridedDoubles operator+(std::int64_t k) const { return {p + k * stride, stride}; }
};

/// In-place Cholesky factorisation of the symmetric l×l block A (row-major,
/// lower triangle used and overwritten with L). Returns false when a pivot is
/// <= kPivotTolerance (the block is singular or nearly so). P: double* or StridedDoubles.
template <class P>
CUDAG_HD inline bool cholesky(P a, int l) {
    for (int c = 0; c < l; ++c) {
        double d = a[c * l + c];
        for (int k = 0; k < c; ++k) d -= a[c * l + k] * a[c * l + k];
        if (!(d > kPivotTolerance)) return false;
        const double lc = sqrt(d);
        a[c * l + c] = lc;
        for (int r = c + 1; r < l; ++r) {
            double s = a[r * l + c];
            for (int k = 0; k < c; ++k) s -= a[r * l + k] * a[c * l + k];
            a[r * l + c] = s / lc;
        }
    }
    return true;
}

/// Solve L y = b in place (L lower-triangular from cholesky()).
template <class L, class Y>
CUDAG_HD inline void forward_solve(L lmat, int l, Y y) {
    for (int r = 0; r < l; ++r) {
        double s = y[r];
        for (int k = 0; k < r; ++k) s -= lmat[r * l + k] * y[k];
        y[r] = s / lmat[r * l + r];
    }
}

/// Cyclic Jacobi eigen-decomposition of the symmetric l×l matrix a (row-major): a is
/// rotated to diagonal form (its diagonal the eigenvalues), v (l×l) set to the eigenvectors
/// (columns).
template <class P>
CUDAG_HD inline void jacobi_eigen_sym(P a, int l, P v) {
    for (int r = 0; r < l; ++r)
        for (int c = 0; c < l; ++c) v[r * l + c] = (r == c) ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 100; ++sweep) {
        double off = 0.0;
        for (int p = 0; p < l; ++p)
            for (int q = p + 1; q < l; ++q) off += a[p * l + q] * a[p * l + q];
        if (off < 1e-30) break;
        for (int p = 0; p < l; ++p) {
            for (int q = p + 1; q < l; ++q) {
                const double apq = a[p * l + q];
                if (fabs(apq) < 1e-300) continue;
                const double theta = (a[q * l + q] - a[p * l + p]) / (2.0 * apq);
                const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0);
                const double s = t * c;
                for (int k = 0; k < l; ++k) {  // columns p, q
                    const double akp = a[k * l + p], akq = a[k * l + q];
                    a[k * l + p] = c * akp - s * akq;
                    a[k * l + q] = s * akp + c * akq;
                }
                for (int k = 0; k < l; ++k) {  // rows p, q
                    const double apk = a[p * l + k], aqk = a[q * l + k];
                    a[p * l + k] = c * apk - s * aqk;
                    a[q * l + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < l; ++k) {
                    const double vkp = v[k * l + p], vkq = v[k * l + q];
                    v[k * l + p] = c * vkp - s * vkq;
                    v[k * l + q] = s * vkp + c * vkq;
                }
            }
        }
    }
}

/// Moore–Penrose pseudo-inverse of the symmetric l×l matrix a (row-major), by
/// jacobi_eigen_sym: a⁺ = V diag(1/λ, λ > tol·max|λ|) Vᵀ.
/// `a` is destroyed; `v` (l×l) is scratch; the result is written to `out` (l×l).
template <class P>
CUDAG_HD inline void pseudo_inverse_sym(P a, int l, P v, P out) {
    jacobi_eigen_sym(a, l, v);
    double lmax = 0.0;
    for (int k = 0; k < l; ++k) lmax = fmax(lmax, fabs(a[k * l + k]));
    const double cut = kEigenTolerance * lmax;
    for (int r = 0; r < l; ++r) {
        for (int c = 0; c < l; ++c) {
            double s = 0.0;
            for (int k = 0; k < l; ++k) {
                const double lam = a[k * l + k];
                if (fabs(lam) > cut) s += v[r * l + k] * v[c * l + k] / lam;
            }
            out[r * l + c] = s;
        }
    }
}

/// C's entries from a row-major matrix with leading dimension ld.
struct DenseCorrelation {
    const double* c;
    std::int64_t ld;
    CUDAG_HD double operator()(int a, int b) const { return c[static_cast<std::int64_t>(a) * ld + b]; }
};

/// The conditioning block of one set S, factorised once and shared by every
/// test (i, j | S) of a row (cuPC-S). Holds either L (Cholesky) or M2⁺.
/// Storage is caller-provided: `lmat` and `pinv` need l*l doubles, `scratch` 2*l*l;
/// P: double* (ConditioningBlock) or StridedDoubles.
template <class P>
struct BasicConditioningBlock {
    int l = 0;
    bool chol = true;
    P lmat{};  ///< L when chol, else M2⁺ (row-major l×l)

    /// Factorise M2 = C[S,S] (C row-major n×n with leading dimension ld).
    CUDAG_HD void factorise(const double* c, std::int64_t ld, const int* s, int l_, P scratch) {
        factorise_with(DenseCorrelation{c, ld}, s, l_, scratch);
    }

    /// As factorise, reading C's entries through corr(a, b) (e.g. entries recomputed
    /// from the data where C is not held whole).
    template <class Corr>
    CUDAG_HD void factorise_with(const Corr& corr, const int* s, int l_, P scratch) {
        l = l_;
        for (int r = 0; r < l; ++r)
            for (int q = 0; q < l; ++q) lmat[r * l + q] = corr(s[r], s[q]);
        chol = cholesky(lmat, l);
        if (chol) return;
        for (int r = 0; r < l; ++r)
            for (int q = 0; q < l; ++q) scratch[r * l + q] = corr(s[r], s[q]);
        pseudo_inverse_sym(scratch, l, scratch + l * l, lmat);
    }

    /// Project variable x onto S: y = L⁻¹ C[x,S] (Cholesky) or y = C[x,S] (pinv;
    /// the quadratic form then uses M2⁺ directly). Writes l values into y.
    CUDAG_HD void project(const double* c, std::int64_t ld, const int* s, int x, P y) const {
        project_with(DenseCorrelation{c, ld}, s, x, y);
    }

    /// As project, reading C[x, s] through corr(x, s).
    template <class Corr>
    CUDAG_HD void project_with(const Corr& corr, const int* s, int x, P y) const {
        for (int r = 0; r < l; ++r) y[r] = corr(x, s[r]);
        if (chol) forward_solve(lmat, l, y);
    }

    /// uᵀ M2⁻¹ w from two projections.
    template <class U>
    CUDAG_HD double form(U u, U w) const {
        double s = 0.0;
        if (chol) {
            for (int r = 0; r < l; ++r) s += u[r] * w[r];
        } else {
            for (int r = 0; r < l; ++r) {
                double t = 0.0;
                for (int q = 0; q < l; ++q) t += lmat[r * l + q] * w[q];
                s += u[r] * t;
            }
        }
        return s;
    }
};

/// Partial correlation of (i, j) given the block of S: H = M0 − M1 M2⁺ M1ᵀ.
/// yi, yj are the projections of i and j (ConditioningBlock::project).
template <class P, class Y>
CUDAG_HD inline double partial_correlation(const BasicConditioningBlock<P>& b, double cij, Y yi, Y yj) {
    const double h11 = 1.0 - b.form(yi, yi);
    const double h22 = 1.0 - b.form(yj, yj);
    const double h12 = cij - b.form(yi, yj);
    return partial_from_residual(h11, h12, h22);
}

using ConditioningBlock = BasicConditioningBlock<double*>;

}  // namespace cudag::ci
