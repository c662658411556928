// SPDX-License-Identifier: Apache-2.0
// The order-MCMC score-table kernels (issue 21): the BDeu/K2 local-score table (a warp per
// entry: dense counts in shared memory, lgamma terms over the lanes, the CPU's sum order on
// lane 0), the BGe table and the cg-bic table (a thread per entry).
//
// Compiled with --fmad=false (kernels/CMakeLists.txt) and built on core/exact_math, so every
// score equals the CPU's bit for bit.
#include <algorithm>
#include <cstdint>

#include "bn/bge.hpp"
#include "bn/cg_bic.hpp"
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

/// cg-bic entries of one node, a thread each (grid-stride over the entries): bn::CgBicScorer::
/// local with its arithmetic (bn/cg_bic.hpp), then bn::PriorScorer's per-parent terms. A
/// thread's scratch (a.scratch + thread * a.per_thread, global memory) holds the strata's row
/// counts, then the family's and the parents' records, each dense over the mixed-radix
/// stratum key (bn/cg_bic.hpp; at most kCgBicStrata strata, else the entry is NaN for the
/// CPU). Two passes over the rows, as the CPU: the counts (which rows are kept), then the
/// records in row order; then each set's terms in increasing key order, which is the CPU's
/// order over the strata that occur.
__global__ void cg_bic_table_kernel(NodeLayout L, Binomials B, const std::int32_t* cands, const std::int32_t* extras,
                                    CgBicArgs a, double* out) {
    constexpr int kMaxFamily = kMaxParentsGpu + 1;
    const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    double* cnt = a.scratch + thread * a.per_thread;
    double* rec_f = cnt + kCgBicStrata;
    const std::int32_t v = L.v;
    const bool cont_child = a.radix[v] == 0;
    const std::uint64_t r = cont_child ? 1 : static_cast<std::uint64_t>(a.radix[v]);
    for (std::int64_t e = thread; e < L.entries; e += threads) {
        std::int32_t ps[kMaxParentsGpu];
        const int kk = entry_parents(L, B, cands, extras, e, ps);
        // P's discrete parents (increasing) and continuous ones; the family's continuous
        // variables are P's then v.
        std::int32_t disc[kMaxFamily], cont[kMaxFamily];
        int nd = 0, p_p = 0;
        for (int t = 0; t < kk; ++t) {
            if (a.radix[ps[t]] > 0)
                disc[nd++] = ps[t];
            else
                cont[p_p++] = ps[t];
        }
        const int p_f = p_p + (cont_child ? 1 : 0);
        if (cont_child) cont[p_p] = v;
        std::uint64_t span = 1;
        bool fits = true;
        for (int t = 0; t < nd && fits; ++t) {
            span *= static_cast<std::uint64_t>(a.radix[disc[t]]);
            fits = span <= static_cast<std::uint64_t>(kCgBicStrata);
        }
        fits = fits && span * r <= static_cast<std::uint64_t>(kCgBicStrata);
        if (!fits) {
            out[e] = xm::detail::nan();  // the CPU's
            continue;
        }
        const std::uint64_t span_f = span * r;
        const int w_f = bn::cg_record_doubles(p_f), w_p = bn::cg_record_doubles(p_p);
        double* rec_p = rec_f + span_f * static_cast<std::uint64_t>(w_f);
        const auto key_of = [&](std::int64_t row) {
            std::uint64_t key = 0;
            for (int t = 0; t < nd; ++t)
                key = key * static_cast<std::uint64_t>(a.radix[disc[t]]) +
                      static_cast<std::uint64_t>(a.values[static_cast<std::int64_t>(disc[t]) * a.samples + row]);
            if (!cont_child)
                key = key * r + static_cast<std::uint64_t>(a.values[static_cast<std::int64_t>(v) * a.samples + row]);
            return key;
        };
        for (std::uint64_t k = 0; k < span_f; ++k) cnt[k] = 0.0;
        for (std::int64_t row = 0; row < a.samples; ++row) cnt[key_of(row)] += 1.0;
        for (std::uint64_t i = 0; i < span_f * static_cast<std::uint64_t>(w_f); ++i) rec_f[i] = 0.0;
        for (std::uint64_t i = 0; i < span * static_cast<std::uint64_t>(w_p); ++i) rec_p[i] = 0.0;
        std::int64_t n_kept = 0;
        for (std::int64_t row = 0; row < a.samples; ++row) {
            const std::uint64_t key = key_of(row);
            if (cnt[key] <= static_cast<double>(p_f)) continue;  // a too-small stratum's row
            ++n_kept;
            bn::cg_record_add(rec_f + key * static_cast<std::uint64_t>(w_f), p_f, a.values, a.samples, cont, row);
            bn::cg_record_add(rec_p + (key / r) * static_cast<std::uint64_t>(w_p), p_p, a.values, a.samples, cont, row);
        }
        double l[ci::cg_lrt_core::triangle(kMaxFamily)], roots[kMaxFamily];
        double mult_f = 0.0, gauss_f = 0.0, mult_p = 0.0, gauss_p = 0.0;
        bool ok = true;
        for (std::uint64_t k = 0; k < span_f && ok; ++k) {
            const double* rec = rec_f + k * static_cast<std::uint64_t>(w_f);
            if (rec[0] > 0.0) ok = bn::cg_record_terms(rec, p_f, l, roots, &mult_f, &gauss_f);
        }
        for (std::uint64_t k = 0; k < span && ok; ++k) {
            const double* rec = rec_p + k * static_cast<std::uint64_t>(w_p);
            if (rec[0] > 0.0) ok = bn::cg_record_terms(rec, p_p, l, roots, &mult_p, &gauss_p);
        }
        if (!ok) {
            out[e] = xm::detail::nan();  // a singular stratum: the CPU's InputError
            continue;
        }
        double f_p = 1.0;
        for (int t = 0; t < nd; ++t) f_p *= a.observed[disc[t]];
        const double k_diff = bn::cg_bic_k_diff(f_p, a.observed[v], p_p, cont_child);
        double score = bn::cg_bic_combine(mult_f, gauss_f, mult_p, gauss_p, static_cast<double>(n_kept), cont_child,
                                          k_diff, a.half_log_n, a.one_log_2pi);
        for (int t = 0; t < kk; ++t) {  // bn::PriorScorer's terms, parents increasing
            score += a.per_parent;
            if (a.prior) score += a.prior[ps[t] * a.n_vars + v];
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

void launch_cg_bic_table(const NodeLayout& L, const Binomials& B, const std::int32_t* d_cands,
                         const std::int32_t* d_extras, const CgBicArgs& a, std::int64_t threads, double* d_out,
                         cudaStream_t stream) {
    const auto grid = static_cast<unsigned>(threads / 128);
    cg_bic_table_kernel<<<grid, 128, 0, stream>>>(L, B, d_cands, d_extras, a, d_out);
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
