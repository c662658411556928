// SPDX-License-Identifier: Apache-2.0
// The CUDA CMIknn statistic kernels (cmi_knn_stat_kernels.cu): the fixed-point sum of the
// T sample terms of each unit (a test's observed statistic or one surrogate), by all pairs
// (any transform, any k) or, on ranks with k < 8, by windows in shared memory. Device
// pointers; the stream last.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cmi_knn_types.cuh"

namespace cudag::cuda {

/// Shared bytes of window_kernel for nz conditioning columns.
inline std::size_t window_shared(int nz, int n) {
    return static_cast<std::size_t>(1 + 2 * nz + (nz > 1 ? nz - 1 : 0)) * n * sizeof(int);
}

/// The window kernel (ranks, k < 8) for `blocks` units of nz = 0, 1 or 2 conditioning
/// columns, each unit's samples split over `parts` blocks; `shared` bytes a block
/// (window_shared). Adds each unit's terms to sums[unit].
void launch_window(int nz, int blocks, std::size_t shared, const UnitDev* units, const QueryDev* queries,
                   const int* g_off, const int* zvars, const int* w, const int* winv, const int* pcols,
                   const int* porder, long long slot_base, int n, int k, int parts, const long long* psi, u64* sums,
                   cudaStream_t stream);

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

/// The all-pairs statistic kernel, `blocks` blocks of kStatThreads samples: with nz_class
/// 0, 1 or 2 every unit has that many conditioning columns (kept in registers), with -1 any
/// number; kk = 8: the k + 1 smallest distances in a register list (k < 8), kk = 0: radix
/// select. `shared` bytes a block. V: int (ranks) or double.
template <class V>
void launch_statistic(int nz_class, int kk, const StatArgs<V>& a, int blocks, std::size_t shared, cudaStream_t stream);

}  // namespace cudag::cuda
