// SPDX-License-Identifier: Apache-2.0
#include "core/backend.hpp"

#include "ci/cpu_fisher_engine.hpp"
#include "core/error.hpp"
#include "cudag/config.hpp"

#if CUDAG_HAVE_CUDA
#include "kernels/engines.hpp"
#endif

namespace cudag {

BackendKind parse_backend(const std::string& name) {
    if (name == "auto") return BackendKind::Auto;
    if (name == "cpu") return BackendKind::Cpu;
    if (name == "cuda") return BackendKind::Cuda;
    throw InputError("unknown --backend '" + name + "' (available: auto, cpu, cuda)");
}

std::string to_string(BackendKind k) {
    switch (k) {
        case BackendKind::Auto: return "auto";
        case BackendKind::Cpu: return "cpu";
        case BackendKind::Cuda: return "cuda";
    }
    return "?";
}

#if CUDAG_HAVE_CUDA
namespace {

/// Whether `kind` runs on the GPU: Cuda always (an error without a device or for the
/// exhaustive causal-learn search), Auto when a device is visible and the policy is not
/// exhaustive.
bool use_gpu(BackendKind kind, const pc::TestPolicy& policy) {
    if (kind == BackendKind::Cuda && policy.exhaustive)
        throw InputError(
            "--compat causal-learn runs on the CPU engine only (use --backend cpu or auto)");
    const bool gpu = kind == BackendKind::Cuda ||
                     (kind == BackendKind::Auto && !policy.exhaustive && visible_gpus() > 0);
    if (gpu && visible_gpus() == 0)
        throw InputError("--backend cuda: no CUDA device is visible (" + gpu_report() + ")");
    return gpu;
}

}  // namespace

bool cuda_compiled() { return true; }
int visible_gpus() { return cuda::device_count(); }
std::string gpu_report() { return cuda::device_report(); }
#else
bool cuda_compiled() { return false; }
int visible_gpus() { return 0; }
std::string gpu_report() { return "none (this build has no CUDA engines)"; }
#endif

std::unique_ptr<pc::SkeletonEngine> make_fisher_engine(BackendKind kind, const Dataset& data,
                                                       const pc::TestPolicy& policy, int threads,
                                                       const GpuTunables& tunables, int device) {
#if CUDAG_HAVE_CUDA
    if (use_gpu(kind, policy)) {
        cuda::FisherTunables t;
        t.variant = tunables.variant;
        t.beta = tunables.beta;
        t.gamma = tunables.gamma;
        t.theta = tunables.theta;
        t.delta = tunables.delta;
        t.auto_tune = tunables.auto_tune;
        return cuda::make_fisher_engine(data, policy, t, device);
    }
#else
    (void)tunables;
    (void)device;
    if (kind == BackendKind::Cuda) throw NotCompiled("cuda");
#endif
    return std::make_unique<ci::CpuFisherEngine>(data, policy, threads);
}

std::unique_ptr<pc::SkeletonEngine> make_discrete_engine(BackendKind kind, const Dataset& data,
                                                         const pc::TestPolicy& policy,
                                                         const ci::DiscreteTestSpec& test,
                                                         int threads, const GpuTunables& tunables,
                                                         int device) {
    (void)tunables;
#if CUDAG_HAVE_CUDA
    if (use_gpu(kind, policy)) {
        return cuda::make_discrete_engine(data, policy, test, cuda::DiscreteTunables{}, device);
    }
#else
    (void)device;
    if (kind == BackendKind::Cuda) throw NotCompiled("cuda");
#endif
    return std::make_unique<ci::CpuDiscreteEngine>(data, policy, test, threads);
}

}  // namespace cudag
