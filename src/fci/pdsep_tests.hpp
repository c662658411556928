// SPDX-License-Identifier: Apache-2.0
// Possible-D-SEP's tests of many edges at once, in rounds (internal to fci/pdsep.cpp).
//
// pcalg tests an edge x - y against the sets of its sequence one by one (ord = 1: the nodes
// of pdsep(x) \ {y} not adjacent to x; ord >= 2: the ord-subsets of pdsep(x) \ {y} in
// combn's order, skipping those wholly inside adj(x) while ord <= |adj(x)|) and stops at the
// first independent one. Here every edge still undecided puts its next sets of that
// sequence into one batch per round (Tester::p_values: the CPU's workers, a GPU, ranks), and
// reads its answers in sequence order up to its first independent set: the tests counted,
// pMax, the order and the set are pcalg's, whatever the round sizes (answers past that set
// are dropped). Rounds are large for cheap tests (Fisher-z) and about one set an edge for
// costly ones (CMIknn), so little is tested past an edge's separating set.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "fci/pdsep.hpp"
#include "fci/tester.hpp"

namespace cudag::fci::detail {

/// One edge's tests from x's side, as pcalg's inner loop runs them.
struct EdgeOutcome {
    bool tested = false;
    bool removed = false;
    std::vector<std::int32_t> set;
    double pmax = -1.0;
    std::int64_t tests = 0;
    int order = 0;
};

/// Edge x - y to test against subsets of `pdsep` (Possible-D-SEP(x), sorted) with x's
/// adjacency `adj` (sorted).
struct EdgeJob {
    std::int32_t x = 0, y = 0;
    const std::vector<std::int32_t>* pdsep = nullptr;
    const std::vector<std::int32_t>* adj = nullptr;
};

/// Every job's outcome (a fixed edge: not tested). `on_round(decided, jobs, tests)` after
/// each round (may be empty).
std::vector<EdgeOutcome> test_edges(std::span<const EdgeJob> jobs, const PdsepOptions& opt, Tester& tester,
                                    const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& on_round);

}  // namespace cudag::fci::detail
