// SPDX-License-Identifier: Apache-2.0
// The registry's CUDA entries in a CPU-only build: none, and no cg-lrt GPU batch
// (kernels/skeleton_registry.cpp otherwise).
#include "skeleton/engines.hpp"

namespace cudag::skeleton {

std::vector<EngineEntry> cuda_engines() { return {}; }

std::unique_ptr<ci::BatchTest> cuda_testwise_batch(const Dataset&, const TestSpec&, const TestPolicy&,
                                                   const BackendContext&) {
    return nullptr;
}

}  // namespace cudag::skeleton
