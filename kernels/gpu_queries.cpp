// SPDX-License-Identifier: Apache-2.0
// The GPU queries of core/backend.hpp in a CUDA build (src/core/gpu_nocuda.cpp otherwise; the build
// picks one by CUDAG_ENABLE_CUDA).
#include "core/backend.hpp"
#include "kernels/engines.hpp"

namespace cudag {

bool cuda_compiled() { return true; }
int visible_gpus() { return cuda::device_count(); }
std::vector<DeviceInfo> gpu_devices() { return cuda::device_infos(); }
std::optional<DeviceInfo> gpu_device(int device) { return cuda::device_info(device); }
std::string gpu_report() { return cuda::device_report(); }
void release_gpu_memory() { cuda::release_kept_memory(); }

std::thread warm_up_gpu(BackendKind kind, int device) {
    if (kind != BackendKind::Cpu) return std::thread([device] { cuda::warm_up(device); });
    return {};
}

void make_gpu_context(int device) noexcept { cuda::warm_up(device); }
void drop_gpu_context(int device) noexcept { cuda::drop_context(device); }

}  // namespace cudag
