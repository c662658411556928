// SPDX-License-Identifier: Apache-2.0
// Backend selection: the only place that knows whether CUDA was compiled in.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "ci/cmi_knn.hpp"
#include "ci/cpu_discrete_engine.hpp"
#include "core/dataset.hpp"
#include "mpi/communicator.hpp"
#include "pc/skeleton_engine.hpp"

namespace cudag {

enum class BackendKind { Auto, Cpu, Cuda };

/// "auto", "cpu" or "cuda"; anything else is an InputError.
BackendKind parse_backend(const std::string& name);
std::string to_string(BackendKind k);

/// cuPC kernel choice and launch shape (cuPC-S: θ threads, δ blocks per row;
/// cuPC-E: β edges per block, γ threads per edge).
struct GpuTunables {
    char variant = 's';  ///< 's' (cuPC-S) or 'e' (cuPC-E)
    int beta = 2;
    int gamma = 32;
    int theta = 64;
    int delta = 2;
    bool auto_tune = true;  ///< choose variant/shape from graph density when not given
    /// Levels 1..scan_levels run the entry scan (a lane per edge, lexicographic set walk);
    /// 0: the variant at every level.
    int scan_levels = 4;
    /// Levels 1..scan_round_levels run the entry scan in rounds (see cuda::FisherTunables).
    int scan_round_levels = 2;
    /// Most device memory (bytes) the correlation matrix may take; 0: what the GPU has free.
    /// When n² doubles do not fit, C is not held whole (see cuda::FisherTunables).
    std::int64_t corr_limit_bytes = 0;
};

/// Number of CUDA devices this build can use (0 in a CPU-only build or without a GPU).
int visible_gpus();
/// One line per visible GPU (id, name, memory), or a sentence saying why there are none.
std::string gpu_report();
/// Start creating the CUDA context of `device` on a background thread when `kind` may
/// use the GPU (a no-op otherwise); the returned thread must be joined before the engine
/// is built. Overlaps the context's creation with reading the input.
std::thread warm_up_gpu(BackendKind kind, int device);
/// Whether this build has the CUDA engines.
bool cuda_compiled();

/// The Fisher-z skeleton engine for `kind`. Auto picks CUDA when compiled, a GPU
/// is visible and the policy runs there (not exhaustive); otherwise the CPU.
/// Asking for CUDA in a CPU-only build throws NotCompiled. With `comm` (every rank calls
/// this together) a CUDA engine on an NCCL communicator computes its block of rows of the
/// correlation matrix and the blocks are all-gathered over the GPUs (the same matrix).
std::unique_ptr<pc::SkeletonEngine> make_fisher_engine(BackendKind kind, const Dataset& data,
                                                       const pc::TestPolicy& policy, int threads,
                                                       const GpuTunables& tunables, int device = 0,
                                                       mpi::Communicator* comm = nullptr);

/// Whether make_fisher_engine(kind, ..., policy, ...) picks the CUDA engine. Throws as
/// make_fisher_engine does for a kind this build or machine cannot run.
bool picks_gpu(BackendKind kind, const pc::TestPolicy& policy);

/// As make_fisher_engine, from a given n×n correlation matrix (host, row-major, unit
/// diagonal) of a data set with n_samples samples (e.g. one the MPI ranks computed
/// together); the engine keeps or uploads it as is.
std::unique_ptr<pc::SkeletonEngine> make_fisher_engine_from_corr(
    BackendKind kind, std::vector<double> corr, std::int64_t n, std::int64_t n_samples,
    const pc::TestPolicy& policy, int threads, const GpuTunables& tunables, int device = 0);

/// The discrete (χ²/G²) skeleton engine for `kind` on discrete `data`; Auto picks CUDA as
/// make_fisher_engine does.
std::unique_ptr<pc::SkeletonEngine> make_discrete_engine(BackendKind kind, const Dataset& data,
                                                         const pc::TestPolicy& policy,
                                                         const ci::DiscreteTestSpec& test,
                                                         int threads, const GpuTunables& tunables,
                                                         int device = 0);

/// Whether the CMIknn engine for `kind` runs on a GPU, as picks_gpu decides for a
/// non-exhaustive policy (Cuda: always, or throws; Auto: when a GPU is visible).
bool cmiknn_picks_gpu(BackendKind kind);

/// The CMIknn skeleton engine for `kind` on continuous `data` (which must outlive it), with
/// `spec` as given (its early_stop included); max_level (-1: none) decides whether the spec
/// is validated for conditioning sets. The CUDA engine (kernels/cmi_knn_engine.cu) where
/// picks_gpu(kind, policy) says so, with the CPU engine's results.
std::unique_ptr<pc::SkeletonEngine> make_cmiknn_engine(BackendKind kind, const Dataset& data,
                                                       const pc::TestPolicy& policy,
                                                       const ci::CmiKnnSpec& spec, int max_level,
                                                       int threads, int device = 0);

}  // namespace cudag
