// SPDX-License-Identifier: Apache-2.0
// Loading kernels before their first launch (core/backend.hpp's load_gpu_kernels): CUDA's
// lazy loading (the default since 12.2) loads a kernel when the runtime first needs its
// function, at its first launch or at a query of its attributes.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>
#include <utility>

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

template <int First, class F, int... L>
void for_each_level_impl(F& f, std::integer_sequence<int, L...>) {
    (f(std::integral_constant<int, First + L>{}), ...);
}

/// f(std::integral_constant<int, L>{}) for L = First..Last: the template kernels of each level.
template <int First, int Last, class F>
void for_each_level(F&& f) {
    for_each_level_impl<First>(f, std::make_integer_sequence<int, Last - First + 1>{});
}

}  // namespace cudag::cuda::detail
