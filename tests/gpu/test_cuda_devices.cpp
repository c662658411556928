// SPDX-License-Identifier: Apache-2.0
// Device switches leave no context behind on a device the process never used: since CUDA 12,
// cudaSetDevice creates the device's context, so restoring a thread's default device 0 after
// a switch would put a context on GPU 0 from every rank of a host. Needs two GPUs (skips
// otherwise); each test runs in a process of its own (gtest_discover_tests), whose GPU 0 is
// untouched when it starts.
#include <gtest/gtest.h>

#include <thread>

#include "core/backend.hpp"
#include "cudag/config.hpp"
#include "support/gpu.hpp"

#if CUDAG_HAVE_CUDA
#include <cuda_runtime.h>

#include "kernels/device_handles.hpp"
#endif

namespace {

TEST(CudaDevices, SwitchesToAnotherGpuMakeNoContextOnGpuZero) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    using namespace cudag::cuda;
    if (cudag::visible_gpus() < 2) GTEST_SKIP() << "needs two GPUs (" << cudag::visible_gpus() << " visible)";
    ASSERT_FALSE(primary_context_active(0)) << "GPU 0 has a context before the test";
    ASSERT_FALSE(primary_context_active(1)) << "GPU 1 has a context before the test";
    // Fresh threads, whose current device is the default, 0: a scoped switch to GPU 1 and back,
    // a binding released, and the query of GPU 1's memory (the MPI start-up's).
    std::thread([] {
        {
            DeviceGuard guard(1);
            EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
        }
        {
            DeviceBinding binding(1);
            binding.bind();
            EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
        }
    }).join();
    std::thread([] {
        const auto info = cudag::gpu_device(1);
        ASSERT_TRUE(info.has_value());
        EXPECT_GT(info->total_bytes, 0);
        EXPECT_GT(info->free_bytes, 0);
    }).join();
    EXPECT_TRUE(primary_context_active(1));
    EXPECT_FALSE(primary_context_active(0)) << "a switch back to the default device made GPU 0's context";
    // A thread that chose GPU 0 itself gets it back after a switch.
    std::thread([] {
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        { DeviceGuard guard(1); }
        int now = -1;
        ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
        EXPECT_EQ(now, 0);
    }).join();
    EXPECT_TRUE(primary_context_active(0));
#endif
}

}  // namespace
