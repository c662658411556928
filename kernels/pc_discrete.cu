// SPDX-License-Identifier: Apache-2.0
// Discrete (χ²/G²) PC-stable kernel, gpuPC scheme (Hagedorn & Huegle, SDM'21, §3 Alg. 2
// and 3; DIGEST.md §3.4). Thread mapping: block b handles work items b, b + gridDim.x, ...
// (one pair or compacted entry each: β = 1); threadIdx.y = group g of γ; the δ threads of
// threadIdx.x build one contingency table N[s][x][y] (S configurations in mixed radix,
// first S variable least significant) by striding over the samples with atomicAdd, then
// compute the strata's marginals and partial statistics (one stratum per thread), and
// thread 0 of the group sums the partials in a fixed order and takes the p-value (double).
//
// Canonical separating sets as in pc_gaussian_levels.cu: group g tests the ranks g, g+γ,
// ... of S ⊆ adj(i) \ {j} (ranks over the d-1 positions other than j's), skips every rank
// above the entry's best, and publishes a separating rank with atomicMin. A winner pass
// recomputes the p of the final best rank (the entry's pMax). Tables live in dynamic
// shared memory when γ of them fit, else in global scratch (one slot per group in flight;
// the host bounds the grid so the scratch fits: gpuPC's reduced parallelism).
#include <climits>

#include "ci/discrete_test.hpp"
#include "core/combinations.hpp"
#include "cuda_check.hpp"
#include "kernel_preload.cuh"
#include "pc_discrete.cuh"
#include "ci/decision.hpp"

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;
constexpr u64 kNoRank = ULLONG_MAX;
constexpr int kMaxLevel = 64;

__device__ __forceinline__ u64 load_relaxed(const u64* p) { return *static_cast<const volatile u64*>(p); }

/// One test by the δ threads of a group: i ⟂ j | S (s[0..l)); the result is valid in
/// thread 0 only. `table` has a.group_words words; `partial` 2δ doubles. Every thread of
/// the block calls it together (it synchronises the block); groups with `active` false
/// only take part in the barriers.
__device__ double group_test(const DiscreteLevelArgs& a, bool active, std::int32_t i, std::int32_t j,
                             const std::int32_t* s, int l, std::uint32_t* table, double* partial) {
    if (!active) {
        __syncthreads();
        __syncthreads();
        __syncthreads();
        __syncthreads();
        return 1.0;
    }
    const int tx = threadIdx.x;
    const int delta = blockDim.x;
    const int rx = a.cards[i];
    const int ry = a.cards[j];
    std::int64_t prod_s = 1;
    for (int t = 0; t < l; ++t) prod_s *= a.cards[s[t]];
    const std::int64_t cells = prod_s * rx * ry;
    std::uint32_t* nx = table + cells;
    std::uint32_t* ny = nx + prod_s * rx;
    for (std::int64_t c = tx; c < cells; c += delta) table[c] = 0;
    __syncthreads();
    const std::uint8_t* xi = a.codes + static_cast<std::int64_t>(i) * a.m;
    const std::uint8_t* yj = a.codes + static_cast<std::int64_t>(j) * a.m;
    for (std::int64_t k = tx; k < a.m; k += delta) {
        std::int64_t code = 0, radix = 1;
        for (int t = 0; t < l; ++t) {
            code += a.codes[static_cast<std::int64_t>(s[t]) * a.m + k] * radix;
            radix *= a.cards[s[t]];
        }
        atomicAdd(table + (code * rx + xi[k]) * ry + yj[k], 1u);
    }
    __syncthreads();
    const ci::DiscreteStat stat = static_cast<ci::DiscreteStat>(a.stat);
    double sum = 0.0, df_seen = 0.0;
    for (std::int64_t g = tx; g < prod_s; g += delta) {
        const std::uint32_t* n = table + g * rx * ry;
        std::uint32_t* gx = nx + g * rx;
        std::uint32_t* gy = ny + g * ry;
        std::uint32_t ns = 0;
        for (int x = 0; x < rx; ++x) {
            std::uint32_t r = 0;
            for (int y = 0; y < ry; ++y) r += n[x * ry + y];
            gx[x] = r;
            ns += r;
        }
        if (ns == 0) continue;
        for (int y = 0; y < ry; ++y) {
            std::uint32_t c = 0;
            for (int x = 0; x < rx; ++x) c += n[x * ry + y];
            gy[y] = c;
        }
        ci::dense_stratum(stat, n, gx, gy, ns, rx, ry, sum, df_seen);
    }
    partial[tx] = sum;
    partial[delta + tx] = df_seen;
    __syncthreads();
    double p = 1.0;
    if (tx == 0) {
        double total = 0.0, df = 0.0;
        for (int t = 0; t < delta; ++t) {
            total += partial[t];
            df += partial[delta + t];
        }
        const auto rule = static_cast<ci::DofRule>(a.dof);
        ci::DiscreteTable t;
        t.df_full = static_cast<double>(rx - 1) * (ry - 1) * static_cast<double>(prod_s);
        t.df_seen = df;
        t.cells = static_cast<double>(cells);
        t.prod_s = static_cast<double>(prod_s);
        t.l = l;
        t.n = a.m;
        if (rule == ci::DofRule::PcalgAdaptDf)  // pcalg's zero counts: the cells no sample falls in
            for (std::int64_t c = 0; c < cells; ++c) t.nonzero += table[c] != 0;
        p = ci::discrete_pvalue(rule, total, t);
    }
    __syncthreads();
    return p;
}

__global__ void discrete_level_kernel(DiscreteLevelArgs a) {
    extern __shared__ unsigned char smem[];
    const int delta = blockDim.x;
    const int g = threadIdx.y;
    const int gamma = blockDim.y;
    double* partial = reinterpret_cast<double*>(smem) + 2 * delta * g;
    std::uint32_t* table =
        a.shared_tables
            ? reinterpret_cast<std::uint32_t*>(reinterpret_cast<double*>(smem) + 2 * delta * gamma) + g * a.group_words
            : a.scratch + (static_cast<std::int64_t>(blockIdx.x) * gamma + g) * a.group_words;
    __shared__ int flag[32];
    std::int32_t s[kMaxLevel];
    int c[kMaxLevel];
    const bool lead = threadIdx.x == 0;
    u64 tests = 0;
    for (std::int64_t it = blockIdx.x; it < a.n_items; it += gridDim.x) {
        const int2 item = a.items[it];
        const std::int32_t i = item.x;
        if (a.l == 0) {
            // Level 0 (Alg. 2): one test per pair, by group 0.
            const double p = group_test(a, g == 0, i, item.y, s, 0, table, partial);
            if (lead && g == 0) {
                a.p_out[it] = p;
                ++tests;
            }
            continue;
        }
        const std::int64_t e0 = a.offsets[i];
        const int d = static_cast<int>(a.offsets[i + 1] - e0);
        const int q = item.y;
        const std::int32_t* nb = a.nbrs + e0;
        const std::int32_t j = nb[q];
        u64* best = a.best + e0 + q;
        std::int64_t first = 0, last = binomial(d - 1, a.l), step = gamma;
        if (a.winner_pass) {
            const u64 b = *best;  // final: written by the previous launch
            if (b == kNoRank) continue;
            first = static_cast<std::int64_t>(b);
            last = first + 1;
            step = 1;
        }
        // Rounds of γ consecutive ranks, group g taking rank base + g; the whole block
        // leaves when no group has a rank left at or below the entry's best.
        for (std::int64_t base = first; base < last; base += step) {
            const std::int64_t r = base + (a.winner_pass ? 0 : g);
            if (lead) flag[g] = r < last && (a.winner_pass ? g == 0 : static_cast<u64>(r) <= load_relaxed(best));
            __syncthreads();
            bool any = false;
            for (int t = 0; t < gamma; ++t) any = any || flag[t];
            const bool active = flag[g];
            __syncthreads();
            if (!any) break;
            if (active) {
                combination_unrank(r, a.l, d - 1, c);
                for (int t = 0; t < a.l; ++t) s[t] = nb[c[t] + (c[t] >= q)];
            }
            const double p = group_test(a, active, i, j, s, a.l, table, partial);
            if (!lead || !active) continue;
            ++tests;
            if (a.winner_pass) {
                a.p_out[e0 + q] = p;
            } else if (ci::Decision{a.alpha, a.strict}.independent(p)) {
                atomicMin(best, static_cast<u64>(r));
            } else {
                const u64 bits = static_cast<u64>(__double_as_longlong(p));
                if (bits > load_relaxed(a.pmax + e0 + q)) atomicMax(a.pmax + e0 + q, bits);
            }
        }
    }
    if (threadIdx.x == 0 && tests) atomicAdd(a.tests, tests);
}

}  // namespace

std::size_t discrete_shared_bytes(const DiscreteLevelArgs& a, const DiscreteLaunch& s) {
    std::size_t bytes = sizeof(double) * 2 * s.delta * s.gamma;
    if (a.shared_tables) bytes += sizeof(std::uint32_t) * a.group_words * s.gamma;
    return bytes;
}

void launch_discrete_level(const DiscreteLevelArgs& a, const DiscreteLaunch& s, cudaStream_t stream) {
    if (a.n_items <= 0) return;
    const dim3 block(static_cast<unsigned>(s.delta), static_cast<unsigned>(s.gamma));
    const auto grid = static_cast<unsigned>(std::min<std::int64_t>(s.blocks, a.n_items));
    discrete_level_kernel<<<grid, block, discrete_shared_bytes(a, s), stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

int preload_discrete_level_kernels() { return detail::preload(discrete_level_kernel); }

}  // namespace cudag::cuda
