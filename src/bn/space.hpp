// SPDX-License-Identifier: Apache-2.0
// The parent space of order MCMC: which nodes may be a node's parents. Every other node
// (the default), a graph's edges (--space FILE), a PC skeleton's neighbours plus one other
// node (BiDAG's plus1, --space pc), less what background knowledge forbids.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/pdag.hpp"
#include "core/knowledge.hpp"

namespace cudag::bn {

struct ParentSpace {
    /// Every other node may be a parent (candidates and extras then empty).
    bool all = true;
    std::vector<std::vector<std::int32_t>> candidates;  ///< by node, when not all
    std::vector<std::vector<std::int32_t>> extras;      ///< by node (plus1), or empty
    /// Mandatory parents by node (--require; ScoreTable::require_parents), or empty. Each
    /// is one of its child's candidates.
    std::vector<std::vector<std::int32_t>> required;
    std::string description = "all";
};

/// A graph's space: a --> b lets a be a parent of b, a --- b (or <->) either way.
ParentSpace space_from_graph(const Pdag& g, std::string description);

/// One skeleton edge and its strength (the largest p-value its tests gave; 0 when unknown).
struct SkeletonEdge {
    std::int32_t a = 0, b = 0;
    double p = 0.0;
};

/// BiDAG's plus1 space over a PC skeleton of n nodes: each node's neighbours, at most
/// `hard_limit` of them (the smallest p first, ties by node id), are its
/// candidates and every other node an extra. `what` heads the description.
ParentSpace space_from_skeleton(std::int64_t n, std::span<const SkeletonEdge> edges, int hard_limit,
                                const std::string& what);

/// The space less the parents background knowledge forbids (a forbidden direction, a
/// forbidden pair, or a parent from a later tier), and with its required directions a -> b
/// as mandatory parents (`required`): a becomes a candidate of b (from the extras, or added
/// when the space lacked it). A required pair without a direction ('a -- b') constrains no
/// one node's parent sets: InputError in one line, naming it through `names` when given.
ParentSpace restrict_space(ParentSpace s, const Knowledge& k, std::int64_t n,
                           const std::vector<std::string>& names = {});

}  // namespace cudag::bn
