// SPDX-License-Identifier: Apache-2.0
#include "core/backend.hpp"

#include "core/error.hpp"

namespace cudag {

BackendKind parse_backend(const std::string& name) {
    if (name == "auto") return BackendKind::Auto;
    if (name == "cpu") return BackendKind::Cpu;
    if (name == "cuda") return BackendKind::Cuda;
    throw InputError("unknown --backend '" + name + "' (available: auto, cpu, cuda)");
}

std::string to_string(BackendKind k) {
    switch (k) {
        case BackendKind::Auto:
            return "auto";
        case BackendKind::Cpu:
            return "cpu";
        case BackendKind::Cuda:
            return "cuda";
    }
    return "?";
}

bool picks_gpu(BackendKind kind) {
    if (!cuda_compiled()) {
        if (kind == BackendKind::Cuda) throw NotCompiled("cuda");
        return false;
    }
    const bool gpu = kind == BackendKind::Cuda || (kind == BackendKind::Auto && visible_gpus() > 0);
    if (gpu && visible_gpus() == 0)
        throw InputError("--backend cuda: no CUDA device is visible (" + gpu_report() + ")");
    return gpu;
}

}  // namespace cudag
