// SPDX-License-Identifier: Apache-2.0
// The CUDA CMIknn surrogates' kernels (cmi_knn_prep_kernels.cu): the shuffle neighbours of
// each conditioning set, and per surrogate slot its random draws, visiting order (a stable
// segmented sort), restricted permutation and permuted column (ranks or standardised
// values), as ci::CmiKnn::surrogate builds them on the host. Device pointers; `n` samples,
// `m` shuffle neighbours, `slots` surrogate slots (slot s is unit first_unit + s); the
// stream last.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cmi_knn_types.cuh"

namespace cudag::cuda {

/// The sort key of a value as the host's rank order compares it: keys compare as the
/// values do (−0 as +0: the host compares values, not bits), so a stable sort of (key,
/// sample) pairs gives ci's rank order (value, then sample index). Not for NaN.
__device__ inline u64 cmi_order_key(double v) {
    u64 b = v == 0.0 ? 0ull : static_cast<u64>(__double_as_longlong(v));
    return (b >> 63) ? ~b : (b | (1ull << 63));
}

/// Each sample's m nearest samples in the Z columns of each of `groups` conditioning sets
/// (group g: g_nz[g] variables at zvars[g_off[g]..]), in ci::MaxNormKdTree::nearest's order,
/// itself first: nbr[(g * n + i) * m ..]. Groups without Z are skipped. w: the working
/// columns (ranks or doubles), variable-major.
void launch_neighbors(const int* w, int n, const int* g_off, const int* g_nz, const int* zvars, int groups, int m,
                      u64 seed, int* nbr, cudaStream_t stream);
void launch_neighbors(const double* w, int n, const int* g_off, const int* g_nz, const int* zvars, int groups, int m,
                      u64 seed, int* nbr, cudaStream_t stream);

/// Per (slot, sample): the visiting-order key, the tie-break uniform, iota, and (Z not
/// empty) the shuffled neighbour row, from the test's Philox stream.
void launch_draws(const UnitDev* units, const QueryDev* queries, const int* g_nz, const int* nbr, int n, int m,
                  long long slots, u64 seed, int first_unit, const int* surrogate_of, u64* keys, int* iota, double* uni,
                  int* shuffled, cudaStream_t stream);

/// The restricted permutation of each slot with a conditioning set (a warp per slot):
/// source[slot * n + a] for every sample a. Its used bits sit in shared memory where
/// they fit in `shared_limit` bytes a block, else in `used` (slots × ⌈n / 32⌉ words).
void launch_restrict(const UnitDev* units, const QueryDev* queries, const int* g_nz, int n, int m, long long slots,
                     int first_unit, const int* order, const int* shuffled, std::size_t shared_limit, unsigned* used,
                     int* source, cudaStream_t stream);

/// Per (slot, sample): the permuted raw value plus fresh tie-break noise; with `ranks` its
/// order key into value_keys (for the next sort), else the value into values.
void launch_values(const UnitDev* units, const QueryDev* queries, const int* g_nz, const double* raw, int n,
                   long long slots, int first_unit, const int* order, const int* source, const double* uni, bool ranks,
                   u64* value_keys, double* values, cudaStream_t stream);

/// Ranks of each slot's permuted column from its sorted order.
void launch_ranks(const int* order, int n, long long slots, int* pcol, cudaStream_t stream);

/// Each slot's permuted column standardised (population std, as on the host) or copied.
void launch_standardize(const double* values, int n, long long slots, bool standardize, double* pcol,
                        cudaStream_t stream);

/// (keys, values) of each of `segments` segments [offsets[s], offsets[s + 1]) sorted by key,
/// stably (CUB DeviceSegmentedSort::StableSortPairs). With d_temp null, only sets temp_bytes.
void stable_sort_segments(void* d_temp, std::size_t& temp_bytes, const u64* keys_in, u64* keys_out, const int* vals_in,
                          int* vals_out, int items, int segments, const int* offsets, cudaStream_t stream);

}  // namespace cudag::cuda
