// SPDX-License-Identifier: Apache-2.0
// Levels l >= 1 of Gaussian PC-stable on the GPU: cuPC-S and cuPC-E (Zarebavani et al.,
// "cuPC: CUDA-based Parallel PC Algorithm for Causal Structure Learning on GPU", TPDS 2020,
// §4.1 Algorithms 4 and 5, §4.2 combination unranking, §4.3–4.4 the test), plus the
// winner pass that turns the per-entry smallest separating rank into cudag's canonical
// result (DESIGN.md determinism rule).
//
// Canonical result without ordering the threads. For entry e = (i, j = nbrs[e]) the CPU
// reference tests S ⊆ adj(i) \ {j} in lexicographic order and stops at the first
// separating one. Lexicographic order of node sets equals the order of their position
// ranks among row i's sorted neighbours, so the CPU's winner is the separating S of
// smallest rank. Every thread that finds a separating S does atomicMin(best[e], rank);
// tests of ranks above best[e] are skipped (best only decreases, so a skipped rank can
// never win). After the level, the winner's p (the CPU's pMax for a separated entry:
// every earlier test was dependent) is recomputed by winners_kernel. Non-separating tests
// lower minr[e] (the pmax array during the level) by atomicMin on the bit pattern of |r|;
// p decreases in |r|, so after the level p(min |r|) is the largest p of the entry's
// dependent tests: for an entry never separated every test runs, so that is the CPU's max
// over all its tests (equal up to the rounding of p(r) against p(-r)).
//
// Speed, without changing the answer: (1) the decision is taken on |r| against thresholds
// around the p = alpha boundary and only in a narrow band on the exact p, so the inner loop
// has no log/erfc; (2) row i skips entry (i, j), j < i, once row j has separated (j, i):
// the lower endpoint's set wins, so i's side could not change the result (cuPC reads the
// live, symmetric G for the same effect).
//
// Test counts are the tests actually run; because skipping depends on timing they vary
// from run to run and usually exceed the CPU's count (documented in the engine).
#include <cub/cub.cuh>

#include <algorithm>
#include <type_traits>

#include "ci/fisher_z.hpp"
#include "combination_walk.hpp"
#include "core/combinations.hpp"
#include "correlation_entry.cuh"
#include "cuda_check.hpp"
#include "kernel_preload.cuh"
#include "pc_gaussian.cuh"
#include "pc_gaussian_device.cuh"
#include "ci/decision.hpp"

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;

/// Per-thread storage of one conditioning block: L (l×l), the pseudo-inverse scratch
/// (2 l×l), the projections y_i and y_j, the positions c and the nodes s of S.
struct Workspace {
    double* lmat;
    double* work;
    double* yi;
    double* yj;
    int* c;
    int* s;
};

template <int L>
struct LocalWorkspace {
    double lmat[L * L];
    double work[2 * L * L];
    double yi[L];
    double yj[L];
    int c[L];
    int s[L];
    __device__ Workspace view() { return {lmat, work, yi, yj, c, s}; }
};

__device__ __forceinline__ Workspace global_workspace(const LevelArgs& a, int l, std::int64_t slot) {
    double* d = a.scratch + slot * workspace_doubles(l);
    int* ip = a.iscratch + slot * workspace_ints(l);
    return {d, d + l * l, d + 3 * l * l, d + 3 * l * l + l, ip, ip + l};
}

using detail::independent_r;
using detail::load_relaxed;
using detail::record_dependent;

/// Whether entry (i, j) can be skipped: j < i and row j already separated (j, i).
__device__ __forceinline__ bool lower_side_separated(const LevelArgs& a, std::int32_t i, std::int32_t j,
                                                     std::int64_t e) {
    return a.mirror && j < i && load_relaxed(a.best + a.mirror[e]) != kNoRank;
}

/// Partial correlation of i and j given S for a block factorised for S and i's
/// projection yi (the CPU engine's exact sequence of calls).
__device__ __forceinline__ double test_r(const LevelArgs& a, const ci::ConditioningBlock& blk, const Workspace& ws,
                                         std::int32_t i, std::int32_t j) {
    blk.project_with(detail::CorrReader{a.corr}, ws.s, j, ws.yj);
    return ci::partial_correlation(blk, detail::corr_entry(a.corr, i, j), ws.yi, ws.yj);
}

/// Sets per unrank: consecutive ranks are stepped with next_combination, which
/// amortises the O(d) unrank while keeping the block's window of ranks narrow.
__device__ __forceinline__ std::int64_t chunk_for(std::int64_t total, std::int64_t threads) {
    return total >= 16 * threads ? 8 : (total >= 4 * threads ? 2 : 1);
}

/// cuPC-S for the set of rank r (positions ws.c) of row i: every entry q ∉ S whose
/// best is not below r is tested with one factorisation of C[S,S]. Returns false when
/// every entry of the row already has a separating rank below r (nothing this thread
/// could still do at ranks >= r: cuPC §4.1 early termination, made rank-exact).
__device__ __forceinline__ bool s_test_set(const LevelArgs& a, std::int32_t i, std::int64_t e0, int d, int l,
                                           const std::int32_t* nb, u64* best, u64* pmax, std::int64_t r,
                                           const Workspace& ws, u64& tests) {
    ci::ConditioningBlock blk;
    blk.lmat = ws.lmat;
    bool factorised = false, alive = false;
    int in_set = 0;  // next position of S to meet
    const u64 ur = static_cast<u64>(r);
    for (int q = 0; q < d; ++q) {
        const u64 b = load_relaxed(best + q);
        if (in_set < l && ws.c[in_set] == q) {
            ++in_set;
            alive |= b > ur && b != kLowerSideSeparated;
            continue;
        }
        if (b < ur) continue;  // separated by a smaller rank: this S cannot win
        if (b == kLowerSideSeparated) continue;
        if (lower_side_separated(a, i, nb[q], e0 + q)) {
            atomicMin(best + q, kLowerSideSeparated);  // later sets skip it on one load
            continue;
        }
        alive = true;
        if (!factorised) {
            for (int t = 0; t < l; ++t) ws.s[t] = nb[ws.c[t]];
            blk.factorise_with(detail::CorrReader{a.corr}, ws.s, l, ws.work);
            blk.project_with(detail::CorrReader{a.corr}, ws.s, i, ws.yi);
            factorised = true;
        }
        const double rr = test_r(a, blk, ws, i, nb[q]);
        ++tests;
        if (independent_r(a, rr, l))
            atomicMin(best + q, ur);
        else
            record_dependent(pmax + q, rr);
    }
    return alive;
}

/// cuPC-S (Alg. 5). Grid (δ, rows): blockIdx.y strides over the listed rows, the δ blocks
/// of a row and their θ threads stride over the C(d, l) conditioning sets of the row in
/// chunks of consecutive ranks; each thread factorises C[S,S] once per set and tests
/// every open entry j ∉ S. Rows with d <= shared_entries keep neighbours, best and pmax
/// in shared memory (block-local; merged into global memory at the row's end).
template <int L>
__global__ void cupc_s_kernel(LevelArgs a, SetParallelLaunch s) {
    extern __shared__ u64 smem[];
    const int l = L > 0 ? L : a.l;
    LocalWorkspace<(L > 0 ? L : 1)> local;
    const std::int64_t slot =
        (static_cast<std::int64_t>(blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    const Workspace ws = L > 0 ? local.view() : global_workspace(a, l, slot);
    const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    const std::int64_t tid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    u64 tests = 0;
    for (std::int64_t ri = blockIdx.y; ri < s.n_rows; ri += gridDim.y) {
        const std::int32_t i = s.rows[ri];
        const std::int64_t e0 = a.offsets[i];
        const int d = static_cast<int>(a.offsets[i + 1] - e0);
        const bool in_shared = d <= s.shared_entries;  // uniform over the block
        u64* best = a.best + e0;
        u64* pmax = a.pmax + e0;
        const std::int32_t* nb = a.nbrs + e0;
        if (in_shared) {
            u64* sb = smem;
            u64* sp = smem + s.shared_entries;
            std::int32_t* sn = reinterpret_cast<std::int32_t*>(smem + 2 * s.shared_entries);
            for (int q = threadIdx.x; q < d; q += blockDim.x) {
                sb[q] = kNoRank;
                sp[q] = kNoCorrelation;
                sn[q] = nb[q];
            }
            __syncthreads();
            best = sb;
            pmax = sp;
            nb = sn;
        }
        const std::int64_t total = binomial(d, l);
        const std::int64_t chunk = chunk_for(total, threads);
        bool alive = true;
        for (std::int64_t start = tid * chunk; alive && start < total; start += threads * chunk) {
            combination_unrank_fast(start, l, d, ws.c);
            const std::int64_t stop = min(start + chunk, total);
            for (std::int64_t r = start;;) {
                alive = s_test_set(a, i, e0, d, l, nb, best, pmax, r, ws, tests);
                if (!alive || ++r >= stop) break;
                next_combination(ws.c, l, d);
            }
        }
        if (in_shared) {
            __syncthreads();
            for (int q = threadIdx.x; q < d; q += blockDim.x) {
                if (best[q] != kNoRank) atomicMin(a.best + e0 + q, best[q]);
                if (pmax[q] != kNoCorrelation) atomicMin(a.pmax + e0 + q, pmax[q]);
            }
            __syncthreads();
        }
    }
    if (tests) atomicAdd(a.tests, tests);
}

/// cuPC-E (Alg. 4). One block per work item (row i, entries q0 .. q0+β-1): threadIdx.y
/// picks the entry, the γ threads of threadIdx.x stride over its C(d-1, l) sets (ranks
/// over the d-1 neighbours other than j) in chunks of consecutive ranks. A thread stops
/// at the first rank above the entry's best (its later ranks are larger still).
template <int L>
__global__ void cupc_e_kernel(LevelArgs a, EdgeParallelLaunch s) {
    const int l = L > 0 ? L : a.l;
    LocalWorkspace<(L > 0 ? L : 1)> local;
    const std::int64_t slot =
        (static_cast<std::int64_t>(blockIdx.x) * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    const Workspace ws = L > 0 ? local.view() : global_workspace(a, l, slot);
    u64 tests = 0;
    for (std::int64_t it = blockIdx.x; it < s.n_items; it += gridDim.x) {
        const int2 item = s.items[it];
        const std::int32_t i = item.x;
        const std::int64_t e0 = a.offsets[i];
        const int d = static_cast<int>(a.offsets[i + 1] - e0);
        const int q = item.y + static_cast<int>(threadIdx.y);
        if (q >= d) continue;
        const std::int32_t* nb = a.nbrs + e0;
        const std::int32_t j = nb[q];
        u64* best = a.best + e0 + q;
        u64* pmax = a.pmax + e0 + q;
        const std::int64_t total = binomial(d - 1, l);
        const std::int64_t chunk = chunk_for(total, blockDim.x);
        ci::ConditioningBlock blk;
        blk.lmat = ws.lmat;
        bool done = false;
        for (std::int64_t start = threadIdx.x * chunk; !done && start < total;
             start += static_cast<std::int64_t>(blockDim.x) * chunk) {
            if (static_cast<u64>(start) > load_relaxed(best)) break;
            combination_unrank_fast(start, l, d - 1, ws.c);
            const std::int64_t stop = min(start + chunk, total);
            for (std::int64_t r = start;;) {
                if (static_cast<u64>(r) > load_relaxed(best) || lower_side_separated(a, i, j, e0 + q)) {
                    done = true;
                    break;
                }
                for (int t = 0; t < l; ++t) ws.s[t] = nb[ws.c[t] + (ws.c[t] >= q)];
                blk.factorise_with(detail::CorrReader{a.corr}, ws.s, l, ws.work);
                blk.project_with(detail::CorrReader{a.corr}, ws.s, i, ws.yi);
                const double rr = test_r(a, blk, ws, i, j);
                ++tests;
                if (independent_r(a, rr, l)) {
                    atomicMin(best, static_cast<u64>(r));
                    done = true;
                    break;
                }
                record_dependent(pmax, rr);
                if (++r >= stop) break;
                next_combination(ws.c, l, d - 1);
            }
        }
    }
    if (tests) atomicAdd(a.tests, tests);
}

/// One thread per separated entry (grid-stride): find the entry's row by binary search
/// in offsets, unrank its best rank to S, write S's nodes and recompute the test's p.
template <int L>
__global__ void winners_kernel(LevelArgs a, WinnerArgs w) {
    const int l = L > 0 ? L : a.l;
    LocalWorkspace<(L > 0 ? L : 1)> local;
    const std::int64_t gtid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const Workspace ws = L > 0 ? local.view() : global_workspace(a, l, gtid);
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t k = gtid; k < w.count; k += stride) {
        const std::int64_t e = w.entries[k];
        std::int64_t lo = 0, hi = a.n;  // offsets[lo] <= e < offsets[hi]
        while (hi - lo > 1) {
            const std::int64_t mid = (lo + hi) / 2;
            if (a.offsets[mid] <= e)
                lo = mid;
            else
                hi = mid;
        }
        const std::int32_t i = static_cast<std::int32_t>(lo);
        const std::int64_t e0 = a.offsets[i];
        const int d = static_cast<int>(a.offsets[i + 1] - e0);
        const int q = static_cast<int>(e - e0);
        const std::int32_t* nb = a.nbrs + e0;
        const std::int64_t rank = static_cast<std::int64_t>(a.best[e]);
        if (w.ranks_exclude_entry) {
            combination_unrank_fast(rank, l, d - 1, ws.c);
            for (int t = 0; t < l; ++t) ws.c[t] += ws.c[t] >= q;
        } else {
            combination_unrank_fast(rank, l, d, ws.c);
        }
        for (int t = 0; t < l; ++t) {
            ws.s[t] = nb[ws.c[t]];
            w.set_out[k * l + t] = ws.s[t];
        }
        ci::ConditioningBlock blk;
        blk.lmat = ws.lmat;
        blk.factorise_with(detail::CorrReader{a.corr}, ws.s, l, ws.work);
        blk.project_with(detail::CorrReader{a.corr}, ws.s, i, ws.yi);
        w.p_out[k] = ci::fisher_z_pvalue(test_r(a, blk, ws, i, nb[q]), a.m, l);
    }
}

/// One block per row (grid-stride): entry e = (i, j) with j < i gets the index of (j, i)
/// in row j (binary search of i among j's sorted neighbours), other entries -1.
__global__ void mirror_kernel(const std::int64_t* offsets, const std::int32_t* nbrs, std::int64_t n,
                              std::int64_t* mirror) {
    for (std::int64_t i = blockIdx.x; i < n; i += gridDim.x) {
        for (std::int64_t e = offsets[i] + threadIdx.x; e < offsets[i + 1]; e += blockDim.x) {
            const std::int32_t j = nbrs[e];
            std::int64_t found = -1;
            if (j < i) {
                std::int64_t lo = offsets[j], hi = offsets[j + 1];
                while (lo < hi) {
                    const std::int64_t mid = (lo + hi) / 2;
                    if (nbrs[mid] < i)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo < offsets[j + 1] && nbrs[lo] == i) found = lo;
            }
            mirror[e] = found;
        }
    }
}

__global__ void finish_level_kernel(LevelArgs a, std::int64_t e_begin, std::int64_t e_end) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t e = e_begin + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < e_end;
         e += stride) {
        if (a.best[e] == kLowerSideSeparated) a.best[e] = kNoRank;
        const u64 bits = a.pmax[e];
        a.pmax[e] = bits == kNoCorrelation ? 0ull
                                           : static_cast<u64>(__double_as_longlong(ci::fisher_z_pvalue(
                                                 __longlong_as_double(static_cast<long long>(bits)), a.m, a.l)));
    }
}

using detail::dispatch_level;

constexpr std::int64_t kMaxGridY = 65535;
constexpr std::int64_t kMaxGridX = (1ll << 31) - 1;
constexpr int kWinnerThreads = 128;

dim3 cupc_s_grid(const SetParallelLaunch& s, bool generic, std::int64_t max_slots) {
    std::int64_t y = std::min(s.n_rows, kMaxGridY);
    if (generic) y = std::max<std::int64_t>(1, std::min(y, max_slots / (std::int64_t(s.theta) * s.delta)));
    return dim3(static_cast<unsigned>(s.delta), static_cast<unsigned>(y));
}

std::int64_t cupc_e_grid(const EdgeParallelLaunch& s, bool generic, std::int64_t max_slots) {
    std::int64_t x = std::min(s.n_items, kMaxGridX);
    if (generic) x = std::max<std::int64_t>(1, std::min(x, max_slots / (std::int64_t(s.beta) * s.gamma)));
    return x;
}

std::int64_t winners_grid(std::int64_t count, bool generic, std::int64_t max_slots) {
    std::int64_t x = std::min<std::int64_t>((count + kWinnerThreads - 1) / kWinnerThreads, 1 << 20);
    if (generic) x = std::max<std::int64_t>(1, std::min(x, max_slots / kWinnerThreads));
    return x;
}

}  // namespace

std::int64_t cupc_s_generic_threads(const SetParallelLaunch& s, std::int64_t max_slots) {
    const dim3 g = cupc_s_grid(s, true, max_slots);
    return static_cast<std::int64_t>(g.x) * g.y * s.theta;
}

std::int64_t cupc_e_generic_threads(const EdgeParallelLaunch& s, std::int64_t max_slots) {
    return cupc_e_grid(s, true, max_slots) * s.beta * s.gamma;
}

std::int64_t winners_generic_threads(std::int64_t count, std::int64_t max_slots) {
    return winners_grid(count, true, max_slots) * kWinnerThreads;
}

void launch_cupc_s(const LevelArgs& a, const SetParallelLaunch& s, cudaStream_t stream) {
    if (s.n_rows <= 0) return;
    const dim3 grid = cupc_s_grid(s, a.generic || a.l > kMaxTemplateLevel, a.slots);
    const std::size_t smem = static_cast<std::size_t>(s.shared_entries) * (2 * sizeof(u64) + sizeof(std::int32_t));
    dispatch_level(a.l, a.generic, [&](auto tag) {
        constexpr int L = decltype(tag)::value;
        cupc_s_kernel<L><<<grid, s.theta, smem, stream>>>(a, s);
    });
    CUDAG_CHECK_LAUNCH();
}

void launch_cupc_e(const LevelArgs& a, const EdgeParallelLaunch& s, cudaStream_t stream) {
    if (s.n_items <= 0) return;
    const std::int64_t grid = cupc_e_grid(s, a.generic || a.l > kMaxTemplateLevel, a.slots);
    const dim3 block(static_cast<unsigned>(s.gamma), static_cast<unsigned>(s.beta));
    dispatch_level(a.l, a.generic, [&](auto tag) {
        constexpr int L = decltype(tag)::value;
        cupc_e_kernel<L><<<static_cast<unsigned>(grid), block, 0, stream>>>(a, s);
    });
    CUDAG_CHECK_LAUNCH();
}

std::pair<double, double> decision_band(std::int64_t m, int l, double alpha, bool strict) {
    const auto independent = [&](double r) {
        return ci::Decision{alpha, strict}.independent(ci::fisher_z_pvalue(r, m, l));
    };
    if (independent(ci::kMaxAbsCorrelation) || !independent(0.0)) return {-1.0, 1e300};
    double lo = 0.0, hi = ci::kMaxAbsCorrelation;  // independent(lo), !independent(hi)
    for (int k = 0; k < 200 && hi - lo > 1e-17; ++k) {
        const double mid = 0.5 * (lo + hi);
        (independent(mid) ? lo : hi) = mid;
    }
    return {lo * (1.0 - 1e-6), hi * (1.0 + 1e-6)};
}

void launch_mirror(const std::int64_t* offsets, const std::int32_t* nbrs, std::int64_t n, std::int64_t* mirror,
                   cudaStream_t stream) {
    if (n <= 0) return;
    const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>(n, 1 << 16));
    mirror_kernel<<<grid, 128, 0, stream>>>(offsets, nbrs, n, mirror);
    CUDAG_CHECK_LAUNCH();
}

void launch_finish_level(const LevelArgs& a, std::int64_t e_begin, std::int64_t e_end, cudaStream_t stream) {
    if (e_end <= e_begin) return;
    const std::int64_t blocks = std::min<std::int64_t>((e_end - e_begin + 255) / 256, 1 << 16);
    finish_level_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(a, e_begin, e_end);
    CUDAG_CHECK_LAUNCH();
}

void launch_gaussian_winners(const LevelArgs& a, const WinnerArgs& w, cudaStream_t stream) {
    if (w.count <= 0) return;
    const std::int64_t grid = winners_grid(w.count, a.generic || a.l > kMaxTemplateLevel, a.slots);
    dispatch_level(a.l, a.generic, [&](auto tag) {
        constexpr int L = decltype(tag)::value;
        winners_kernel<L><<<static_cast<unsigned>(grid), kWinnerThreads, 0, stream>>>(a, w);
    });
    CUDAG_CHECK_LAUNCH();
}

namespace {

__global__ void mark_tested_kernel(UnpackArgs u) {
    for (std::int64_t k = blockIdx.x; k < u.n_rows; k += gridDim.x) {
        const std::int32_t i = u.rows[k];
        const std::int64_t e0 = max(u.offsets[i], u.e_begin), e1 = min(u.offsets[i + 1], u.e_end);
        for (std::int64_t e = e0 + threadIdx.x; e < e1; e += blockDim.x) u.flags[e - u.e_begin] = u.tested;
    }
}

__global__ void scatter_winners_kernel(UnpackArgs u) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < u.n_sel; k += stride) {
        const std::int64_t e = u.sel[k];
        u.flags[e - u.e_begin] |= u.separated;
        u.pmax[e] = static_cast<unsigned long long>(__double_as_longlong(u.pwin[k]));
        for (int t = 0; t < u.l; ++t) u.nodes[(e - u.e_begin) * u.l + t] = u.sets[k * u.l + t];
    }
}

/// Entries no test reached (rows below the level's degree) keep p = -1, as on the host.
__global__ void untested_pmax_kernel(UnpackArgs u, std::int64_t count) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride)
        if (u.flags[k] == 0) u.pmax[u.e_begin + k] = static_cast<unsigned long long>(__double_as_longlong(-1.0));
}

}  // namespace

void launch_unpack_level(const UnpackArgs& u, std::int64_t count, cudaStream_t stream) {
    if (u.n_rows > 0) {
        const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(u.n_rows, 1 << 16));
        mark_tested_kernel<<<blocks, 128, 0, stream>>>(u);
        CUDAG_CHECK_LAUNCH();
    }
    if (u.n_sel > 0) {
        const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((u.n_sel + 255) / 256, 1 << 16));
        scatter_winners_kernel<<<blocks, 256, 0, stream>>>(u);
        CUDAG_CHECK_LAUNCH();
    }
    if (count > 0) {
        const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((count + 255) / 256, 1 << 16));
        untested_pmax_kernel<<<blocks, 256, 0, stream>>>(u, count);
        CUDAG_CHECK_LAUNCH();
    }
}

namespace {

__global__ void pack_level_kernel(const unsigned long long* best, std::int64_t e_begin, std::int64_t e_end,
                                  const std::int64_t* sel, const double* pwin, std::int64_t n_sel,
                                  unsigned long long* pmax, std::uint32_t* bits) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    const std::int64_t count = e_end - e_begin;
    const std::int64_t words = (count + 31) / 32;
    // Whole warps per 32 entries (the grid covers words * 32 threads).
    for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < words * 32;
         k += stride) {
        const bool on = k < count && best[e_begin + k] != kNoRank;
        const unsigned w = __ballot_sync(0xffffffffu, on);
        if ((threadIdx.x & 31) == 0) bits[k / 32] = w;
    }
    for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n_sel; k += stride)
        pmax[sel[k]] = static_cast<unsigned long long>(__double_as_longlong(pwin[k]));
}

__device__ bool settle_removed(const SettleArgs& a, std::int64_t row, std::int64_t e) {
    const std::int64_t k = a.bit0[row] + (e - a.offsets[row]);
    return (a.removal[k >> 3] >> (k & 7)) & 1u;
}

__device__ std::int64_t settle_row_of(const SettleArgs& a, std::int64_t e) {
    std::int64_t lo = 0, hi = a.n;  // the last row r with offsets[r] <= e
    while (hi - lo > 1) {
        const std::int64_t mid = (lo + hi) / 2;
        if (a.offsets[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

__global__ void settle_pmax_kernel(SettleArgs a) {
    for (std::int64_t k = blockIdx.x; k < a.n_rows; k += gridDim.x) {
        const std::int64_t r = a.rows[k];
        const std::int64_t e0 = max(a.offsets[r], a.e_begin), e1 = min(a.offsets[r + 1], a.e_end);
        for (std::int64_t e = e0 + threadIdx.x; e < e1; e += blockDim.x) {
            const std::int64_t b = a.nbrs[e];
            std::int64_t i = r, j = b;
            if (b < r) {
                if (settle_removed(a, b, a.mirror[e])) continue;
                i = b;
                j = r;
            }
            const unsigned long long bits = a.p[e];
            if (isnan(__longlong_as_double(static_cast<long long>(bits)))) continue;  // never raises, as on the host
            const std::int64_t slot = detail::pmax_slot(a.dense, a.n, a.poff, a.pcol, i, j);
            if (slot < 0) continue;  // not held (cannot happen)
            // p >= 0 and the table's -1: the signed order of the bits is the numeric order.
            atomicMax(reinterpret_cast<long long*>(a.table + slot), static_cast<long long>(bits));
        }
    }
}

__global__ void settle_keep_kernel(SettleArgs a) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k <= a.n_sel; k += stride) {
        if (k == a.n_sel) {
            a.keep[k] = 0;
            continue;
        }
        // mirror < 0: a lower entry (b > a), whose set always counts.
        const std::int64_t e = a.sel[k], m = a.mirror[e];
        a.keep[k] = m < 0 || !settle_removed(a, a.nbrs[e], m);
    }
}

__global__ void settle_records_kernel(SettleArgs a) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.n_sel; k += stride) {
        if (!a.keep[k]) continue;
        const std::int64_t e = a.sel[k];
        const auto r = static_cast<std::int32_t>(settle_row_of(a, e));
        const std::int32_t b = a.nbrs[e];
        const std::int64_t at = a.pos[k];
        a.pairs_out[2 * at] = min(r, b);
        a.pairs_out[2 * at + 1] = max(r, b);
        for (int t = 0; t < a.l; ++t) a.nodes_out[at * a.l + t] = a.sets[k * a.l + t];
    }
}

__global__ void table_flags_kernel(TablePairsArgs a) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k <= a.count; k += stride)
        a.flag[k] = k < a.count && a.values[k] >= 0.0;
}

/// A block per row (grid-stride): the row's slots and their columns.
__global__ void table_pairs_kernel(TablePairsArgs a) {
    for (std::int64_t i = blockIdx.x; i < a.n; i += gridDim.x) {
        const std::int64_t b = a.dense ? i * a.n - i * (i + 1) / 2 : a.poff[i];
        const std::int64_t e = a.dense ? b + (a.n - 1 - i) : a.poff[i + 1];
        for (std::int64_t k = b + threadIdx.x; k < e; k += blockDim.x) {
            if (!a.flag[k]) continue;
            TablePair q;
            q.i = static_cast<std::int32_t>(i);
            q.j = a.dense ? static_cast<std::int32_t>(i + 1 + (k - b)) : a.pcol[k];
            q.p = a.values[k];
            a.out[a.pos[k]] = q;
        }
    }
}

unsigned grid_for(std::int64_t threads, int block) {
    return static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>((threads + block - 1) / block, 1 << 16)));
}

}  // namespace

void launch_pack_level(const unsigned long long* best, std::int64_t e_begin, std::int64_t e_end,
                       const std::int64_t* sel, const double* pwin, std::int64_t n_sel, unsigned long long* pmax,
                       std::uint32_t* bits, cudaStream_t stream) {
    const std::int64_t threads = std::max((e_end - e_begin + 31) / 32 * 32, n_sel);
    if (threads <= 0) return;
    pack_level_kernel<<<grid_for(threads, 256), 256, 0, stream>>>(best, e_begin, e_end, sel, pwin, n_sel, pmax, bits);
    CUDAG_CHECK_LAUNCH();
}

void launch_settle_pmax(const SettleArgs& a, cudaStream_t stream) {
    if (a.n_rows <= 0) return;
    settle_pmax_kernel<<<static_cast<unsigned>(std::min<std::int64_t>(a.n_rows, 1 << 16)), 128, 0, stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

void launch_settle_keep(const SettleArgs& a, cudaStream_t stream) {
    settle_keep_kernel<<<grid_for(a.n_sel + 1, 256), 256, 0, stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

void launch_table_flags(const TablePairsArgs& a, cudaStream_t stream) {
    table_flags_kernel<<<grid_for(a.count + 1, 256), 256, 0, stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

void launch_table_pairs(const TablePairsArgs& a, cudaStream_t stream) {
    if (a.n <= 0 || a.count <= 0) return;
    table_pairs_kernel<<<static_cast<unsigned>(std::min<std::int64_t>(a.n, 1 << 16)), 256, 0, stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

void launch_settle_records(const SettleArgs& a, cudaStream_t stream) {
    if (a.n_sel <= 0) return;
    settle_records_kernel<<<grid_for(a.n_sel, 256), 256, 0, stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

int preload_level_kernels(int max_level) {
    int n = detail::preload(mirror_kernel, finish_level_kernel, mark_tested_kernel, scatter_winners_kernel,
                            untested_pmax_kernel, pack_level_kernel, settle_pmax_kernel, settle_keep_kernel,
                            settle_records_kernel, table_flags_kernel, table_pairs_kernel);
    // L = 0: the runtime-l kernels, for levels above the templates (or generic_from_level).
    detail::for_each_level<0, kMaxTemplateLevel>([&](auto tag) {
        constexpr int L = decltype(tag)::value;
        if (L == 0 ? max_level < 0 || max_level >= 1 : max_level < 0 || L <= max_level)
            n += detail::preload(cupc_s_kernel<L>, cupc_e_kernel<L>, winners_kernel<L>);
    });
    return n;
}

}  // namespace cudag::cuda
