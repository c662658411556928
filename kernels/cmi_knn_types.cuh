// SPDX-License-Identifier: Apache-2.0
// What the CUDA CMIknn kernel families (cmi_knn_prep_kernels.cu, cmi_knn_stat_kernels.cu)
// and their engine (cmi_knn_batch_engine.cu) share: limits and the device records of a test and of
// a statistic to compute.
#pragma once

#include <cstddef>

namespace cudag::cuda {

using u64 = unsigned long long;

inline constexpr int kMaxShuffleGpu = 64;  // per-thread neighbour list (local memory)
inline constexpr int kStatThreads = 128;   // threads (samples) per block of the statistic kernel
inline constexpr int kRadixBits = 5;
inline constexpr std::size_t kWindowShared = 160 * 1024;  // at most, where the device allows it

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

}  // namespace cudag::cuda
