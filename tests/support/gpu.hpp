// SPDX-License-Identifier: Apache-2.0
// GPU test helpers: skip without CUDA or a device, wall-clock timing.
#pragma once

#include <gtest/gtest.h>

#include <chrono>

#include "cudag/config.hpp"

#if CUDAG_HAVE_CUDA
#include "kernels/engines.hpp"
#endif

// GTEST_SKIP returns from the test body, so this is a macro.
#if CUDAG_HAVE_CUDA
#define CUDAG_REQUIRE_GPU()                                                               \
    do {                                                                                  \
        if (::cudag::cuda::device_count() == 0)                                           \
            GTEST_SKIP() << "no CUDA device visible: " << ::cudag::cuda::device_report(); \
    } while (0)
#else
#define CUDAG_REQUIRE_GPU() GTEST_SKIP() << "this build has no CUDA (CUDAG_HAVE_CUDA is 0)"
#endif

namespace cudag::test {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace cudag::test
