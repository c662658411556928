// SPDX-License-Identifier: Apache-2.0
// The correlation matrix on the GPU: standardise the columns, then entries by a tiled
// kernel in ci::correlation_matrix's order (each entry summed over the samples in order,
// one fused multiply-add a sample), so that C equals the CPU engine's bit for
// bit, and a row block equals the same rows of the whole matrix whichever rank or GPU
// computes it (what splitting C over ranks needs). cuBLAS DSYRK would be faster on tensor
// cores, but its sums depend on its tiling and the matrix shape.
#include "correlation.cuh"

#include <algorithm>
#include <climits>

#include "correlation_entry.cuh"
#include "cuda_check.hpp"
#include "device_memory.hpp"

namespace cudag::cuda {
namespace {

constexpr int kStdThreads = 128;
/// Correlation tiles: kTile × kTile entries per block of kTileThreads threads (an 8×8 patch
/// each, so that every pair of values read from shared memory feeds 64 FMAs), the samples
/// staged through shared memory kChunk at a time.
constexpr int kTile = 64;
constexpr int kChunk = 16;
constexpr int kPatch = 8;
constexpr int kSide = kTile / kPatch;  // threads along a side
constexpr int kTileThreads = kSide * kSide;

/// One thread per column v, in the order of ci::correlation_matrix's `standardised`:
/// mean = Σ x / m, z = x - mean, ss = Σ z·z, z *= 1 / sqrt(ss); every sum in sample order
/// and every operation rounded on its own (no FMA), so z equals the CPU's bit for bit.
__global__ void standardise_kernel(const double* x, double* z, std::int64_t n, std::int64_t m) {
    const std::int64_t v = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (v >= n) return;
    const double* xv = x + v * m;
    double* zv = z + v * m;
    double mean = 0.0;
    for (std::int64_t s = 0; s < m; ++s) mean = __dadd_rn(mean, xv[s]);
    mean = __ddiv_rn(mean, static_cast<double>(m));
    double ss = 0.0;
    for (std::int64_t s = 0; s < m; ++s) {
        const double c = __dsub_rn(xv[s], mean);
        zv[s] = c;
        ss = __dadd_rn(ss, __dmul_rn(c, c));
    }
    const double inv = __ddiv_rn(1.0, __dsqrt_rn(ss));
    for (std::int64_t s = 0; s < m; ++s) zv[s] = __dmul_rn(zv[s], inv);
}

/// Entries (i, j) of the rows i in [row_begin, row_end): j >= i (upper) or every j.
/// Each entry is Σ_s z_i[s]·z_j[s] in sample order, one fused multiply-add a sample
/// (__fma_rn: one rounding, as std::fma in ci::correlation_matrix), then clamped to
/// [-1, 1]; the diagonal is 1. So the value of an entry does not depend on the tiling, the
/// row range or the GPU. Block (x, y): columns kTile·x.., rows row_begin + kTile·y..;
/// thread (tx, ty) owns rows ty + kSide·a and columns tx + kSide·b, a, b < kPatch. Row i
/// lands at c[(i - c_row0) · n].
__global__ void __launch_bounds__(kTileThreads)
    correlation_rows_kernel(const double* __restrict__ z, std::int64_t n, std::int64_t m, std::int64_t row_begin,
                            std::int64_t row_end, bool upper, double* c, std::int64_t c_row0) {
    const std::int64_t i0 = row_begin + static_cast<std::int64_t>(blockIdx.y) * kTile;
    const std::int64_t j0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    if (upper && j0 + kTile <= i0) return;  // wholly below the diagonal
    __shared__ double as[kChunk][kTile + 1];
    __shared__ double bs[kChunk][kTile + 1];
    const int tx = static_cast<int>(threadIdx.x) % kSide, ty = static_cast<int>(threadIdx.x) / kSide;
    double acc[kPatch][kPatch];
#pragma unroll
    for (int a = 0; a < kPatch; ++a)
#pragma unroll
        for (int b = 0; b < kPatch; ++b) acc[a][b] = 0.0;
    for (std::int64_t s0 = 0; s0 < m; s0 += kChunk) {
        const int len = static_cast<int>(m - s0 < kChunk ? m - s0 : kChunk);
#pragma unroll
        for (int k = 0; k < kTile * kChunk / kTileThreads; ++k) {
            const int idx = static_cast<int>(threadIdx.x) + k * kTileThreads;
            const int r = idx / kChunk, s = idx % kChunk;
            const std::int64_t ia = i0 + r, jb = j0 + r;
            as[s][r] = (s < len && ia < row_end) ? z[ia * m + s0 + s] : 0.0;
            bs[s][r] = (s < len && jb < n) ? z[jb * m + s0 + s] : 0.0;
        }
        __syncthreads();
        for (int s = 0; s < len; ++s) {
            double av[kPatch], bv[kPatch];
#pragma unroll
            for (int a = 0; a < kPatch; ++a) av[a] = as[s][ty + kSide * a];
#pragma unroll
            for (int b = 0; b < kPatch; ++b) bv[b] = bs[s][tx + kSide * b];
#pragma unroll
            for (int a = 0; a < kPatch; ++a)
#pragma unroll
                for (int b = 0; b < kPatch; ++b) acc[a][b] = __fma_rn(av[a], bv[b], acc[a][b]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int a = 0; a < kPatch; ++a) {
        const std::int64_t i = i0 + ty + kSide * a;
        if (i >= row_end) continue;
#pragma unroll
        for (int b = 0; b < kPatch; ++b) {
            const std::int64_t j = j0 + tx + kSide * b;
            if (j >= n || (upper && j < i)) continue;
            c[(i - c_row0) * n + j] = i == j ? 1.0 : detail::clamp_unit(acc[a][b]);
        }
    }
}

/// Thread (i = blockIdx.y stride, j = column): the lower triangle from the upper,
/// (i, j) for j < i gets (j, i).
__global__ void mirror_kernel(double* c, std::int64_t n) {
    const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (std::int64_t i = blockIdx.y; i < n; i += gridDim.y)
        if (j < i) c[i * n + j] = c[j * n + i];
}

__global__ void gather_block_kernel(CorrSource corr, const std::int32_t* nodes, int k, double* out) {
    for (int t = threadIdx.x; t < k * k; t += blockDim.x) out[t] = detail::corr_entry(corr, nodes[t / k], nodes[t % k]);
}

/// launch_row_blocks: entry t of the blocks, its row found by bisection of `at`; the
/// entry (x, y), x <= y, is summed once and written to both halves (C is symmetric).
__global__ void row_blocks_kernel(RowBlocksArgs a) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < a.total; t += stride) {
        const std::int64_t lo = detail::segment_of(a.at, a.n_rows, t);
        const std::int32_t i = a.rows[lo];
        const std::int64_t e0 = a.offsets[i];
        const std::int64_t d = a.offsets[i + 1] - e0, dim = d + 1;
        const std::int64_t local = t - a.at[lo], x = local / dim, y = local % dim;
        if (x > y) continue;
        const std::int64_t gx = x < d ? a.nbrs[e0 + x] : i, gy = y < d ? a.nbrs[e0 + y] : i;
        const double v = detail::corr_entry(a.corr, gx, gy);
        double* block = a.out + a.at[lo];
        block[x * dim + y] = v;
        block[y * dim + x] = v;
    }
}

}  // namespace

void launch_row_blocks(const RowBlocksArgs& a, cudaStream_t stream) {
    if (a.total <= 0 || a.n_rows <= 0) return;
    constexpr int kThreads = 256;
    const std::int64_t blocks = std::min<std::int64_t>((a.total + kThreads - 1) / kThreads, std::int64_t(1) << 20);
    row_blocks_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

void standardise_columns(const double* h_values, std::int64_t n, std::int64_t m, double* d_z, cudaStream_t stream) {
    if (n <= 0) return;
    DeviceBuffer<double> x(static_cast<std::size_t>(n) * static_cast<std::size_t>(m));
    x.upload(h_values, x.size(), stream);
    standardise_kernel<<<static_cast<unsigned>((n + kStdThreads - 1) / kStdThreads), kStdThreads, 0, stream>>>(
        x.data(), d_z, n, m);
    CUDAG_CHECK_LAUNCH();
    // x is freed when it goes out of scope; cudaFree waits for the queued work.
}

void launch_correlation_rows(const double* d_z, std::int64_t n, std::int64_t m, std::int64_t row_begin,
                             std::int64_t row_end, bool upper, double* d_c, std::int64_t c_row0, cudaStream_t stream) {
    const std::int64_t xtiles = (n + kTile - 1) / kTile;
    CUDAG_EXPECTS(xtiles <= INT_MAX, "cuda: too many correlation columns for one launch");
    // At most 65535 row tiles (the grid's y limit) per launch.
    const std::int64_t step = std::int64_t(65535) * kTile;
    for (std::int64_t r0 = row_begin; r0 < row_end; r0 += step) {
        const std::int64_t r1 = std::min(row_end, r0 + step);
        const dim3 grid(static_cast<unsigned>(xtiles), static_cast<unsigned>((r1 - r0 + kTile - 1) / kTile));
        correlation_rows_kernel<<<grid, kTileThreads, 0, stream>>>(d_z, n, m, r0, r1, upper, d_c, c_row0);
        CUDAG_CHECK_LAUNCH();
    }
}

void launch_mirror_lower(double* d_c, std::int64_t n, cudaStream_t stream) {
    if (n <= 1) return;
    const dim3 grid(static_cast<unsigned>((n + 255) / 256), static_cast<unsigned>(std::min<std::int64_t>(n, 65535)));
    mirror_kernel<<<grid, 256, 0, stream>>>(d_c, n);
    CUDAG_CHECK_LAUNCH();
}

void compute_correlation(const double* h_values, std::int64_t n, std::int64_t m, double* d_corr, cudaStream_t stream) {
    if (n <= 0) return;
    DeviceBuffer<double> z(static_cast<std::size_t>(n) * static_cast<std::size_t>(m));
    standardise_columns(h_values, n, m, z.data(), stream);
    launch_correlation_rows(z.data(), n, m, 0, n, true, d_corr, 0, stream);
    launch_mirror_lower(d_corr, n, stream);
    // z is freed when it goes out of scope; cudaFree waits for the queued work.
}

void launch_gather_block(const CorrSource& corr, const std::int32_t* d_nodes, int k, double* d_out,
                         cudaStream_t stream) {
    gather_block_kernel<<<1, 128, 0, stream>>>(corr, d_nodes, k, d_out);
    CUDAG_CHECK_LAUNCH();
}

}  // namespace cudag::cuda
