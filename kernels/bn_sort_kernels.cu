// SPDX-License-Identifier: Apache-2.0
// The order-MCMC sorter's kernels: dominance pruning, sort keys and sorted entries' parents,
// and the CUB compaction and radix sort between them. Compiled with --fmad=false
// (kernels/CMakeLists.txt), as every file of the order-MCMC kernels.
#include <algorithm>
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "bn_sort_kernels.cuh"
#include "core/combinations.hpp"
#include "core/exact_math.hpp"
#include "cuda_check.hpp"

namespace cudag::cuda {
namespace {

/// bn::dominated_sets for the k-sets of one block of a node: block -1 the candidates'
/// (best of the immediate subsets), block e >= 0 extra e's (the set without the extra, and
/// with one candidate fewer). `best` holds each settled set's best proper-subset score.
__global__ void dominate_kernel(NodeLayout L, Binomials B, const double* sc, double* best, std::uint8_t* dom, int k,
                                std::int64_t extras) {
    const std::int64_t per = B(L.m, k);
    const std::int64_t count = extras < 0 ? per : extras * per;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int64_t e = extras < 0 ? -1 : i / per, r = extras < 0 ? i : i % per;
        int c[kMaxParentsGpu], sub[kMaxParentsGpu];
        unrank(B, r, k, L.m, c);
        const std::int64_t self = L.so[k] + r;
        const std::int64_t base = e < 0 ? 0 : L.core + e * L.block;
        const std::int64_t* off = e < 0 ? L.so : L.xo;
        double b = -xm::detail::inf();
        auto take = [&](std::int64_t j) {
            const double x = sc[j] > best[j] ? sc[j] : best[j];
            if (x > b) b = x;
        };
        if (e >= 0) take(self);
        for (int drop = 0; drop < k; ++drop) {
            int at = 0;
            for (int t = 0; t < k; ++t)
                if (t != drop) sub[at++] = c[t];
            take(base + off[k - 1] + rank_of(B, sub, k - 1, L.m));
        }
        const std::int64_t me = base + off[k] + r;
        best[me] = b;
        dom[me] = (e >= 0 || k > 0) && b >= sc[me] ? 1 : 0;
    }
}

/// dom[i] = 1 - dom[i]: the flags of the sets to keep.
__global__ void flip_kernel(std::uint8_t* dom, std::int64_t count) {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
        dom[i] = dom[i] ? 0 : 1;
}

/// Sort keys of the undominated sets: their scores with -0.0 as +0.0 (the CPU compares
/// them equal); values: their offsets.
__global__ void sort_keys_kernel(const double* scores, const std::uint32_t* offs, std::int64_t count, double* keys) {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const double x = scores[offs[i]];
        keys[i] = x == 0.0 ? 0.0 : x;
    }
}

/// The parents of each sorted entry, w per entry (0xffff after the last).
__global__ void sort_parents_kernel(NodeLayout L, Binomials B, const std::int32_t* cands, const std::int32_t* extras,
                                    const std::uint32_t* offs, std::int64_t count, int w, std::uint16_t* out) {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        std::int32_t ps[kMaxParentsGpu];
        const int kk = entry_parents(L, B, cands, extras, offs[i], ps);
        for (int t = 0; t < w; ++t) out[i * w + t] = t < kk ? static_cast<std::uint16_t>(ps[t]) : std::uint16_t{0xffff};
    }
}

/// out[i] = scores[offs[i]].
__global__ void gather_scores_kernel(const double* scores, const std::uint32_t* offs, std::int64_t count, double* out) {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
        out[i] = scores[offs[i]];
}

/// -inf for each entry whose set lacks one of the required parents.
__global__ void require_parents_kernel(NodeLayout L, Binomials B, const std::int32_t* cands, const std::int32_t* extras,
                                       const std::int32_t* required, int n_required, double* scores) {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < L.entries;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        std::int32_t ps[kMaxParentsGpu];
        const int kk = entry_parents(L, B, cands, extras, i, ps);
        bool lacks = false;
        for (int r = 0; r < n_required && !lacks; ++r) {
            bool has = false;
            for (int t = 0; t < kk; ++t) has = has || ps[t] == required[r];
            lacks = !has;
        }
        if (lacks) scores[i] = -xm::detail::inf();
    }
}

/// At most 8 blocks of 256 threads per multiprocessor, at least one block.
unsigned grid_for(std::int64_t count, int sms) {
    return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>((count + 255) / 256, sms * 8)));
}

}  // namespace

void launch_dominate(const NodeLayout& L, const Binomials& B, const double* d_scores, double* d_best,
                     std::uint8_t* d_dom, int k, std::int64_t extras, int sms, cudaStream_t stream) {
    const std::int64_t count = extras < 0 ? binomial(L.m, k) : extras * binomial(L.m, k);
    dominate_kernel<<<grid_for(count, sms), 256, 0, stream>>>(L, B, d_scores, d_best, d_dom, k, extras);
    CUDAG_CHECK_LAUNCH();
}

void launch_flip(std::uint8_t* d_dom, std::int64_t count, int sms, cudaStream_t stream) {
    flip_kernel<<<grid_for(count, sms), 256, 0, stream>>>(d_dom, count);
    CUDAG_CHECK_LAUNCH();
}

void launch_sort_keys(const double* d_scores, const std::uint32_t* d_offs, std::int64_t count, double* d_keys, int sms,
                      cudaStream_t stream) {
    sort_keys_kernel<<<grid_for(count, sms), 256, 0, stream>>>(d_scores, d_offs, count, d_keys);
    CUDAG_CHECK_LAUNCH();
}

void launch_sort_parents(const NodeLayout& L, const Binomials& B, const std::int32_t* d_cands,
                         const std::int32_t* d_extras, const std::uint32_t* d_offs, std::int64_t count, int w,
                         std::uint16_t* d_out, int sms, cudaStream_t stream) {
    sort_parents_kernel<<<grid_for(count, sms), 256, 0, stream>>>(L, B, d_cands, d_extras, d_offs, count, w, d_out);
    CUDAG_CHECK_LAUNCH();
}

void launch_gather_scores(const double* d_scores, const std::uint32_t* d_offs, std::int64_t count, double* d_out,
                          int sms, cudaStream_t stream) {
    if (count <= 0) return;
    gather_scores_kernel<<<grid_for(count, sms), 256, 0, stream>>>(d_scores, d_offs, count, d_out);
    CUDAG_CHECK_LAUNCH();
}

void launch_require_parents(const NodeLayout& L, const Binomials& B, const std::int32_t* d_cands,
                            const std::int32_t* d_extras, const std::int32_t* d_required, int n_required,
                            double* d_scores, int sms, cudaStream_t stream) {
    if (n_required <= 0 || L.entries <= 0) return;
    require_parents_kernel<<<grid_for(L.entries, sms), 256, 0, stream>>>(L, B, d_cands, d_extras, d_required,
                                                                         n_required, d_scores);
    CUDAG_CHECK_LAUNCH();
}

void select_flagged(void* d_temp, std::size_t& temp_bytes, const std::uint8_t* d_flags, std::uint32_t* d_offs,
                    std::int64_t* d_kept, int count, cudaStream_t stream) {
    CUDAG_CUDA_CHECK(cub::DeviceSelect::Flagged(d_temp, temp_bytes, thrust::counting_iterator<std::uint32_t>(0),
                                                d_flags, d_offs, d_kept, count, stream));
}

void sort_pairs_descending(void* d_temp, std::size_t& temp_bytes, const double* d_keys_in, double* d_keys_out,
                           const std::uint32_t* d_offs_in, std::uint32_t* d_offs_out, int count, cudaStream_t stream) {
    CUDAG_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(d_temp, temp_bytes, d_keys_in, d_keys_out, d_offs_in,
                                                               d_offs_out, count, 0, 64, stream));
}

}  // namespace cudag::cuda
