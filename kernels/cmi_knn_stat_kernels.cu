// SPDX-License-Identifier: Apache-2.0
// The CUDA CMIknn statistic kernels: small k keeps the k + 1 smallest joint distances in
// registers (GPU-CMIknn's scheme; a list of 8, for k < 8); larger k finds the (k + 1)-th
// smallest distance by a radix select over its bits (5 bits a pass, a 32-bin histogram per
// thread in shared memory). The T sample terms are summed in fixed point
// (ci::cmi_fixed_bits), so the integer atomics give the host's sum exactly whatever the
// order. See cmi_knn_batch_engine.cu for the whole scheme.
#include <algorithm>
#include <climits>
#include <cmath>
#include <type_traits>

#include "ci/cmi_knn.hpp"
#include "cmi_knn_stat_kernels.cuh"
#include "cuda_check.hpp"
#include "device_handles.hpp"

namespace cudag::cuda {
namespace {

// ---- the statistic ----------------------------------------------------------------------------

template <class V>
struct DistTraits;
template <>
struct DistTraits<int> {
    static __device__ int dist(int a, int b) { return abs(a - b); }
    static __device__ int big() { return INT_MAX; }
    static __device__ u64 bits(int d) { return static_cast<u64>(d); }
    static __device__ int from_bits(u64 b) { return static_cast<int>(b); }
    static __device__ int radius(int eps) { return eps; }
    /// ci::cmi_counts_point on integer distances (ε < 10^9): closer than ε, or at 0.
    static __device__ bool counts(int d, int eps) { return d < eps || d == 0; }
};
template <>
struct DistTraits<double> {
    static __device__ double dist(double a, double b) { return fabs(a - b); }
    static __device__ double big() { return __longlong_as_double(0x7ff0000000000000ll); }
    static __device__ u64 bits(double d) { return static_cast<u64>(__double_as_longlong(d)); }
    static __device__ double from_bits(u64 b) { return __longlong_as_double(static_cast<long long>(b)); }
    /// ci::cmi_counts_point: within tigramite's radius ε·0.999999999 (`eps` passed shrunk).
    static __device__ bool counts(double d, double radius) { return d <= radius; }
    static __device__ double radius(double eps) { return ci::cmi_count_radius(eps); }
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

    // Counts in (P,Z), (F,Z) and Z by ci::cmi_counts_point.
    long long kp = 0, kf = 0, kz = 0;
    const V r = DT::radius(eps);
    sweep([&](int jj) {
        const V dz = zdist(jj);
        const V dp = max(dz, DT::dist(pi, sp[jj]));
        const V df = max(dz, DT::dist(fi, sf[jj]));
        kp += DT::counts(dp, r);
        kf += DT::counts(df, r);
        kz += DT::counts(dz, r);
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

template <int NZ>
void launch_window_nz(int blocks, std::size_t shared, cudaStream_t stream, const UnitDev* units,
                      const QueryDev* queries, const int* g_off, const int* zvars, const int* w, const int* winv,
                      const int* pcols, const int* porder, long long slot_base, int n, int k, int parts,
                      const long long* psi, u64* sums) {
    auto kernel = window_kernel<NZ, 8>;  // k < 8: the only list size (CmiKnnGpuImpl::statistic)
    if (shared > 48 * 1024) allow_dynamic_shared(kernel);
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

template <class V, int NZ, int KK>
void launch_statistic_kernel(const StatArgs<V>& a, int blocks, std::size_t shared, cudaStream_t stream) {
    auto kernel = statistic_kernel<V, NZ, KK>;
    if (shared > 48 * 1024) allow_dynamic_shared(kernel);
    kernel<<<blocks, kStatThreads, shared, stream>>>(a.units, a.queries, a.g_off, a.g_nz, a.zvars, a.w, a.pcols,
                                                     a.slot_base, a.n, a.k, key_bits_for<V>(a.n), a.psi, a.tiles,
                                                     a.sums);
    CUDAG_CHECK_LAUNCH();
}

template <class V, int NZ>
void launch_statistic_nz(int kk, const StatArgs<V>& a, int blocks, std::size_t shared, cudaStream_t stream) {
    if (kk == 8)
        launch_statistic_kernel<V, NZ, 8>(a, blocks, shared, stream);
    else
        launch_statistic_kernel<V, NZ, 0>(a, blocks, shared, stream);
}

}  // namespace

void launch_window(int nz, int blocks, std::size_t shared, const UnitDev* units, const QueryDev* queries,
                   const int* g_off, const int* zvars, const int* w, const int* winv, const int* pcols,
                   const int* porder, long long slot_base, int n, int k, int parts, const long long* psi, u64* sums,
                   cudaStream_t stream) {
    auto launch = nz == 0 ? launch_window_nz<0> : (nz == 1 ? launch_window_nz<1> : launch_window_nz<2>);
    launch(blocks, shared, stream, units, queries, g_off, zvars, w, winv, pcols, porder, slot_base, n, k, parts, psi,
           sums);
}

template <class V>
void launch_statistic(int nz_class, int kk, const StatArgs<V>& a, int blocks, std::size_t shared, cudaStream_t stream) {
    switch (nz_class) {
        case 0:
            launch_statistic_nz<V, 0>(kk, a, blocks, shared, stream);
            break;
        case 1:
            launch_statistic_nz<V, 1>(kk, a, blocks, shared, stream);
            break;
        case 2:
            launch_statistic_nz<V, 2>(kk, a, blocks, shared, stream);
            break;
        default:
            launch_statistic_nz<V, -1>(kk, a, blocks, shared, stream);
            break;
    }
}

template void launch_statistic<int>(int, int, const StatArgs<int>&, int, std::size_t, cudaStream_t);
template void launch_statistic<double>(int, int, const StatArgs<double>&, int, std::size_t, cudaStream_t);

}  // namespace cudag::cuda
