// SPDX-License-Identifier: Apache-2.0
// The two orientation families behind pc::orient (orient.cpp), one file each.
#pragma once

#include "pc/orient.hpp"

namespace cudag::pc::detail {

/// pcalg's udag2pdagRelaxed on the skeleton and separating sets, with `threads` threads;
/// `ambiguous` (may be empty): its unfVect.
Pdag orient_pcalg(const Graph& skel, const SepSets& sepsets, int threads, const TripleFn& ambiguous = {});

/// pcalg's colliders and Meek's rules 1-4 under background knowledge with directions.
Pdag orient_with_knowledge(const Graph& skel, const SepSets& sepsets, const Knowledge& knowledge);

/// bnlearn's learn.arc.directions with opt.knowledge as its whitelist and blacklist; `pvalue`
/// weighs the v-structures (the separating tests' p-values, opt.alpha deciding which side's).
Pdag orient_bnlearn(const Graph& skel, const SepSets& sepsets, const OrientOptions& opt, const PValueFn& pvalue);

/// causal-learn's collider rule (opt.rule, opt.uc_priority) and Meek's rules.
Pdag orient_causal_learn(const Graph& skel, const SepSets& sepsets, const OrientOptions& opt, const PValueFn& pvalue);

}  // namespace cudag::pc::detail
