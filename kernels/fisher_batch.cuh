// SPDX-License-Identifier: Apache-2.0
// Fisher-z tests given as a flat list (FCI's stages after the skeleton: Possible-D-SEP's
// rounds, RFCI's and the triple checks' batches): one thread a query, the CPU engine's
// computation (ci::ConditioningBlock on C[S, S], then ci::partial_correlation) on a C held
// whole on the device, so r is the CPU's bit for bit (compiled without FMA contraction).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "skeleton/skeleton_engine.hpp"

namespace cudag::cuda {

/// r[q] for every query of `q` (host arrays in and out) on `stream`, from C (n×n,
/// row-major, on the device); waits for the result. Splits the list into launches whose
/// scratch fits in `scratch_bytes` of device memory.
void batch_partial_correlations(const double* c, std::int64_t n, const skeleton::FlatQueries& q, std::span<double> r,
                                cudaStream_t stream, std::size_t scratch_bytes = std::size_t{1} << 30);

/// SkeletonEngine::test_batch for Fisher-z: r[q] as batch_partial_correlations (the CPU
/// Fisher-z test's CiOutcome::statistic) and p[q] = ci::fisher_z_pvalue(r[q], m, |S_q|,
/// causal_learn) on the host, as the CPU test forms it (this file's host code is compiled
/// without FMA contraction, as the library's). Throws InputError naming the variables (as
/// `names` has them; by number where it is empty) of a query whose r or p is not finite.
/// The p-values are formed on `host_threads` threads.
void batch_fisher_z(const double* c, std::int64_t n, std::int64_t m, bool causal_learn,
                    const std::vector<std::string>& names, const skeleton::FlatQueries& q, std::span<double> r,
                    std::span<double> p, cudaStream_t stream, int host_threads = 1);

}  // namespace cudag::cuda
