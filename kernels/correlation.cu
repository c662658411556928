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
#include <string>

#include "correlation_entry.cuh"
#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "kernel_preload.cuh"

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

/// Samples a thread of standardise_kernel loads at a time, before it sums them in order.
constexpr int kStdChunk = 16;

/// One thread per column v, in the order of ci::correlation_matrix's `standardised`:
/// mean = Σ x / m, z = x - mean, ss = Σ z·z, z *= 1 / sqrt(ss); every sum in sample order
/// and every operation rounded on its own (no FMA), so z equals the CPU's bit for bit.
/// The samples are loaded kStdChunk at a time (one 128-byte line, all loads in flight
/// together) and then added in order: the sums wait on the adds, not on a load each.
__global__ void standardise_kernel(const double* __restrict__ x, double* __restrict__ z, std::int64_t n,
                                   std::int64_t m) {
    const std::int64_t v = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (v >= n) return;
    const double* __restrict__ xv = x + v * m;
    double* __restrict__ zv = z + v * m;
    const std::int64_t whole = m / kStdChunk * kStdChunk;
    double mean = 0.0;
    for (std::int64_t s0 = 0; s0 < whole; s0 += kStdChunk) {
        double c[kStdChunk];
#pragma unroll
        for (int k = 0; k < kStdChunk; ++k) c[k] = xv[s0 + k];
#pragma unroll
        for (int k = 0; k < kStdChunk; ++k) mean = __dadd_rn(mean, c[k]);
    }
    for (std::int64_t s = whole; s < m; ++s) mean = __dadd_rn(mean, xv[s]);
    mean = __ddiv_rn(mean, static_cast<double>(m));
    double ss = 0.0;
    for (std::int64_t s0 = 0; s0 < whole; s0 += kStdChunk) {
        double c[kStdChunk];
#pragma unroll
        for (int k = 0; k < kStdChunk; ++k) c[k] = __dsub_rn(xv[s0 + k], mean);
#pragma unroll
        for (int k = 0; k < kStdChunk; ++k) {
            zv[s0 + k] = c[k];
            ss = __dadd_rn(ss, __dmul_rn(c[k], c[k]));
        }
    }
    for (std::int64_t s = whole; s < m; ++s) {
        const double c = __dsub_rn(xv[s], mean);
        zv[s] = c;
        ss = __dadd_rn(ss, __dmul_rn(c, c));
    }
    const double inv = __ddiv_rn(1.0, __dsqrt_rn(ss));
    for (std::int64_t s0 = 0; s0 < whole; s0 += kStdChunk) {
        double c[kStdChunk];
#pragma unroll
        for (int k = 0; k < kStdChunk; ++k) c[k] = zv[s0 + k];
#pragma unroll
        for (int k = 0; k < kStdChunk; ++k) zv[s0 + k] = __dmul_rn(c[k], inv);
    }
    for (std::int64_t s = whole; s < m; ++s) zv[s] = __dmul_rn(zv[s], inv);
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

/// One thread per entry (i, j) of rows [row_begin, row_end) (j >= i when `upper`): Σ_s
/// z_i[s]·z_j[s] in sample order, one __fma_rn a sample from 0.0 (corr_entry's sum, so the
/// tiles' value bit for bit), the samples loaded kStdChunk at a time before they are added.
/// For a small block of C: a 128 x 128 tile on a 60-variable matrix is one block on one SM
/// with three quarters of its entries outside the matrix; here every entry's sum runs at
/// once. Row i lands at c[(i - c_row0) · n].
__global__ void correlation_entries_kernel(const double* __restrict__ z, std::int64_t n, std::int64_t m,
                                           std::int64_t row_begin, std::int64_t row_end, bool upper,
                                           double* __restrict__ c, std::int64_t c_row0) {
    const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= (row_end - row_begin) * n) return;
    const std::int64_t i = row_begin + t / n, j = t % n;
    if (upper && j < i) return;
    double v = 1.0;
    if (i != j) {
        const double* __restrict__ zi = z + i * m;
        const double* __restrict__ zj = z + j * m;
        const std::int64_t whole = m / kStdChunk * kStdChunk;
        double acc = 0.0;
        for (std::int64_t s0 = 0; s0 < whole; s0 += kStdChunk) {
            double a[kStdChunk], b[kStdChunk];
#pragma unroll
            for (int k = 0; k < kStdChunk; ++k) {
                a[k] = zi[s0 + k];
                b[k] = zj[s0 + k];
            }
#pragma unroll
            for (int k = 0; k < kStdChunk; ++k) acc = __fma_rn(a[k], b[k], acc);
        }
        for (std::int64_t s = whole; s < m; ++s) acc = __fma_rn(zi[s], zj[s], acc);
        v = detail::clamp_unit(acc);
    }
    c[(i - c_row0) * n + j] = v;
}

/// Entries of C up to which kCorrTilesAuto takes correlation_entries_kernel (a block of rows
/// times n): past it the tiles' reuse of each staged sample wins.
constexpr std::int64_t kEntriesKernelMax = std::int64_t{1} << 16;

/// The wide tiles (the default): kWide × kWide entries per block of kWideThreads threads,
/// an 8×8 patch each, samples staged kWideChunk at a time through two shared-memory stages
/// (the next chunk's loads in flight while this one's FMAs run), blocks ordered in groups
/// of kWideGroup row tiles so that the tiles a wave reads stay in L2. The entries' values
/// are those of correlation_rows_kernel: each is Σ_s z_i[s]·z_j[s] in sample order, one
/// __fma_rn a sample from 0.0, the last chunk stopping at m.
constexpr int kWide = 128;
constexpr int kWideChunk = 8;
constexpr int kWideThreads = 256;
constexpr int kWideSide = 16;  // threads along a side
/// Padded stage rows (doubles): 2 mod 16, so that a half-warp's transposed 8-byte stores
/// (samples k < 8 of two rows) fall in 16 different bank pairs (no conflicts).
constexpr int kWideStride = kWide + 2;
constexpr int kWideGroup = 16;                                 // row tiles per group of the block order
constexpr int kWideLoads = kWide * kWideChunk / kWideThreads;  // values of each side a thread stages
constexpr int kRowStep = kWideThreads / kWideChunk;            // rows apart of a thread's staged values
static_assert(kRowStep * kWideLoads == kWide, "a chunk's rows are staged whole");
static_assert(kWideSide * kWideSide == kWideThreads && kWideSide * 8 == kWide, "8x8 patches cover a tile");
static_assert(kWideThreads / 32 * 2 == kWideSide, "a warp holds two rows of threads: ty = 2 warp + (lane & 1)");

/// Thread (tx, ty) owns rows 2·ty + {0, 1} + 32q, q < 4, and columns 2·tx + {0, 1} + 32p,
/// p < P (a tile 32P wide): its operands come from shared memory as pairs (16-byte reads; a
/// warp's column reads are 256 contiguous bytes). Samples k < len of the stage (len =
/// kWideChunk but in the last).
template <int P, bool Tail>
__device__ __forceinline__ void wide_chunk(const double (*as)[kWideStride], const double (*bs)[kWideStride], int tx,
                                           int ty, int len, double (&acc)[8][2 * P]) {
#pragma unroll
    for (int k = 0; k < kWideChunk; ++k) {
        if (Tail && k >= len) break;
        double2 a2[4], b2[P];
#pragma unroll
        for (int q = 0; q < 4; ++q) a2[q] = *reinterpret_cast<const double2*>(&as[k][2 * ty + 32 * q]);
#pragma unroll
        for (int p = 0; p < P; ++p) b2[p] = *reinterpret_cast<const double2*>(&bs[k][2 * tx + 32 * p]);
#pragma unroll
        for (int q = 0; q < 4; ++q)
#pragma unroll
            for (int p = 0; p < P; ++p) {
                acc[2 * q][2 * p] = __fma_rn(a2[q].x, b2[p].x, acc[2 * q][2 * p]);
                acc[2 * q][2 * p + 1] = __fma_rn(a2[q].x, b2[p].y, acc[2 * q][2 * p + 1]);
                acc[2 * q + 1][2 * p] = __fma_rn(a2[q].y, b2[p].x, acc[2 * q + 1][2 * p]);
                acc[2 * q + 1][2 * p + 1] = __fma_rn(a2[q].y, b2[p].y, acc[2 * q + 1][2 * p + 1]);
            }
    }
}

/// Level 0 on entry (i, j), j > i, of value r, as level0_kernel without dense p-values:
/// a kept pair sets its bit (and the mirrored one).
__device__ __forceinline__ void level0_decide(const Level0Args& a, std::int64_t i, std::int64_t j, double r) {
    if (!detail::level0_keeps(a, r)) return;
    atomicOr(a.bits + (i - a.bits_row0) * a.words32 + (j >> 5), 1u << (j & 31));
    if (a.mirror) atomicOr(a.bits + j * a.words32 + (i >> 5), 1u << (i & 31));
}

/// correlation_rows_kernel's entries on wide tiles, kWide rows × 32P columns. The grid is
/// one-dimensional over ytiles × xtiles tiles, in groups of kWideGroup row tiles walked
/// column by column. P = 4: 8×8 patches (one block of 256 threads an SM: their registers);
/// P = 2: 8×4 patches, two blocks an SM. Level0: the entries j > i are not written but
/// tested (level0_decide with `l0`; `upper` is true, `c` unused).
template <int P, bool Level0>
__global__ void __launch_bounds__(kWideThreads, 4 / P)
    correlation_wide_kernel(const double* __restrict__ z, std::int64_t n, std::int64_t m, std::int64_t row_begin,
                            std::int64_t row_end, bool upper, double* c, std::int64_t c_row0, std::int64_t xtiles,
                            std::int64_t ytiles, Level0Args l0) {
    const std::int64_t b = blockIdx.x;
    const std::int64_t per_group = kWideGroup * xtiles;
    const std::int64_t g = b / per_group, local = b - g * per_group;
    const std::int64_t gsize = ytiles - g * kWideGroup < kWideGroup ? ytiles - g * kWideGroup : kWideGroup;
    const std::int64_t y = g * kWideGroup + local % gsize, x = local / gsize;
    constexpr int kCols = 32 * P;
    const std::int64_t i0 = row_begin + y * kWide, j0 = x * kCols;
    if (upper && j0 + kCols <= i0) return;  // wholly below the diagonal
    __shared__ __align__(16) double as[2][kWideChunk][kWideStride];
    __shared__ __align__(16) double bs[2][kWideChunk][kWideStride];
    const int t = static_cast<int>(threadIdx.x);
    // Lanes 2c and 2c + 1 share their columns (tx = c), lanes l and l ^ 2 their rows: a warp's
    // 16-byte operand reads then return each value to two lanes at once (two wavefronts a
    // read, not four).
    const int lane = t & 31, warp = t >> 5;
    const int tx = lane >> 1, ty = 2 * warp + (lane & 1);
    // Staging: this thread's sample k of rows r + 32q (q < kWideLoads) of each side.
    const int k = t % kWideChunk, r = t / kWideChunk;
    constexpr int kColLoads = kCols / kRowStep;
    const double* za = z + (i0 + r) * m + k;
    const double* zb = z + (j0 + r) * m + k;
    const std::int64_t step = kRowStep * m;
    unsigned a_rows = 0, b_rows = 0;  // bit q: row r + 32q exists
#pragma unroll
    for (int q = 0; q < kWideLoads; ++q) {
        if (i0 + r + kRowStep * q < row_end) a_rows |= 1u << q;
        if (q < kColLoads && j0 + r + kRowStep * q < n) b_rows |= 1u << q;
    }
    double ra[kWideLoads], rb[kColLoads];
    const auto load = [&](std::int64_t s0) {
        const bool in = s0 + k < m;
#pragma unroll
        for (int q = 0; q < kWideLoads; ++q) ra[q] = in && (a_rows >> q & 1u) ? za[q * step + s0] : 0.0;
#pragma unroll
        for (int q = 0; q < kColLoads; ++q) rb[q] = in && (b_rows >> q & 1u) ? zb[q * step + s0] : 0.0;
    };
    const auto stage = [&](int st) {
#pragma unroll
        for (int q = 0; q < kWideLoads; ++q) as[st][k][r + kRowStep * q] = ra[q];
#pragma unroll
        for (int q = 0; q < kColLoads; ++q) bs[st][k][r + kRowStep * q] = rb[q];
    };
    double acc[8][2 * P];
#pragma unroll
    for (int a = 0; a < 8; ++a)
#pragma unroll
        for (int e = 0; e < 2 * P; ++e) acc[a][e] = 0.0;
    const std::int64_t chunks = (m + kWideChunk - 1) / kWideChunk;
    load(0);
    stage(0);
    __syncthreads();
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
        const int st = static_cast<int>(ch & 1);
        const bool more = ch + 1 < chunks;
        if (more) load((ch + 1) * kWideChunk);
        if (more) {
            wide_chunk<P, false>(as[st], bs[st], tx, ty, kWideChunk, acc);
        } else {
            wide_chunk<P, true>(as[st], bs[st], tx, ty, static_cast<int>(m - ch * kWideChunk), acc);
        }
        // The other stage was last read in the previous chunk, before the barrier that ended it.
        if (more) stage(st ^ 1);
        __syncthreads();
    }
#pragma unroll
    for (int q = 0; q < 4; ++q)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const std::int64_t i = i0 + 2 * ty + e + 32 * q;
            if (i >= row_end) continue;
#pragma unroll
            for (int p = 0; p < P; ++p)
#pragma unroll
                for (int f = 0; f < 2; ++f) {
                    const std::int64_t j = j0 + 2 * tx + f + 32 * p;
                    if (j >= n || (upper && j < i)) continue;
                    if constexpr (Level0) {
                        if (j > i) level0_decide(l0, i, j, detail::clamp_unit(acc[2 * q + e][2 * p + f]));
                    } else {
                        c[(i - c_row0) * n + j] = i == j ? 1.0 : detail::clamp_unit(acc[2 * q + e][2 * p + f]);
                    }
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

namespace {

/// The wide kernel over rows [row_begin, row_end): 128 x 128 tiles (kCorrTiles128) or
/// 128 x 64 (kCorrTiles128x64), in launches of at most 2^31 - 1 blocks, whole groups each.
template <bool Level0>
void launch_wide(const double* d_z, std::int64_t n, std::int64_t m, std::int64_t row_begin, std::int64_t row_end,
                 bool upper, double* d_c, std::int64_t c_row0, int tile, const Level0Args& l0, cudaStream_t stream) {
    const std::int64_t cols = tile == kCorrTiles128 ? kWide : kWide / 2;
    const std::int64_t xtiles = (n + cols - 1) / cols;
    const std::int64_t groups = std::max<std::int64_t>(1, std::int64_t(INT_MAX) / (xtiles * kWideGroup));
    const std::int64_t span = groups * kWideGroup * kWide;
    for (std::int64_t r0 = row_begin; r0 < row_end; r0 += span) {
        const std::int64_t r1 = std::min(row_end, r0 + span);
        const std::int64_t ytiles = (r1 - r0 + kWide - 1) / kWide;
        const auto blocks = static_cast<unsigned>(xtiles * ytiles);
        if (tile == kCorrTiles128) {
            correlation_wide_kernel<4, Level0>
                <<<blocks, kWideThreads, 0, stream>>>(d_z, n, m, r0, r1, upper, d_c, c_row0, xtiles, ytiles, l0);
        } else {
            correlation_wide_kernel<2, Level0>
                <<<blocks, kWideThreads, 0, stream>>>(d_z, n, m, r0, r1, upper, d_c, c_row0, xtiles, ytiles, l0);
        }
        CUDAG_CHECK_LAUNCH();
    }
}

}  // namespace

bool level0_fuses(const Level0Args& a, int tile) {
    return (tile == kCorrTilesAuto || tile == kCorrTiles128 || tile == kCorrTiles128x64) && a.dense_p == nullptr &&
           a.corr.z != nullptr;
}

void launch_level0_fused(const Level0Args& a, int tile, cudaStream_t stream) {
    CUDAG_EXPECTS(level0_fuses(a, tile),
                  "cuda: level 0 fused with the correlation kernel needs wide tiles, z and "
                  "no dense p-values");
    if (a.row_end <= a.row_begin) return;
    // Automatic: 128 x 64, two blocks an SM, so that one's tests overlap the other's sums.
    launch_wide<true>(a.corr.z, a.n, a.m, a.row_begin, a.row_end, true, nullptr, 0,
                      tile == kCorrTilesAuto ? kCorrTiles128x64 : tile, a, stream);
}

void launch_correlation_rows(const double* d_z, std::int64_t n, std::int64_t m, std::int64_t row_begin,
                             std::int64_t row_end, bool upper, double* d_c, std::int64_t c_row0, cudaStream_t stream,
                             int tile) {
    if (row_end <= row_begin) return;
    if (tile == kCorrTilesAuto)  // automatic: a small block an entry a thread, else 128 x 128 where C is written
        tile = (row_end - row_begin) * n <= kEntriesKernelMax ? kCorrEntries : kCorrTiles128;
    if (tile == kCorrEntries) {
        constexpr int kThreads = 128;
        const std::int64_t entries = (row_end - row_begin) * n;
        CUDAG_EXPECTS((entries + kThreads - 1) / kThreads <= INT_MAX,
                      "cuda: too many correlation entries for one launch");
        correlation_entries_kernel<<<static_cast<unsigned>((entries + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
            d_z, n, m, row_begin, row_end, upper, d_c, c_row0);
        CUDAG_CHECK_LAUNCH();
        return;
    }
    if (tile == kCorrTiles128 || tile == kCorrTiles128x64) {
        launch_wide<false>(d_z, n, m, row_begin, row_end, upper, d_c, c_row0, tile, Level0Args{}, stream);
        return;
    }
    CUDAG_EXPECTS(tile == kCorrTiles64, "cuda: unknown correlation tiles " + std::to_string(tile));
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

void compute_correlation(const double* h_values, std::int64_t n, std::int64_t m, double* d_corr, cudaStream_t stream,
                         int tile) {
    if (n <= 0) return;
    DeviceBuffer<double> z(static_cast<std::size_t>(n) * static_cast<std::size_t>(m));
    standardise_columns(h_values, n, m, z.data(), stream);
    launch_correlation_rows(z.data(), n, m, 0, n, true, d_corr, 0, stream, tile);
    launch_mirror_lower(d_corr, n, stream);
    // z is freed when it goes out of scope; cudaFree waits for the queued work.
}

void launch_gather_block(const CorrSource& corr, const std::int32_t* d_nodes, int k, double* d_out,
                         cudaStream_t stream) {
    gather_block_kernel<<<1, 128, 0, stream>>>(corr, d_nodes, k, d_out);
    CUDAG_CHECK_LAUNCH();
}

int preload_correlation_kernels() {
    return detail::preload(standardise_kernel, correlation_entries_kernel, correlation_rows_kernel,
                           correlation_wide_kernel<4, false>, correlation_wide_kernel<2, false>,
                           correlation_wide_kernel<4, true>, correlation_wide_kernel<2, true>, mirror_kernel,
                           gather_block_kernel, row_blocks_kernel);
}

}  // namespace cudag::cuda
