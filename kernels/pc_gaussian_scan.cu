// SPDX-License-Identifier: Apache-2.0
// Entry-scan kernel for Gaussian PC levels l >= 1: one thread per adjacency entry (i, j),
// the 32 lanes of a warp on 32 consecutive entries of one row, every lane walking the
// l-subsets S of adj(i) in lexicographic order and stopping at its first separating S.
//
// Why: cudag's separating-set rule (DESIGN.md: the lexicographically smallest S of the
// lower endpoint, else of the upper one) makes the lower side of an edge run every set
// until its first separating one, so a level's work is the CPU engine's sequential scan,
// not cuPC's "first set either side finds". cuPC-S gives each thread a set and loops over
// the row's entries; its lanes then read C[j, S] for 32 different sets, i.e. 32 scattered
// sectors per load. Here the lanes share the set (the walk is the same for the whole
// warp; a lane skips the sets that contain its own entry) and differ in j, so C[S, j]
// (C is symmetric) is read along rows of C at the row's sorted neighbours and C[S, S],
// C[i, S] are broadcasts. The scan is the CPU's order, so the result needs no ranking
// across threads, and the lower side runs before the upper side (two launches), so an
// upper entry is only scanned when its lower entry found no set.
//
// Level 1 decides without sqrt or division: with a unit diagonal the CPU's r is
// h12 / sqrt(h11 h22) with h11 = 1 - C[i,k]^2, h22 = 1 - C[k,j]^2, h12 = C[i,j] - C[i,k] C[k,j]
// (cholesky of the 1x1 block is exactly 1), so |r| < r_lo <=> h12^2 < r_lo^2 h11 h22 up to
// rounding far inside the 1e-6 band of decision_band; inside the band the exact r and p
// decide. Level 2 decides the same way on residuals scaled to need no sqrt or division
// (scan_level2), levels 3..kFastMaxLevel on residuals formed with rsqrt from the walk's
// prefix factorised once and one column per test (FastWalk), where they are well
// conditioned; every other test, the levels above, and the
// p-value reported for an entry use the CPU's exact sequence (ci::ConditioningBlock).
//
// Heavy rows are split into rank ranges (items with r0 > 0): a lane then stops early when
// an earlier range of the same entry has published a smaller separating rank (best only
// decreases), and the smallest rank wins by atomicMin, so the answer is the same. A row
// with few entries left in a later round gives each entry a warp of its own whose lanes
// split the entry's ranks the same way (kItemLanes), instead of a warp with most lanes idle.
#include "ci/fisher_z.hpp"
#include "combination_walk.hpp"
#include "core/combinations.hpp"
#include "correlation_entry.cuh"
#include "cuda_check.hpp"
#include "kernel_preload.cuh"
#include "pc_gaussian.cuh"
#include "pc_gaussian_device.cuh"

#include <algorithm>
#include <cmath>

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;

constexpr int kScanThreads = 128;  // 4 warps, each on its own item

/// Blocks per SM the entry scan's registers must allow (65536 / (blocks * 128) registers
/// a thread): the scan waits on loads and on chains of dependent FP64 arithmetic, so the
/// warps resident count for more than the few values kept out of registers, which fall on
/// the rare exact tests (n4000 on an H200: level 3 at 128 registers instead of 146,
/// 13.6 -> 11.8 ms; level 1 at 96 instead of 128, 24.9 -> 22.7 ms, and 5 ms slower when let
/// to take 166). Levels 4-6 keep what they need.
constexpr int scan_min_blocks(int l) { return l <= 2 ? 5 : l == 3 ? 4 : 1; }

using detail::load_relaxed;
using detail::MinR;
using detail::publish;
using detail::row_block_source;

/// The decision on residuals without sqrt or division: h12^2 against r_lo^2 h11 h22 and
/// r_hi^2 h11 h22 (r_lo, r_hi from decision_band, squared by the kernel). 1: independent,
/// 0: dependent, -1: inside the band or degenerate (decide on the exact r and p).
__device__ __forceinline__ int decide_squared(double h11, double h12, double h22, double rlo2, double rhi2) {
    const double t = h12 * h12, dd = h11 * h22;
    if (!(dd > 0.0)) return -1;
    if (t < rlo2 * dd) return 1;
    if (t > rhi2 * dd) return 0;
    return -1;
}

/// The CPU's exact test of (i, j | S) (nodes s): residuals into h, with C[S, j] read as
/// C[j, S] (C is symmetric), so that a warp's lanes read along rows of C.
template <int L>
__device__ __forceinline__ void exact_residuals(const LevelArgs& a, std::int32_t i, std::int32_t j, double cij,
                                                const int* s, double& h11, double& h12, double& h22) {
    double lmat[L * L], work[2 * L * L], yi[L], yj[L];
    ci::ConditioningBlock blk;
    blk.lmat = lmat;
    blk.factorise(a.corr.rows, a.n, s, L, work);
    blk.project(a.corr.rows, a.n, s, i, yi);
#pragma unroll
    for (int t = 0; t < L; ++t) yj[t] = a.corr.rows[static_cast<std::int64_t>(s[t]) * a.n + j];
    if (blk.chol) ci::forward_solve(blk.lmat, L, yj);
    h11 = 1.0 - blk.form(yi, yi);
    h22 = 1.0 - blk.form(yj, yj);
    h12 = cij - blk.form(yi, yj);
}

/// One level-1 test of (i, j | k) with C[i,j] = cij, C[i,k] = cik, C[k,j] = ckj,
/// C[k,k] = ckk. Returns whether it separates; a dependent test is folded into `mr`.
__device__ __forceinline__ bool level1_test(const LevelArgs& a, double rlo2, double rhi2, double cij, double cik,
                                            double ckj, double ckk, std::int32_t i, std::int32_t j, std::int32_t k,
                                            MinR& mr) {
    double h11, h12, h22;
    if (ckk == 1.0) {
        // The CPU's cholesky of [1] is [1] and y = x / 1 = x: the same residuals.
        h11 = 1.0 - cik * cik;
        h22 = 1.0 - ckj * ckj;
        h12 = cij - cik * ckj;
    } else {
        const int s[1] = {k};  // not a unit diagonal (a supplied matrix)
        exact_residuals<1>(a, i, j, cij, s, h11, h12, h22);
    }
    const int quick = decide_squared(h11, h12, h22, rlo2, rhi2);
    const bool indep = quick >= 0 ? quick == 1 : detail::independent_r(a, ci::partial_from_residual(h11, h12, h22), 1);
    if (!indep) mr.add(h11, h12, h22);  // dependent => h11 h22 > 0 (r = 0 has p = 1)
    return indep;
}

/// Level 1 with C not held whole: positions p in [r0, r1) of the row, p != q, taken V at
/// a time. C[i, k] and C[k, j] of the V sets' nodes are summed again from z in one pass
/// over the samples (z_i, z_j read once a sample for 2V sums, each sum still one fused
/// multiply-add a sample in sample order: equal to corr_entry's and the held rows' bit for
/// bit); a held row (i's or j's) is read instead of summed. The tests are then decided in
/// order and counted up to the first separating one, as the CPU's walk does: the sums of
/// the sets after it are the only extra work.
__device__ void scan_level1_z(const LevelArgs& a, double rlo2, double rhi2, std::int32_t i, const std::int32_t* nb,
                              int q, std::int64_t e, std::int64_t r0, std::int64_t r1, bool split, u64& tests) {
    constexpr int V = 8;
    const CorrSource& c = a.corr;
    const std::int32_t j = nb[q];
    const double cij = detail::corr_entry(c, i, j);
    const bool i_held = i >= c.lo && i < c.hi, j_held = j >= c.lo && j < c.hi;
    const double* zi = c.z + static_cast<std::int64_t>(i) * c.m;
    const double* zj = c.z + static_cast<std::int64_t>(j) * c.m;
    const double* ri = i_held ? c.rows + (i - c.lo) * c.n : nullptr;
    const double* rj = j_held ? c.rows + (j - c.lo) * c.n : nullptr;
    MinR mr;
    u64 found = kNoRank;
    for (std::int64_t p0 = r0; p0 < r1 && found == kNoRank; p0 += V) {
        if (split && p0 > r0 && load_relaxed(a.best + e) < static_cast<u64>(p0)) break;
        std::int32_t k[V];
        const double* zk[V];
        double cik[V], ckj[V];
#pragma unroll
        for (int u = 0; u < V; ++u) {
            const std::int64_t p = p0 + u;
            const bool live = p < r1 && p != q;
            k[u] = live ? nb[p] : j;  // a dead slot sums z_j with itself, unused
            zk[u] = c.z + static_cast<std::int64_t>(k[u]) * c.m;
            cik[u] = 0.0;
            ckj[u] = 0.0;
        }
        if (!i_held || !j_held) {
            for (std::int64_t s = 0; s < c.m; ++s) {
                const double xi = i_held ? 0.0 : zi[s], xj = j_held ? 0.0 : zj[s];
#pragma unroll
                for (int u = 0; u < V; ++u) {
                    const double xk = zk[u][s];
                    cik[u] = __fma_rn(xi, xk, cik[u]);
                    ckj[u] = __fma_rn(xk, xj, ckj[u]);
                }
            }
        }
#pragma unroll
        for (int u = 0; u < V; ++u) {
            cik[u] = i_held ? ri[k[u]] : detail::clamp_unit(cik[u]);
            ckj[u] = j_held ? rj[k[u]] : detail::clamp_unit(ckj[u]);
        }
#pragma unroll
        for (int u = 0; u < V; ++u) {
            const std::int64_t p = p0 + u;
            if (p >= r1 || p == q) continue;
            ++tests;
            if (level1_test(a, rlo2, rhi2, cij, cik[u], ckj[u], 1.0, i, j, k[u], mr)) {
                found = static_cast<u64>(p);
                break;
            }
        }
    }
    publish(a, e, found, mr);
}

/// Level 1: positions p in [r0, r1) of the row, p != q.
__device__ void scan_level1(const LevelArgs& a, double rlo2, double rhi2, std::int32_t i, const std::int32_t* nb, int q,
                            std::int64_t e, std::int64_t r0, std::int64_t r1, bool split, u64& tests) {
    // C held whole: rows of C read directly. Otherwise (level 1 only) the entries are summed
    // again (scan_level1_z); their diagonal is 1, so level1_test never needs exact_residuals.
    if (!a.corr.whole()) {
        scan_level1_z(a, rlo2, rhi2, i, nb, q, e, r0, r1, split, tests);
        return;
    }
    const double* ci_row = a.corr.rows + static_cast<std::int64_t>(i) * a.n;
    const std::int32_t j = nb[q];
    const double cij = ci_row[j];
    MinR mr;
    u64 found = kNoRank;
    constexpr int U = 4;  // loads of U sets in flight before the in-order decisions
    for (std::int64_t p0 = r0; p0 < r1 && found == kNoRank; p0 += U) {
        if (split && p0 > r0 && load_relaxed(a.best + e) < static_cast<u64>(p0)) break;
        std::int32_t k[U];
        double cik[U], ckj[U], ckk[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const std::int64_t p = p0 + u;
            k[u] = p < r1 ? nb[p] : 0;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const std::int64_t row = static_cast<std::int64_t>(k[u]) * a.n;
            cik[u] = ci_row[k[u]];
            ckj[u] = a.corr.rows[row + j];
            ckk[u] = a.unit_diag ? 1.0 : a.corr.rows[row + k[u]];
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const std::int64_t p = p0 + u;
            if (p >= r1 || p == q) continue;
            ++tests;
            if (level1_test(a, rlo2, rhi2, cij, cik[u], ckj[u], ckk[u], i, j, k[u], mr)) {
                found = static_cast<u64>(p);
                break;
            }
        }
    }
    publish(a, e, found, mr);
}

/// Level 2: ranks [r0, r1) of the C(d, 2) pairs {c0 < c1} of the row's positions, pairs
/// containing q skipped, as two nested loops so that what depends on k0 = nb[c0] alone is
/// formed once per c0. Without sqrt or division: with a unit diagonal and S = {k0, k1},
/// piv = 1 - C[k0,k1]^2, u_x = C[x,k1] - C[k0,k1] C[x,k0], the CPU's residuals times piv are
///   H11 = piv (1 - C[i,k0]^2) - u_i^2,  H22 = piv (1 - C[k0,j]^2) - u_j^2,
///   H12 = piv (C[i,j] - C[i,k0] C[k0,j]) - u_i u_j,
/// and r = H12 / sqrt(H11 H22) whatever the common factor, so decide_squared decides on
/// them. Only where piv and the residuals are well away from 0 (rounding then stays ~1e-9
/// of r, far inside decision_band's 1e-6); anything else runs the CPU's exact sequence,
/// and the smallest dependent |r| is reported with its exact residuals.
__device__ void scan_level2(const LevelArgs& a, double rlo2, double rhi2, std::int32_t i, const std::int32_t* nb, int d,
                            int q, std::int64_t e, std::int64_t r0, std::int64_t r1, bool split, u64& tests) {
    const std::int32_t j = nb[q];
    const double* ci_row = a.corr.rows + static_cast<std::int64_t>(i) * a.n;
    const double cij = ci_row[j];
    int c[2];
    combination_unrank_fast(r0, 2, d, c);
    MinR mr;
    std::int64_t min_rank = -1;  // pair of the smallest dependent |r|
    bool min_approx = false;     // its residuals came from the fast decision
    u64 found = kNoRank;
    int since_check = 0;
    std::int64_t r = r0;
    for (int c0 = c[0], c1 = c[1]; r < r1 && c0 < d - 1 && found == kNoRank; ++c0, c1 = c0 + 1) {
        const int c1_end = static_cast<int>(min(static_cast<std::int64_t>(d), c1 + (r1 - r)));
        if (c0 == q) {  // every pair of this c0 contains q
            r += c1_end - c1;
            continue;
        }
        const std::int32_t k0 = nb[c0];
        const double* row0 = a.corr.rows + static_cast<std::int64_t>(k0) * a.n;
        const double cik0 = ci_row[k0], ck0j = row0[j];
        const bool unit0 = a.unit_diag || row0[k0] == 1.0;
        const double g11 = 1.0 - cik0 * cik0, g22 = 1.0 - ck0j * ck0j, g12 = cij - cik0 * ck0j;
        for (; c1 < c1_end; ++c1, ++r) {
            if (c1 == q) continue;
            if (split && ++since_check == 8) {
                since_check = 0;
                if (load_relaxed(a.best + e) < static_cast<u64>(r)) {
                    r = r1;  // ends both loops
                    break;
                }
            }
            ++tests;
            const std::int32_t k1 = nb[c1];
            const double* row1 = a.corr.rows + static_cast<std::int64_t>(k1) * a.n;
            const double a10 = row1[k0];
            const double piv = 1.0 - a10 * a10;
            const double ui = ci_row[k1] - a10 * cik0, uj = row1[j] - a10 * ck0j;
            double h11 = piv * g11 - ui * ui, h22 = piv * g22 - uj * uj, h12 = piv * g12 - ui * uj;
            int fast = -1;
            if (unit0 && (a.unit_diag || row1[k1] == 1.0) && piv > 1e-4 && h11 > 1e-3 * piv && h22 > 1e-3 * piv)
                fast = decide_squared(h11, h12, h22, rlo2, rhi2);
            if (fast == 1) {
                found = static_cast<u64>(r);
                break;
            }
            if (fast < 0) {
                const int sn[2] = {k0, k1};
                exact_residuals<2>(a, i, j, cij, sn, h11, h12, h22);
                if (detail::independent_r(a, ci::partial_from_residual(h11, h12, h22), 2)) {
                    found = static_cast<u64>(r);
                    break;
                }
            }
            if (mr.add(h11, h12, h22)) {
                min_rank = r;
                min_approx = fast == 0;
            }
        }
    }
    if (mr.have && min_approx) {  // the exact residuals of that test, for its p
        combination_unrank_fast(min_rank, 2, d, c);
        const int sn[2] = {nb[c[0]], nb[c[1]]};
        exact_residuals<2>(a, i, j, cij, sn, mr.h11, mr.h12, mr.h22);
    }
    publish(a, e, found, mr);
}

/// Levels 3..kFastMaxLevel in the same way, without division: a unit-diagonal C[S, S]
/// factorised with rsqrt, the walk's prefix S' = S less its last node kept across tests. The lanes of a
/// warp walk the sets together, and the lexicographic walk changes the prefix only once
/// every (d - position) sets, so a test costs the last node's column: C[S', k] and
/// C[i, k] (broadcasts), one C[k, j] per lane (the only scattered load), L - 1 products
/// and one rsqrt. For S = {k0, .., kL-1} with P = S' and w = chol(C[P,P])^-1 C[P, k]:
///   y_x(last) = (C[x, k] - w . y_x(P)) / sqrt(1 - |w|^2),  h_xx = 1 - |y_x|^2, h12 = C[i,j] - y_i . y_j
/// Decides only where every pivot and residual is well away from 0, so that rounding
/// stays ~1e-10 of r or less, far inside decision_band's 1e-6; otherwise (and for the
/// p-value reported for an entry) the CPU's exact sequence runs.
constexpr int kFastMaxLevel = 4;

template <int L>
struct FastWalk {
    static constexpr int M = L - 1;  ///< prefix nodes
    /// Smallest pivot (1 - R^2 of a node on the ones before it) and residual the fast
    /// path accepts: each pivot's rsqrt scales the rounding of what follows it (at most
    /// 10x a stage here, so rounding stays ~1e-13 of the residuals).
    static constexpr double kPivot = 1e-2;
    static constexpr double kResidual = 1e-2;
    bool ok = false;
    std::int32_t node[M];
    double low[M > 1 ? M*(M - 1) / 2 : 1];  ///< strictly lower factor, row by row
    double inv[M];                          ///< 1 / pivot's square root
    double yi[M], yj[M];
    double si = 0.0, sj = 0.0, sij = 0.0;  ///< |y_i|^2, |y_j|^2, y_i . y_j over P

    static __device__ __forceinline__ int at(int t, int u) { return t * (t - 1) / 2 + u; }

    /// Forward solve of the prefix factor: w = chol(C[P, P])^-1 v.
    __device__ __forceinline__ void solve(double* w) const {
#pragma unroll
        for (int t = 0; t < M; ++t) {
            double x = w[t];
#pragma unroll
            for (int u = 0; u < t; ++u) x -= low[at(t, u)] * w[u];
            w[t] = x * inv[t];
        }
    }

    /// Factorise the prefix nodes p (C rows of nodes p[t]) for the pair (i, j).
    __device__ __forceinline__ void prefix(const LevelArgs& a, const double* ci_row, std::int32_t j,
                                           const std::int32_t* p) {
        ok = false;
#pragma unroll
        for (int t = 0; t < M; ++t) {
            node[t] = p[t];
            const double* row = a.corr.rows + static_cast<std::int64_t>(p[t]) * a.n;
            if (!(a.unit_diag || row[p[t]] == 1.0)) return;
            double piv = 1.0;
#pragma unroll
            for (int u = 0; u < t; ++u) {
                double x = row[node[u]];
#pragma unroll
                for (int v = 0; v < u; ++v) x -= low[at(t, v)] * low[at(u, v)];
                x *= inv[u];
                low[at(t, u)] = x;
                piv -= x * x;
            }
            if (!(piv > kPivot)) return;
            inv[t] = rsqrt(piv);
            yi[t] = ci_row[p[t]];
            yj[t] = row[j];
        }
        solve(yi);
        solve(yj);
        si = sj = sij = 0.0;
#pragma unroll
        for (int t = 0; t < M; ++t) {
            si += yi[t] * yi[t];
            sj += yj[t] * yj[t];
            sij += yi[t] * yj[t];
        }
        ok = true;
    }

    /// The test with last node k: 1 independent, 0 dependent (residuals in h), -1 exact.
    __device__ __forceinline__ int test(const LevelArgs& a, double rlo2, double rhi2, double cij, const double* ci_row,
                                        std::int32_t j, std::int32_t k, double& h11, double& h12, double& h22) const {
        const double* row = a.corr.rows + static_cast<std::int64_t>(k) * a.n;
        if (!(a.unit_diag || row[k] == 1.0)) return -1;
        double w[M];
#pragma unroll
        for (int t = 0; t < M; ++t) w[t] = row[node[t]];
        solve(w);
        double piv = 1.0, wi = 0.0, wj = 0.0;
#pragma unroll
        for (int t = 0; t < M; ++t) {
            piv -= w[t] * w[t];
            wi += w[t] * yi[t];
            wj += w[t] * yj[t];
        }
        if (!(piv > kPivot)) return -1;
        const double r = rsqrt(piv);
        const double yil = (ci_row[k] - wi) * r;
        const double yjl = (row[j] - wj) * r;
        h11 = 1.0 - si - yil * yil;
        h22 = 1.0 - sj - yjl * yjl;
        h12 = cij - sij - yil * yjl;
        if (!(h11 > kResidual && h22 > kResidual)) return -1;
        return decide_squared(h11, h12, h22, rlo2, rhi2);
    }
};

/// Levels L >= 3: ranks [r0, r1) of the C(d, L) subsets of the row's positions; sets
/// containing q are skipped. Levels 3..kFastMaxLevel decide on FastWalk where they can; every other
/// test, and the smallest dependent |r| reported, use the CPU's exact arithmetic.
template <int L>
__device__ void scan_level(const LevelArgs& a, double rlo2, double rhi2, std::int32_t i, const std::int32_t* nb, int d,
                           int q, std::int64_t e, std::int64_t r0, std::int64_t r1, bool split, u64& tests) {
    static_assert(L >= 3, "level 2 runs scan_level2");
    const std::int32_t j = nb[q];
    const double* ci_row = a.corr.rows + static_cast<std::int64_t>(i) * a.n;
    const double cij = ci_row[j];
    int c[L], s[L];
    combination_unrank_fast(r0, L, d, c);
    MinR mr;
    std::int64_t min_rank = -1;               // set of the smallest dependent |r|
    bool min_approx = false;                  // its residuals came from the fast path
    FastWalk<L <= kFastMaxLevel ? L : 3> fw;  // the walk's prefix (levels 3..kFastMaxLevel)
    int fw_pos[L - 1];
    bool fw_have = false;  // a prefix has been factorised
    u64 found = kNoRank;
    int since_check = 0;
    for (std::int64_t r = r0; r < r1; ++r) {
        bool contains = false;
#pragma unroll
        for (int t = 0; t < L; ++t) contains |= c[t] == q;
        if (!contains) {
            if (split && ++since_check == 8) {
                since_check = 0;
                if (load_relaxed(a.best + e) < static_cast<u64>(r)) break;
            }
            ++tests;
            double h11, h12, h22;
            int fast = -1;
            if constexpr (L <= kFastMaxLevel) {
                bool same = fw_have;
#pragma unroll
                for (int t = 0; t + 1 < L; ++t) same &= fw_pos[t] == c[t];
                if (!same) {
                    std::int32_t p[L - 1];
#pragma unroll
                    for (int t = 0; t + 1 < L; ++t) {
                        fw_pos[t] = c[t];
                        p[t] = nb[c[t]];
                    }
                    fw.prefix(a, ci_row, j, p);
                    fw_have = true;
                }
                if (fw.ok) fast = fw.test(a, rlo2, rhi2, cij, ci_row, j, nb[c[L - 1]], h11, h12, h22);
            }
            if (fast == 1) {
                found = static_cast<u64>(r);
                break;
            }
            if (fast < 0) {
#pragma unroll
                for (int t = 0; t < L; ++t) s[t] = nb[c[t]];
                exact_residuals<L>(a, i, j, cij, s, h11, h12, h22);
                if (detail::independent_r(a, ci::partial_from_residual(h11, h12, h22), L)) {
                    found = static_cast<u64>(r);
                    break;
                }
            }
            if (mr.add(h11, h12, h22)) {
                min_rank = r;
                min_approx = fast == 0;
            }
        }
        if (r + 1 < r1) next_combination(c, L, d);
    }
    if (mr.have && min_approx) {  // the exact residuals of that test, for its p
        combination_unrank_fast(min_rank, L, d, c);
        for (int t = 0; t < L; ++t) s[t] = nb[c[t]];
        exact_residuals<L>(a, i, j, cij, s, mr.h11, mr.h12, mr.h22);
    }
    publish(a, e, found, mr);
}

/// Row position of the item's t-th entry (t < q1 - q0): q0 + t, or the (q0 + t)-th of the
/// row's surviving entries when the launch runs on a survivor list.
__device__ __forceinline__ int item_position(const EntryScanLaunch& s, std::int64_t e0, const ScanItem& item, int t) {
    return s.survivors ? s.survivors[e0 + item.q0 + t] : item.q0 + t;
}

/// The scan of one entry at level L (row i, neighbours nb: global ids, or local ones on
/// a row block).
template <int L>
__device__ __forceinline__ void scan_entry(const LevelArgs& a, double rlo2, double rhi2, std::int32_t i,
                                           const std::int32_t* nb, int d, int q, std::int64_t e, std::int64_t r0,
                                           std::int64_t r1, bool split, u64& tests) {
    if constexpr (L == 1)
        scan_level1(a, rlo2, rhi2, i, nb, q, e, r0, r1, split, tests);
    else if constexpr (L == 2)
        scan_level2(a, rlo2, rhi2, i, nb, d, q, e, r0, r1, split, tests);
    else
        scan_level<L>(a, rlo2, rhi2, i, nb, d, q, e, r0, r1, split, tests);
}

template <int L>
__global__ void __launch_bounds__(kScanThreads, scan_min_blocks(L)) entry_scan_kernel(LevelArgs a, EntryScanLaunch s) {
    const int lane = static_cast<int>(threadIdx.x & 31);
    const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::int64_t warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
    const double rlo2 = a.r_lo > 0.0 ? a.r_lo * a.r_lo : -1.0;
    const double rhi2 = a.r_hi < 1.0 ? a.r_hi * a.r_hi : INFINITY;
    u64 tests = 0;
    for (std::int64_t it = warp; it < s.n_items; it += warps) {
        const ScanItem item = s.items[it];
        const bool lanes = (item.flags & kItemLanes) != 0;
        if (!lanes && item.q0 + lane >= item.q1) continue;
        std::int64_t r0 = item.r0, r1 = item.r1;
        if (lanes) {  // this lane's block of the entry's ranks
            const std::int64_t len = (item.r1 - item.r0 + 31) / 32;
            r0 = item.r0 + lane * len;
            r1 = min(item.r1, r0 + len);
            if (r0 >= r1) continue;
        }
        const std::int32_t i = item.row;
        const std::int64_t e0 = a.offsets[i];
        const int d = static_cast<int>(a.offsets[i + 1] - e0);
        const int q = item_position(s, e0, item, lanes ? 0 : lane);
        const std::int64_t e = e0 + q;
        if (s.upper && a.mirror) {
            const std::int64_t m = a.mirror[e];
            if (m >= 0 && load_relaxed(a.best + m) != kNoRank) continue;  // lower side separated
        }
        if (r0 > 0 && load_relaxed(a.best + e) < static_cast<u64>(r0)) continue;
        const bool split = lanes || (item.flags & kItemSplit) != 0;
        if (a.blocks) {
            // The row's neighbourhood block stands in for C, in local ids (LevelArgs::blocks).
            LevelArgs la = a;
            la.corr = row_block_source(a, i, d);
            la.n = d + 1;
            scan_entry<L>(la, rlo2, rhi2, d, a.iota, d, q, e, r0, r1, split, tests);
        } else {
            scan_entry<L>(a, rlo2, rhi2, i, a.nbrs + e0, d, q, e, r0, r1, split, tests);
        }
    }
    // One atomic per warp for the test count.
    for (int off = 16; off > 0; off >>= 1) tests += __shfl_down_sync(0xffffffffu, tests, off);
    if (lane == 0 && tests) atomicAdd(a.tests, tests);
}

/// A warp per listed row: its surviving entries of one side, compacted in order by ballot.
__global__ void scan_survivors_kernel(LevelArgs a, const std::int32_t* rows, std::int64_t n_rows, bool upper,
                                      std::int32_t* survivors, std::int32_t* counts) {
    const int lane = static_cast<int>(threadIdx.x & 31);
    const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::int64_t warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
    for (std::int64_t k = warp; k < n_rows; k += warps) {
        const std::int32_t i = rows[k];
        const std::int64_t e0 = a.offsets[i];
        const int d = static_cast<int>(a.offsets[i + 1] - e0);
        int count = 0;
        for (int q0 = 0; q0 < d; q0 += 32) {
            const int q = q0 + lane;
            bool live = false;
            if (q < d) {
                const std::int64_t e = e0 + q;
                const std::int32_t j = a.nbrs[e];
                live = (upper ? j < i : j > i) && e >= a.e_begin && e < a.e_end && a.best[e] == kNoRank;
                if (live && upper && a.mirror) {
                    const std::int64_t m = a.mirror[e];
                    live = m < 0 || a.best[m] == kNoRank;
                }
            }
            const unsigned mask = __ballot_sync(0xffffffffu, live);
            if (live) survivors[e0 + count + __popc(mask & ((1u << lane) - 1u))] = q;
            count += __popc(mask);
        }
        if (lane == 0) counts[k] = count;
    }
}

}  // namespace

void launch_scan_survivors(const LevelArgs& a, const std::int32_t* rows, std::int64_t n_rows, bool upper,
                           std::int32_t* survivors, std::int32_t* counts, cudaStream_t stream) {
    if (n_rows <= 0) return;
    const std::int64_t blocks = std::min<std::int64_t>((n_rows + 3) / 4, std::int64_t(1) << 16);
    scan_survivors_kernel<<<static_cast<unsigned>(blocks), 128, 0, stream>>>(a, rows, n_rows, upper, survivors, counts);
    CUDAG_CHECK_LAUNCH();
}

void launch_entry_scan(const LevelArgs& a, const EntryScanLaunch& s, cudaStream_t stream) {
    if (s.n_items <= 0) return;
    CUDAG_ASSERT(a.l >= 1 && a.l <= kMaxTemplateLevel);
    const std::int64_t warps_per_block = kScanThreads / 32;
    const std::int64_t blocks =
        std::min<std::int64_t>((s.n_items + warps_per_block - 1) / warps_per_block, std::int64_t(1) << 20);
    detail::dispatch_level(a.l, false, [&](auto tag) {
        constexpr int L = decltype(tag)::value;
        if constexpr (L > 0) entry_scan_kernel<L><<<static_cast<unsigned>(blocks), kScanThreads, 0, stream>>>(a, s);
    });
    CUDAG_CHECK_LAUNCH();
}

int preload_scan_kernels(int max_level) {
    int n = detail::preload(scan_survivors_kernel);
    detail::for_each_level<1, kMaxTemplateLevel>([&](auto tag) {
        constexpr int L = decltype(tag)::value;
        if (max_level < 0 || L <= max_level) n += detail::preload(entry_scan_kernel<L>);
    });
    return n;
}

}  // namespace cudag::cuda
