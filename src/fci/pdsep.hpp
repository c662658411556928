// SPDX-License-Identifier: Apache-2.0
// FCI's Possible-D-SEP stage as pcalg's pdsep() runs it: the unshielded colliders of the
// skeleton oriented (pcalg's own, plain sepset rule), Possible-D-SEP(x) of every node from
// that graph (qreach), then each edge x - y tested against subsets of
// pdsep(x) \ {x, y} that are not all adjacent to x, from the lower endpoint first.
//
// pcalg walks x = 1..p and removes an edge as soon as it is separated, so a later node sees
// its adjacency without the edges removed before it. cudag gives exactly that answer and
// runs the edges in parallel: every edge's tests are run at once against the adjacency the
// stage started with, and a pass in pcalg's order keeps each node's outcomes when its
// adjacency is still the starting one and reruns that node's edges when an earlier node
// removed one of them (rare: a node rerun costs one more batch). Neither threads nor
// ranks change what is found.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/graph.hpp"
#include "core/sepsets.hpp"
#include "core/pag.hpp"
#include "fci/tester.hpp"
#include "fci/triples.hpp"

namespace cudag::fci {

using namespace cudag::marks;

struct PdsepOptions {
    /// pcalg's m.max for this stage: the largest conditioning set (-1: no cap).
    int max_level = -1;
    /// pcalg's pdsep.max: an edge whose Possible-D-SEP set (less the two endpoints) has more
    /// nodes is not tested here (-1: no cap).
    int pdsep_max = -1;
    /// Pairs (i < j, sorted) never tested (pcalg's fixedEdges: required adjacencies).
    std::vector<std::pair<std::int32_t, std::int32_t>> fixed_edges;
    /// Progress (may be empty): ("edges decided", decided, edges, tests run) after each
    /// round of the edges' tests, then ("nodes of pcalg's pass", done, nodes, -1) after
    /// each node of pcalg's pass.
    std::function<void(const char*, std::int64_t, std::int64_t, std::int64_t)> on_progress;
};

/// A pair's largest p-value over the tests of this stage (pcalg's pMax update).
struct PairMax {
    std::int32_t i, j;  ///< i < j
    double p;
};

struct PdsepResult {
    /// The edges this stage removed, (i < j), with their separating sets (sorted).
    std::vector<SepSetUpdate> removed;
    std::vector<PairMax> pmax;
    std::int64_t tests = 0;  ///< tests of pcalg's sequence (the Tester counts those run)
    int max_order = 0;       ///< the largest conditioning set tested
    /// Possible-D-SEP of every node (sorted), as qreach gives it.
    std::vector<std::vector<std::int32_t>> pdsep;
};

/// pcalg's collider orientation at the start of pdsep(): marks 0 / 1 (circle) / 2 (arrow)
/// where x *-> y <-* z for unshielded x - y - z whose separating set lacks y.
Pag pdsep_colliders(const Graph& g, const SepSets& sepsets);

/// pcalg's qreach(x, amat): Possible-D-SEP(x) in `g` (nodes reachable from x on paths whose
/// every inner node is a collider or the middle of a triangle), sorted, without x.
std::vector<std::int32_t> possible_dsep(const Pag& g, std::int32_t x);

/// Run the stage on the skeleton `g` with its separating sets; `g` loses the removed edges
/// and `sepsets` gains their sets.
PdsepResult pdsep(Graph& g, SepSets& sepsets, Tester& tester, const PdsepOptions& opt);

}  // namespace cudag::fci
