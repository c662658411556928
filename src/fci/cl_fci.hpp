// SPDX-License-Identifier: Apache-2.0
// FCI as causal-learn 0.1.4.8's fci() runs it after its fas() skeleton (--compat causal-learn;
// the skeleton is cudag pc's under the same compat: stable, p > alpha, every set of a level
// tested and the separating sets' nodes united, as fas stores them):
//
//   reorientAllWith(CIRCLE); rule0; removeByPossibleDsep (fci/cl_pdsep.hpp);
//   reorientAllWith(CIRCLE); rule0; then until nothing changes: R1/R2, R3, R4B (only in a
//   round where R1-R3 changed something), R5, R6, R7, R8, R9, R10 (fci/cl_rules.hpp).
//
// Separating sets decide R0, R3 and R4 as causal-learn's dict does: the skeleton's (the union
// of its removal level's sets, under both orders of the pair) and the Possible-D-SEP stage's
// (under the order (a, b) of causal-learn's Edge object only, so a rule that asks for (b, a)
// finds none). The outcome's table lists the skeleton's sets and the Possible-D-SEP stage's
// sets as found.
#pragma once

#include "core/graph.hpp"
#include "core/sepsets.hpp"
#include "fci/fci.hpp"
#include "fci/tester.hpp"

namespace cudag::fci {

/// Refuse (InputError, one line) what causal-learn's fci has no counterpart for: rfci, pcalg's
/// --type, --pdsep-max, --no-pdsep, --conservative, --majority-rule, --no-selection-bias.
void validate_causal_learn(const FciOptions& opt);

/// causal-learn's fci() from the skeleton `skeleton` and its (united) separating sets.
/// Reads opt.names (Possible-D-SEP lists are sorted by name), opt.max_path_length and
/// opt.on_progress; the options pcalg alone has must be off (validate() checks).
FciOutcome learn_pag_causal_learn(Graph skeleton, SepSets sepsets, Tester& tester, const FciOptions& opt);

}  // namespace cudag::fci
