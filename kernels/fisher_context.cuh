// SPDX-License-Identifier: Apache-2.0
// What the parts of the CUDA Fisher-z engine share (fisher_engine.cu owns it): the
// device, the problem's size, the one stream all their work goes on (the device context's,
// device_context.hpp, or one of the engine's own), and the CUB scratch.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <optional>

#include "compact.cuh"
#include "core/error.hpp"
#include "device_context.hpp"
#include "device_memory.hpp"

namespace cudag::cuda {

class FisherContext {
public:
    /// Work goes on `device`'s context stream, or (own_stream) on a stream the device context
    /// lends this engine alone. `host_threads`: threads for host-side copies.
    FisherContext(int device, std::int64_t n, std::int64_t m, int host_threads, bool own_stream = false)
        : device(device), n(n), m(m), host_threads(host_threads), dev_(DeviceContext::for_device(device)) {
        CUDAG_EXPECTS(n >= 1 && n <= INT32_MAX, "cuda: the number of variables must be in [1, 2^31)");
        // Made now, so that a failure shows when the engine is built.
        if (own_stream) {
            own_ = dev_.lend_stream();
            // The engine's buffers are used on its stream alone: their release waits for it only.
            release_.emplace(own_.get());
        } else {
            dev_.stream();
        }
    }
    FisherContext(const FisherContext&) = delete;
    FisherContext& operator=(const FisherContext&) = delete;

    const int device;
    const std::int64_t n;  ///< variables
    const std::int64_t m;  ///< samples
    const int host_threads;
    /// Temporary storage of CUB's device-wide calls, shared by the parts.
    CubScratch cub;

    cudaStream_t stream() const { return own_ ? own_.get() : dev_.stream(); }
    void synchronize() const { CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream())); }

private:
    DeviceContext& dev_;
    StreamLease own_;                       ///< own_stream: a stream of the device's pool, this engine's alone
    std::optional<ReleaseStream> release_;  ///< own_stream: the releases of this thread wait for own_
};

}  // namespace cudag::cuda
