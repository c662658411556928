// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/tunables.hpp"
#include "pc_gaussian.cuh"

namespace cudag::cuda {

/// Pearson correlation matrix on the device, equal bit for bit to ci::correlation_matrix
/// of the same data. `h_values` is the host data, variable-major (values[v*m + s], i.e.
/// an m×n column-major matrix); it is uploaded, each column is standardised
/// (standardise_columns), the upper triangle is computed (launch_correlation_rows) and
/// mirrored. `d_corr`: device, n×n. Work is queued on `stream`; temporary n×m device
/// buffers are allocated and freed inside. Columns must not be constant (checked by the
/// caller).
void compute_correlation(const double* h_values, std::int64_t n, std::int64_t m, double* d_corr, cudaStream_t stream,
                         int tile = kCorrTilesAuto);

/// Upload the variable-major host data and write the standardised columns to d_z (n×m,
/// z_v at d_z + v*m): mean 0, unit norm, in the CPU's operation order.
void standardise_columns(const double* h_values, std::int64_t n, std::int64_t m, double* d_z, cudaStream_t stream);

/// Rows [row_begin, row_end) of C from the standardised columns: entries j >= i when
/// `upper`, else every j; row i at d_c + (i - c_row0) * n. Every entry is summed in sample
/// order, so its value does not depend on the row range (or on how launches split it) nor
/// on `tile` (the kernel's tiles: FisherTunables::corr_tile).
void launch_correlation_rows(const double* d_z, std::int64_t n, std::int64_t m, std::int64_t row_begin,
                             std::int64_t row_end, bool upper, double* d_c, std::int64_t c_row0, cudaStream_t stream,
                             int tile = kCorrTilesAuto);

/// Whether level 0's rows `a` can be tested as the correlation kernel sums them (tile: the
/// wide kernel's; a.corr.z: the standardised columns; no dense p-values).
bool level0_fuses(const Level0Args& a, int tile);

/// Level 0 on rows [a.row_begin, a.row_end) (launch_gaussian_level0's bits, without dense
/// p-values) tested where the correlation kernel sums each entry from a.corr.z, nothing of C
/// written: the same entries, so the same kept pairs. Needs level0_fuses(a, tile).
void launch_level0_fused(const Level0Args& a, int tile, cudaStream_t stream);

/// The lower triangle of the n×n d_c from its upper triangle.
void launch_mirror_lower(double* d_c, std::int64_t n, cudaStream_t stream);

/// d_out[a*k + b] = C[nodes[a], nodes[b]] for a, b < k (the (l+2)×(l+2) block of one
/// test); d_nodes and d_out on the device.
void launch_gather_block(const CorrSource& corr, const std::int32_t* d_nodes, int k, double* d_out,
                         cudaStream_t stream);

/// Loads this file's kernels (kernel_preload.cuh) and returns how many.
int preload_correlation_kernels();

}  // namespace cudag::cuda
