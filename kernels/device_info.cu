// SPDX-License-Identifier: Apache-2.0
// cuda::device_infos(): the visible devices as data; device_report() prints them;
// release_kept_memory() empties the block cache of each device context.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "kernels/device_context.hpp"
#include "kernels/device_handles.hpp"
#include "kernels/engines.hpp"

namespace cudag::cuda {

namespace {

using PrimaryCtxGetState = CUresult(CUDAAPI*)(CUdevice, unsigned int*, int*);

/// The driver's cuDevicePrimaryCtxGetState, through the runtime (no link to libcuda, which
/// a machine without a driver lacks); null where the runtime cannot give it.
PrimaryCtxGetState primary_ctx_get_state() noexcept {
    static const PrimaryCtxGetState fn = []() -> PrimaryCtxGetState {
#if CUDART_VERSION < 12000
        return nullptr;  // before CUDA 12, cudaSetDevice made no context
#else
        void* p = nullptr;
        cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
        const cudaError_t e =
            cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxGetState", &p, 7000, cudaEnableDefault, &status);
#else
        const cudaError_t e = cudaGetDriverEntryPoint("cuDevicePrimaryCtxGetState", &p, cudaEnableDefault, &status);
#endif
        if (e != cudaSuccess) cudaGetLastError();
        return e == cudaSuccess && status == cudaDriverEntryPointSuccess ? reinterpret_cast<PrimaryCtxGetState>(p)
                                                                         : nullptr;
#endif
    }();
    return fn;
}

}  // namespace

bool primary_context_active(int device) noexcept {
    const PrimaryCtxGetState get = primary_ctx_get_state();
    unsigned int flags = 0;
    int active = 1;
    if (get == nullptr || get(static_cast<CUdevice>(device), &flags, &active) != CUDA_SUCCESS) return true;
    return active != 0;
}

void set_device_back(int previous) noexcept {
    int now = -1;
    if (cudaGetDevice(&now) != cudaSuccess) cudaGetLastError();
    if (now == previous || !primary_context_active(previous)) return;
    if (cudaSetDevice(previous) != cudaSuccess) cudaGetLastError();
}

void drop_context(int device) noexcept {
    forget_kernels(device);
    int previous = -1;
    if (cudaGetDevice(&previous) != cudaSuccess) cudaGetLastError();
    if (cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    // The blocks the device's cache keeps belong to the context about to go: handed back
    // first, so that no later allocation takes a pointer of the destroyed context.
    for (DeviceContext* c : DeviceContext::all())
        if (c->device() == device) c->blocks().release();
    if (cudaDeviceReset() != cudaSuccess) cudaGetLastError();
    if (previous >= 0 && previous != device) set_device_back(previous);
}

std::optional<DeviceInfo> device_info(int d) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return std::nullopt;
    }
    if (d < 0 || d >= count) return std::nullopt;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
        cudaGetLastError();
        return std::nullopt;
    }
    // cudaMemGetInfo needs d's context: made current for the call only.
    std::size_t free_b = 0, total_b = prop.totalGlobalMem;
    int previous = 0;
    if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(d) == cudaSuccess) {
        if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
        if (previous != d) set_device_back(previous);
    } else {
        cudaGetLastError();
    }
    DeviceInfo info;
    info.id = d;
    info.name = prop.name;
    info.total_bytes = static_cast<std::int64_t>(total_b);
    info.free_bytes = static_cast<std::int64_t>(free_b);
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    return info;
}

std::vector<DeviceInfo> device_infos() {
    std::vector<DeviceInfo> out;
    for (int d = 0; d < device_count(); ++d)
        if (std::optional<DeviceInfo> info = device_info(d)) out.push_back(std::move(*info));
    return out;
}

std::string device_report() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    }
    if (count == 0) return "no CUDA device visible";
    const std::vector<DeviceInfo> infos = device_infos();
    std::string report;
    std::size_t at = 0;
    for (int d = 0; d < count; ++d) {
        if (at == infos.size() || infos[at].id != d) {
            report += "GPU " + std::to_string(d) + ": properties unavailable\n";
            continue;
        }
        const DeviceInfo& g = infos[at++];
        char line[512];
        std::snprintf(line, sizeof line, "GPU %d: %s, %.1f GiB, %.1f GiB free, compute capability %d.%d\n", d,
                      g.name.c_str(), g.total_bytes / 1073741824.0, g.free_bytes / 1073741824.0, g.cc_major,
                      g.cc_minor);
        report += line;
    }
    report.pop_back();
    return report;
}

void release_kept_memory() noexcept {
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    // Only devices with a context can keep blocks.
    std::vector<DeviceContext*> contexts;
    try {
        contexts = DeviceContext::all();
    } catch (...) {
        return;  // no memory for the list: nothing released
    }
    for (DeviceContext* ctx : contexts) {
        DeviceBlockCache& blocks = ctx->blocks();
        if (blocks.kept_bytes() == 0) continue;
        if (cudaSetDevice(ctx->device()) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        blocks.release();
    }
    set_device_back(current);
}

}  // namespace cudag::cuda
