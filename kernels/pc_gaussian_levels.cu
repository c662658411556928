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
// raise pmax[e] by atomicMax on the bit pattern; for an entry never separated every test
// runs, so that is the CPU's max over all its tests.
//
// Test counts are the tests actually run; because skipping depends on timing they vary
// from run to run and usually exceed the CPU's count (documented in the engine).
#include <cub/cub.cuh>

#include <algorithm>
#include <type_traits>

#include "ci/fisher_z.hpp"
#include "combination_walk.hpp"
#include "core/combinations.hpp"
#include "cuda_check.cuh"
#include "pc_gaussian.cuh"

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

/// A possibly stale read of a value other threads update atomically. Staleness only
/// costs skipped work, never correctness (values only move towards their final).
__device__ __forceinline__ u64 load_relaxed(const u64* p) {
    return *static_cast<const volatile u64*>(p);
}

__device__ __forceinline__ bool is_independent(const LevelArgs& a, double p) {
    return a.strict ? p > a.alpha : p >= a.alpha;
}

/// Fold one test's outcome into the entry's best rank or pMax.
__device__ __forceinline__ void record(const LevelArgs& a, u64* best, u64* pmax, std::int64_t rank,
                                       double p) {
    if (is_independent(a, p)) {
        atomicMin(best, static_cast<u64>(rank));
    } else {
        const u64 bits = static_cast<u64>(__double_as_longlong(p));
        if (bits > load_relaxed(pmax)) atomicMax(pmax, bits);
    }
}

/// p of i ⟂ j | S for a block factorised for S and i's projection yi (the CPU
/// engine's exact sequence of calls).
__device__ __forceinline__ double test_p(const LevelArgs& a, const ci::ConditioningBlock& blk,
                                         const Workspace& ws, int l, std::int32_t i, std::int32_t j) {
    blk.project(a.corr, a.n, ws.s, j, ws.yj);
    const double r = ci::partial_correlation(blk, a.corr[static_cast<std::int64_t>(i) * a.n + j],
                                             ws.yi, ws.yj);
    return ci::fisher_z_pvalue(r, a.m, l);
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
__device__ __forceinline__ bool s_test_set(const LevelArgs& a, std::int32_t i, int d, int l,
                                           const std::int32_t* nb, u64* best, u64* pmax,
                                           std::int64_t r, const Workspace& ws, u64& tests) {
    ci::ConditioningBlock blk;
    blk.lmat = ws.lmat;
    bool factorised = false, alive = false;
    int in_set = 0;  // next position of S to meet
    const u64 ur = static_cast<u64>(r);
    for (int q = 0; q < d; ++q) {
        const u64 b = load_relaxed(best + q);
        if (in_set < l && ws.c[in_set] == q) {
            ++in_set;
            alive |= b > ur;
            continue;
        }
        if (b < ur) continue;  // separated by a smaller rank: this S cannot win
        alive = true;
        if (!factorised) {
            for (int t = 0; t < l; ++t) ws.s[t] = nb[ws.c[t]];
            blk.factorise(a.corr, a.n, ws.s, l, ws.work);
            blk.project(a.corr, a.n, ws.s, i, ws.yi);
            factorised = true;
        }
        const double p = test_p(a, blk, ws, l, i, nb[q]);
        ++tests;
        record(a, best + q, pmax + q, r, p);
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
                sp[q] = 0;
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
                alive = s_test_set(a, i, d, l, nb, best, pmax, r, ws, tests);
                if (!alive || ++r >= stop) break;
                next_combination(ws.c, l, d);
            }
        }
        if (in_shared) {
            __syncthreads();
            for (int q = threadIdx.x; q < d; q += blockDim.x) {
                if (best[q] != kNoRank) atomicMin(a.best + e0 + q, best[q]);
                if (pmax[q] != 0) atomicMax(a.pmax + e0 + q, pmax[q]);
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
                if (static_cast<u64>(r) > load_relaxed(best)) {
                    done = true;
                    break;
                }
                for (int t = 0; t < l; ++t) ws.s[t] = nb[ws.c[t] + (ws.c[t] >= q)];
                blk.factorise(a.corr, a.n, ws.s, l, ws.work);
                blk.project(a.corr, a.n, ws.s, i, ws.yi);
                const double p = test_p(a, blk, ws, l, i, j);
                ++tests;
                if (is_independent(a, p)) {
                    atomicMin(best, static_cast<u64>(r));
                    done = true;
                    break;
                }
                record(a, best, pmax, r, p);
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
            if (a.offsets[mid] <= e) lo = mid;
            else hi = mid;
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
        blk.factorise(a.corr, a.n, ws.s, l, ws.work);
        blk.project(a.corr, a.n, ws.s, i, ws.yi);
        w.p_out[k] = test_p(a, blk, ws, l, i, nb[q]);
    }
}

/// Runtime level -> compile-time L (0: the runtime-l kernels).
template <typename F>
void dispatch_level(int l, bool generic, F&& f) {
    if (generic || l > kMaxTemplateLevel) {
        f(std::integral_constant<int, 0>{});
        return;
    }
    switch (l) {
        case 1: f(std::integral_constant<int, 1>{}); break;
        case 2: f(std::integral_constant<int, 2>{}); break;
        case 3: f(std::integral_constant<int, 3>{}); break;
        case 4: f(std::integral_constant<int, 4>{}); break;
        case 5: f(std::integral_constant<int, 5>{}); break;
        case 6: f(std::integral_constant<int, 6>{}); break;
        default: f(std::integral_constant<int, 0>{}); break;
    }
}
static_assert(kMaxTemplateLevel == 6, "dispatch_level lists the compiled levels");

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

void launch_gaussian_winners(const LevelArgs& a, const WinnerArgs& w, cudaStream_t stream) {
    if (w.count <= 0) return;
    const std::int64_t grid = winners_grid(w.count, a.generic || a.l > kMaxTemplateLevel, a.slots);
    dispatch_level(a.l, a.generic, [&](auto tag) {
        constexpr int L = decltype(tag)::value;
        winners_kernel<L><<<static_cast<unsigned>(grid), kWinnerThreads, 0, stream>>>(a, w);
    });
    CUDAG_CHECK_LAUNCH();
}

}  // namespace cudag::cuda
