// SPDX-License-Identifier: Apache-2.0
// Adjacency compaction (cuPC §4.1, Fig. 2) with CUB instead of a hand-written
// Hillis–Steele scan: per-row popcounts, a device-wide exclusive sum for the row
// offsets, then one warp per row writes its neighbours in order (warp scan of the
// per-word popcounts). Also the selection of separated entries after a level.
#include "compact.cuh"

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

namespace cudag::cuda {
namespace {

constexpr int kWarpsPerBlock = 8;

/// Bits of word w of row r that count: all, or only columns > r.
__device__ __forceinline__ std::uint64_t masked_word(BitRowsView g, std::int64_t r, std::int64_t w,
                                                     bool upper_only) {
    std::uint64_t x = g.bits[r * g.words + w];
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
__global__ void row_neighbours_kernel(BitRowsView g, std::int64_t r0, std::int64_t r1,
                                      bool upper_only, const std::int64_t* offsets,
                                      std::int32_t* cols) {
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

struct IsSeparated {
    const unsigned long long* best;
    __device__ bool operator()(std::int64_t e) const { return best[e] != ~0ull; }
};

}  // namespace

void launch_row_degrees(BitRowsView g, std::int64_t r0, std::int64_t r1, bool upper_only,
                        std::int64_t* d_counts, cudaStream_t stream) {
    if (r1 <= r0) return;
    const std::int64_t blocks = (r1 - r0 + kWarpsPerBlock - 1) / kWarpsPerBlock;
    row_degrees_kernel<<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(
        g, r0, r1, upper_only, d_counts);
    CUDAG_CHECK_LAUNCH();
}

void exclusive_sum(const std::int64_t* d_in, std::int64_t* d_out, std::int64_t count,
                   CubScratch& scratch, cudaStream_t stream) {
    if (count <= 0) return;
    std::size_t bytes = 0;
    CUDAG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, d_in, d_out, count, stream));
    void* tmp = scratch.get(bytes);
    CUDAG_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, d_in, d_out, count, stream));
}

void launch_row_neighbours(BitRowsView g, std::int64_t r0, std::int64_t r1, bool upper_only,
                           const std::int64_t* d_offsets, std::int32_t* d_cols,
                           cudaStream_t stream) {
    if (r1 <= r0) return;
    const std::int64_t blocks = (r1 - r0 + kWarpsPerBlock - 1) / kWarpsPerBlock;
    row_neighbours_kernel<<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(
        g, r0, r1, upper_only, d_offsets, d_cols);
    CUDAG_CHECK_LAUNCH();
}

void select_separated(const unsigned long long* d_best, std::int64_t e_begin, std::int64_t e_end,
                      std::int64_t* d_out, std::int64_t* d_count, CubScratch& scratch,
                      cudaStream_t stream) {
    const std::int64_t count = e_end - e_begin;
    if (count <= 0) {
        CUDAG_CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(std::int64_t), stream));
        return;
    }
    thrust::counting_iterator<std::int64_t> first(e_begin);
    std::size_t bytes = 0;
    CUDAG_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, first, d_out, d_count, count,
                                           IsSeparated{d_best}, stream));
    void* tmp = scratch.get(bytes);
    CUDAG_CUDA_CHECK(cub::DeviceSelect::If(tmp, bytes, first, d_out, d_count, count,
                                           IsSeparated{d_best}, stream));
}

}  // namespace cudag::cuda
