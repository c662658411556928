// SPDX-License-Identifier: Apache-2.0
// The arithmetic of the cg-lrt test (ci/cg_lrt.hpp) that the CPU (ci/cg_lrt.cpp) and the GPU
// batch (kernels/cg_lrt_batch.cu) share, so that both round alike: a stratum's running sums
// and cross-products, the Cholesky factor of its maximum-likelihood covariance (+, −, ×, ÷
// and sqrt only, each correctly rounded on both sides; callers compile without FMA
// contraction), the degrees of freedom and the statistic from the four sets' terms. The
// logarithms are the host's (log_det, and n log n): CUDA's log differs from glibc's in the
// last bits, so the GPU hands its Cholesky roots to the host.
#pragma once

#include <cmath>

#include "core/exact_math.hpp"
#include "core/hd.hpp"

namespace cudag::ci::cg_lrt_core {

/// A Cholesky pivot at or below this fraction of its diagonal entry (1 − R² of the variable on
/// the ones before it) makes a stratum's covariance singular.
inline constexpr double kSingular = 1e-10;

/// Entries of the lower triangle of a p × p matrix.
CUDAG_HD constexpr int triangle(int p) { return p * (p + 1) / 2; }

/// One row of a stratum: dev[a] is continuous variable a's value less the stratum's first
/// row's; sum (p) and cross (lower triangle, row by row) accumulate them.
CUDAG_HD inline void add_row(const double* dev, int p, double* sum, double* cross) {
    for (int a = 0, t = 0; a < p; ++a) {
        sum[a] += dev[a];
        for (int b = 0; b <= a; ++b, ++t) cross[t] += dev[a] * dev[b];
    }
}

/// The Cholesky factor of the maximum-likelihood covariance (divided by n) of a stratum of n
/// rows, from its sums and cross-products (add_row): l (triangle(p)) receives the factor,
/// roots (p) its diagonal. Returns the first singular pivot's index (a pivot at or below
/// kSingular times its diagonal entry, or a diagonal entry that is not positive), or −1.
CUDAG_HD inline int cholesky_roots(double n, const double* sum, const double* cross, int p, double* l, double* roots) {
    for (int a = 0, t = 0; a < p; ++a)
        for (int b = 0; b <= a; ++b, ++t) l[t] = (cross[t] - sum[a] * sum[b] / n) / n;
    for (int j = 0; j < p; ++j) {
        const int jj = triangle(j);
        const double diag = l[jj + j];
        double pivot = diag;
        for (int k = 0; k < j; ++k) pivot -= l[jj + k] * l[jj + k];
        if (!(diag > 0.0) || !(pivot > kSingular * diag)) return j;
        const double root = sqrt(pivot);
        l[jj + j] = root;
        roots[j] = root;
        for (int i = j + 1; i < p; ++i) {
            const int ii = triangle(i);
            double v = l[ii + j];
            for (int k = 0; k < j; ++k) v -= l[ii + k] * l[jj + k];
            l[ii + j] = v / root;
        }
    }
    return -1;
}

/// log det of a covariance from its Cholesky roots: Σ_j 2 log root_j, in j's order. Host only
/// (glibc's log).
inline double log_det(const double* roots, int p) {
    double logdet = 0.0;
    for (int j = 0; j < p; ++j) logdet += 2.0 * std::log(roots[j]);
    return logdet;
}

/// log_det with xm::log (core/exact_math.hpp) in place of the host's log: the same bits on
/// the host and the device, for the cg-bic score (bn/cg_bic.hpp), whose GPU table cannot hand
/// its roots to the host.
CUDAG_HD inline double log_det_exact(const double* roots, int p) {
    double logdet = 0.0;
    for (int j = 0; j < p; ++j) logdet += 2.0 * xm::log(roots[j]);
    return logdet;
}

/// dof of a set of p continuous variables and F configurations of its discrete ones:
/// F (p + p(p + 1)/2) + F − 1.
CUDAG_HD inline double set_dof(double f, int p) {
    const auto q = static_cast<double>(p);
    return f * (q + q * (q + 1.0) / 2.0) + f - 1.0;
}

/// The test's dof: f_s the product of S's discrete variables' observed levels (in S's
/// order), f_x / f_y those of a discrete x / y (1 for a continuous one), p_s the continuous
/// variables of S, cx / cy whether x / y is continuous (0 or 1).
CUDAG_HD inline double test_dof(double f_s, double f_x, double f_y, int p_s, int cx, int cy) {
    return set_dof(f_s * f_x * f_y, p_s + cx + cy) - set_dof(f_s * f_x, p_s + cx) - set_dof(f_s * f_y, p_s + cy) +
           set_dof(f_s, p_s);
}

/// Σ_s n_s log n_s and Σ_s n_s log det Σ_s of one set of variables (strata in order).
struct SetTerms {
    double multinomial = 0.0;
    double gaussian = 0.0;
};

/// G = 2 (L(xyS) − L(xS) − L(yS) + L(S)) without the terms that cancel.
CUDAG_HD inline double statistic(const SetTerms& xys, const SetTerms& xs, const SetTerms& ys, const SetTerms& s) {
    return 2.0 * (((xys.multinomial - xs.multinomial) - ys.multinomial) + s.multinomial) -
           (((xys.gaussian - xs.gaussian) - ys.gaussian) + s.gaussian);
}

}  // namespace cudag::ci::cg_lrt_core
