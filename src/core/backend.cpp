// SPDX-License-Identifier: Apache-2.0
#include "core/backend.hpp"

#include "ci/cpu_cmi_knn_engine.hpp"
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

std::thread warm_up_gpu(BackendKind kind, int device) {
#if CUDAG_HAVE_CUDA
    if (kind != BackendKind::Cpu) return std::thread([device] { cuda::warm_up(device); });
#else
    (void)kind;
    (void)device;
#endif
    return {};
}

#if CUDAG_HAVE_CUDA
bool cuda_compiled() { return true; }
int visible_gpus() { return cuda::device_count(); }
std::string gpu_report() { return cuda::device_report(); }
#else
bool cuda_compiled() { return false; }
int visible_gpus() { return 0; }
std::string gpu_report() { return "none (this build has no CUDA engines)"; }
#endif

bool picks_gpu(BackendKind kind, const pc::TestPolicy& policy) {
#if CUDAG_HAVE_CUDA
    if (kind == BackendKind::Cuda && policy.exhaustive)
        throw InputError(
            "--compat causal-learn runs on the CPU engine only (use --backend cpu or auto)");
    const bool gpu = kind == BackendKind::Cuda ||
                     (kind == BackendKind::Auto && !policy.exhaustive && visible_gpus() > 0);
    if (gpu && visible_gpus() == 0)
        throw InputError("--backend cuda: no CUDA device is visible (" + gpu_report() + ")");
    return gpu;
#else
    (void)policy;
    if (kind == BackendKind::Cuda) throw NotCompiled("cuda");
    return false;
#endif
}

#if CUDAG_HAVE_CUDA
namespace {
cuda::FisherTunables cuda_tunables(const GpuTunables& tunables) {
    cuda::FisherTunables t;
    t.variant = tunables.variant;
    t.beta = tunables.beta;
    t.gamma = tunables.gamma;
    t.theta = tunables.theta;
    t.delta = tunables.delta;
    t.auto_tune = tunables.auto_tune;
    t.scan_levels = tunables.scan_levels;
    t.scan_round_levels = tunables.scan_round_levels;
    t.corr_limit_bytes = tunables.corr_limit_bytes;
    return t;
}
}  // namespace
#endif

std::unique_ptr<pc::SkeletonEngine> make_fisher_engine(BackendKind kind, const Dataset& data,
                                                       const pc::TestPolicy& policy, int threads,
                                                       const GpuTunables& tunables, int device,
                                                       mpi::Communicator* comm) {
#if CUDAG_HAVE_CUDA
    if (picks_gpu(kind, policy)) {
        cuda::FisherTunables t = cuda_tunables(tunables);
        t.host_threads = threads;
        return cuda::make_fisher_engine(data, policy, t, device, comm);
    }
#else
    (void)tunables;
    (void)device;
    (void)comm;
    picks_gpu(kind, policy);
#endif
    return std::make_unique<ci::CpuFisherEngine>(data, policy, threads);
}

std::unique_ptr<pc::SkeletonEngine> make_fisher_engine_from_corr(
    BackendKind kind, std::vector<double> corr, std::int64_t n, std::int64_t n_samples,
    const pc::TestPolicy& policy, int threads, const GpuTunables& tunables, int device) {
#if CUDAG_HAVE_CUDA
    if (picks_gpu(kind, policy)) {
        cuda::FisherTunables t = cuda_tunables(tunables);
        t.host_threads = threads;
        return cuda::make_fisher_engine_from_corr(corr, n, n_samples, policy, t, device);
    }
#else
    (void)tunables;
    (void)device;
    picks_gpu(kind, policy);
#endif
    return std::make_unique<ci::CpuFisherEngine>(std::move(corr), n, n_samples, policy, threads);
}

std::unique_ptr<pc::SkeletonEngine> make_discrete_engine(BackendKind kind, const Dataset& data,
                                                         const pc::TestPolicy& policy,
                                                         const ci::DiscreteTestSpec& test,
                                                         int threads, const GpuTunables& tunables,
                                                         int device) {
    (void)tunables;
#if CUDAG_HAVE_CUDA
    if (picks_gpu(kind, policy)) {
        return cuda::make_discrete_engine(data, policy, test, cuda::DiscreteTunables{}, device);
    }
#else
    (void)device;
    picks_gpu(kind, policy);
#endif
    return std::make_unique<ci::CpuDiscreteEngine>(data, policy, test, threads);
}

bool cmiknn_picks_gpu(BackendKind kind) { return picks_gpu(kind, pc::TestPolicy{}); }

std::unique_ptr<pc::SkeletonEngine> make_cmiknn_engine(BackendKind kind, const Dataset& data,
                                                       const pc::TestPolicy& policy,
                                                       const ci::CmiKnnSpec& spec, int max_level,
                                                       int threads, int device) {
#if CUDAG_HAVE_CUDA
    if (picks_gpu(kind, policy))
        return cuda::make_cmiknn_engine(data, policy, spec, max_level, device);
#else
    (void)device;
    picks_gpu(kind, policy);
#endif
    return std::make_unique<ci::CpuCmiKnnEngine>(data, policy, spec, max_level, threads);
}

}  // namespace cudag
