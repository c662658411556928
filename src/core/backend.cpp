// SPDX-License-Identifier: Apache-2.0
#include "core/backend.hpp"

#include "core/choice.hpp"
#include "core/error.hpp"

namespace cudag {

namespace {
constexpr Choice<BackendKind> kBackends[] = {
    {"auto", BackendKind::Auto}, {"cpu", BackendKind::Cpu}, {"cuda", BackendKind::Cuda}};
}  // namespace

BackendKind parse_backend(const std::string& name) { return parse_choice(kBackends, "--backend", name); }
std::string to_string(BackendKind k) { return choice_word(kBackends, k); }

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
