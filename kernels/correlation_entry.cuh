// SPDX-License-Identifier: Apache-2.0
// Device reads of the correlation matrix through a CorrSource: a held row, or the entry
// summed again from the standardised columns (C not held whole).
#pragma once

#include <cstdint>

#include "ci/decision.hpp"
#include "ci/fisher_z.hpp"
#include "pc_gaussian.cuh"

namespace cudag::cuda::detail {

/// An entry's sum clamped to [-1, 1] (NaN passes), as ci::correlation_matrix does.
__device__ __forceinline__ double clamp_unit(double r) { return r > 1.0 ? 1.0 : (r < -1.0 ? -1.0 : r); }

/// C[a, b]. Outside the held rows: Σ_s z_a[s]·z_b[s] in sample order, one fused
/// multiply-add a sample, clamped to [-1, 1] (kernels/correlation.cu's entry, equal to the
/// held value and to ci::correlation_matrix's bit for bit); the diagonal is 1.
__device__ __forceinline__ double corr_entry(const CorrSource& c, std::int64_t a, std::int64_t b) {
    if (a >= c.lo && a < c.hi) return c.rows[(a - c.lo) * c.n + b];
    if (b >= c.lo && b < c.hi) return c.rows[(b - c.lo) * c.n + a];
    if (a == b) return 1.0;
    const double* za = c.z + a * c.m;
    const double* zb = c.z + b * c.m;
    double acc = 0.0;
    for (std::int64_t s = 0; s < c.m; ++s) acc = __fma_rn(za[s], zb[s], acc);
    return clamp_unit(acc);
}

/// Level 0's decision on a pair of correlation r: kept (dependent). Most pairs are decided on
/// |r| against the decision band (decision_band: the p-value's decision far from alpha)
/// without the p-value's log1p and erfc; NaN and the band take the p-value.
__device__ __forceinline__ bool level0_keeps(const Level0Args& a, double r) {
    const double ar = fabs(r);
    if (!(ar < a.r_lo || ar > a.r_hi))
        return !ci::Decision{a.alpha, a.strict}.independent(ci::fisher_z_pvalue(r, a.m, 0));
    return ar > a.r_hi;
}

/// The segment k of a flat index t in [starts[0], starts[count]): starts[k] <= t < starts[k + 1]
/// (bisection over the exclusive prefix sums of the segments' sizes).
__device__ __forceinline__ std::int64_t segment_of(const std::int64_t* starts, std::int64_t count, std::int64_t t) {
    std::int64_t lo = 0, hi = count;
    while (hi - lo > 1) {
        const std::int64_t mid = (lo + hi) / 2;
        if (starts[mid] <= t) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/// corr(a, b) for ci::ConditioningBlock::factorise_with / project_with.
struct CorrReader {
    CorrSource c;
    __device__ double operator()(int a, int b) const { return corr_entry(c, a, b); }
};

}  // namespace cudag::cuda::detail
