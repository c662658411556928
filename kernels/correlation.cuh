// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cudag::cuda {

/// Pearson correlation matrix on the device. `h_values` is the host data, variable-major
/// (values[v*m + s], i.e. an m×n column-major matrix); it is uploaded, each column is
/// standardised (mean 0, unit norm) on the GPU, C = ZᵀZ by cublasDsyrk in double, then
/// C gets a unit diagonal, both triangles, and entries clamped to [-1, 1].
/// `d_corr`: device, n×n (row-major = column-major, C is symmetric). Work is queued on
/// `stream`; a temporary n×m device buffer is allocated and freed inside.
/// Columns must not be constant (checked by the caller).
void compute_correlation(const double* h_values, std::int64_t n, std::int64_t m, double* d_corr,
                         cudaStream_t stream);

/// d_out[a*k + b] = corr[nodes[a]*n + nodes[b]] for a, b < k (the (l+2)×(l+2) block of
/// one test); d_nodes and d_out on the device.
void launch_gather_block(const double* d_corr, std::int64_t n, const std::int32_t* d_nodes, int k,
                         double* d_out, cudaStream_t stream);

}  // namespace cudag::cuda
