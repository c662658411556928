// SPDX-License-Identifier: Apache-2.0
// Loading kernels before their first launch (core/backend.hpp's load_gpu_kernels): CUDA's
// lazy loading (the default since 12.2) loads a kernel when the runtime first needs its
// function, at its first launch or at a query of its attributes.
#pragma once

#include <cuda_runtime.h>

namespace cudag::cuda::detail {

/// Loads each kernel into the current device's context now (its attributes read, as its first
/// launch would load it) and returns how many loaded; an error is cleared, for the launch to
/// report.
template <typename... Kernel>
int preload(Kernel*... kernels) {
    int loaded = 0;
    cudaFuncAttributes attributes{};
    ((loaded += cudaFuncGetAttributes(&attributes, kernels) == cudaSuccess ? 1 : 0), ...);
    cudaGetLastError();
    return loaded;
}

}  // namespace cudag::cuda::detail
