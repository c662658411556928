// SPDX-License-Identifier: Apache-2.0
// The order-MCMC score-table kernels (issue 21): the BDeu/K2 local-score table (a warp per
// entry: dense counts in shared memory, lgamma terms over the lanes, the CPU's sum order on
// lane 0) and the BGe table (a thread per entry).
//
// Compiled with --fmad=false (kernels/CMakeLists.txt) and built on core/exact_math, so every
// score equals the CPU's bit for bit.
#include <algorithm>
#include <cstdint>

#include "bn/bge.hpp"
#include "bn_table_kernels.cuh"
#include "core/exact_math.hpp"
#include "cuda_check.hpp"

namespace cudag::cuda {
namespace {

__global__ void __launch_bounds__(kTableWarps * 32)
    table_kernel(NodeLayout L, const std::int32_t* cands, const std::int32_t* extras, TableArgs a, double* out) {
    extern __shared__ double smem_d[];
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int cap = a.cap;
    double* term = smem_d + static_cast<std::size_t>(w) * table_warp_bytes(cap) / sizeof(double);
    double* rterm = term + cap;
    auto* cnt = reinterpret_cast<std::uint32_t*>(rterm + cap / 2 + 1);
    const std::int32_t r = a.cards[L.v];
    const std::uint8_t* x = a.codes + static_cast<std::int64_t>(L.v) * a.samples;
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * kTableWarps + w; e < L.entries;
         e += static_cast<std::int64_t>(gridDim.x) * kTableWarps) {
        std::int32_t ps[kMaxParentsGpu];
        const int kk = entry_parents(L, a.binom, cands, extras, e, ps);
        double q = 1.0;  // as DiscreteScorer::local: the product in parents' order
        std::int64_t qi = 1;
        for (int t = 0; t < kk && qi * r <= cap; ++t) q *= static_cast<double>(a.cards[ps[t]]), qi *= a.cards[ps[t]];
        if (qi * r > cap) continue;  // the CPU's
        const auto cells = static_cast<int>(qi * r);
        for (int c = lane; c < cells; c += 32) cnt[c] = 0;
        __syncwarp();
        for (std::int64_t s = lane; s < a.samples; s += 32) {
            std::uint32_t key = 0;
            for (int t = 0; t < kk; ++t)
                key = key * static_cast<std::uint32_t>(a.cards[ps[t]]) + a.codes[ps[t] * a.samples + s];
            atomicAdd(&cnt[key * static_cast<std::uint32_t>(r) + x[s]], 1u);
        }
        __syncwarp();
        // bd_local_score's terms (bn/local_score.hpp), in parallel.
        const int at = a.slot ? a.slot[qi] : -1;
        if (at >= 0) {  // the tabulated terms: the same doubles
            const double* cell = a.terms + at;
            const double* row = cell + a.samples + 1;
            for (int c = lane; c < cells; c += 32)
                if (cnt[c] != 0) term[c] = cell[cnt[c]];
            for (int j = lane; j < static_cast<int>(qi); j += 32) {
                std::uint32_t n_j = 0;
                for (int k = 0; k < r; ++k) n_j += cnt[j * r + k];
                rterm[j] = row[n_j];
            }
        } else {
            const double a_jk = a.k2 ? 1.0 : a.iss / (q * static_cast<double>(r));
            const double a_j = a_jk * static_cast<double>(r);
            const double lg_a_j = xm::lgamma(a_j), lg_a_jk = xm::lgamma(a_jk);
            for (int c = lane; c < cells; c += 32)
                if (cnt[c] != 0) term[c] = bn::bd_cell_term(a_jk, lg_a_jk, static_cast<double>(cnt[c]));
            for (int j = lane; j < static_cast<int>(qi); j += 32) {
                double n_j = 0.0;
                for (int k = 0; k < r; ++k)
                    if (cnt[j * r + k] != 0) n_j += static_cast<double>(cnt[j * r + k]);
                rterm[j] = bn::bd_row_term(a_j, lg_a_j, n_j);
            }
        }
        __syncwarp();
        if (lane == 0) {
            double score = 0.0;  // the CPU's order: a row's cells, then the row
            for (int j = 0; j < static_cast<int>(qi); ++j) {
                for (int k = 0; k < r; ++k)
                    if (cnt[j * r + k] != 0) score += term[j * r + k];
                score += rterm[j];
            }
            for (int t = 0; t < kk; ++t) {  // bn::PriorScorer's terms, parents increasing
                score += a.per_parent;
                if (a.prior) score += a.prior[ps[t] * a.n_vars + L.v];
            }
            out[e] = score;
        }
        __syncwarp();
    }
}

/// BDeu/K2 entries of one node, a thread each, from the sample bitsets (issue 37):
/// bn::bd_bitset_score with the node's tabulated terms, then bn::PriorScorer's terms.
__global__ void __launch_bounds__(kBitsetThreads)
    bitset_table_kernel(NodeLayout L, const std::int32_t* cands, const std::int32_t* extras, TableArgs a, double* out,
                        int in_smem) {
    extern __shared__ std::uint32_t smem_bits[];
    bn::SampleBits B = a.bits;
    if (in_smem) {
        for (std::int64_t i = threadIdx.x; i < a.bits_words; i += blockDim.x) smem_bits[i] = a.bits.bits[i];
        __syncthreads();
        B.bits = smem_bits;
    }
    const std::int32_t r = a.cards[L.v];
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < L.entries;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        std::int32_t ps[kMaxParentsGpu];
        const int kk = entry_parents(L, a.binom, cands, extras, e, ps);
        std::int64_t qi = 1;
        for (int t = 0; t < kk && qi * r <= a.cap; ++t) qi *= a.cards[ps[t]];
        if (qi * r > a.cap) continue;  // the CPU's
        const double* cell = a.terms + a.slot[qi];
        double score = bn::bd_bitset_score(B, L.v, ps, kk, qi, cell, cell + a.samples + 1);
        for (int t = 0; t < kk; ++t) {  // bn::PriorScorer's terms, parents increasing
            score += a.per_parent;
            if (a.prior) score += a.prior[ps[t] * a.n_vars + L.v];
        }
        out[e] = score;
    }
}

/// BGe entries of one node, a thread each: bn::BgeScorer::local (bge_local_score on TN with
/// the host's constants), then bn::PriorScorer's per-parent terms.
__global__ void bge_table_kernel(NodeLayout L, Binomials B, const std::int32_t* cands, const std::int32_t* extras,
                                 const double* tn, std::int64_t n, const double* consts, double awpn_n,
                                 double per_parent, const double* prior, double* out) {
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < L.entries;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        std::int32_t ps[kMaxParentsGpu];
        const int kk = entry_parents(L, B, cands, extras, e, ps);
        double scratch[kMaxParentsGpu * (kMaxParentsGpu + 1)];
        double score = bn::bge_local_score(tn, n, L.v, ps, kk, consts[kk], awpn_n, scratch);
        for (int t = 0; t < kk; ++t) {
            score += per_parent;
            if (prior) score += prior[ps[t] * n + L.v];
        }
        out[e] = score;
    }
}

/// Non-finite entries of scores[0, count), added to *non_finite: a warp's sum, then one
/// atomic add per warp that found any.
__global__ void count_non_finite_kernel(const double* scores, std::int64_t count, unsigned long long* non_finite) {
    unsigned int bad = 0;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
        bad += isfinite(scores[i]) ? 0u : 1u;
    for (int d = 16; d > 0; d /= 2) bad += __shfl_down_sync(0xffffffffu, bad, d);
    if (threadIdx.x % 32 == 0 && bad != 0) atomicAdd(non_finite, static_cast<unsigned long long>(bad));
}

}  // namespace

int table_cells(int device) {
    int optin = 0;
    CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    // The kernel's static shared memory (none today) comes off the device's opt-in limit.
    cudaFuncAttributes attr{};
    CUDAG_CUDA_CHECK(cudaFuncGetAttributes(&attr, table_kernel));
    const std::size_t room = static_cast<std::size_t>(optin) > attr.sharedSizeBytes
                                 ? static_cast<std::size_t>(optin) - attr.sharedSizeBytes
                                 : 0;
    int cells = static_cast<int>(kBnTableCells);
    while (cells + 16 <= kBnTableCellsMax && kTableWarps * table_warp_bytes(cells + 16) <= room) cells += 16;
    return cells;
}

void prepare_table_kernel(int cells) {
    CUDAG_CUDA_CHECK(cudaFuncSetAttribute(table_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(kTableWarps * table_warp_bytes(cells))));
    CUDAG_CUDA_CHECK(cudaFuncSetAttribute(bitset_table_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(kBitsetSmemBytes)));
}

void launch_table(const NodeLayout& L, const std::int32_t* d_cands, const std::int32_t* d_extras, const TableArgs& a,
                  double* d_out, int sms, cudaStream_t stream) {
    const std::size_t smem = kTableWarps * table_warp_bytes(a.cap);
    const auto grid =
        static_cast<unsigned>(std::min<std::int64_t>((L.entries + kTableWarps - 1) / kTableWarps, sms * 16));
    table_kernel<<<grid, kTableWarps * 32, smem, stream>>>(L, d_cands, d_extras, a, d_out);
    CUDAG_CHECK_LAUNCH();
}

void launch_bitset_table(const NodeLayout& L, const std::int32_t* d_cands, const std::int32_t* d_extras,
                         const TableArgs& a, double* d_out, int sms, cudaStream_t stream) {
    const std::size_t bytes = static_cast<std::size_t>(a.bits_words) * sizeof(std::uint32_t);
    const int in_smem = bytes <= kBitsetSmemBytes ? 1 : 0;
    const auto grid = static_cast<unsigned>(
        std::min<std::int64_t>((L.entries + kBitsetThreads - 1) / kBitsetThreads, static_cast<std::int64_t>(sms) * 16));
    bitset_table_kernel<<<grid, kBitsetThreads, in_smem ? bytes : 0, stream>>>(L, d_cands, d_extras, a, d_out, in_smem);
    CUDAG_CHECK_LAUNCH();
}

void launch_bge_table(const NodeLayout& L, const Binomials& B, const std::int32_t* d_cands,
                      const std::int32_t* d_extras, const double* d_tn, std::int64_t n, const double* d_consts,
                      double awpn_n, double per_parent, const double* d_prior, double* d_out, int sms,
                      cudaStream_t stream) {
    const auto grid = static_cast<unsigned>(std::min<std::int64_t>((L.entries + 127) / 128, sms * 16));
    bge_table_kernel<<<grid, 128, 0, stream>>>(L, B, d_cands, d_extras, d_tn, n, d_consts, awpn_n, per_parent, d_prior,
                                               d_out);
    CUDAG_CHECK_LAUNCH();
}

void launch_count_non_finite(const double* d_scores, std::int64_t count, unsigned long long* d_non_finite, int sms,
                             cudaStream_t stream) {
    if (count <= 0) return;
    constexpr int kThreads = 256;
    const auto grid = static_cast<unsigned>(
        std::min<std::int64_t>((count + kThreads - 1) / kThreads, static_cast<std::int64_t>(sms) * 4));
    count_non_finite_kernel<<<grid, kThreads, 0, stream>>>(d_scores, count, d_non_finite);
    CUDAG_CHECK_LAUNCH();
}

}  // namespace cudag::cuda
