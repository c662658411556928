// SPDX-License-Identifier: Apache-2.0
// RFCI (Colombo, Maathuis, Kalisch & Richardson 2012, "Learning high-dimensional directed
// acyclic graphs with latent and selection variables") after the skeleton, as pcalg 2.7-12's
// rfci() runs it: rfci.vStruc (dep.triple's extra tests on the unshielded triples, then the
// v-structures), then udag2apag (R1-R10 in one loop, R4 testing the edges of each
// discriminating path and removing those found independent).
#pragma once

#include "core/graph.hpp"
#include "core/pag.hpp"
#include "core/sepsets.hpp"
#include "fci/rules.hpp"
#include "fci/tester.hpp"

namespace cudag::fci {

struct RfciOptions {
    RuleOptions rules;
    /// pcalg's conservative = TRUE: each v-structure checked by checkTriple (every subset
    /// of either end's neighbours), ambiguous triples left alone by the rules.
    bool conservative = false;
    /// pcalg's maj.rule = TRUE: checkTriple decides by the majority of the separating sets.
    bool majority = false;
};

/// pcalg's rfci() after skeleton(): rfci.vStruc on the unshielded triples of `skeleton`, then
/// udag2apag. `sepsets` is revised in place (the result's sets); returns the PAG.
///
/// pcalg keeps sepset[[i]][[j]] per ordered pair; its skeleton() fills one of the two, and
/// in conservative / majority runs checkTriple appends b to both, so the union that later
/// steps read may come out unsorted, and the order decides which subset a minimal-set
/// search finds first. The run keeps pcalg's ordered sets (taking skeleton()'s set of
/// i < j as sepset[[i]][[j]]); `sepsets` gets each pair's union, sorted. Conservative and
/// majority together are refused (InputError), as pcalg refuses them.
Pag rfci_orient(const Graph& skeleton, SepSets& sepsets, Tester& tester, const RfciOptions& opt);

}  // namespace cudag::fci
