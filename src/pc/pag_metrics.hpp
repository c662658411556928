// SPDX-License-Identifier: Apache-2.0
// Comparing graphs with circle marks (PAGs, as cudag fci learns them) with a known truth:
// skeleton precision / recall / F1, per-mark precision and recall over the edges both graphs
// have, and the structural Hamming distance on PAGs.
#pragma once

#include <cstdint>
#include <string>

#include "core/pdag.hpp"
#include "pc/metrics.hpp"

namespace cudag::pc {

/// How well the estimate places one kind of endpoint mark (arrowhead, tail or circle),
/// counted over the endpoints of the edges adjacent in both graphs (two per edge).
struct MarkScore {
    std::int64_t in_truth = 0;     ///< endpoints with this mark in the truth
    std::int64_t in_estimate = 0;  ///< endpoints with this mark in the estimate
    std::int64_t correct = 0;      ///< endpoints with this mark in both
    double precision = 0.0;        ///< correct / in_estimate; 0 when in_estimate is 0
    double recall = 0.0;           ///< correct / in_truth; 0 when in_truth is 0
};

/// Result of compare_pags.
struct PagComparison {
    /// Skeleton counts and scores as compare_graphs gives them; its shd is the SHD on PAGs:
    /// 1 per pair adjacent in one graph only, 1 per pair adjacent in both whose two endpoint
    /// marks are not both the same (pcalg's shd() counts a mis-marked edge once too).
    Comparison skeleton;
    MarkScore arrow;   ///< arrowheads '>'
    MarkScore tail;    ///< tails '-'
    MarkScore circle;  ///< circles 'o'
};

/// A CPDAG's edges as PAG marks, for comparing a CPDAG with a PAG: a --> b and a <-> b keep
/// their marks, an undirected a --- b (PC could not orient it: either direction is possible)
/// becomes a o-o b, the PAG's "not decided" at both ends. InputError if `cpdag` already has a
/// circle mark.
Pdag cpdag_as_pag(const Pdag& cpdag);

/// Compares `estimate` with `truth` (same node count and order; InputError otherwise), marks
/// Mark::Tail, Mark::Arrow or Mark::Circle. Skeleton scores and zero denominators as
/// compare_graphs. For each edge adjacent in both graphs and each of its two endpoints, the
/// truth's mark there and the estimate's are counted into the MarkScore of their kinds:
/// precision of arrowheads = arrowheads the estimate places where the truth has one / all
/// arrowheads the estimate places on shared edges; recall = the same count / all arrowheads
/// of the truth on shared edges (tails and circles alike).
PagComparison compare_pags(const Pdag& truth, const Pdag& estimate);

/// comparison_table's rows, then one row per mark kind (truth, estimate, correct counts,
/// precision, recall), ending in '\n'.
std::string pag_comparison_table(const PagComparison& c);

/// comparison_json's keys, then shared_endpoints and, for each of arrow, tail and circle,
/// <kind>_truth, <kind>_estimate, <kind>_correct, <kind>_precision, <kind>_recall; one JSON
/// object of numbers, no trailing newline.
std::string pag_comparison_json(const PagComparison& c);

}  // namespace cudag::pc
