// SPDX-License-Identifier: Apache-2.0
// The graph queries of causal-learn 0.1.4.8's FCI (causallearn/graph/GeneralGraph.py and the
// helpers of search/ConstraintBased/FCI.py) on a cudag Pag, for --compat causal-learn
// (fci/cl_fci.hpp). g(a, b) is the mark at b of the edge a - b, which is causal-learn's
// get_endpoint(a, b). Lists come in node-index order, as GeneralGraph scans its matrix.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "core/graph.hpp"
#include "core/knowledge.hpp"
#include "core/pag.hpp"
#include "core/sepsets.hpp"

namespace cudag::fci::cl {

using namespace cudag::marks;

/// get_nodes_into(b, mark): the neighbours j of b whose edge has `mark` at b, ascending.
std::vector<std::int32_t> into(const Pag& g, std::int32_t b, std::uint8_t mark);
/// get_nodes_out_of(b, mark): the neighbours j of b whose edge has `mark` at j, ascending.
std::vector<std::int32_t> out_of(const Pag& g, std::int32_t b, std::uint8_t mark);

/// is_parent_of(a, c): a --> c.
inline bool is_parent_of(const Pag& g, std::int32_t a, std::int32_t c) { return g(a, c) == kArrow && g(c, a) == kTail; }
/// is_def_collider(a, b, c): a *-> b <-* c (both edges present).
inline bool is_def_collider(const Pag& g, std::int32_t a, std::int32_t b, std::int32_t c) {
    return g(a, b) == kArrow && g(c, b) == kArrow;
}
/// is_arrow_point_allowed(x, y, knowledge): an arrowhead at y is allowed when the mark there
/// is one; a tail there never; a circle unless x -> y is forbidden and the mark at x is no
/// circle (causal-learn asks the knowledge only when the mark at x is an arrowhead or a tail).
inline bool arrow_allowed(const Pag& g, std::int32_t x, std::int32_t y, const Knowledge* k) {
    const std::uint8_t m = g(x, y);
    if (m == kArrow) return true;
    if (m == kTail) return false;
    const std::uint8_t at_x = g(y, x);
    if ((at_x == kArrow || at_x == kTail) && k && k->forbidden(x, y)) return false;
    return m == kCircle;
}
/// fci_orient_bk: each edge i - j (i < j, as get_graph_edges lists them) made j --> i when
/// i -> j is forbidden, else i --> j when j -> i is forbidden, else i --> j when required,
/// else j --> i when j -> i is required (add_directed_edge: tail and arrowhead set as such).
void orient_bk(Pag& g, const Knowledge* k);
/// causal-learn's graph.remove_edge(e); graph.add_edge(Edge(a, b, at_a, at_b)). add_edge
/// refuses an edge that reads "circle at its first node, tail at its second" (Edge flips
/// only edges with an arrowhead first), so that call leaves a and b non-adjacent; kept.
void put_edge(Pag& g, std::int32_t a, std::int32_t b, std::uint8_t at_a, std::uint8_t at_b);

/// existsSemiDirectedPath(from, to): `to` reached from `from` by steps u -> v whose mark at u
/// is a tail or a circle.
bool semi_directed_path(const Pag& g, std::int32_t from, std::int32_t to);

/// Which separating set causal-learn finds for an ordered pair (its sep_sets dict): the
/// skeleton's (fas: both orders, the union of the separating sets of the removal level; the
/// pairs the skeleton removed) and the Possible-D-SEP stage's (stored under (X, Y) only,
/// X the first node of causal-learn's Edge object).
class SepSetLookup {
public:
    SepSetLookup(const Graph& skeleton, const SepSets& sets) : skeleton_(skeleton), sets_(sets) {}
    /// sep_sets.get((i, j)) is not None.
    bool has(std::int32_t i, std::int32_t j) const { return pd_.count({i, j}) != 0 || !skeleton_.has(i, j); }
    /// sep_sets[(i, j)] holds k (false when there is no set).
    bool contains(std::int32_t i, std::int32_t j, std::int32_t k) const;
    /// The Possible-D-SEP stage's set for (x, y) (ordered).
    void add_pdsep(std::int32_t x, std::int32_t y, std::vector<std::int32_t> set) { pd_[{x, y}] = std::move(set); }

private:
    const Graph& skeleton_;
    const SepSets& sets_;
    std::map<std::pair<std::int32_t, std::int32_t>, std::vector<std::int32_t>> pd_;
};

}  // namespace cudag::fci::cl
