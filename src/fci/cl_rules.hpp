// SPDX-License-Identifier: Apache-2.0
// causal-learn 0.1.4.8's FCI orientation rules (search/ConstraintBased/FCI.py) on a cudag Pag,
// for --compat causal-learn: each function is the causal-learn function of its name, in its
// loops and its order (nodes by index, neighbour pairs as ChoiceGenerator gives them, the
// lists each loop reads taken where causal-learn takes them, marks read live), so a rule
// that changes the graph in the middle of its loop does what causal-learn's does. Every
// function returns `flag`, or true when it changed (or re-set) a mark, as causal-learn's.
#pragma once

#include <cstdint>
#include <vector>

#include "core/pag.hpp"
#include "fci/cl_graph.hpp"
#include "fci/tester.hpp"

namespace cudag::fci::cl {

/// rule0 (after reorientAllWith(CIRCLE)): fci_orient_bk (orient_bk), then a *-> b <-* c for
/// every a - b - c, a and c not adjacent, not yet a collider, whose sep_sets.get((a, c))
/// (a < c) exists and lacks b and whose two arrowheads the knowledge allows. `bk` (may be
/// null): causal-learn's background_knowledge, as R1-R4 take it too.
void rule0(Pag& g, const SepSetLookup& seps, const Knowledge* bk);

/// rulesR1R2cycle: for every node b and pair (a, c) of its neighbours, R1(a, b, c),
/// R1(c, b, a), R2(a, b, c), R2(c, b, a).
bool rules_r1_r2(Pag& g, const Knowledge* bk, bool flag);
/// ruleR3 (the double triangle), deciding non-colliders by sep_sets.get((a, c)).
bool rule_r3(Pag& g, const SepSetLookup& seps, const Knowledge* bk, bool flag);

/// ruleR4B's settings and counters.
struct DdpContext {
    Tester& tester;
    const SepSetLookup& seps;
    int max_path_length = -1;  ///< causal-learn's max_path_length (-1: 1000)
    std::int64_t tests = 0;    ///< the tests doDdpOrientation ran
    const Knowledge* bk = nullptr;  ///< background knowledge (may be null)
};
/// ruleR4B: discriminating paths found by ddpOrient, decided by two tests each
/// (doDdpOrientation), then by sep_sets.get((d, c)).
bool rule_r4b(Pag& g, DdpContext& ctx, bool flag);

bool rule_r5(Pag& g, bool flag);
bool rule_r6(Pag& g, bool flag);
bool rule_r7(Pag& g, bool flag);
bool rule8(Pag& g, bool flag);
bool rule9(Pag& g, bool flag);
/// rule10; `hashes` (empty: node order): the nodes' Python hashes, which order its set of
/// possible children (fci/cl_pyhash.hpp).
bool rule10(Pag& g, const std::vector<std::int64_t>& hashes, bool flag);

}  // namespace cudag::fci::cl
