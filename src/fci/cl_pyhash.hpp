// SPDX-License-Identifier: Apache-2.0
// The order in which CPython 3.11 iterates a set of causal-learn GraphNodes, for
// --compat causal-learn --python-hash-seed N: a GraphNode hashes as its name (a str), and
// CPython hashes a str with SipHash-1-3 keyed from PYTHONHASHSEED (0: a zero key; N > 0: the
// key drawn by CPython's lcg_urandom(N)); a set built by adding keys one at a time puts each
// at its hash's slot, probing 9 slots on and then perturbing, and grows to 4x its size at 3/5
// full; iteration walks the slots. Written from CPython's documented algorithm (Python/pyhash.c,
// Objects/setobject.c), not copied.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cudag::fci::cl {

/// hash(name) in CPython 3.11 (siphash13) with PYTHONHASHSEED = seed; `name` UTF-8.
std::int64_t python_str_hash(const std::string& name, std::uint32_t seed);

/// The elements of `items` (node indices) in the order CPython iterates set(items), node v
/// hashing to hashes[v].
std::vector<std::int32_t> python_set_order(std::span<const std::int32_t> items,
                                           const std::vector<std::int64_t>& hashes);

}  // namespace cudag::fci::cl
