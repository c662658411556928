// SPDX-License-Identifier: Apache-2.0
// The device block cache (kernels/device_memory.hpp): memory an owner releases is kept
// for the next allocation of about its size on its device, keeps its contents' buffer
// usable, and is handed back on request. Skips without CUDA or a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "core/backend.hpp"
#include "cudag/config.hpp"
#include "support/gpu.hpp"

#if CUDAG_HAVE_CUDA
#include "kernels/device_memory.hpp"
#endif

namespace {

TEST(CudaBlockCache, ReleasedBlocksServeTheNextAllocationOfTheirSize) {
    CUDAG_REQUIRE_GPU();
#if CUDAG_HAVE_CUDA
    using namespace cudag::cuda;
    cudag::release_gpu_memory();
    int device = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    BlockCache& cache = BlockCache::instance();
    ASSERT_EQ(cache.kept_bytes(device), 0u);

    constexpr std::size_t kCount = std::size_t(1) << 20;  // 8 MiB of doubles
    const void* first = nullptr;
    {
        DeviceBuffer<double> a(kCount);
        first = a.data();
    }
    EXPECT_EQ(cache.kept_bytes(device), kCount * sizeof(double));
    {
        // A little smaller: the kept block, whose contents the new owner writes and reads.
        DeviceBuffer<double> b(kCount - 100);
        EXPECT_EQ(b.data(), first);
        EXPECT_EQ(cache.kept_bytes(device), 0u);
        Stream s;
        std::vector<double> up(kCount - 100), down(kCount - 100, 0.0);
        for (std::size_t k = 0; k < up.size(); ++k) up[k] = 0.5 * static_cast<double>(k);
        b.upload(up.data(), up.size(), s.get());
        b.download(down.data(), down.size(), s.get());
        s.synchronize();
        EXPECT_EQ(down, up);
    }
    {
        // Far smaller: a block of its own (the 8 MiB one stays kept).
        DeviceBuffer<double> small(1000);
        EXPECT_NE(small.data(), first);
        EXPECT_EQ(cache.kept_bytes(device), kCount * sizeof(double));
    }
    EXPECT_EQ(cache.kept_bytes(device), kCount * sizeof(double) + 1000 * sizeof(double));
    cudag::release_gpu_memory();
    EXPECT_EQ(cache.kept_bytes(device), 0u);
#endif
}

}  // namespace
