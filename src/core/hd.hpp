// SPDX-License-Identifier: Apache-2.0
#pragma once

/// CUDAG_HD marks math shared by host code and CUDA kernels.
#if defined(__CUDACC__)
#define CUDAG_HD __host__ __device__
#else
#define CUDAG_HD
#endif
