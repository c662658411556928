// SPDX-License-Identifier: Apache-2.0
// Orientation phase of PC: skeleton + separating sets -> CPDAG. Three families,
// each reproducing one peer exactly, conflicts and iteration order included:
// pcalg's udag2pdagRelaxed, causal-learn's uc_sepset / maxp / definite_maxp
// followed by its Meek rules, and bnlearn's learn.arc.directions (the R face's pc.stable).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/graph.hpp"
#include "core/knowledge.hpp"
#include "core/pdag.hpp"
#include "core/sepsets.hpp"

namespace cudag::pc {

/// p-value of X ⟂ Y | S (S sorted), used by the maxP-type rules.
using PValueFn = std::function<double(std::int32_t x, std::int32_t y, const std::vector<std::int32_t>& s)>;

/// Whether the triple a - b - c (or c - b - a) is ambiguous: pcalg's unfVect of the
/// conservative / majority-rule PC (fci::conservative_triples).
using TripleFn = std::function<bool(std::int32_t a, std::int32_t b, std::int32_t c)>;

/// How unshielded colliders are found and how conflicts between them are settled.
/// Pcalg: pcalg's pc() orientation (udag2pdagRelaxed, solve.confl = FALSE) then
/// its Meek rules 1-3. The others are causal-learn's uc_rule 0, 1, 2 followed by
/// causal-learn's meek() (rule 2: definite_meek() then meek()).
/// Bnlearn: bnlearn 4.9's learn.arc.directions (its pc.stable's orientation; the R face):
/// v-structures by the separating tests' p-values, then its CPDAG step (orient_bnlearn.cpp).
enum class UcRule { Bnlearn = -2, Pcalg = -1, Sepset = 0, MaxP = 1, DefiniteMaxP = 2 };

/// Options of orient().
struct OrientOptions {
    UcRule rule = UcRule::Pcalg;
    /// causal-learn's uc_priority: -1 (the rule's default: 3 for Sepset and MaxP,
    /// 4 for DefiniteMaxP), 0 overwrite, 1 bi-directed, 2 keep existing colliders,
    /// 3 stronger colliders first, 4 stronger* colliders first. DefiniteMaxP
    /// accepts only 2..4. Ignored by UcRule::Pcalg.
    int uc_priority = 2;  ///< causal-learn numbers: -1 (rule default), 0..4
    double alpha = 0.01;  ///< used by DefiniteMaxP
    /// true: independent iff p > alpha (causal-learn); false: p >= alpha (pcalg)
    bool independence_strict = false;
    /// UcRule::Bnlearn: the largest conditioning set beside the centre that the tests of a
    /// pair blacklisted both ways may take (bnlearn's max.sx; -1: no cap).
    int max_sx = -1;
    /// Worker threads of UcRule::Pcalg (0: all hardware threads). The result does
    /// not depend on it.
    int threads = 1;
    /// Background knowledge over the skeleton's nodes, or nullptr for none (not owned).
    /// UcRule::Pcalg: knowledge that fixes no direction (only forbidden and required
    /// pairs) leaves pcalg's orientation as it is; otherwise edges with a required or
    /// forbidden direction (or tiers) are oriented first, colliders that would point
    /// against the knowledge are skipped, the others are applied as pcalg applies them, and
    /// Meek's rules 1-4 close the graph (see orient_knowledge.cpp). The causal-learn rules
    /// use it as causal-learn's pc(background_knowledge=...) does.
    const Knowledge* knowledge = nullptr;
    /// UcRule::Pcalg: the ambiguous triples (pcalg's udag2pdagRelaxed(unfVect = ...)): no
    /// collider is oriented on one, and Meek's rules 1 and 3 do not fire through one. Empty:
    /// none. Must be safe to call from several threads.
    TripleFn ambiguous;
};

/// Orient `skeleton` into a CPDAG (or, with uc_priority 1, a PDAG that may hold
/// bidirected edges) using the separating sets of its removed pairs.
///
/// `sepsets` must hold an entry for every non-adjacent pair that forms an
/// unshielded triple (a missing entry reads as the empty set). `pvalue` is called
/// only by MaxP, DefiniteMaxP and Sepset with priority 3 or 4, always with x < y
/// and S sorted, S drawn from the powersets of adj(x) and adj(y); each distinct
/// (x, y, S) is asked at most once per call. It may be empty otherwise.
///
/// UcRule::Pcalg works on sparse adjacency lists (memory O(n + edges) beyond the
/// skeleton: some 40 to 60 bytes per edge) on `opt.threads` threads; its work is driven
/// by adjacency lists and bit rows, never by a scan over all pairs of nodes. The
/// causal-learn family keeps a dense n×n int8 graph plus two n×n bit matrices for
/// causal-learn's partially maintained ancestor matrix `dpath` (n²·1.25 bytes:
/// 500 MB at n = 20,000), so it is meant for small and medium n; it walks
/// causal-learn's triple, triangle and kite lists in their order without storing
/// them (time grows with the number of triangles). Its maxP-type rules also
/// enumerate 2^|adj(x)| + 2^|adj(z)| conditioning sets per unshielded triple, as
/// causal-learn does (degrees above 30 are refused).
///
/// Throws InputError on an unknown rule, a priority outside the rule's range, an
/// alpha outside [0, 1), or a missing `pvalue` where one is needed.
Pdag orient(const Graph& skeleton, const SepSets& sepsets, const OrientOptions& opt, const PValueFn& pvalue);

}  // namespace cudag::pc
