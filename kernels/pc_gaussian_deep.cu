// SPDX-License-Identifier: Apache-2.0
// Entry scan at deep levels (any l >= 2; by default l >= FisherTunables::scan_deep_from):
// the warp of an item walks the l-subsets S of adj(i) in lexicographic order as the
// template scan does (pc_gaussian_scan.cu: a lane per entry j, the sets shared, the CPU's
// order and first separating set), but shares the arithmetic of a test between the lanes
// and between consecutive sets, and stays exact: every value is the CPU's, bit for bit.
//
// Why exact and shared: the CPU tests (i, j | S) with ci::ConditioningBlock: L = chol(C[S,S])
// column by column, y_x = L^-1 C[x,S] by forward substitution, H = 1 - y_i.y_i (a sum from
// t = 0). Row t of L depends only on rows < t and nodes s_0..s_t, so for S = P + {k} (P the
// first l - 1 nodes) the rows of P's factor, y_i(P), y_j(P) and the partial sums of the
// forms are prefixes of S's, computed in the same operation order; the last row of L is a
// forward solve of C[P, k] (the same sequence as cholesky's last row), its pivot
// C[k,k] - |w|^2 in the same order. So a set costs, once per warp, w = L_P^-1 C[P, k]
// (lane b forms it for the b-th next last node, 32 at a time), and per lane one dot
// product with y_j(P); the prefix rows are redone only from the first position the
// lexicographic walk changes. A pivot at or below kPivotTolerance makes the CPU take the
// pseudo-inverse for the whole set: such sets run the CPU's full sequence per lane
// (scratch in global memory), as every test of the template kernels would.
//
// Shared memory per warp (P = l - 1): L_P (P x P), y_i(P) and its partial sums, per lane
// y_j(P) and the partial sums of y_j.y_j and y_i.y_j (lane-minor, so lanes hit distinct
// banks), the 32 w columns and, per column, its pivot root, y_i's last entry, h11 and node.
#include "ci/fisher_z.hpp"
#include "core/combinations.hpp"
#include "combination_walk.hpp"
#include "cuda_check.hpp"
#include "device_handles.hpp"
#include "kernel_preload.cuh"
#include "pc_gaussian.cuh"
#include "pc_gaussian_device.cuh"

#include <algorithm>

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;
using detail::load_relaxed;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kDeepMaxWarps = 8;  // warps per block at most

/// Doubles of one warp's shared region at level l (ints packed after them).
__host__ __device__ constexpr std::int64_t deep_doubles(int l) {
    const std::int64_t p = l - 1;
    return p * p + 3 * p + 4 * 32 * p + 3 * 32;
}
__host__ __device__ constexpr std::int64_t deep_ints(int l) { return 2 * l + 32 + 2; }
/// One warp's region in doubles (ints rounded up to whole doubles).
__host__ __device__ constexpr std::int64_t deep_stride(int l) { return deep_doubles(l) + (deep_ints(l) + 1) / 2; }

/// The CPU's full sequence for (i, j | s) at runtime level l (scratch: workspace_doubles(l)
/// doubles, l ints at `sn` already holding the nodes).
__device__ void exact_residuals_l(const double* C, std::int64_t n, int l, std::int32_t i, std::int32_t j, double cij,
                                  const int* sn, double* ws, double& h11, double& h12, double& h22) {
    double* lmat = ws;
    double* work = ws + l * l;
    double* yi = ws + 3 * l * l;
    double* yj = yi + l;
    ci::ConditioningBlock blk;
    blk.lmat = lmat;
    blk.factorise(C, n, sn, l, work);
    blk.project(C, n, sn, i, yi);
    for (int t = 0; t < l; ++t) yj[t] = C[static_cast<std::int64_t>(sn[t]) * n + j];
    if (blk.chol) ci::forward_solve(blk.lmat, l, yj);
    h11 = 1.0 - blk.form(yi, yi);
    h22 = 1.0 - blk.form(yj, yj);
    h12 = cij - blk.form(yi, yj);
}

__global__ void __launch_bounds__(32 * kDeepMaxWarps) deep_scan_kernel(LevelArgs a, EntryScanLaunch s) {
    extern __shared__ double smem[];
    const int lane = static_cast<int>(threadIdx.x & 31);
    const int wib = static_cast<int>(threadIdx.x >> 5);
    const int wpb = static_cast<int>(blockDim.x >> 5);
    const int l = a.l, P = l - 1;
    double* L = smem + wib * deep_stride(l);
    double* yi = L + P * P;
    double* si = yi + P;
    double* X = si + P;  // the prefix row being formed
    double* YJ = X + P;  // [t * 32 + lane]
    double* SJ = YJ + 32 * P;
    double* SIJ = SJ + 32 * P;
    double* W = SIJ + 32 * P;  // [t * 32 + slot]
    double* LK = W + 32 * P;   // per slot: sqrt of the last pivot, -1 where it fails
    double* YIL = LK + 32;
    double* H11 = YIL + 32;
    int* c = reinterpret_cast<int*>(H11 + 32);  // the walk's positions (l)
    int* nodes = c + l;                         // nb[c[t]]
    int* KB = nodes + l;                        // per slot: the last node
    int* M = KB + 32;                           // first position the walk changed
    const std::int64_t warp = static_cast<std::int64_t>(blockIdx.x) * wpb + wib;
    const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * wpb;
    const std::int64_t slot = warp * 32 + lane;
    double* ws = a.scratch + slot * workspace_doubles(l);
    int* sn = a.iscratch + slot * workspace_ints(l);
    u64 tests = 0;
    for (std::int64_t it = warp; it < s.n_items; it += warps) {
        const ScanItem item = s.items[it];
        const std::int64_t e0 = a.offsets[item.row];
        const int d = static_cast<int>(a.offsets[item.row + 1] - e0);
        // C and the row's ids: global, or the row's neighbourhood block in local ids
        // (LevelArgs::blocks: neighbour p is p, the row itself d).
        const bool local = a.blocks != nullptr;
        const double* C = local ? a.blocks + a.row_block[item.row] : a.corr.rows;
        const std::int64_t n = local ? d + 1 : a.n;
        const std::int32_t i = local ? d : item.row;
        const std::int32_t* nb = local ? a.iota : a.nbrs + e0;
        const bool split = (item.flags & kItemSplit) != 0;
        int q = -1;
        std::int64_t e = -1;
        bool active = item.q0 + lane < item.q1;
        if (active) {
            q = s.survivors ? s.survivors[e0 + item.q0 + lane] : item.q0 + lane;
            e = e0 + q;
            if (s.upper && a.mirror) {
                const std::int64_t m = a.mirror[e];
                if (m >= 0 && load_relaxed(a.best + m) != kNoRank) active = false;
            }
            if (item.r0 > 0 && load_relaxed(a.best + e) < static_cast<u64>(item.r0)) active = false;
        }
        const bool ran = active;
        if (!__any_sync(kFull, active)) continue;
        const double* ci_row = C + static_cast<std::int64_t>(i) * n;
        const std::int32_t j = active ? nb[q] : nb[0];
        const double cij = ci_row[j];
        if (lane == 0) combination_unrank_fast(item.r0, l, d, c);
        __syncwarp();
        for (int t = lane; t < l; t += 32) nodes[t] = nb[c[t]];
        __syncwarp();
        int valid = 0;  // rows of the prefix factor that hold the current prefix's values
        int pfail = P;  // the prefix row whose pivot failed (P: none)
        detail::MinR mr;
        u64 found = kNoRank;
        int since_check = 0;
        std::int64_t r = item.r0;
        while (r < item.r1) {
            // Prefix rows valid .. P - 1. Row t: C[s_t, s_u] loaded by all lanes at once, then
            // column u by column u (right-looking: each x_v loses its terms in the CPU's order
            // u = 0, 1, ..., the same products), the pivot and y_i(t) on lane 0, and every
            // lane its y_j(t).
            for (int t = valid; t < P; ++t) {
                const std::int32_t st = nodes[t];
                const double* rt = C + static_cast<std::int64_t>(st) * n;
                double* lt = L + t * P;
                for (int u = lane; u < t; u += 32) X[u] = rt[nodes[u]];
                __syncwarp();
                for (int u = 0; u < t; ++u) {
                    if (lane == 0) lt[u] = X[u] / L[u * P + u];
                    __syncwarp();
                    const double f = lt[u];
                    for (int v = u + 1 + lane; v < t; v += 32) X[v] -= f * L[v * P + u];
                    __syncwarp();
                }
                if (lane == 0) {
                    double dd = rt[st];
                    for (int v = 0; v < t; ++v) dd -= lt[v] * lt[v];
                    if (!(dd > ci::kPivotTolerance)) {
                        lt[t] = -1.0;
                    } else {
                        lt[t] = sqrt(dd);
                        double y = ci_row[st];
                        for (int u = 0; u < t; ++u) y -= lt[u] * yi[u];
                        y = y / lt[t];
                        yi[t] = y;
                        si[t] = (t > 0 ? si[t - 1] : 0.0) + y * y;
                    }
                }
                __syncwarp();
                const double diag = L[t * P + t];
                if (diag < 0.0) {
                    pfail = t;
                    valid = t;
                    break;
                }
                if (active) {
                    double y = rt[j];
                    for (int u = 0; u < t; ++u) y -= lt[u] * YJ[u * 32 + lane];
                    y = y / diag;
                    YJ[t * 32 + lane] = y;
                    SJ[t * 32 + lane] = (t > 0 ? SJ[(t - 1) * 32 + lane] : 0.0) + y * y;
                    SIJ[t * 32 + lane] = (t > 0 ? SIJ[(t - 1) * 32 + lane] : 0.0) + yi[t] * y;
                }
                valid = t + 1;
            }
            bool q_in_prefix = false;
            for (int t = 0; t < P; ++t) q_in_prefix |= c[t] == q;
            const int first = c[P];
            const int count = static_cast<int>(min(static_cast<std::int64_t>(d - first), item.r1 - r));
            for (int b0 = 0; b0 < count; b0 += 32) {
                const int cnt = min(32, count - b0);
                // The last rows of the factor for the next cnt sets, a column per lane.
                if (pfail == P && lane < cnt) {
                    const std::int32_t k = nb[first + b0 + lane];
                    KB[lane] = k;
                    for (int t = 0; t < P; ++t) W[t * 32 + lane] = C[static_cast<std::int64_t>(nodes[t]) * n + k];
                    for (int t = 0; t < P; ++t) {
                        const double* lt = L + t * P;
                        double x = W[t * 32 + lane];
                        for (int u = 0; u < t; ++u) x -= W[u * 32 + lane] * lt[u];
                        W[t * 32 + lane] = x / lt[t];
                    }
                    double dd = C[static_cast<std::int64_t>(k) * n + k];
                    for (int t = 0; t < P; ++t) dd -= W[t * 32 + lane] * W[t * 32 + lane];
                    if (dd > ci::kPivotTolerance) {
                        const double lk = sqrt(dd);
                        double y = ci_row[k];
                        for (int t = 0; t < P; ++t) y -= W[t * 32 + lane] * yi[t];
                        y = y / lk;
                        LK[lane] = lk;
                        YIL[lane] = y;
                        H11[lane] = 1.0 - (si[P - 1] + y * y);
                    } else {
                        LK[lane] = -1.0;
                    }
                }
                __syncwarp();
                for (int b = 0; b < cnt; ++b) {
                    const int pos = first + b0 + b;
                    const std::int64_t rank = r + b0 + b;
                    if (!active || q_in_prefix || pos == q) continue;
                    if (split && ++since_check == 8) {
                        since_check = 0;
                        if (load_relaxed(a.best + e) < static_cast<u64>(rank)) {
                            active = false;
                            continue;
                        }
                    }
                    ++tests;
                    double h11, h12, h22;
                    const double lk = pfail == P ? LK[b] : -1.0;
                    if (lk > 0.0) {
                        const std::int32_t k = KB[b];
                        double y = C[static_cast<std::int64_t>(k) * n + j];
                        for (int t = 0; t < P; ++t) y -= W[t * 32 + b] * YJ[t * 32 + lane];
                        y = y / lk;
                        h11 = H11[b];
                        h22 = 1.0 - (SJ[(P - 1) * 32 + lane] + y * y);
                        h12 = cij - (SIJ[(P - 1) * 32 + lane] + YIL[b] * y);
                    } else {
                        for (int t = 0; t < P; ++t) sn[t] = nodes[t];
                        sn[P] = nb[pos];
                        exact_residuals_l(C, n, l, i, j, cij, sn, ws, h11, h12, h22);
                    }
                    if (detail::independent_r(a, ci::partial_from_residual(h11, h12, h22), l)) {
                        found = static_cast<u64>(rank);
                        active = false;
                    } else {
                        mr.add(h11, h12, h22);
                    }
                }
                __syncwarp();
                if (!__any_sync(kFull, active)) break;
            }
            r += count;
            if (r >= item.r1 || !__any_sync(kFull, active)) break;
            // The set after the one whose last position is d - 1.
            if (lane == 0) {
                int t = P - 1;
                while (t >= 0 && c[t] == d - l + t) --t;
                if (t >= 0) {
                    ++c[t];
                    for (int u = t + 1; u < l; ++u) c[u] = c[u - 1] + 1;
                    for (int u = t; u < l; ++u) nodes[u] = nb[c[u]];
                }
                *M = t;
            }
            __syncwarp();
            const int m = *M;
            if (m < 0) break;  // no set left (r1 beyond C(d, l))
            if (pfail < P) {
                if (m <= pfail) {
                    pfail = P;
                    valid = min(valid, m);
                }
            } else {
                valid = min(valid, m);
            }
        }
        if (ran) detail::publish(a, e, found, mr);
        __syncwarp();
    }
    for (int off = 16; off > 0; off >>= 1) tests += __shfl_down_sync(kFull, tests, off);
    if (lane == 0 && tests) atomicAdd(a.tests, tests);
}

std::size_t deep_scan_shared_bytes(int l) { return static_cast<std::size_t>(deep_stride(l)) * sizeof(double); }

}  // namespace

std::int64_t deep_scan_threads(std::int64_t n_items, std::int64_t max_slots) {
    return std::max<std::int64_t>(32, std::min<std::int64_t>(n_items * 32, max_slots / 32 * 32));
}

void launch_deep_scan(const LevelArgs& a, const EntryScanLaunch& s, cudaStream_t stream) {
    if (s.n_items <= 0) return;
    CUDAG_ASSERT(a.l >= 2 && a.scratch && a.iscratch && a.slots >= 32);
    const std::size_t per_warp = deep_scan_shared_bytes(a.l);
    int dev = 0, smem_max = 0;
    CUDAG_CUDA_CHECK(cudaGetDevice(&dev));
    CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CUDAG_ASSERT(per_warp <= static_cast<std::size_t>(smem_max));
    // Warps per block: as many as fit in a third of the opt-in limit (at least one), so
    // that a few blocks share an SM.
    const std::int64_t fit = static_cast<std::int64_t>(static_cast<std::size_t>(smem_max) / 3 / per_warp);
    const int wpb =
        static_cast<int>(std::clamp<std::int64_t>(std::min<std::int64_t>(fit, a.slots / 32), 1, kDeepMaxWarps));
    const std::size_t bytes = per_warp * static_cast<std::size_t>(wpb);
    allow_dynamic_shared(deep_scan_kernel);
    const std::int64_t warps = std::min<std::int64_t>(s.n_items, a.slots / 32);
    const std::int64_t blocks = std::min<std::int64_t>((warps + wpb - 1) / wpb, std::int64_t(1) << 20);
    // Every warp of the grid has its scratch slots: blocks * wpb warps <= slots / 32.
    const std::int64_t grid = std::max<std::int64_t>(1, std::min(blocks, a.slots / 32 / wpb));
    CUDAG_ASSERT(grid * wpb * 32 <= a.slots);
    deep_scan_kernel<<<static_cast<unsigned>(grid), 32 * wpb, bytes, stream>>>(a, s);
    CUDAG_CHECK_LAUNCH();
}

int preload_deep_kernels() { return detail::preload(deep_scan_kernel); }

}  // namespace cudag::cuda
