// SPDX-License-Identifier: Apache-2.0
// cuda::device_infos(): the visible devices as data; device_report() prints them;
// release_kept_memory() empties the block cache of each device context.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "kernels/device_context.hpp"
#include "kernels/engines.hpp"

namespace cudag::cuda {

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
        cudaSetDevice(previous);
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
    if (cudaSetDevice(current) != cudaSuccess) cudaGetLastError();
}

}  // namespace cudag::cuda
