// SPDX-License-Identifier: Apache-2.0
// Checked CUDA runtime calls. Failures throw cudag errors carrying the expression,
// file:line and the runtime's error name and string; only main() catches.
// Host code only (g++-safe), shared by the CUDA engines and mpi/ through device_memory.hpp.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "core/error.hpp"

namespace cudag::cuda {

/// A CUDA runtime call failed (not a memory shortage: that is OutOfMemory).
class CudaError : public Error {
public:
    using Error::Error;
};

namespace detail {

inline std::string where(const char* expr, const char* file, int line) {
    return std::string(" in ") + expr + " at " + file + ":" + std::to_string(line);
}

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* expr, const char* file, int line) {
    cudaGetLastError();  // clear a non-sticky error so later calls do not report it again
    const std::string msg =
        std::string("CUDA error ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")" + where(expr, file, line);
    if (e == cudaErrorMemoryAllocation) throw OutOfMemory(msg);
    throw CudaError(msg);
}

inline void warn_cuda(cudaError_t e, const char* expr, const char* file, int line) {
    std::fprintf(stderr, "cudag: warning: CUDA error %s (%s)%s\n", cudaGetErrorName(e), cudaGetErrorString(e),
                 where(expr, file, line).c_str());
}

}  // namespace detail
}  // namespace cudag::cuda

/// Throw cuda::CudaError (or OutOfMemory) unless expr returns cudaSuccess.
#define CUDAG_CUDA_CHECK(expr)                                                                                   \
    do {                                                                                                         \
        const cudaError_t cudag_err_ = (expr);                                                                   \
        if (cudag_err_ != cudaSuccess) ::cudag::cuda::detail::throw_cuda(cudag_err_, #expr, __FILE__, __LINE__); \
    } while (0)

/// For destructors: report a failure on stderr instead of throwing.
#define CUDAG_CUDA_CHECK_NOTHROW(expr)                                                                          \
    do {                                                                                                        \
        const cudaError_t cudag_err_ = (expr);                                                                  \
        if (cudag_err_ != cudaSuccess) ::cudag::cuda::detail::warn_cuda(cudag_err_, #expr, __FILE__, __LINE__); \
    } while (0)

/// After a kernel launch: launch errors throw; with -DCUDAG_SYNC_CHECKS=ON the device
/// is also synchronised so that execution errors surface at the launching line.
#ifdef CUDAG_SYNC_CHECKS
#define CUDAG_CHECK_LAUNCH()                       \
    do {                                           \
        CUDAG_CUDA_CHECK(cudaGetLastError());      \
        CUDAG_CUDA_CHECK(cudaDeviceSynchronize()); \
    } while (0)
#else
#define CUDAG_CHECK_LAUNCH() CUDAG_CUDA_CHECK(cudaGetLastError())
#endif
