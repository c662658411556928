// SPDX-License-Identifier: Apache-2.0
// CUDA CMIknn: batches of conditional-independence tests (GPU-CMIknn, Hagedorn et al.,
// DIGEST.md §2.4), every surrogate of every test of a batch in a few launches, with the
// results of the host reference ci::CmiKnn bit for bit (statistic, p-value, surrogate and
// exceedance counts).
//
// What differs from the paper's kernels, and why:
//  - Random numbers: the paper draws its visiting order from thread-block scheduling and
//    atomicCAS races; here every number comes from Philox keyed by (seed, test id,
//    surrogate, sample) as on the host (ci/cmi_knn.hpp), the visiting order is a sort of
//    those keys (a stable segmented sort), and the restricted permutation is one thread per
//    surrogate walking that order, as the host does.
//  - No cap on k: small k keeps the k + 1 smallest joint distances in registers (the
//    paper's scheme; a list of 8, for k < 8); larger k finds the (k + 1)-th smallest distance by
//    a radix select over its bits (5 bits a pass, a 32-bin histogram per thread in shared
//    memory): ranks need ⌈log2 T / 5⌉ passes (3 at T = 10,000), with no list to spill.
//  - The T sample terms are summed in fixed point (ci::cmi_fixed_bits), so the integer
//    atomics give the host's sum exactly whatever the order.
//  - Ranks (the default transform, and uniform, computed on the ranks) are int32 columns:
//    exact integer distances, half the bandwidth of doubles.
// Arithmetic that must round as the host's does (tie-break noise, standardisation) uses
// explicit __dadd_rn/__dmul_rn, which nvcc never contracts into FMAs.
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ci/kd_tree.hpp"
#include "core/error.hpp"
#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "engines.hpp"

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;

constexpr int kMaxShuffleGpu = 64;  // per-thread neighbour list (local memory)
constexpr int kStatThreads = 128;   // threads (samples) per block of the statistic kernel
constexpr int kRadixBits = 5;
constexpr std::size_t kWindowShared = 160 * 1024;  // at most, where the device allows it

/// One test as the kernels see it.
struct QueryDev {
    int p = 0, f = 0;  ///< permuted and fixed variable
    int group = 0;     ///< conditioning set (index into the groups)
    u64 test_id = 0;
    double noise_scale = 0.0;  ///< 1e-6·std(raw p), 0 without tie-break noise
};

/// A statistic to compute: query q with the observed column (slot < 0) or the permuted
/// column of buffer slot `slot` (surrogate).
struct UnitDev {
    int q = 0;
    int slot = -1;
};

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
        // Order key of a double (−0 as +0: the host compares values, not bits).
        u64 b = v == 0.0 ? 0ull : static_cast<u64>(__double_as_longlong(v));
        b = (b >> 63) ? ~b : (b | (1ull << 63));
        value_keys[tid] = b;
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

// ---- the statistic ----------------------------------------------------------------------------

template <class V>
struct DistTraits;
template <>
struct DistTraits<int> {
    static __device__ int dist(int a, int b) { return abs(a - b); }
    static __device__ int big() { return INT_MAX; }
    static __device__ u64 bits(int d) { return static_cast<u64>(d); }
    static __device__ int from_bits(u64 b) { return static_cast<int>(b); }
};
template <>
struct DistTraits<double> {
    static __device__ double dist(double a, double b) { return fabs(a - b); }
    static __device__ double big() { return __longlong_as_double(0x7ff0000000000000ll); }
    static __device__ u64 bits(double d) { return static_cast<u64>(__double_as_longlong(d)); }
    static __device__ double from_bits(u64 b) { return __longlong_as_double(static_cast<long long>(b)); }
};

/// Statistic kernel: one block = kStatThreads samples i of one unit; the j samples stream
/// through shared memory in tiles. NZ: number of conditioning columns (−1: any, read at run
/// time). KK > 0: the k + 1 smallest joint distances in a register list of KK (k < KK);
/// KK == 0: radix select. Adds the unit's fixed-point terms to sums[unit].
template <class V, int NZ, int KK>
__global__ void __launch_bounds__(kStatThreads)
    statistic_kernel(const UnitDev* __restrict__ units, const QueryDev* __restrict__ queries,
                     const int* __restrict__ g_off, const int* __restrict__ g_nz, const int* __restrict__ zvars,
                     const V* __restrict__ w, const V* __restrict__ pcols, long long slot_base, int n, int k,
                     int key_bits, const long long* __restrict__ psi_fixed, int tiles, u64* __restrict__ sums) {
    extern __shared__ unsigned char smem_raw[];
    using DT = DistTraits<V>;
    const int unit = static_cast<int>(blockIdx.x / tiles);
    const int tile = static_cast<int>(blockIdx.x % tiles);
    const UnitDev u = units[unit];
    const QueryDev q = queries[u.q];
    const int nz = NZ >= 0 ? NZ : g_nz[q.group];
    const int* zv = zvars + g_off[q.group];
    const V* pc = u.slot < 0 ? w + static_cast<long long>(q.p) * n : pcols + (u.slot - slot_base) * n;
    const V* fc = w + static_cast<long long>(q.f) * n;
    const int tid = threadIdx.x;
    const int i = tile * kStatThreads + tid;
    const bool live = i < n;
    // Shared: the tile's columns (p, f, z...) then, for NZ < 0, each thread's own z values,
    // then, for the radix select, the per-thread histograms.
    V* sp = reinterpret_cast<V*>(smem_raw);
    V* sf = sp + kStatThreads;
    V* sz = sf + kStatThreads;
    V* own = sz + static_cast<long long>(nz) * kStatThreads;
    unsigned* hist = reinterpret_cast<unsigned*>(own + (NZ < 0 ? nz * kStatThreads : 0));
    constexpr int kRegZ = NZ > 0 ? NZ : 1;
    V zi[kRegZ];
    V pi = V(0), fi = V(0);
    if (live) {
        pi = pc[i];
        fi = fc[i];
        if (NZ > 0) {
#pragma unroll
            for (int c = 0; c < kRegZ; ++c) zi[c] = w[static_cast<long long>(zv[c]) * n + i];
        } else if (NZ < 0) {
            for (int c = 0; c < nz; ++c) own[c * kStatThreads + tid] = w[static_cast<long long>(zv[c]) * n + i];
        }
    }
    auto load_tile = [&](int j0) {
        const int j = j0 + tid;
        if (j < n) {
            sp[tid] = pc[j];
            sf[tid] = fc[j];
            for (int c = 0; c < nz; ++c) sz[c * kStatThreads + tid] = w[static_cast<long long>(zv[c]) * n + j];
        }
    };
    // Every j through shared memory, body(jj) for this thread's sample (all threads sync).
    auto sweep = [&](auto&& body) {
        for (int j0 = 0; j0 < n; j0 += kStatThreads) {
            __syncthreads();
            load_tile(j0);
            __syncthreads();
            const int jn = min(kStatThreads, n - j0);
            if (!live) continue;
            for (int jj = 0; jj < jn; ++jj) body(jj);
        }
    };
    auto zdist = [&](int jj) {
        V dz = V(0);
        if (NZ > 0) {
#pragma unroll
            for (int c = 0; c < kRegZ; ++c) dz = max(dz, DT::dist(zi[c], sz[c * kStatThreads + jj]));
        } else if (NZ < 0) {
            for (int c = 0; c < nz; ++c) dz = max(dz, DT::dist(own[c * kStatThreads + tid], sz[c * kStatThreads + jj]));
        }
        return dz;
    };

    // ε: the (k + 1)-th smallest joint distance (i itself, at 0, the first).
    V eps = V(0);
    if constexpr (KK > 0) {
        V best[KK];
#pragma unroll
        for (int t = 0; t < KK; ++t) best[t] = DT::big();
        sweep([&](int jj) {
            const V d = max(zdist(jj), max(DT::dist(pi, sp[jj]), DT::dist(fi, sf[jj])));
            if (d < best[KK - 1]) {
#pragma unroll
                for (int t = KK - 1; t > 0; --t) best[t] = best[t - 1] > d ? best[t - 1] : (best[t] > d ? d : best[t]);
                best[0] = min(best[0], d);
            }
        });
#pragma unroll
        for (int t = 0; t < KK; ++t)
            if (t == k) eps = best[t];
    } else {
        u64 prefix = 0;
        long long rank = k + 1;  // 1-based rank still to find below the prefix
        for (int hi = key_bits; hi > 0;) {
            const int lo = hi > kRadixBits ? hi - kRadixBits : 0;
            const int width = hi - lo;
            const u64 mask = (1ull << width) - 1;
            for (int b = 0; b < 32; ++b) hist[b * kStatThreads + tid] = 0;
            sweep([&](int jj) {
                const V d = max(zdist(jj), max(DT::dist(pi, sp[jj]), DT::dist(fi, sf[jj])));
                const u64 key = DT::bits(d);
                if ((hi >= 64 ? 0ull : key >> hi) == prefix) ++hist[((key >> lo) & mask) * kStatThreads + tid];
            });
            long long below = 0;
            int b = 0;
            for (; b < static_cast<int>(mask); ++b) {
                const unsigned c = hist[b * kStatThreads + tid];
                if (below + c >= rank) break;
                below += c;
            }
            rank -= below;
            prefix = (prefix << width) | static_cast<u64>(b);
            hi = lo;
        }
        eps = DT::from_bits(prefix);
    }

    // Counts strictly closer than ε (or at distance 0) in (P,Z), (F,Z) and Z.
    long long kp = 0, kf = 0, kz = 0;
    sweep([&](int jj) {
        const V dz = zdist(jj);
        const V dp = max(dz, DT::dist(pi, sp[jj]));
        const V df = max(dz, DT::dist(fi, sf[jj]));
        kp += (dp < eps) | (dp == V(0));
        kf += (df < eps) | (df == V(0));
        kz += (dz < eps) | (dz == V(0));
    });
    if (nz == 0) kz = n;
    u64 term = live ? static_cast<u64>(psi_fixed[kp] + psi_fixed[kf] - psi_fixed[kz]) : 0ull;
    for (int off = 16; off > 0; off >>= 1) term += __shfl_down_sync(0xffffffffu, term, off);
    if ((tid & 31) == 0) atomicAdd(sums + unit, term);
}

/// The statistic on ranks for small k (k < KK), by windows instead of all pairs. Every
/// working and permuted column on ranks is a permutation of 0..T−1, so the samples within
/// max-norm distance r of sample i have a P rank within r of i's: ε is found by walking
/// outwards in P order (stopping once the P offset reaches the (k + 1)-th smallest joint
/// distance so far), and each count is a walk of the window |offset| < ε in the order of
/// one of its columns, or a closed form where the subspace is one column (a window of a
/// permutation holds exactly its width). One block per unit; the unit's columns, gathered
/// in P, F and Z₁ order, sit in shared memory. Exactly the brute-force kernel's counts.
template <int NZ, int KK>
__global__ void __launch_bounds__(256)
    window_kernel(const UnitDev* __restrict__ units, const QueryDev* __restrict__ queries,
                  const int* __restrict__ g_off, const int* __restrict__ zvars, const int* __restrict__ w,
                  const int* __restrict__ winv, const int* __restrict__ pcols, const int* __restrict__ porder,
                  long long slot_base, int n, int k, int parts, const long long* __restrict__ psi_fixed,
                  u64* __restrict__ sums) {
    extern __shared__ int wsm[];
    const int unit = blockIdx.x / parts, part = blockIdx.x % parts;
    const UnitDev u = units[unit];
    const QueryDev q = queries[u.q];
    const int* zv = zvars + g_off[q.group];
    const long long pslot = (u.slot - slot_base) * n;
    const int* pc = u.slot < 0 ? w + static_cast<long long>(q.p) * n : pcols + pslot;
    const int* pinv = u.slot < 0 ? winv + static_cast<long long>(q.p) * n : porder + pslot;
    const int* fc = w + static_cast<long long>(q.f) * n;
    const int* finv = winv + static_cast<long long>(q.f) * n;
    auto zcol = [&](int c) { return w + static_cast<long long>(zv[c]) * n; };
    // Shared: F by P rank, Z by P rank, Z by F rank, Z₂.. by Z₁ rank.
    int* f_p = wsm;
    int* z_p = f_p + n;
    int* z_f = z_p + NZ * n;
    int* z_z = z_f + NZ * n;
    for (int r = threadIdx.x; r < n; r += blockDim.x) {
        const int j = pinv[r];
        f_p[r] = fc[j];
#pragma unroll
        for (int c = 0; c < NZ; ++c) z_p[c * n + r] = zcol(c)[j];
        if (NZ > 0) {
            const int jf = finv[r];
#pragma unroll
            for (int c = 0; c < NZ; ++c) z_f[c * n + r] = zcol(c)[jf];
        }
        if (NZ > 1) {
            const int jz = winv[static_cast<long long>(zv[0]) * n + r];
#pragma unroll
            for (int c = 1; c < NZ; ++c) z_z[(c - 1) * n + r] = zcol(c)[jz];
        }
    }
    __syncthreads();
    // Samples at offset 1..e−1 either side of rank r: a window of a permutation.
    auto window = [n](int r, int e) { return min(r + e - 1, n - 1) - max(r - e + 1, 0) + 1; };
    u64 acc = 0;
    for (int i = part * blockDim.x + threadIdx.x; i < n; i += parts * blockDim.x) {
        const int ri = pc[i], fi = fc[i];
        int zi[NZ > 0 ? NZ : 1];
#pragma unroll
        for (int c = 0; c < NZ; ++c) zi[c] = zcol(c)[i];
        auto zdist = [&](const int* col, int stride, int r) {
            int d = 0;
#pragma unroll
            for (int c = 0; c < NZ; ++c) d = max(d, abs(zi[c] - col[c * stride + r]));
            return d;
        };
        int best[KK];
        best[0] = 0;  // i itself
#pragma unroll
        for (int t = 1; t < KK; ++t) best[t] = INT_MAX;
        for (int d = 1; d < n; ++d) {
            int bk = INT_MAX;
#pragma unroll
            for (int t = 0; t < KK; ++t)
                if (t == k) bk = best[t];
            if (bk <= d || (ri - d < 0 && ri + d >= n)) break;
#pragma unroll
            for (int side = -1; side <= 1; side += 2) {
                const int r = ri + side * d;
                if (r < 0 || r >= n) continue;
                const int dd = max(d, max(abs(fi - f_p[r]), zdist(z_p, n, r)));
                if (dd < best[KK - 1]) {
#pragma unroll
                    for (int t = KK - 1; t > 0; --t)
                        best[t] = best[t - 1] > dd ? best[t - 1] : (best[t] > dd ? dd : best[t]);
                    best[0] = min(best[0], dd);
                }
            }
        }
        int eps = 0;
#pragma unroll
        for (int t = 0; t < KK; ++t)
            if (t == k) eps = best[t];
        // ε ≥ 1 (ranks differ), so "closer than ε or at 0" is "closer than ε" here.
        long long kp, kf, kz;
        if (NZ == 0) {
            kp = window(ri, eps);
            kf = window(fi, eps);
            kz = n;
        } else {
            kp = kf = 1;
            for (int d = 1; d < eps; ++d)
#pragma unroll
                for (int side = -1; side <= 1; side += 2) {
                    const int rp = ri + side * d, rf = fi + side * d;
                    if (rp >= 0 && rp < n) kp += zdist(z_p, n, rp) < eps;
                    if (rf >= 0 && rf < n) kf += zdist(z_f, n, rf) < eps;
                }
            if (NZ == 1) {
                kz = window(zi[0], eps);
            } else {
                kz = 1;
                for (int d = 1; d < eps; ++d)
#pragma unroll
                    for (int side = -1; side <= 1; side += 2) {
                        const int r = zi[0] + side * d;
                        if (r < 0 || r >= n) continue;
                        int dz = 0;
#pragma unroll
                        for (int c = 1; c < NZ; ++c) dz = max(dz, abs(zi[c] - z_z[(c - 1) * n + r]));
                        kz += dz < eps;
                    }
            }
        }
        acc += static_cast<u64>(psi_fixed[kp] + psi_fixed[kf] - psi_fixed[kz]);
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(sums + unit, acc);
}

/// Shared bytes of window_kernel for nz conditioning columns.
std::size_t window_shared(int nz, int n) {
    return static_cast<std::size_t>(1 + 2 * nz + (nz > 1 ? nz - 1 : 0)) * n * sizeof(int);
}

template <int NZ>
void launch_window(int blocks, std::size_t shared, cudaStream_t stream, const UnitDev* units, const QueryDev* queries,
                   const int* g_off, const int* zvars, const int* w, const int* winv, const int* pcols,
                   const int* porder, long long slot_base, int n, int k, int parts, const long long* psi, u64* sums) {
    auto kernel = window_kernel<NZ, 8>;  // k < 8: the only list size (CmiKnnGpuImpl::statistic)
    if (shared > 48 * 1024)
        CUDAG_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    kernel<<<blocks * parts, 256, shared, stream>>>(units, queries, g_off, zvars, w, winv, pcols, porder, slot_base, n,
                                                    k, parts, psi, sums);
    CUDAG_CHECK_LAUNCH();
}

/// Bits of the largest possible joint distance key (ranks: T − 1; doubles: 63).
template <class V>
int key_bits_for(int n) {
    if constexpr (std::is_same_v<V, int>) {
        int b = 0;
        while ((1ll << b) <= n - 1) ++b;
        return std::max(b, 1);
    } else {
        return 63;
    }
}

/// Arguments of one statistic launch.
template <class V>
struct StatArgs {
    const UnitDev* units;
    const QueryDev* queries;
    const int *g_off, *g_nz, *zvars;
    const V* w;
    const V* pcols;
    long long slot_base;
    int n, k;
    const long long* psi;
    int tiles;
    u64* sums;
};

template <class V, int NZ, int KK>
void launch_statistic(const StatArgs<V>& a, int blocks, std::size_t shared, cudaStream_t stream) {
    auto kernel = statistic_kernel<V, NZ, KK>;
    if (shared > 48 * 1024)
        CUDAG_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    kernel<<<blocks, kStatThreads, shared, stream>>>(a.units, a.queries, a.g_off, a.g_nz, a.zvars, a.w, a.pcols,
                                                     a.slot_base, a.n, a.k, key_bits_for<V>(a.n), a.psi, a.tiles,
                                                     a.sums);
    CUDAG_CHECK_LAUNCH();
}

template <class V, int NZ>
void launch_statistic_nz(int kk, const StatArgs<V>& a, int blocks, std::size_t shared, cudaStream_t stream) {
    if (kk == 8)
        launch_statistic<V, NZ, 8>(a, blocks, shared, stream);
    else
        launch_statistic<V, NZ, 0>(a, blocks, shared, stream);
}

// ---- host side ---------------------------------------------------------------------------------

int blocks_for(long long threads, int per_block) { return static_cast<int>((threads + per_block - 1) / per_block); }

class CmiKnnGpuImpl final : public CmiKnnGpu {
public:
    CmiKnnGpuImpl(const Dataset& data, const ci::CmiKnnSpec& spec, int max_cond, int device)
        : binding_(device), device_(device), cpu_(data, spec, max_cond), n_(data.n_samples), vars_(data.n_vars) {
        CUDAG_EXPECTS(max_cond == 0 || spec.shuffle_neighbors <= kMaxShuffleGpu,
                      "cuda cmiknn: --shuffle-neighbors above " + std::to_string(kMaxShuffleGpu) +
                          " runs on the CPU engine only (use --backend cpu)");
        CUDAG_EXPECTS(n_ < (1ll << 24), "cuda cmiknn: at most 2^24 samples (use --backend cpu)");
        ranks_ = spec.transform == ci::CmiTransform::Ranks || spec.transform == ci::CmiTransform::Uniform;
        DeviceGuard guard(device_);
        int optin = 0;
        CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
        window_limit_ = std::min<std::size_t>(kWindowShared, static_cast<std::size_t>(optin));
        CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device_));
        stream_ = std::make_unique<Stream>();
        const std::size_t cells = static_cast<std::size_t>(n_ * vars_);
        if (ranks_) {
            std::vector<int> w(cells);
            for (std::int64_t v = 0; v < vars_; ++v)
                for (std::int64_t t = 0; t < n_; ++t) w[v * n_ + t] = static_cast<int>(cpu_.working_column(v)[t]);
            wi_.resize_discard(cells);
            wi_.upload(w.data(), cells, stream());
            std::vector<int> inv(cells);  // sample at each rank, per variable
            for (std::int64_t v = 0; v < vars_; ++v)
                for (std::int64_t t = 0; t < n_; ++t) inv[v * n_ + w[v * n_ + t]] = static_cast<int>(t);
            winv_.resize_discard(cells);
            winv_.upload(inv.data(), cells, stream());
        } else {
            std::vector<double> w(cells);
            for (std::int64_t v = 0; v < vars_; ++v) std::copy_n(cpu_.working_column(v), n_, w.data() + v * n_);
            wd_.resize_discard(cells);
            wd_.upload(w.data(), cells, stream());
        }
        raw_.resize_discard(cells);
        raw_.upload(data.values.data(), cells, stream());
        const auto& pf = cpu_.psi_fixed();
        psi_.resize_discard(pf.size());
        psi_.upload(reinterpret_cast<const long long*>(pf.data()), pf.size(), stream());
        stream_->synchronize();
    }

    ~CmiKnnGpuImpl() override {
        binding_.bind();
        cudaStreamSynchronize(stream_->get());
    }

    const ci::CmiKnn& reference() const override { return cpu_; }

    std::vector<ci::CmiKnnResult> run(const std::vector<CmiKnnQuery>& queries) override {
        return run(queries, cpu_.spec().early_stop);
    }

    std::vector<ci::CmiKnnResult> run(const std::vector<CmiKnnQuery>& queries,
                                      const std::optional<ci::CmiEarlyStop>& early_stop) override {
        std::vector<ci::CmiKnnResult> results(queries.size());
        // Batches bounded by the neighbour lists they need (groups × T × m ints).
        const std::size_t per_group = static_cast<std::size_t>(n_) * cpu_.spec().shuffle_neighbors * 4;
        const std::size_t max_groups = std::max<std::size_t>(1, (std::size_t(1) << 30) / per_group);
        std::size_t begin = 0;
        while (begin < queries.size()) {
            std::size_t end = begin;
            std::map<std::vector<std::int32_t>, int> seen;
            while (end < queries.size()) {
                std::vector<std::int32_t> z = queries[end].z;
                if (!seen.count(z) && seen.size() == max_groups) break;
                seen.emplace(std::move(z), 0);
                ++end;
            }
            run_batch(queries, begin, end, early_stop, results);
            begin = end;
        }
        return results;
    }

private:
    cudaStream_t stream() const { return stream_->get(); }

    void run_batch(const std::vector<CmiKnnQuery>& all, std::size_t begin, std::size_t end,
                   const std::optional<ci::CmiEarlyStop>& early_stop, std::vector<ci::CmiKnnResult>& results) {
        DeviceGuard guard(device_);
        const ci::CmiKnnSpec& spec = cpu_.spec();
        const int n = static_cast<int>(n_);
        const int m = spec.shuffle_neighbors;
        // Host view: active queries (x or y constant: statistic 0, p 1, as the host), their
        // groups (conditioning sets without constant columns), the permuted/fixed columns.
        std::vector<QueryDev> qd;
        std::vector<std::size_t> qidx;  // position in `all` of each device query
        std::vector<int> g_off, g_nz, zvars;
        std::map<std::vector<std::int32_t>, int> groups;
        for (std::size_t a = begin; a < end; ++a) {
            const CmiKnnQuery& in = all[a];
            cpu_.check_vars(in.x, in.y, in.z);
            if (cpu_.constant(in.x) || cpu_.constant(in.y)) continue;
            std::vector<std::int32_t> z;
            for (std::int32_t v : in.z)
                if (!cpu_.constant(v)) z.push_back(v);
            auto [it, fresh] = groups.emplace(z, static_cast<int>(g_nz.size()));
            if (fresh) {
                g_off.push_back(static_cast<int>(zvars.size()));
                g_nz.push_back(static_cast<int>(z.size()));
                zvars.insert(zvars.end(), z.begin(), z.end());
            }
            QueryDev q;
            q.p = spec.permute == ci::CmiPermute::Y ? in.y : in.x;
            q.f = spec.permute == ci::CmiPermute::Y ? in.x : in.y;
            q.group = it->second;
            q.test_id = in.test_id;
            q.noise_scale = spec.tie_break == ci::CmiTieBreak::Noise ? 1e-6 * cpu_.raw_std(q.p) : 0.0;
            qd.push_back(q);
            qidx.push_back(a);
        }
        if (qd.empty()) return;
        nz_max_ = *std::max_element(g_nz.begin(), g_nz.end());
        nz_uniform_ = std::all_of(g_nz.begin(), g_nz.end(), [&](int c) { return c == g_nz[0]; });
        zvars.push_back(0);  // never empty
        const int nq = static_cast<int>(qd.size());
        const int ng = static_cast<int>(g_nz.size());
        queries_.resize_discard(qd.size());
        queries_.upload(qd.data(), qd.size(), stream());
        g_off_.resize_discard(g_off.size());
        g_off_.upload(g_off.data(), g_off.size(), stream());
        g_nz_.resize_discard(g_nz.size());
        g_nz_.upload(g_nz.data(), g_nz.size(), stream());
        zvars_.resize_discard(zvars.size());
        zvars_.upload(zvars.data(), zvars.size(), stream());
        any_z_ = std::any_of(g_nz.begin(), g_nz.end(), [](int c) { return c > 0; });
        if (any_z_) {
            nbr_.resize_discard(static_cast<std::size_t>(ng) * n * m);
            const long long threads = static_cast<long long>(ng) * n;
            if (ranks_)
                neighbors_kernel<int><<<blocks_for(threads, 32), 32, 0, stream()>>>(
                    wi_.data(), n, g_off_.data(), g_nz_.data(), zvars_.data(), ng, m, spec.seed, nbr_.data());
            else
                neighbors_kernel<double><<<blocks_for(threads, 32), 32, 0, stream()>>>(
                    wd_.data(), n, g_off_.data(), g_nz_.data(), zvars_.data(), ng, m, spec.seed, nbr_.data());
            CUDAG_CHECK_LAUNCH();
        } else {
            nbr_.resize_discard(1);
        }

        // Surrogates in chunks; with an early stop, small chunks first (most independent
        // tests stop at their first exceedances), the decision taken on the prefix in index
        // order as on the host, so the result does not depend on the chunking.
        const long long b_total = spec.permutations;
        std::vector<long long> cuts{0};
        if (early_stop) {
            for (long long c = 16; c < b_total; c *= 4) cuts.push_back(c);
        }
        cuts.push_back(b_total);
        std::vector<double> observed(static_cast<std::size_t>(nq), 0.0);
        std::vector<char> done(static_cast<std::size_t>(nq), 0);
        for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
            const long long s0 = cuts[c], s1 = cuts[c + 1];
            std::vector<int> active;
            for (int q = 0; q < nq; ++q)
                if (!done[static_cast<std::size_t>(q)]) active.push_back(q);
            if (active.empty()) break;
            // Units: the observed statistics (first chunk), then (query, surrogate) pairs.
            std::vector<UnitDev> units;
            std::vector<int> surrogate_of;
            if (c == 0)
                for (int q : active) units.push_back({q, -1});
            const int first_surrogate = static_cast<int>(units.size());
            for (int q : active)
                for (long long s = s0; s < s1; ++s) {
                    units.push_back({q, static_cast<int>(surrogate_of.size())});
                    surrogate_of.push_back(static_cast<int>(s));
                }
            std::vector<u64> sums = compute_units(units, first_surrogate, surrogate_of, n, m);
            std::size_t at = 0;
            if (c == 0)
                for (int q : active)
                    observed[static_cast<std::size_t>(q)] =
                        cpu_.statistic_from_sum(static_cast<std::int64_t>(sums[at++]));
            for (int q : active) {
                ci::CmiKnnResult& r = results[qidx[static_cast<std::size_t>(q)]];
                r.statistic = observed[static_cast<std::size_t>(q)];
                for (long long s = s0; s < s1; ++s, ++at) {
                    if (done[static_cast<std::size_t>(q)]) continue;
                    const double null = cpu_.statistic_from_sum(static_cast<std::int64_t>(sums[at]));
                    r.exceedances += null >= r.statistic;
                    r.surrogates = s + 1;
                    if (early_stop && r.surrogates < b_total &&
                        ci::cmi_can_stop(r.exceedances, b_total, early_stop->alpha, early_stop->strict)) {
                        r.early_stopped = true;
                        done[static_cast<std::size_t>(q)] = 1;
                    }
                }
                r.p = ci::cmi_pvalue(r.exceedances, b_total);
            }
        }
    }

    /// Fixed-point term sums of `units` (observed ones first, then first_surrogate.. the
    /// surrogates, slot = position among them), in slot groups that fit the memory budget.
    std::vector<u64> compute_units(const std::vector<UnitDev>& units, int first_surrogate,
                                   const std::vector<int>& surrogate_of, int n, int m) {
        const long long n_slots = static_cast<long long>(surrogate_of.size());
        const std::size_t vsize = ranks_ ? sizeof(int) : sizeof(double);
        const std::size_t per_slot =
            static_cast<std::size_t>(n) *
                (8 + 8 + 4 + 4 + 8 + 4 + (any_z_ ? 4 * static_cast<std::size_t>(m) : 0) + 8 + vsize) +
            static_cast<std::size_t>((n + 31) / 32) * 4 + 64;
        const std::size_t free_b = device_memory_info().first;  // the block cache's memory included
        const std::size_t budget = std::min<std::size_t>(free_b / 3, std::size_t(6) << 30);
        long long group = std::max<long long>(1, static_cast<long long>(budget / per_slot));
        group = std::min<long long>({group, n_slots > 0 ? n_slots : 1, (INT_MAX - 1) / n});
        std::vector<u64> sums(units.size(), 0);
        units_.resize_discard(units.size());
        units_.upload(units.data(), units.size(), stream());
        sums_.resize_discard(units.size());
        sums_.fill_bytes(0, stream());
        // The observed statistics (no permuted column needed).
        if (first_surrogate > 0) statistic(0, first_surrogate, n, 0);
        for (long long g0 = 0; g0 < n_slots; g0 += group) {
            const long long slots = std::min(group, n_slots - g0);
            run_slots(first_surrogate + static_cast<int>(g0), slots, surrogate_of, g0, n, m);
            statistic(first_surrogate + static_cast<int>(g0), static_cast<int>(slots), n, g0);
        }
        sums_.download(sums.data(), sums.size(), stream());
        stream_->synchronize();
        return sums;
    }

    /// The permuted columns of `slots` slots starting at unit first_unit (slot g0..).
    void run_slots(int first_unit, long long slots, const std::vector<int>& surrogate_of, long long g0, int n, int m) {
        const std::size_t cells = static_cast<std::size_t>(slots) * n;
        surr_.resize_discard(static_cast<std::size_t>(slots));
        surr_.upload(surrogate_of.data() + g0, static_cast<std::size_t>(slots), stream());
        keys_.resize_discard(cells);
        keys_out_.resize_discard(cells);
        iota_.resize_discard(cells);
        order_.resize_discard(cells);
        uni_.resize_discard(cells);
        source_.resize_discard(cells);
        shuffled_.resize_discard(any_z_ ? cells * static_cast<std::size_t>(m) : 1);
        used_.resize_discard(static_cast<std::size_t>(slots) * ((n + 31) / 32));
        if (ranks_)
            pcol_i_.resize_discard(cells);
        else {
            values_.resize_discard(cells);
            pcol_d_.resize_discard(cells);
        }
        std::vector<int> offsets(static_cast<std::size_t>(slots) + 1);
        for (long long s = 0; s <= slots; ++s) offsets[static_cast<std::size_t>(s)] = static_cast<int>(s * n);
        offsets_.resize_discard(offsets.size());
        offsets_.upload(offsets.data(), offsets.size(), stream());
        // Base the unit array at first_unit: slot s is unit first_unit + s.
        draws_kernel<<<blocks_for(static_cast<long long>(cells), 256), 256, 0, stream()>>>(
            units_.data(), queries_.data(), g_nz_.data(), nbr_.data(), n, m, slots, cpu_.spec().seed, first_unit,
            surr_.data(), keys_.data(), iota_.data(), uni_.data(), shuffled_.data());
        CUDAG_CHECK_LAUNCH();
        sort_pairs(keys_.data(), keys_out_.data(), iota_.data(), order_.data(), cells, slots);
        if (any_z_) {
            // Four slots (warps) a block with their used bits in shared memory where they fit.
            const std::size_t words = static_cast<std::size_t>((n + 31) / 32);
            int warps = 4;
            bool shared_bits = true;
            auto bytes = [&] { return warps * (32 * (kStage + 1) + (shared_bits ? words : 0)) * sizeof(unsigned); };
            while (bytes() > 48 * 1024 && warps > 1) warps /= 2;
            if (bytes() > window_limit_) shared_bits = false;
            if (bytes() > 48 * 1024)
                CUDAG_CUDA_CHECK(cudaFuncSetAttribute(restrict_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                      static_cast<int>(bytes())));
            restrict_kernel<<<blocks_for(slots, warps), 32 * warps, bytes(), stream()>>>(
                units_.data(), queries_.data(), g_nz_.data(), n, m, slots, first_unit, order_.data(), shuffled_.data(),
                shared_bits, used_.data(), source_.data());
        }
        values_kernel<<<blocks_for(static_cast<long long>(cells), 256), 256, 0, stream()>>>(
            units_.data(), queries_.data(), g_nz_.data(), raw_.data(), n, slots, first_unit, order_.data(),
            source_.data(), uni_.data(), ranks_, keys_.data(), ranks_ ? nullptr : values_.data());
        CUDAG_CHECK_LAUNCH();
        if (ranks_) {
            // iota_ still holds 0..n−1 per slot (the sort wrote order_).
            sort_pairs(keys_.data(), keys_out_.data(), iota_.data(), order_.data(), cells, slots);
            ranks_kernel<<<blocks_for(static_cast<long long>(cells), 256), 256, 0, stream()>>>(order_.data(), n, slots,
                                                                                               pcol_i_.data());
        } else {
            standardize_kernel<<<blocks_for(slots, 64), 64, 0, stream()>>>(
                values_.data(), n, slots, cpu_.spec().transform == ci::CmiTransform::Standardize, pcol_d_.data());
        }
        CUDAG_CHECK_LAUNCH();
    }

    void sort_pairs(const u64* keys_in, u64* keys_out, const int* vals_in, int* vals_out, std::size_t cells,
                    long long slots) {
        std::size_t bytes = 0;
        CUDAG_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(nullptr, bytes, keys_in, keys_out, vals_in, vals_out,
                                                                   static_cast<int>(cells), static_cast<int>(slots),
                                                                   offsets_.data(), offsets_.data() + 1, stream()));
        temp_.resize_discard(std::max<std::size_t>(bytes, 1));
        CUDAG_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(
            temp_.data(), bytes, keys_in, keys_out, vals_in, vals_out, static_cast<int>(cells), static_cast<int>(slots),
            offsets_.data(), offsets_.data() + 1, stream()));
    }

    /// Launch the statistic kernel for units [u0, u0 + count), whose surrogate slots
    /// start at slot_base in the permuted-column buffer. Units of a PC level share one
    /// conditioning-set size: that size is the kernel's NZ (registers); a batch of mixed
    /// sizes, or more than 2, runs the NZ = −1 kernel that reads each unit's.
    void statistic(int u0, int count, int n, long long slot_base) {
        if (count <= 0) return;
        const int k = static_cast<int>(cpu_.k());
        // Register lists pay for k < 8 only: measured on an H100 (T = 1000, |S| = 1, B = 100),
        // k = 10 and 20 took 1.2–1.4 ms a test with a list of 32 and radix select 0.59 ms at
        // k = 50 to 500.
        const int kk = k < 8 ? 8 : 0;
        const int tiles = (n + kStatThreads - 1) / kStatThreads;
        const int nz_class = nz_uniform_ && nz_max_ <= 2 ? nz_max_ : -1;
        const std::size_t vsize = ranks_ ? sizeof(int) : sizeof(double);
        std::size_t shared =
            static_cast<std::size_t>(2 + nz_max_ + (nz_class < 0 ? nz_max_ : 0)) * kStatThreads * vsize;
        if (kk == 0) shared += 32 * kStatThreads * sizeof(unsigned);
        const long long blocks = static_cast<long long>(count) * tiles;
        CUDAG_EXPECTS(blocks < INT_MAX, "cuda cmiknn: too many statistics in one launch");
        // Ranks with a small k: the window kernel where the unit's columns fit in shared memory.
        if (ranks_ && kk > 0 && nz_uniform_ && nz_max_ <= 2 && window_shared(nz_max_, n) <= window_limit_) {
            const std::size_t ws = window_shared(nz_max_, n);
            auto launch = nz_max_ == 0 ? launch_window<0> : (nz_max_ == 1 ? launch_window<1> : launch_window<2>);
            // Few statistics (a single test): split each one's samples over several blocks
            // (each gathers the columns again) so that every SM has work.
            const int parts = std::clamp((4 * sms_ + count - 1) / count, 1, (n + 255) / 256);
            launch(count, ws, stream(), units_.data() + u0, queries_.data(), g_off_.data(), zvars_.data(), wi_.data(),
                   winv_.data(), pcol_i_.data(), order_.data(), slot_base, n, k, parts, psi_.data(), sums_.data() + u0);
            return;
        }
        auto go = [&](const auto* w, const auto* pc) {
            using V = std::remove_cv_t<std::remove_pointer_t<decltype(w)>>;
            const StatArgs<V> a{units_.data() + u0,
                                queries_.data(),
                                g_off_.data(),
                                g_nz_.data(),
                                zvars_.data(),
                                w,
                                pc,
                                slot_base,
                                n,
                                k,
                                psi_.data(),
                                tiles,
                                sums_.data() + u0};
            const int nb = static_cast<int>(blocks);
            switch (nz_class) {
                case 0:
                    launch_statistic_nz<V, 0>(kk, a, nb, shared, stream());
                    break;
                case 1:
                    launch_statistic_nz<V, 1>(kk, a, nb, shared, stream());
                    break;
                case 2:
                    launch_statistic_nz<V, 2>(kk, a, nb, shared, stream());
                    break;
                default:
                    launch_statistic_nz<V, -1>(kk, a, nb, shared, stream());
                    break;
            }
        };
        if (ranks_)
            go(wi_.data(), pcol_i_.data());
        else
            go(wd_.data(), pcol_d_.data());
    }

    DeviceBinding binding_;  // first: see the destructor
    int device_;
    ci::CmiKnn cpu_;
    std::int64_t n_, vars_;
    bool ranks_ = true;
    int nz_max_ = 0;                        ///< of the batch being run
    bool nz_uniform_ = true;                ///< every group of the batch has nz_max_ columns
    bool any_z_ = false;                    ///< some group of the batch has a conditioning column
    std::size_t window_limit_ = 48 * 1024;  ///< shared bytes window_kernel may take here
    int sms_ = 1;                           ///< multiprocessors of the device
    std::unique_ptr<Stream> stream_;
    DeviceBuffer<int> wi_, winv_, pcol_i_;
    DeviceBuffer<double> wd_, raw_, pcol_d_, uni_, values_;
    DeviceBuffer<long long> psi_;
    DeviceBuffer<QueryDev> queries_;
    DeviceBuffer<UnitDev> units_;
    DeviceBuffer<int> g_off_, g_nz_, zvars_, nbr_, surr_, iota_, order_, source_, shuffled_, offsets_;
    DeviceBuffer<unsigned> used_;
    DeviceBuffer<u64> keys_, keys_out_, sums_;
    DeviceBuffer<unsigned char> temp_;
};

}  // namespace

std::unique_ptr<CmiKnnGpu> make_cmiknn_gpu(const Dataset& data, const ci::CmiKnnSpec& spec, int max_cond, int device) {
    return std::make_unique<CmiKnnGpuImpl>(data, spec, max_cond, device);
}

}  // namespace cudag::cuda
