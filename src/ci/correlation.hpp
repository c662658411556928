// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include "core/dataset.hpp"
#include "mpi/communicator.hpp"

namespace cudag::ci {

/// Pearson correlation matrix of the data set's variables, n×n row-major in
/// double, unit diagonal. Columns are standardised (mean 0, unit norm) first; entry (i, j)
/// is then Σ_s z_i[s]·z_j[s] over the samples in order, one fused multiply-add (std::fma)
/// a sample, clamped to [-1, 1]: the GPU kernels sum the same way (__fma_rn), so C is the
/// same bit for bit on every CPU, GPU, thread count and rank count.
/// Throws InputError naming the first constant column.
std::vector<double> correlation_matrix(const Dataset& data, int threads);

/// The same matrix computed by the ranks of `comm` together: the rows are cut into blocks
/// of equal work (the upper triangle of row i has n - i entries), each rank computes its
/// block's upper triangle, one allgatherv shares the blocks, and every rank mirrors. Each
/// entry is summed in the same order as correlation_matrix(data, threads), so the result is
/// bit-identical to it for any number of ranks.
std::vector<double> correlation_matrix(const Dataset& data, int threads, mpi::Communicator& comm);

/// Host bytes correlation_matrix holds besides the data and C while it runs: the standardised
/// columns (n x m) and each worker's packed rows and columns (m x 36 doubles; up to
/// `threads` workers, no more than blocks of 32 rows).
double correlation_work_bytes(std::int64_t n, std::int64_t m, int threads);

/// Throws InputError naming the first variable whose values are all equal.
void check_no_constant_columns(const Dataset& data);

}  // namespace cudag::ci
