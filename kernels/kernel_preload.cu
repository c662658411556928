// SPDX-License-Identifier: Apache-2.0
// cuda::load_kernels (engines.hpp): the kernels of a run's skeleton engine loaded on the
// warm-up thread (run/context.hpp's GpuWarmUp) while the data are read.
#include <cuda_runtime.h>

#include "compact.cuh"
#include "correlation.cuh"
#include "engines.hpp"
#include "pc_discrete.cuh"
#include "pc_gaussian.cuh"

namespace cudag::cuda {

int load_kernels(int device, const GpuKernelPlan& plan) noexcept {
    if (!plan.any()) return 0;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count ||
        cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();  // the engine reports the error when it is built
        return 0;
    }
    const int max_level = plan.max_level;
    int n = preload_compact_kernels();
    if (plan.fisher) {
        n += preload_correlation_kernels() + preload_level0_kernels();
        if (max_level != 0) {
            n += preload_level_kernels(max_level) + preload_scan_kernels(max_level);
            if (max_level < 0 || max_level >= 2) n += preload_deep_kernels();  // Tunables::scan_deep_from >= 2
        }
    }
    if (plan.discrete) n += preload_discrete_level_kernels();
    cudaGetLastError();
    return n;
}

}  // namespace cudag::cuda
