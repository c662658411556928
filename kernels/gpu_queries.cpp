// SPDX-License-Identifier: Apache-2.0
// The GPU queries of core/backend.hpp in a CUDA build (src/core/gpu_nocuda.cpp otherwise; the build
// picks one by CUDAG_ENABLE_CUDA).
#include <atomic>

#include "core/backend.hpp"
#include "kernels/engines.hpp"

namespace cudag {

bool cuda_compiled() { return true; }
int visible_gpus() { return cuda::device_count(); }
std::vector<DeviceInfo> gpu_devices() { return cuda::device_infos(); }
std::optional<DeviceInfo> gpu_device(int device) { return cuda::device_info(device); }
std::string gpu_report() { return cuda::device_report(); }
void release_gpu_memory() { cuda::release_kept_memory(); }

namespace {
std::atomic<long long> kernels_loaded{0};
}  // namespace

int load_gpu_kernels(int device, const GpuKernelPlan& plan) noexcept {
    const int n = cuda::load_kernels(device, plan);
    kernels_loaded += n;
    return n;
}

long long gpu_kernels_loaded() noexcept { return kernels_loaded.load(); }

bool gpu_kernels_ready(int device, const GpuKernelPlan& plan) noexcept {
    return plan.any() && cuda::kernels_loaded(device, plan);
}

std::thread warm_up_gpu(BackendKind kind, int device, GpuKernelPlan kernels, int* loaded) {
    if (kind == BackendKind::Cpu) return {};
    return std::thread([device, kernels, loaded] {
        cuda::warm_up(device);
        const int n = kernels.any() ? load_gpu_kernels(device, kernels) : 0;
        if (loaded != nullptr) *loaded = n;
    });
}

void make_gpu_context(int device) noexcept { cuda::warm_up(device); }
void drop_gpu_context(int device) noexcept { cuda::drop_context(device); }

}  // namespace cudag
