// SPDX-License-Identifier: Apache-2.0
// Device helpers shared by the Gaussian level kernels (pc_gaussian_levels.cu, cuPC-S/E,
// and pc_gaussian_scan.cu, the entry scan).
#pragma once

#include <type_traits>

#include "ci/fisher_z.hpp"
#include "pc_gaussian.cuh"
#include "ci/decision.hpp"

namespace cudag::cuda::detail {

/// A possibly stale read of a value other threads update atomically. Staleness only
/// costs skipped work, never correctness (values only move towards their final).
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
    return *static_cast<const volatile unsigned long long*>(p);
}

__device__ __forceinline__ bool is_independent(const LevelArgs& a, double p) {
    return ci::Decision{a.alpha, a.strict}.independent(p);
}

/// The CPU engine's decision (p of r against alpha), on |r| where it is certain.
__device__ __forceinline__ bool independent_r(const LevelArgs& a, double r, int l) {
    const double ar = fabs(r);
    if (ar < a.r_lo) return true;
    if (ar > a.r_hi) return false;
    return is_independent(a, ci::fisher_z_pvalue(r, a.m, l));  // the band, or NaN
}

/// Fold a non-separating test's |r| into the entry's smallest |r|.
__device__ __forceinline__ void record_dependent(unsigned long long* minr, double r) {
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(fabs(r)));
    if (bits < load_relaxed(minr)) atomicMin(minr, bits);
}

/// The entry's smallest dependent |r| so far, kept as the residuals (h11, h12, h22) of
/// that test: |r| compares as h12^2 / (h11 h22) without dividing; the exact r of the
/// winner is formed once at the end (partial_from_residual, the CPU's arithmetic).
struct MinR {
    bool have = false;
    double t = 0.0, dd = 1.0, h11 = 1.0, h12 = 0.0, h22 = 1.0;
    /// Keep the test if its |r| is the smallest so far; returns whether it was kept.
    __device__ __forceinline__ bool add(double a11, double a12, double a22) {
        const double tt = a12 * a12, d = a11 * a22;
        if (have && !(tt * dd < t * d)) return false;
        have = true;
        t = tt;
        dd = d;
        h11 = a11;
        h12 = a12;
        h22 = a22;
        return true;
    }
};

/// Publish an entry's result: its separating rank (if any) and its smallest dependent |r|.
__device__ __forceinline__ void publish(const LevelArgs& a, std::int64_t e, unsigned long long found, const MinR& mr) {
    if (found != kNoRank) atomicMin(a.best + e, found);
    if (mr.have) detail::record_dependent(a.pmax + e, ci::partial_from_residual(mr.h11, mr.h12, mr.h22));
}

/// Row i's neighbourhood block (LevelArgs::blocks, d its degree) as a whole C in local ids.
__device__ __forceinline__ CorrSource row_block_source(const LevelArgs& a, std::int32_t i, int d) {
    CorrSource c;
    c.rows = a.blocks + a.row_block[i];
    c.n = c.hi = d + 1;
    return c;
}

/// Runtime level -> compile-time L (0: the runtime-l kernels).
template <typename F>
void dispatch_level(int l, bool generic, F&& f) {
    if (generic || l > kMaxTemplateLevel) {
        f(std::integral_constant<int, 0>{});
        return;
    }
    switch (l) {
        case 1:
            f(std::integral_constant<int, 1>{});
            break;
        case 2:
            f(std::integral_constant<int, 2>{});
            break;
        case 3:
            f(std::integral_constant<int, 3>{});
            break;
        case 4:
            f(std::integral_constant<int, 4>{});
            break;
        case 5:
            f(std::integral_constant<int, 5>{});
            break;
        case 6:
            f(std::integral_constant<int, 6>{});
            break;
        default:
            f(std::integral_constant<int, 0>{});
            break;
    }
}
static_assert(kMaxTemplateLevel == 6, "dispatch_level lists the compiled levels");

/// The pMax table's slot of pair (lo, hi), lo < hi: the dense table's (n variables) or the
/// sparse one's (rows poff, columns pcol); -1 where a sparse table does not hold the pair.
__device__ __forceinline__ std::int64_t pmax_slot(bool dense, std::int64_t n, const std::int64_t* poff,
                                                  const std::int32_t* pcol, std::int64_t lo, std::int64_t hi) {
    if (dense) return lo * n - lo * (lo + 1) / 2 + hi - lo - 1;
    std::int64_t b = poff[lo], f = poff[lo + 1];
    while (b < f) {
        const std::int64_t mid = (b + f) / 2;
        if (pcol[mid] < hi)
            b = mid + 1;
        else
            f = mid;
    }
    return b < poff[lo + 1] && pcol[b] == hi ? b : -1;
}

}  // namespace cudag::cuda::detail
