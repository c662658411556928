// SPDX-License-Identifier: Apache-2.0
// The GPU queries of core/backend.hpp in a CPU-only build (kernels/gpu_queries.cpp otherwise).
#include "core/backend.hpp"

namespace cudag {

bool cuda_compiled() { return false; }
int visible_gpus() { return 0; }
std::vector<DeviceInfo> gpu_devices() { return {}; }
std::optional<DeviceInfo> gpu_device(int) { return std::nullopt; }
std::string gpu_report() { return "none (this build has no CUDA engines)"; }
std::thread warm_up_gpu(BackendKind, int, GpuKernelPlan, int*) { return {}; }
int load_gpu_kernels(int, const GpuKernelPlan&) noexcept { return 0; }
bool gpu_kernels_ready(int, const GpuKernelPlan&) noexcept { return false; }
long long gpu_kernels_loaded() noexcept { return 0; }
void make_gpu_context(int) noexcept {}
void drop_gpu_context(int) noexcept {}
void release_gpu_memory() {}

}  // namespace cudag
