// SPDX-License-Identifier: Apache-2.0
// The registry's CUDA entries in a CPU-only build: none (kernels/pc_registry.cpp otherwise).
#include "pc/engines.hpp"

namespace cudag::pc {

std::vector<EngineEntry> cuda_engines() { return {}; }

}  // namespace cudag::pc
