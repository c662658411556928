// SPDX-License-Identifier: Apache-2.0
// The counter-based RNG moved to core/rng.hpp (namespace cudag). These sim:: names remain
// only for kernels/ and ci/cmi_knn.*; this file goes once they are migrated.
#pragma once

#include "core/rng.hpp"

namespace cudag::sim {
using cudag::box_muller;
using cudag::CounterRng;
using cudag::normal_pair;
using cudag::philox4x32_10;
using cudag::Philox4x32Block;
using cudag::philox_block;
using cudag::uniform_from_bits;
}  // namespace cudag::sim
