// SPDX-License-Identifier: Apache-2.0
// Order-independent sums of weights in [0, 1] for the sum-based order score (issue 21):
// each weight is cut to a 62-bit fixed-point integer (w * 2^62, truncated) and the integers
// are summed exactly in 128 bits, so that a CUDA reduction in any order and the CPU's loop
// give the same bits. A weight loses less than 2^-62 (the largest weight of a log-sum-exp
// is 1, so relative to the sum that is below 2.2e-19 per weight).
#pragma once

#include <cstdint>

#include "core/hd.hpp"

namespace cudag::bn {

/// w in [0, 1] as an integer count of 2^-62.
CUDAG_HD inline std::uint64_t to_fixed(double w) { return static_cast<std::uint64_t>(w * 0x1p62); }

struct FixedSum {
    std::uint64_t hi = 0, lo = 0;  ///< the sum is hi * 2^64 + lo units of 2^-62

    CUDAG_HD void add(std::uint64_t q) {
        lo += q;
        hi += lo < q ? 1u : 0u;
    }
    CUDAG_HD void add(const FixedSum& o) {
        lo += o.lo;
        hi += o.hi + (lo < o.lo ? 1u : 0u);
    }
    /// this - o, or zero where o is larger (exact otherwise).
    CUDAG_HD FixedSum minus_or_zero(const FixedSum& o) const {
        if (hi < o.hi || (hi == o.hi && lo < o.lo)) return {};
        FixedSum r;
        r.lo = lo - o.lo;
        r.hi = hi - o.hi - (lo < o.lo ? 1u : 0u);
        return r;
    }
    /// The sum as a double: hi * 4 + lo * 2^-62, each part converted once.
    CUDAG_HD double value() const { return static_cast<double>(hi) * 4.0 + static_cast<double>(lo) * 0x1p-62; }
};

}  // namespace cudag::bn
