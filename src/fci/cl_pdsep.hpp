// SPDX-License-Identifier: Apache-2.0
// causal-learn 0.1.4.8's Possible-D-SEP stage (FCI.py removeByPossibleDsep, getPossibleDsep)
// for --compat causal-learn:
//
//  - the edges in causal-learn's order (get_graph_edges: i < j), each from its Edge object's
//    first node (the second when the mark at i is an arrowhead and the mark at j is not), then,
//    when not removed, from the other side;
//  - getPossibleDsep(x, y) per edge (not per node, as pcalg): x's neighbours but y, plus every
//    node c with x *-> b <-* c for a neighbour b (causal-learn queues (x, c), not (b, c), so the
//    search never goes deeper), c kept when a node r processed before it and adjacent to it
//    (not x) has a semi-directed path to x or to c; sorted by name, descending;
//  - the subsets of that list of 2 or more nodes, by size, lexicographic in list positions,
//    except that the first subset of every size with more than one is never tested
//    (DepthChoiceGenerator hands out one list it then changes in place, and the loop reads it
//    after asking for the next); no cap on their size (fci's depth caps fas only);
//  - a subset wholly inside adj(a) or wholly inside adj(b) is skipped; the first test with
//    p > alpha removes the edge and stores the set under (a, b) only.
//
// Parallel and exact: every remaining edge is computed at once against the current graph; a
// pass in causal-learn's order accepts outcomes up to the first removal, and the next round
// recomputes an edge only when its inputs (both Possible-D-SEP lists, adj(a), adj(b))
// changed. The answer does not depend on the number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/pag.hpp"
#include "fci/cl_graph.hpp"
#include "fci/pdsep.hpp"
#include "fci/tester.hpp"

namespace cudag::fci::cl {

struct ClPdsepResult {
    std::vector<SepSetUpdate> removed;  ///< (a, b) in causal-learn's key order, the set sorted
    std::vector<PairMax> pmax;
    std::int64_t tests = 0;
    int max_order = 0;
    int rounds = 0;
};

/// getPossibleDsep(x, y, g): sorted by `names`, descending. `reach[r]` (n chars): the nodes
/// with a semi-directed path from r. `hashes` (empty: node order): the nodes' Python hashes,
/// which order the set of x's neighbours the search starts from (fci/cl_pyhash.hpp).
std::vector<std::int32_t> possible_dsep(const Pag& g, std::int32_t x, std::int32_t y,
                                        const std::vector<std::vector<char>>& reach,
                                        const std::vector<std::string>& names, const std::vector<std::int64_t>& hashes);

/// removeByPossibleDsep on `g` (the colliders of rule0 marked): removes the separated edges
/// from `g` and records their sets in `seps`.
ClPdsepResult remove_by_possible_dsep(Pag& g, SepSetLookup& seps, Tester& tester, const std::vector<std::string>& names,
                                      const std::vector<std::int64_t>& hashes,
                                      const std::function<void(std::int64_t, std::int64_t)>& on_progress);

}  // namespace cudag::fci::cl
