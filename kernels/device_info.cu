// SPDX-License-Identifier: Apache-2.0
// cuda::device_infos(): the visible devices as data (the same queries as device_report()).
#include <cuda_runtime.h>

#include "kernels/engines.hpp"

namespace cudag::cuda {

std::vector<DeviceInfo> device_infos() {
    std::vector<DeviceInfo> out;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return out;
    }
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
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
        out.push_back(std::move(info));
    }
    return out;
}

}  // namespace cudag::cuda
