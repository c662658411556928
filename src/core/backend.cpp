// SPDX-License-Identifier: Apache-2.0
#include "core/backend.hpp"

#include "ci/cpu_fisher_engine.hpp"
#include "core/error.hpp"
#include "cudag/config.hpp"

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

bool cuda_compiled() { return false; }
int visible_gpus() { return 0; }
std::string gpu_report() { return "none (this build has no CUDA engines)"; }

std::unique_ptr<pc::SkeletonEngine> make_fisher_engine(BackendKind kind, const Dataset& data,
                                                       const pc::TestPolicy& policy, int threads,
                                                       const GpuTunables& tunables, int device) {
    if (kind == BackendKind::Cuda) throw NotCompiled("cuda");
    return std::make_unique<ci::CpuFisherEngine>(data, policy, threads);
}

}  // namespace cudag
