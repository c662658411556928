// SPDX-License-Identifier: Apache-2.0
// FCI's orientation: the unshielded colliders (R0) and Zhang's rules R1-R10, exactly as
// pcalg's udag2pag applies them (its order, its loops, its conservative checks), so that
// the PAG equals pcalg's fci() given the same skeleton and separating sets.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/sepsets.hpp"
#include "core/pag.hpp"
#include "fci/triples.hpp"

namespace cudag::fci {

using namespace cudag::marks;

/// R's which(cond, arr.ind = TRUE) over the adjacent pairs (i, j) of `g`: column-major (j
/// ascending, then i), the order in which pcalg's rule loops walk a PAG.
template <class Cond>
std::vector<std::pair<std::int32_t, std::int32_t>> which_pairs(const Pag& g, Cond&& cond) {
    std::vector<std::pair<std::int32_t, std::int32_t>> out;
    for (std::int32_t j = 0; j < g.n(); ++j)
        for (const std::int32_t i : g.neighbours(j))
            if (cond(i, j)) out.emplace_back(i, j);
    return out;
}

struct RuleOptions {
    /// rules[k] enables R(k+1); pcalg's rules = rep(TRUE, 10).
    std::array<bool, 10> rules{true, true, true, true, true, true, true, true, true, true};
    /// false: R5-R7 off (pcalg's selectionBias = FALSE).
    void no_selection_bias() { rules[4] = rules[5] = rules[6] = false; }
};

/// R0 on `g` (every edge o-o): a *-> b <-* c for every unshielded a - b - c whose separating
/// set lacks b, unless the triple is in `unf`. Order-free (marks only become arrowheads).
void orient_colliders(Pag& g, const SepSets& sepsets, const TripleSet& unf);

/// pcalg's udag2pag after the colliders: R1-R4 to a fixed point, then R5-R7, then R8-R10
/// (each group repeated until it changes nothing), with pcalg's ambiguity checks where
/// `unf` is not empty.
void apply_rules(Pag& g, const SepSets& sepsets, const TripleSet& unf, const RuleOptions& opt);

/// One pass of udag2pag's rule `rule` (1-10) over `g`, as apply_rules runs it (R4 reads
/// `sepsets`). RFCI's udag2apag (fci/rfci_apag.cpp) runs R1-R3 and R5-R9 through this, in
/// its own loop.
void apply_rule(int rule, Pag& g, const SepSets& sepsets, const TripleSet& unf);

/// One pass of R10. `udag2pag_shortcut`: as udag2pag, a first node that is b (or d) itself
/// counts as a path without a search; false: as udag2apag (RFCI), every path is searched.
void apply_rule10(Pag& g, const TripleSet& unf, bool udag2pag_shortcut);

/// orient_colliders then apply_rules (pcalg's udag2pag).
void udag2pag(Pag& g, const SepSets& sepsets, const TripleSet& unf, const RuleOptions& opt);

}  // namespace cudag::fci
