// SPDX-License-Identifier: Apache-2.0
// ci::CiTest for each test kind, on the CPU engines' arithmetic (issue 34).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ci/batch.hpp"
#include "ci/ci_test.hpp"
#include "core/backend.hpp"
#include "core/dataset.hpp"
#include "mpi/communicator.hpp"
#include "skeleton/test_spec.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::skeleton {

/// The test `spec` on `data` (kept by reference: it must outlive the test), p-values with
/// causal-learn's arithmetic under Compat::CausalLearn, on `threads` threads (CMIknn's
/// permutations). Fisher-z computes each partial correlation from the columns it names;
/// chi-square / G-square count their tables; CMIknn draws its surrogates keyed by the
/// variables' indices in `data`, its parameters validated for conditioning sets of up to `max_cond` variables
/// (-1: every other variable).
std::unique_ptr<ci::CiTest> make_ci_test(const Dataset& data, const TestSpec& spec, Compat compat, int threads,
                                         int max_cond = -1);

/// Fisher-z single tests on `data` from its whole correlation matrix, computed here once on
/// `threads` threads (n²·m/2 multiply-adds); each test then costs O(|S|³) instead of a pass
/// over its columns, with make_ci_test's outcome bit for bit (statistic, p and z). For a
/// caller asking many single tests (run::CitestSession, cudag.tester).
std::unique_ptr<ci::CiTest> make_matrix_fisher_z(const Dataset& data, const TestSpec& spec, Compat compat,
                                                 int threads);

/// Makes CI tests of `spec` on `data` for many workers at once (FCI's stages after the
/// skeleton). Fisher-z on at most `shared_limit` variables: every test made shares one
/// correlation matrix of `data`, computed once on `threads` threads when the factory is made
/// (the CPU engine's p_value: the same p-value as make_ci_test's, without recomputing
/// correlations from the columns test by test); instances only read it, so several threads
/// may test at once, each with its own. Other tests, or more variables: make_ci_test.
using CiTestFactory = std::function<std::unique_ptr<ci::CiTest>()>;
/// With `comm` (every rank of it calls this), the ranks compute the shared correlation
/// matrix together (ci::correlation_matrix(data, threads, comm): the same matrix, bit for bit).
CiTestFactory ci_test_factory(const Dataset& data, const TestSpec& spec, Compat compat, int threads,
                              std::int64_t shared_limit = 16384, mpi::Communicator* comm = nullptr);
/// ci_test_factory's Fisher-z tests on a given correlation matrix `corr` (data.n_vars squared,
/// row-major: pc::PcConfig::correlation, pcalg's suffStat list(C, n)) instead of the data's;
/// `data` gives the sample size only (its values may be absent).
CiTestFactory ci_test_factory(std::vector<double> corr, const Dataset& data, const TestSpec& spec, Compat compat,
                              int threads);

/// The batch path of a GPU engine (SkeletonEngine::test_batch) for the tests of `spec` on
/// `data`, where `backend` picks a GPU for them under `policy` and every rank's engine has
/// one (each rank its own GPU); null otherwise, and the caller tests on its CPU workers
/// (ci::CpuBatchTest), with the same answers. Every rank of `comm` calls this together.
std::unique_ptr<ci::BatchTest> make_gpu_batch_test(const Dataset& data, const TestSpec& spec, const TestPolicy& policy,
                                                   int max_level, const BackendContext& backend,
                                                   mpi::Communicator& comm);

}  // namespace cudag::skeleton
