// SPDX-License-Identifier: Apache-2.0
// The CUDA CMIknn surrogates' kernels: shuffle neighbours, random draws, the restricted
// permutation and the permuted columns (see cmi_knn_batch_engine.cu for how they differ from
// GPU-CMIknn's). Every random number comes from Philox keyed as on the host
// (ci/cmi_knn.hpp); arithmetic that must round as the host's uses explicit
// __dadd_rn/__dmul_rn, which nvcc never contracts into FMAs.
#include <cub/device/device_segmented_sort.cuh>

#include <climits>
#include <cmath>

#include "ci/cmi_knn.hpp"
#include "ci/kd_tree.hpp"
#include "cmi_knn_prep_kernels.cuh"
#include "core/rng.hpp"
#include "cuda_check.hpp"
#include "device_handles.hpp"

namespace cudag::cuda {
namespace {

// ---- shuffle neighbours ---------------------------------------------------------------------

/// Sample i's m nearest samples in Z (ci::MaxNormKdTree::nearest's order: max-norm
/// distance, L1 distance, kd_tie_key(salt, j), j), then itself moved first as the host does.
template <class V>
__global__ void neighbors_kernel(const V* __restrict__ w, int n, const int* __restrict__ g_off,
                                 const int* __restrict__ g_nz, const int* __restrict__ zvars, int groups, int m,
                                 u64 seed, int* __restrict__ nbr) {
    const long long tid = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (tid >= static_cast<long long>(groups) * n) return;
    const int g = static_cast<int>(tid / n), i = static_cast<int>(tid % n);
    const int nz = g_nz[g];
    if (nz == 0) return;
    const int* z = zvars + g_off[g];
    const u64 salt = ci::cmi_neighbor_salt(seed, i);
    double bd[kMaxShuffleGpu], bl[kMaxShuffleGpu];
    u64 bk[kMaxShuffleGpu];
    int bi[kMaxShuffleGpu];
    int count = 0;
    double wd = 0.0, wl = 0.0;  // entry m − 1's distances once the list is full
    for (int j = 0; j < n; ++j) {
        double d = 0.0, l1 = 0.0;
        for (int c = 0; c < nz; ++c) {
            const V* col = w + static_cast<long long>(z[c]) * n;
            const double a = fabs(static_cast<double>(col[i]) - static_cast<double>(col[j]));
            d = fmax(d, a);
            l1 = __dadd_rn(l1, a);
        }
        // The kept worst (entry m − 1) sits in registers: most candidates stop here.
        if (count == m && (d > wd || (d == wd && l1 > wl))) continue;
        const u64 key = ci::kd_tie_key(salt, j);
        auto less = [&](int t) {  // candidate < entry t
            if (d != bd[t]) return d < bd[t];
            if (l1 != bl[t]) return l1 < bl[t];
            return key < bk[t] || (key == bk[t] && j < bi[t]);
        };
        if (count == m && !less(m - 1)) continue;
        int at = count < m ? count++ : m - 1;
        while (at > 0 && less(at - 1)) {
            bd[at] = bd[at - 1];
            bl[at] = bl[at - 1];
            bk[at] = bk[at - 1];
            bi[at] = bi[at - 1];
            --at;
        }
        bd[at] = d;
        bl[at] = l1;
        bk[at] = key;
        bi[at] = j;
        if (count == m) {
            wd = bd[m - 1];
            wl = bl[m - 1];
        }
    }
    int self = m - 1;  // ci::CmiKnn::prepare: itself first, else the last dropped
    for (int t = 0; t < m; ++t)
        if (bi[t] == i) {
            self = t;
            break;
        }
    for (int t = self; t > 0; --t) bi[t] = bi[t - 1];
    bi[0] = i;
    int* out = nbr + (static_cast<long long>(g) * n + i) * m;
    for (int t = 0; t < m; ++t) out[t] = bi[t];
}

// ---- surrogate randomness and the restricted permutation --------------------------------------

/// Per (slot, sample): the visiting-order key, the tie-break uniform and (Z not empty) the
/// shuffled neighbour row, from Philox block ci::cmi_rng_block(s, i) of the test's stream.
__global__ void draws_kernel(const UnitDev* __restrict__ units, const QueryDev* __restrict__ queries,
                             const int* __restrict__ g_nz, const int* __restrict__ nbr, int n, int m, long long slots,
                             u64 seed, int first_surrogate_unit, const int* __restrict__ surrogate_of,
                             u64* __restrict__ keys, int* __restrict__ iota, double* __restrict__ uni,
                             int* __restrict__ shuffled) {
    const long long tid = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (tid >= slots * n) return;
    const long long slot = tid / n;
    const int i = static_cast<int>(tid % n);
    const UnitDev u = units[first_surrogate_unit + slot];
    const QueryDev q = queries[u.q];
    CounterRng rng(seed, q.test_id, ci::cmi_rng_block(static_cast<u64>(surrogate_of[slot]), static_cast<u64>(i)));
    const u64 hi = rng.next_u32();
    keys[tid] = (hi << 32) | rng.next_u32();
    uni[tid] = rng.uniform();
    iota[tid] = i;
    if (g_nz[q.group] == 0) return;
    const int* src = nbr + (static_cast<long long>(q.group) * n + i) * m;
    int* row = shuffled + tid * m;
    for (int t = 0; t < m; ++t) row[t] = src[t];
    for (int d = m - 1; d >= 1; --d) {
        const int r = static_cast<int>(ci::cmi_draw_index(rng.next_u32(), static_cast<unsigned>(d + 1)));
        const int tmp = row[d];
        row[d] = row[r];
        row[r] = tmp;
    }
}

/// One warp per slot with a conditioning set: walk the samples in visiting order (order =
/// samples sorted by key) and give each its first unused shuffled neighbour, else its last
/// (ci::CmiKnn::surrogate). The walk is sequential; the warp turns its memory latency into
/// throughput: 32 samples of the order and the first kStage entries of their rows are loaded
/// at once into shared memory, then lane 0 walks them on the used bits (in shared memory
/// when `shared_bits`, else in `used`). Slots without Z are left to values_kernel.
constexpr int kStage = 4;
__global__ void restrict_kernel(const UnitDev* __restrict__ units, const QueryDev* __restrict__ queries,
                                const int* __restrict__ g_nz, int n, int m, long long slots, int first_surrogate_unit,
                                const int* __restrict__ order, const int* __restrict__ shuffled, bool shared_bits,
                                unsigned* __restrict__ used, int* __restrict__ source) {
    extern __shared__ unsigned rsm[];
    const int warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    const long long slot = blockIdx.x * static_cast<long long>(warps) + warp;
    if (slot >= slots) return;  // the whole warp
    if (g_nz[queries[units[first_surrogate_unit + slot].q].group] == 0) return;
    const long long base = slot * n;
    const int words = (n + 31) / 32;
    int* stage = reinterpret_cast<int*>(rsm) + warp * 32 * (kStage + 1);
    int* stage_a = stage + 32 * kStage;
    unsigned* bits = shared_bits ? rsm + warps * 32 * (kStage + 1) + warp * words : used + slot * words;
    for (int t = lane; t < words; t += 32) bits[t] = 0;
    const int pre = min(m, kStage);
    for (int r0 = 0; r0 < n; r0 += 32) {
        const int r = r0 + lane;
        if (r < n) {
            const int a = order[base + r];
            stage_a[lane] = a;
            const int* row = shuffled + (base + a) * m;
            for (int t = 0; t < pre; ++t) stage[lane * kStage + t] = row[t];
        }
        __syncwarp();
        if (lane == 0) {
            const int count = min(32, n - r0);
            for (int j = 0; j < count; ++j) {
                const int a = stage_a[j];
                int t = 0;
                int c = stage[j * kStage];
                while (t < m - 1 && ((bits[c >> 5] >> (c & 31)) & 1u)) {
                    ++t;
                    c = t < pre ? stage[j * kStage + t] : shuffled[(base + a) * m + t];
                }
                source[base + a] = c;
                bits[c >> 5] |= 1u << (c & 31);
            }
        }
        __syncwarp();
    }
}

/// Per (slot, sample i): the permuted raw value (sample source[i], or the i-th of the
/// visiting order without Z: a plain permutation) plus fresh tie-break noise. Ranks: the
/// value's order key for the next sort (and iota reset); otherwise the value itself.
__global__ void values_kernel(const UnitDev* __restrict__ units, const QueryDev* __restrict__ queries,
                              const int* __restrict__ g_nz, const double* __restrict__ raw, int n, long long slots,
                              int first_surrogate_unit, const int* __restrict__ order, const int* __restrict__ source,
                              const double* __restrict__ uni, bool ranks, u64* __restrict__ value_keys,
                              double* __restrict__ values) {
    const long long tid = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (tid >= slots * n) return;
    const long long slot = tid / n;
    const QueryDev q = queries[units[first_surrogate_unit + slot].q];
    const int src = g_nz[q.group] == 0 ? order[tid] : source[tid];
    // Host: raw[source] + (noise ? scale * U : 0.0), two roundings.
    const double v = __dadd_rn(raw[static_cast<long long>(q.p) * n + src], __dmul_rn(q.noise_scale, uni[tid]));
    if (ranks) {
        value_keys[tid] = cmi_order_key(v);
    } else {
        values[tid] = v;
    }
}

/// Ranks of the permuted column from its sorted order: sample order[r] gets rank r.
__global__ void ranks_kernel(const int* __restrict__ order, int n, long long slots, int* __restrict__ pcol) {
    const long long tid = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (tid >= slots * n) return;
    const long long base = tid / n * n;
    pcol[base + order[tid]] = static_cast<int>(tid - base);
}

/// Standardise (population std, two sequential passes as on the host) or copy.
__global__ void standardize_kernel(const double* __restrict__ values, int n, long long slots, bool standardize,
                                   double* __restrict__ pcol) {
    const long long slot = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (slot >= slots) return;
    const double* v = values + slot * n;
    double* out = pcol + slot * n;
    if (!standardize) {
        for (int t = 0; t < n; ++t) out[t] = v[t];
        return;
    }
    double s = 0.0;
    for (int t = 0; t < n; ++t) s = __dadd_rn(s, v[t]);
    const double mean = __ddiv_rn(s, static_cast<double>(n));
    double sq = 0.0;
    for (int t = 0; t < n; ++t) {
        const double d = __dsub_rn(v[t], mean);
        sq = __dadd_rn(sq, __dmul_rn(d, d));
    }
    const double sd = __dsqrt_rn(__ddiv_rn(sq, static_cast<double>(n)));
    for (int t = 0; t < n; ++t) {
        const double c = __dsub_rn(v[t], mean);
        out[t] = sd != 0.0 ? __ddiv_rn(c, sd) : c;
    }
}

int blocks_for(long long threads, int per_block) { return static_cast<int>((threads + per_block - 1) / per_block); }

template <class V>
void launch_neighbors_of(const V* w, int n, const int* g_off, const int* g_nz, const int* zvars, int groups, int m,
                         u64 seed, int* nbr, cudaStream_t stream) {
    const long long threads = static_cast<long long>(groups) * n;
    neighbors_kernel<V><<<blocks_for(threads, 32), 32, 0, stream>>>(w, n, g_off, g_nz, zvars, groups, m, seed, nbr);
    CUDAG_CHECK_LAUNCH();
}

}  // namespace

void launch_neighbors(const int* w, int n, const int* g_off, const int* g_nz, const int* zvars, int groups, int m,
                      u64 seed, int* nbr, cudaStream_t stream) {
    launch_neighbors_of(w, n, g_off, g_nz, zvars, groups, m, seed, nbr, stream);
}

void launch_neighbors(const double* w, int n, const int* g_off, const int* g_nz, const int* zvars, int groups, int m,
                      u64 seed, int* nbr, cudaStream_t stream) {
    launch_neighbors_of(w, n, g_off, g_nz, zvars, groups, m, seed, nbr, stream);
}

void launch_draws(const UnitDev* units, const QueryDev* queries, const int* g_nz, const int* nbr, int n, int m,
                  long long slots, u64 seed, int first_unit, const int* surrogate_of, u64* keys, int* iota, double* uni,
                  int* shuffled, cudaStream_t stream) {
    const std::size_t cells = static_cast<std::size_t>(slots) * n;
    draws_kernel<<<blocks_for(static_cast<long long>(cells), 256), 256, 0, stream>>>(
        units, queries, g_nz, nbr, n, m, slots, seed, first_unit, surrogate_of, keys, iota, uni, shuffled);
    CUDAG_CHECK_LAUNCH();
}

void launch_restrict(const UnitDev* units, const QueryDev* queries, const int* g_nz, int n, int m, long long slots,
                     int first_unit, const int* order, const int* shuffled, std::size_t shared_limit, unsigned* used,
                     int* source, cudaStream_t stream) {
    // Four slots (warps) a block with their used bits in shared memory where they fit.
    const std::size_t words = static_cast<std::size_t>((n + 31) / 32);
    int warps = 4;
    bool shared_bits = true;
    auto bytes = [&] { return warps * (32 * (kStage + 1) + (shared_bits ? words : 0)) * sizeof(unsigned); };
    while (bytes() > 48 * 1024 && warps > 1) warps /= 2;
    if (bytes() > shared_limit) shared_bits = false;
    if (bytes() > 48 * 1024) allow_dynamic_shared(restrict_kernel);
    restrict_kernel<<<blocks_for(slots, warps), 32 * warps, bytes(), stream>>>(
        units, queries, g_nz, n, m, slots, first_unit, order, shuffled, shared_bits, used, source);
    CUDAG_CHECK_LAUNCH();
}

void launch_values(const UnitDev* units, const QueryDev* queries, const int* g_nz, const double* raw, int n,
                   long long slots, int first_unit, const int* order, const int* source, const double* uni, bool ranks,
                   u64* value_keys, double* values, cudaStream_t stream) {
    const std::size_t cells = static_cast<std::size_t>(slots) * n;
    values_kernel<<<blocks_for(static_cast<long long>(cells), 256), 256, 0, stream>>>(
        units, queries, g_nz, raw, n, slots, first_unit, order, source, uni, ranks, value_keys, values);
    CUDAG_CHECK_LAUNCH();
}

void launch_ranks(const int* order, int n, long long slots, int* pcol, cudaStream_t stream) {
    const std::size_t cells = static_cast<std::size_t>(slots) * n;
    ranks_kernel<<<blocks_for(static_cast<long long>(cells), 256), 256, 0, stream>>>(order, n, slots, pcol);
    CUDAG_CHECK_LAUNCH();
}

void launch_standardize(const double* values, int n, long long slots, bool standardize, double* pcol,
                        cudaStream_t stream) {
    standardize_kernel<<<blocks_for(slots, 64), 64, 0, stream>>>(values, n, slots, standardize, pcol);
    CUDAG_CHECK_LAUNCH();
}

void stable_sort_segments(void* d_temp, std::size_t& temp_bytes, const u64* keys_in, u64* keys_out, const int* vals_in,
                          int* vals_out, int items, int segments, const int* offsets, cudaStream_t stream) {
    CUDAG_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(d_temp, temp_bytes, keys_in, keys_out, vals_in, vals_out,
                                                               items, segments, offsets, offsets + 1, stream));
}

}  // namespace cudag::cuda
