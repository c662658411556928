// SPDX-License-Identifier: Apache-2.0
// The engine registry: which skeleton engine runs which CI test on which backend. A new
// test or learner adds its entries (a CPU one in engines.cpp, a CUDA one in
// kernels/skeleton_registry.cpp); a learner's run (pc/run.cpp) only looks them up.
#pragma once

#include <memory>
#include <vector>

#include "ci/batch.hpp"
#include "core/backend.hpp"
#include "core/dataset.hpp"
#include "mpi/communicator.hpp"
#include "skeleton/skeleton_engine.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::skeleton {

/// What an engine factory is given. Every rank of `comm` calls the factory together; a
/// factory agrees on its errors over `comm` where the engine's set-up can fail on some
/// ranks only.
struct EngineArgs {
    const Dataset& data;            ///< host data; must outlive the engine
    const TestSpec& test;           ///< the resolved test
    const TestPolicy& policy;       ///< independence rule, sepset semantics
    int max_level = -1;             ///< -1: no cap (CMIknn sizes its scratch from it)
    const BackendContext& backend;  ///< device, threads (resolved: >= 1), tunables
    mpi::Communicator& comm;
    /// Fisher-z on the CPU: this correlation matrix (n_vars x n_vars, row-major) as given
    /// instead of the data's (pc::PcConfig::correlation); null: the data's.
    /// Shared, not copied: the engine reads it for the run.
    std::shared_ptr<const std::vector<double>> correlation = nullptr;
    /// `correlation` is known to be bitwise symmetric (pc::PcConfig::correlation_symmetric).
    bool correlation_symmetric = false;
};

/// The engine `make()` returns, its errors agreed on over `comm` (for factories whose
/// set-up can fail on some ranks only).
template <class Make>
std::unique_ptr<SkeletonEngine> make_agreed(mpi::Communicator& comm, Make&& make) {
    std::unique_ptr<SkeletonEngine> engine;
    mpi::run_agreed(comm, [&] { engine = make(); });
    return engine;
}

using EngineFactory = std::unique_ptr<SkeletonEngine> (*)(const EngineArgs&);

/// One registry entry: the engine of `test` on `backend` (Cpu or Cuda).
struct EngineEntry {
    TestKind test;
    BackendKind backend;
    EngineFactory make;
};

/// The CPU entries (engines.cpp).
std::vector<EngineEntry> cpu_engines();
/// The CUDA entries (kernels/skeleton_registry.cpp; none in a CPU-only build, engines_nocuda.cpp).
std::vector<EngineEntry> cuda_engines();
/// The tests with a GPU path under `--missing testwise` (testwise_on_gpu: Fisher-z, χ², G²,
/// cg-lrt, CMIknn, regression) as one batch test on the GPU `backend.device` (kernels/fisher_testwise_batch.cu,
/// discrete_testwise_batch.cu, cg_lrt_batch.cu, cmi_knn_testwise_batch.cu, regression_batch.cu: the CPU's test-wise
/// answers bit for bit), p-values with causal-learn's arithmetic where `policy` says so; `data`
/// must outlive it. Null for another test, and in a CPU-only build (engines_nocuda.cpp).
std::unique_ptr<ci::BatchTest> cuda_testwise_batch(const Dataset& data, const TestSpec& test, const TestPolicy& policy,
                                                   const BackendContext& backend);
/// Whether `--missing testwise` runs `kind` on a GPU (cuda_testwise_batch) when the backend
/// picks one.
bool testwise_on_gpu(TestKind kind);
/// Every entry: cpu_engines() then cuda_engines().
const std::vector<EngineEntry>& engine_registry();

/// Whether a run with `policy` on backend `kind` uses the GPU: as cudag::picks_gpu(kind),
/// except that an exhaustive (causal-learn) search runs on the CPU only (Auto: CPU; Cuda:
/// an InputError in a CUDA build).
bool picks_gpu(BackendKind kind, const TestPolicy& policy);

/// Whether picks_gpu could pick a GPU engine for `policy` on backend `kind`, without asking
/// the driver (a run context binds a rank's GPU before the data are read): not the CPU
/// backend, and not an exhaustive (causal-learn) search.
bool gpu_candidate(BackendKind kind, const TestPolicy& policy);

/// The engine of args.test on the backend picks_gpu(args.backend.kind, args.policy) picks
/// (the choice agreed over args.comm), from the registry. Throws what the choice or the
/// factory throws, or an InputError when no engine is registered for the pair.
std::unique_ptr<SkeletonEngine> make_engine(const EngineArgs& args);

}  // namespace cudag::skeleton
