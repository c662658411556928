// SPDX-License-Identifier: Apache-2.0
// FCI and RFCI after the skeleton: the learner's library call. The skeleton search (any
// engine, backend and rank count) hands over its graph and separating sets; this runs
// pcalg's fci() / rfci() from there: Possible-D-SEP (fci/pdsep.hpp), the conservative or
// majority-rule triple checks (fci/triples.hpp), RFCI's extra tests (fci/rfci.hpp), and the
// orientation rules R0-R10 (fci/rules.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.hpp"
#include "core/knowledge.hpp"
#include "core/sepsets.hpp"
#include "core/pag.hpp"
#include "fci/pdsep.hpp"
#include "fci/rules.hpp"
#include "fci/tester.hpp"

namespace cudag::fci {

using namespace cudag::marks;

enum class Variant { Fci, Rfci };
/// pcalg's fci(type =): normal; anytime (m.max given, Possible-D-SEP capped by it); adaptive
/// (no m.max; Possible-D-SEP capped by the largest level the skeleton ran).
enum class FciType { Normal, Anytime, Adaptive };

std::string to_string(Variant v);
std::string to_string(FciType t);
/// "fci" or "rfci"; anything else is an InputError naming --variant and the choices.
Variant parse_variant(const std::string& name);
/// "normal", "anytime" or "adaptive"; anything else is an InputError naming --type and the choices.
FciType parse_fci_type(const std::string& name);

struct FciOptions {
    Variant variant = Variant::Fci;
    FciType type = FciType::Normal;
    /// pcalg's doPdsep (fci only).
    bool pdsep = true;
    /// pcalg's m.max (-1: none): caps the skeleton's levels (the caller's search) and
    /// Possible-D-SEP's conditioning sets.
    int max_level = -1;
    /// The largest level the skeleton search ran (pcalg's max.ord), for FciType::Adaptive.
    int skeleton_max_level = 0;
    /// pcalg's pdsep.max (-1: none).
    int pdsep_max = -1;
    bool conservative = false;
    bool majority = false;
    RuleOptions rules;
    /// Required adjacencies (i < j, sorted): never tested after the skeleton.
    std::vector<std::pair<std::int32_t, std::int32_t>> fixed_edges;
    /// --compat causal-learn: causal-learn 0.1.4.8's fci() after the skeleton (fci/cl_fci.hpp).
    bool causal_learn = false;
    /// causal-learn's max_path_length (-1: none; it caps R4's discriminating paths).
    int max_path_length = -1;
    /// The variables' names (causal-learn sorts Possible-D-SEP by name); causal_learn only.
    std::vector<std::string> names;
    /// causal_learn: walk causal-learn's two Python sets (Possible-D-SEP's first nodes, R10's
    /// possible children) in CPython 3.11's order under PYTHONHASHSEED = this (0 .. 2^32 - 1);
    /// -1: in node order.
    std::int64_t python_hash_seed = -1;
    /// causal_learn: background knowledge as causal-learn's fci(background_knowledge=...) uses
    /// it (fci_orient_bk in rule0, is_arrow_point_allowed in R0-R4; not owned, may be null).
    const Knowledge* knowledge = nullptr;
    /// Possible-D-SEP's progress (pcalg's): (unit, done, total), unit "edges decided" or
    /// "nodes of pcalg's pass"; may be empty.
    std::function<void(const std::string& phase, std::int64_t done, std::int64_t total)> on_progress;
};

struct FciStats {
    std::int64_t pdsep_tests = 0;
    std::int64_t pdsep_removed = 0;
    int pdsep_max_order = 0;
    std::int64_t triple_tests = 0;  ///< conservative / majority checks, RFCI's extra tests
    std::int64_t ambiguous_triples = 0;
    double pdsep_seconds = 0.0;
    double orient_seconds = 0.0;
};

struct FciOutcome {
    Pag pag;
    Graph skeleton;                                ///< the adjacencies after Possible-D-SEP / RFCI's removals
    SepSets sepsets;                               ///< every separating set, revised as pcalg revises them
    std::vector<PairMax> pmax;                     ///< pairs whose pMax rose after the skeleton (sorted)
    std::vector<std::vector<std::int32_t>> pdsep;  ///< Possible-D-SEP of each node (fci with it)
    FciStats stats;
};

/// pcalg's skeleton()'s max.ord, which Adaptive Anytime FCI caps Possible-D-SEP with, from a
/// PC-stable skeleton whose last level with tests was `last_level` (its separating sets in
/// `sepsets`, a level-l set of size l): pcalg enters one more level, which finds nothing to
/// test, when an edge of the last level's snapshot was visited with more than `last_level`
/// other neighbours at its end (its lower end's; its upper end's unless the lower end
/// separated it), edges remain and `max_level` (-1: none) allows it. Then last_level + 1.
/// `fixed_edges` (i < j, sorted): pairs pcalg never visits (its fixedEdges).
int pcalg_max_order(const Graph& skeleton, const SepSets& sepsets, int last_level, int max_level,
                    const std::vector<std::pair<std::int32_t, std::int32_t>>& fixed_edges = {});

/// Check the options (InputError naming the option).
void validate(const FciOptions& opt);

/// Run FCI or RFCI from the skeleton `skeleton` and its separating sets.
FciOutcome learn_pag(Graph skeleton, SepSets sepsets, Tester& tester, const FciOptions& opt);

}  // namespace cudag::fci
