// SPDX-License-Identifier: Apache-2.0
// RFCI (Colombo et al. 2012) after the skeleton, as pcalg's rfci() runs it.
#pragma once

#include "core/graph.hpp"
#include "core/sepsets.hpp"
#include "core/pag.hpp"
#include "fci/rules.hpp"
#include "fci/tester.hpp"

namespace cudag::fci {

using namespace cudag::marks;

struct RfciOptions {
    RuleOptions rules;
    bool conservative = false;
    bool majority = false;
};

/// pcalg's rfci() after skeleton(): rfci.vStruc on the unshielded triples of `skeleton`, then
/// udag2apag. `sepsets` is revised in place (the result's sets); returns the PAG.
Pag rfci_orient(const Graph& skeleton, SepSets& sepsets, Tester& tester, const RfciOptions& opt);

}  // namespace cudag::fci
