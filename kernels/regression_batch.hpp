// SPDX-License-Identifier: Apache-2.0
// The regression test's GPU batch (kernels/regression_batch.cu) as seen from host C++ (g++-safe:
// plain types, no CUDA headers). Included only by the sources of a CUDA build.
#pragma once

#include <memory>

#include "ci/batch.hpp"
#include "core/dataset.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::cuda {

/// tigramite's RegressionCI ("regression", ci::regression_ci) in batches on device `device`:
/// every query's statistic and p-value bit for bit those of the CPU's test
/// (skeleton::make_ci_test on `data`: ci::RegressionCiTest, or, where data.missing > 0, the
/// test-wise test on each query's complete rows), and its one-line InputErrors. The columns
/// (and, with missing cells, a bitmap of the present cells per column) are uploaded once;
/// `data` must outlive the batch. Queries beyond the kernel's limits (more than 18 variables,
/// 64 regressor columns, 256 logistic parameters, or a workspace above 256 MiB), queries
/// naming a variable out of range or twice, holding a value the test refuses, or whose result
/// the test refuses are answered by the CPU's test on `host_threads` threads in the same
/// call. Throws OutOfMemory when the columns do not fit on the device.
std::unique_ptr<ci::BatchTest> make_regression_batch(const Dataset& data, const skeleton::TestSpec& spec,
                                                     skeleton::Compat compat, int host_threads, int device = 0);

}  // namespace cudag::cuda
