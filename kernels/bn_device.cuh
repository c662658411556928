// SPDX-License-Identifier: Apache-2.0
// What the order-MCMC kernel families (bn_table_kernels.cu, bn_sort_kernels.cu,
// bn_chain_kernels.cu) and their engines share: a node's part of the score table's layout,
// the host-computed binomial table, and ranking and unranking of parent sets on the device.
// Every file that includes it is compiled with --fmad=false (kernels/CMakeLists.txt).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "bn/engines.hpp"  // kMaxGpuParents
#include "bn/score_table.hpp"
#include "core/combinations.hpp"

namespace cudag::cuda {

inline constexpr int kMaxParentsGpu = bn::kMaxGpuParents;  ///< larger parent limits stay on the CPU

/// One node's part of the table layout, by value in the kernel arguments.
struct NodeLayout {
    std::int32_t v = 0, m = 0, s = 0, r = 0;
    std::int64_t entries = 0, core = 0, block = 0;
    std::int64_t so[kMaxParentsGpu + 2] = {};  ///< size offsets of the candidates' block
    std::int64_t xo[kMaxParentsGpu + 1] = {};  ///< size offsets of an extra's block
};

inline NodeLayout layout_of(const bn::ScoreTable& t, std::int32_t v) {
    NodeLayout L;
    L.v = v;
    L.m = static_cast<std::int32_t>(t.candidates(v).size());
    L.s = t.max_parents();
    L.entries = t.node_entries(v);
    for (int k = 0; k <= L.s + 1; ++k) L.so[k] = t.size_offset(v, k);
    for (int k = 0; k <= L.s; ++k) L.xo[k] = t.extra_offset(v, k);
    L.core = L.so[L.s + 1];
    L.block = L.xo[L.s];
    return L;
}

/// The largest k with off[k] <= x (off increasing from off[0] = 0).
__device__ inline int size_of(const std::int64_t* off, int kmax, std::int64_t x) {
    int k = 0;
    while (k < kmax && off[k + 1] <= x) ++k;
    return k;
}

/// Binomial coefficients C(a, b) for a <= rows - 1, b <= cols - 1 (host-computed,
/// saturating), so that the kernels rank and unrank without 128-bit divisions.
struct Binomials {
    const std::int64_t* t = nullptr;
    int cols = 0;
    __device__ std::int64_t operator()(int a, int b) const { return b < 0 || a < b ? 0 : t[a * cols + b]; }
};

/// combination_unrank (core/combinations.hpp) with the table.
__device__ inline void unrank(const Binomials& C, std::int64_t rank, int k, int n, int* c) {
    int v = 0;
    for (int t = 0; t < k; ++t) {
        for (;; ++v) {
            const std::int64_t block = C(n - 1 - v, k - 1 - t);
            if (rank < block) break;
            rank -= block;
        }
        c[t] = v++;
    }
}

/// combination_rank with the table, in closed form: C(n, k) - 1 - sum_t C(n - 1 - c_t, k - t).
__device__ inline std::int64_t rank_of(const Binomials& C, const int* c, int k, int n) {
    std::int64_t r = C(n, k) - 1;
    for (int t = 0; t < k; ++t) r -= C(n - 1 - c[t], k - t);
    return r;
}

/// The host table for n elements and sizes up to s.
inline std::vector<std::int64_t> binomial_table(std::int64_t n, int s) {
    std::vector<std::int64_t> t(static_cast<std::size_t>((n + 1) * (s + 2)));
    for (std::int64_t a = 0; a <= n; ++a)
        for (int b = 0; b <= s + 1; ++b) t[a * (s + 2) + b] = binomial(a, b);
    return t;
}

/// The parents (node ids, increasing) of entry `e` of the node; returns their number.
__device__ inline int entry_parents(const NodeLayout& L, const Binomials& B, const std::int32_t* cands,
                                    const std::int32_t* extras, std::int64_t e, std::int32_t* out) {
    int c[kMaxParentsGpu];
    std::int32_t extra = -1;
    int k = 0;
    std::int64_t rank = 0;
    if (e < L.core) {
        k = size_of(L.so, L.s, e);
        rank = e - L.so[k];
    } else {
        const std::int64_t b = (e - L.core) / L.block, within = (e - L.core) % L.block;
        extra = extras[b];
        k = size_of(L.xo, L.s - 1, within);
        rank = within - L.xo[k];
    }
    unrank(B, rank, k, L.m, c);
    int at = 0;
    bool placed = extra < 0;
    for (int t = 0; t < k; ++t) {
        const std::int32_t p = cands[c[t]];
        if (!placed && extra < p) out[at++] = extra, placed = true;
        out[at++] = p;
    }
    if (!placed) out[at++] = extra;
    return at;
}

}  // namespace cudag::cuda
