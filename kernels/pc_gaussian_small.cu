// SPDX-License-Identifier: Apache-2.0
// A small search's level l >= 1 as the CPU engine runs it (skeleton/cpu/row_search.hpp's
// search_row): a warp per row walks the row's l-subsets S of adj(i) in lexicographic order,
// and its lanes test the row's entries j ∉ S not yet separated, each with the CPU engine's
// arithmetic (ci::ConditioningBlock, ci::fisher_z_pvalue; no FMA contraction). An entry's
// tests, its pMax (the largest p of its tests, from -1), its flags and its first separating
// set are then those of the CPU engine by construction: one kernel and one set of copies a
// level, for searches whose levels cost less than the entry scan's launches and
// bookkeeping (FisherLevelPlanner::small_level decides).
#include "ci/decision.hpp"
#include "ci/fisher_z.hpp"
#include "core/combinations.hpp"
#include "cuda_check.hpp"
#include "kernel_preload.cuh"
#include "pc_gaussian.cuh"

namespace cudag::cuda {
namespace {

constexpr int kSmallWarpsPerBlock = 4;

__global__ void __launch_bounds__(kSmallWarpsPerBlock * 32) small_level_kernel(SmallLevelArgs a) {
    const int lane = static_cast<int>(threadIdx.x & 31);
    const std::int64_t row = a.row_begin + static_cast<std::int64_t>(blockIdx.x) * kSmallWarpsPerBlock +
                             static_cast<std::int64_t>(threadIdx.x >> 5);
    if (row >= a.row_end) return;  // the whole warp
    const std::int64_t o = a.offsets[row];
    const int d = static_cast<int>(a.offsets[row + 1] - o);
    const std::int64_t base = o - a.e_begin;  // the row's first entry in the outputs
    // Every entry of the block is written: untested (flags 0, pMax -1, LevelOutput::reset's).
    for (int q = lane; q < d; q += 32) {
        a.flags[base + q] = 0;
        a.pmax[base + q] = -1.0;
    }
    const int l = a.l;
    if (d - 1 < l) return;
    __syncwarp();
    const std::int32_t* nb = a.nbrs + o;
    const ci::Decision decision{a.alpha, a.strict};
    int c[kSmallMaxLevel], s[kSmallMaxLevel];
    double lmat[kSmallMaxLevel * kSmallMaxLevel], scratch[2 * kSmallMaxLevel * kSmallMaxLevel];
    double yi[kSmallMaxLevel], yj[kSmallMaxLevel];
    ci::ConditioningBlock block;
    block.lmat = lmat;
    for (int t = 0; t < l; ++t) c[t] = t;
    unsigned long long tests = 0;
    const auto i = static_cast<int>(row);
    do {
        for (int t = 0; t < l; ++t) s[t] = nb[c[t]];
        bool prepared = false, open = false;
        for (int q = lane; q < d; q += 32) {
            std::uint8_t f = a.flags[base + q];
            if (f & a.separated) continue;
            bool in_set = false;
            for (int t = 0; t < l; ++t) in_set |= c[t] == q;
            if (in_set) {
                open = true;
                continue;
            }
            if (!prepared) {  // once per set and lane (the CPU's tester.prepare)
                block.factorise(a.corr, a.n, s, l, scratch);
                block.project(a.corr, a.n, s, i, yi);
                prepared = true;
            }
            const int j = nb[q];
            block.project(a.corr, a.n, s, j, yj);
            const double r = ci::partial_correlation(block, a.corr[static_cast<std::int64_t>(i) * a.n + j], yi, yj);
            const double p = ci::fisher_z_pvalue(r, a.m, l, a.causal_learn);
            ++tests;
            f |= a.tested;
            const double pm = a.pmax[base + q];
            a.pmax[base + q] = pm < p ? p : pm;  // std::max(pm, p)
            if (decision.independent(p)) {
                f |= a.separated;
                for (int t = 0; t < l; ++t) a.nodes[(base + q) * l + t] = s[t];
            } else {
                open = true;
            }
            a.flags[base + q] = f;
        }
        // The CPU's row stops once every entry is separated (later sets test nothing).
        if (!__any_sync(0xffffffffu, open)) break;
    } while (next_combination(c, l, d));
    for (int off = 16; off > 0; off >>= 1) tests += __shfl_down_sync(0xffffffffu, tests, off);
    if (lane == 0 && tests > 0) atomicAdd(a.tests, tests);
}

}  // namespace

void launch_small_level(const SmallLevelArgs& a, cudaStream_t stream) {
    if (a.row_end <= a.row_begin) return;
    const std::int64_t blocks = (a.row_end - a.row_begin + kSmallWarpsPerBlock - 1) / kSmallWarpsPerBlock;
    small_level_kernel<<<static_cast<unsigned>(blocks), kSmallWarpsPerBlock * 32, 0, stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

int preload_small_kernels() { return detail::preload(small_level_kernel); }

}  // namespace cudag::cuda
