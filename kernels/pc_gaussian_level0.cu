// SPDX-License-Identifier: Apache-2.0
// Level 0 of Gaussian PC-stable on the GPU (cuPC §4.1, Algorithm 3): every pair (i, j),
// i < j, is tested marginally, p = fisher_z_pvalue(C[i,j], m, 0). Kept (dependent) pairs
// are written into a bit adjacency with the layout of cudag::Graph; p-values go to a
// dense upper triangle on request. Also the p-values of kept pairs listed by compaction.
#include "ci/fisher_z.hpp"
#include "correlation_entry.cuh"
#include "cuda_check.hpp"
#include "kernel_preload.cuh"
#include "pc_gaussian.cuh"
#include "ci/decision.hpp"

namespace cudag::cuda {
namespace {

constexpr int kLevel0Threads = 256;  // a multiple of 32: warps cover aligned 32-column groups

/// Thread mapping: j = blockIdx.x * 256 + threadIdx.x (column), blockIdx.y strides over
/// the rows i of [row_begin, row_end); pairs decided by detail::level0_keeps. One ballot per warp sets row i's 32 bits
/// with one atomicOr; the mirrored bit (j, i) is set by the thread itself (when a.mirror).
__global__ void level0_kernel(Level0Args a) {
    const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (std::int64_t i = a.row_begin + blockIdx.y; i < a.row_end; i += gridDim.y) {
        bool kept = false;
        if (j > i && j < a.n) {
            const double r = detail::corr_entry(a.corr, i, j);
            if (a.dense_p) {  // every p wanted
                const double p = ci::fisher_z_pvalue(r, a.m, 0);
                a.dense_p[i * a.n - i * (i + 1) / 2 + (j - i - 1) - a.dense_base] = p;
                kept = !ci::Decision{a.alpha, a.strict}.independent(p);
            } else {
                kept = detail::level0_keeps(a, r);
            }
            if (kept && a.mirror) atomicOr(a.bits + j * a.words32 + (i >> 5), 1u << (i & 31));
        }
        const unsigned mask = __ballot_sync(0xffffffffu, kept);
        if ((threadIdx.x & 31) == 0 && mask) atomicOr(a.bits + (i - a.bits_row0) * a.words32 + (j >> 5), mask);
    }
}

/// One thread per kept pair k (grid-stride): its row by binary search in the compacted
/// offsets, then the marginal p-value again.
__global__ void pair_pvalues_kernel(PairPArgs a) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.count; k += stride) {
        const std::int64_t i = a.row_begin + detail::segment_of(a.offsets, a.n_rows, k);
        a.p_out[k] = ci::fisher_z_pvalue(detail::corr_entry(a.corr, i, a.cols[k]), a.m, 0);
    }
}

}  // namespace

void launch_gaussian_level0(const Level0Args& a, cudaStream_t stream) {
    if (a.row_end <= a.row_begin) return;
    const std::int64_t cols = (a.n + kLevel0Threads - 1) / kLevel0Threads;
    const std::int64_t rows = std::min<std::int64_t>(a.row_end - a.row_begin, 65535);
    level0_kernel<<<dim3(static_cast<unsigned>(cols), static_cast<unsigned>(rows)), kLevel0Threads, 0, stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

void launch_pair_pvalues(const PairPArgs& a, cudaStream_t stream) {
    if (a.count <= 0) return;
    const std::int64_t blocks = std::min<std::int64_t>((a.count + 255) / 256, 1 << 20);
    pair_pvalues_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

int preload_level0_kernels() { return detail::preload(level0_kernel, pair_pvalues_kernel); }

}  // namespace cudag::cuda
