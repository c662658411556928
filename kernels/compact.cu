// SPDX-License-Identifier: Apache-2.0
// Adjacency compaction (cuPC §4.1, Fig. 2) with CUB instead of a hand-written
// Hillis–Steele scan: per-row popcounts, a device-wide exclusive sum for the row
// offsets, then one warp per row writes its neighbours in order (warp scan of the
// per-word popcounts). Also the selection of separated entries after a level.
#include "compact.cuh"
#include "kernel_preload.cuh"

#include <algorithm>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace cudag::cuda {
namespace {

constexpr int kWarpsPerBlock = 8;

/// Bits of word w of row r that count: all, or only columns > r.
__device__ __forceinline__ std::uint64_t masked_word(BitRowsView g, std::int64_t r, std::int64_t w, bool upper_only) {
    std::uint64_t x = g.bits[(r - g.row0) * g.words + w];
    if (upper_only) {
        const std::int64_t rw = r >> 6;
        if (w < rw) return 0;
        if (w == rw) {
            const int b = static_cast<int>(r & 63);
            x &= b == 63 ? 0ull : ~((2ull << b) - 1);  // keep bits > b
        }
    }
    return x;
}

/// One warp per row r = r0 + global warp id: lanes stride over the row's words and
/// sum popcounts. Grid: ceil((r1-r0)/8) blocks of 8 warps.
__global__ void row_degrees_kernel(BitRowsView g, std::int64_t r0, std::int64_t r1, bool upper_only,
                                   std::int64_t* counts) {
    using WarpReduce = cub::WarpReduce<long long>;
    __shared__ typename WarpReduce::TempStorage tmp[kWarpsPerBlock];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const std::int64_t r = r0 + static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
    if (r >= r1) return;  // whole warp leaves together
    long long c = 0;
    for (std::int64_t w = lane; w < g.words; w += 32) c += __popcll(masked_word(g, r, w, upper_only));
    c = WarpReduce(tmp[warp]).Sum(c);
    if (lane == 0) counts[r - r0] = c;
    if (r == r1 - 1 && lane == 0) counts[r1 - r0] = 0;
}

/// One warp per row: 32 words at a time, each lane counts its word's bits, an exclusive
/// warp scan gives each lane its output position, and the lane writes its columns.
__global__ void row_neighbours_kernel(BitRowsView g, std::int64_t r0, std::int64_t r1, bool upper_only,
                                      const std::int64_t* offsets, std::int32_t* cols) {
    using WarpScan = cub::WarpScan<int>;
    __shared__ typename WarpScan::TempStorage tmp[kWarpsPerBlock];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const std::int64_t r = r0 + static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
    if (r >= r1) return;
    std::int64_t out = offsets[r - r0];
    for (std::int64_t w0 = 0; w0 < g.words; w0 += 32) {
        const std::int64_t w = w0 + lane;
        std::uint64_t x = w < g.words ? masked_word(g, r, w, upper_only) : 0ull;
        int pos = 0, total = 0;
        WarpScan(tmp[warp]).ExclusiveSum(__popcll(x), pos, total);
        std::int64_t k = out + pos;
        while (x) {
            cols[k++] = static_cast<std::int32_t>(w * 64 + __ffsll(static_cast<long long>(x)) - 1);
            x &= x - 1;
        }
        out += total;
        __syncwarp();
    }
}

__device__ __forceinline__ bool removal_bit(const std::uint8_t* removal, std::int64_t k) {
    return (removal[k >> 3] >> (k & 7)) & 1u;
}

/// A block per row a (grid-stride), threads over its entries: the entry's own bit and,
/// by binary search of a in row b, its mirror's; one atomic per warp for the count.
__global__ void next_keep_kernel(const std::int64_t* offsets, const std::int32_t* nbrs, std::int64_t n,
                                 const std::uint8_t* removal, const std::int64_t* bit0, std::uint8_t* keep,
                                 unsigned long long* removed) {
    for (std::int64_t a = blockIdx.x; a < n; a += gridDim.x) {
        const std::int64_t a0 = offsets[a], a1 = offsets[a + 1];
        for (std::int64_t e0 = a0; e0 < a1; e0 += blockDim.x) {  // whole warps stay in the loop
            const std::int64_t e = e0 + threadIdx.x;
            bool gone = false;
            const bool mine = e < a1;
            if (mine) {
                const std::int32_t b = nbrs[e];
                gone = removal_bit(removal, bit0[a] + (e - a0));
                if (!gone) {
                    std::int64_t lo = offsets[b], hi = offsets[b + 1];
                    while (lo < hi) {
                        const std::int64_t mid = (lo + hi) / 2;
                        if (nbrs[mid] < a)
                            lo = mid + 1;
                        else
                            hi = mid;
                    }
                    gone = removal_bit(removal, bit0[b] + (lo - offsets[b]));
                }
                keep[e] = gone ? 0 : 1;
            }
            const unsigned counted = __ballot_sync(0xffffffffu, mine && gone && a < nbrs[e]);
            if ((threadIdx.x & 31) == 0 && counted)
                atomicAdd(removed, static_cast<unsigned long long>(__popc(counted)));
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) keep[offsets[n]] = 0;
}

struct FlagToInt64 {
    __host__ __device__ std::int64_t operator()(std::uint8_t f) const { return f; }
};

__global__ void next_gather_kernel(const std::int64_t* offsets, const std::int32_t* nbrs, std::int64_t n,
                                   const std::uint8_t* keep, const std::int64_t* pos, std::int64_t* next_offsets,
                                   std::int32_t* next_nbrs) {
    for (std::int64_t a = blockIdx.x; a <= n; a += gridDim.x) {
        if (threadIdx.x == 0) next_offsets[a] = pos[offsets[a]];
        if (a == n) continue;
        for (std::int64_t e = offsets[a] + threadIdx.x; e < offsets[a + 1]; e += blockDim.x)
            if (keep[e]) next_nbrs[pos[e]] = nbrs[e];
    }
}

struct IsSeparated {
    const unsigned long long* best;
    __device__ bool operator()(std::int64_t e) const { return best[e] != ~0ull; }
};

}  // namespace

void launch_row_degrees(BitRowsView g, std::int64_t r0, std::int64_t r1, bool upper_only, std::int64_t* d_counts,
                        cudaStream_t stream) {
    if (r1 <= r0) return;
    const std::int64_t blocks = (r1 - r0 + kWarpsPerBlock - 1) / kWarpsPerBlock;
    row_degrees_kernel<<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(g, r0, r1, upper_only,
                                                                                          d_counts);
    CUDAG_CHECK_LAUNCH();
}

void exclusive_sum(const std::int64_t* d_in, std::int64_t* d_out, std::int64_t count, CubScratch& scratch,
                   cudaStream_t stream) {
    if (count <= 0) return;
    std::size_t bytes = 0;
    CUDAG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, d_in, d_out, count, stream));
    void* tmp = scratch.get(bytes);
    CUDAG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, d_in, d_out, count, stream));
}

void launch_row_neighbours(BitRowsView g, std::int64_t r0, std::int64_t r1, bool upper_only,
                           const std::int64_t* d_offsets, std::int32_t* d_cols, cudaStream_t stream) {
    if (r1 <= r0) return;
    const std::int64_t blocks = (r1 - r0 + kWarpsPerBlock - 1) / kWarpsPerBlock;
    row_neighbours_kernel<<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(g, r0, r1, upper_only,
                                                                                             d_offsets, d_cols);
    CUDAG_CHECK_LAUNCH();
}

void select_separated(const unsigned long long* d_best, std::int64_t e_begin, std::int64_t e_end, std::int64_t* d_out,
                      std::int64_t* d_count, CubScratch& scratch, cudaStream_t stream) {
    const std::int64_t count = e_end - e_begin;
    if (count <= 0) {
        CUDAG_CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(std::int64_t), stream));
        return;
    }
    thrust::counting_iterator<std::int64_t> first(e_begin);
    std::size_t bytes = 0;
    CUDAG_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, first, d_out, d_count, count, IsSeparated{d_best}, stream));
    void* tmp = scratch.get(bytes);
    CUDAG_CUDA_CHECK(cub::DeviceSelect::If(tmp, bytes, first, d_out, d_count, count, IsSeparated{d_best}, stream));
}

void launch_next_keep(const std::int64_t* offsets, const std::int32_t* nbrs, std::int64_t n,
                      const std::uint8_t* removal, const std::int64_t* bit0, std::uint8_t* keep,
                      unsigned long long* d_removed, cudaStream_t stream) {
    if (n <= 0) return;
    const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>(n, 1 << 16));
    next_keep_kernel<<<grid, 128, 0, stream>>>(offsets, nbrs, n, removal, bit0, keep, d_removed);
    CUDAG_CHECK_LAUNCH();
}

void exclusive_sum_flags(const std::uint8_t* keep, std::int64_t* d_pos, std::int64_t count, CubScratch& scratch,
                         cudaStream_t stream) {
    const auto in = thrust::make_transform_iterator(keep, FlagToInt64{});
    std::size_t bytes = 0;
    CUDAG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, d_pos, count + 1, stream));
    void* tmp = scratch.get(bytes);
    CUDAG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, in, d_pos, count + 1, stream));
}

void launch_next_gather(const std::int64_t* offsets, const std::int32_t* nbrs, std::int64_t n, const std::uint8_t* keep,
                        const std::int64_t* pos, std::int64_t* next_offsets, std::int32_t* next_nbrs,
                        cudaStream_t stream) {
    const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>(n + 1, 1 << 16));
    next_gather_kernel<<<grid, 128, 0, stream>>>(offsets, nbrs, n, keep, pos, next_offsets, next_nbrs);
    CUDAG_CHECK_LAUNCH();
}

int preload_compact_kernels() {
    int n = detail::preload(row_degrees_kernel, row_neighbours_kernel, next_keep_kernel, next_gather_kernel);
    // CUB's routines: their kernels load when they first run, so each runs once on one element
    // (on a stream of its own, so that nothing else waits for it).
    void* arena = nullptr;
    cudaStream_t stream = nullptr;
    if (cudaMalloc(&arena, 256) != cudaSuccess ||
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        cudaGetLastError();
        if (arena != nullptr) cudaFree(arena);
        return n;
    }
    auto* words = static_cast<std::int64_t*>(arena);  // [0, 2) in, [2, 4) out, [4] count
    auto* best = reinterpret_cast<unsigned long long*>(words + 8);
    auto* keep = reinterpret_cast<std::uint8_t*>(words + 12);
    CubScratch scratch;
    try {
        CUDAG_CUDA_CHECK(cudaMemsetAsync(arena, 0, 256, stream));
        exclusive_sum(words, words + 2, 1, scratch, stream);
        ++n;
        select_separated(best, 0, 1, words + 2, words + 4, scratch, stream);
        ++n;
        exclusive_sum_flags(keep, words + 2, 1, scratch, stream);
        ++n;
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream));
    } catch (...) {
        cudaStreamSynchronize(stream);  // scratch is freed below
        cudaGetLastError();             // the engine meets the error again and reports it
    }
    cudaStreamDestroy(stream);
    cudaFree(arena);
    cudaGetLastError();
    return n;
}

}  // namespace cudag::cuda
