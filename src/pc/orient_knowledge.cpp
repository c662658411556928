// SPDX-License-Identifier: Apache-2.0
// cudag's default orientation under background knowledge that fixes directions (issue 23).
// pcalg orients no knowledge in pc() (fixedGaps / fixedEdges act in the skeleton only) and
// adds directions afterwards with addBgKnowledge (Meek's rules 1-4); cudag does what Tetrad
// and causal-learn do instead, so that knowledge always wins over the data:
//  1. every edge with a knowledge direction (a -> b required, or b -> a forbidden,
//     explicitly or by the tiers) is oriented that way;
//  2. the unshielded colliders x -> y <- z (y in no separating set of x and z) whose
//     arrows the knowledge allows are applied as pcalg's udag2pdagRelaxed applies them
//     (an edge a - b ends as a -> b when some collider has b in the middle and a at an end,
//     else as b -> a when some collider is the other way round); a collider with an arrow
//     the knowledge forbids is skipped whole, so no applied arrow disagrees with step 1;
//  3. Meek's rules 1-4 orient the remaining undirected edges until none applies, edges
//     taken in order (a increasing, then b increasing); rule 4 is needed because knowledge
//     can orient edges that no collider explains.
// A serial pass over adjacency lists: O(edges × degree²) per sweep.
#include <algorithm>
#include <vector>

#include "pc/orient_detail.hpp"

namespace cudag::pc::detail {
namespace {

class KnowledgePdag {
public:
    explicit KnowledgePdag(const Graph& skel) : adj_(Adjacency::from_graph(skel)), st_(adj_.nbrs.size(), kUndirected) {}

    const Adjacency& adjacency() const { return adj_; }
    std::int64_t n() const { return adj_.n; }
    bool adjacent(std::int32_t a, std::int32_t b) const { return adj_.find(a, b) >= 0; }
    bool directed(std::int32_t a, std::int32_t b) const {  ///< a --> b
        const std::int64_t s = adj_.find(a, b);
        return s >= 0 && st_[static_cast<std::size_t>(s)] == kAway;
    }
    bool undirected(std::int32_t a, std::int32_t b) const {
        const std::int64_t s = adj_.find(a, b);
        return s >= 0 && st_[static_cast<std::size_t>(s)] == kUndirected;
    }
    void orient(std::int32_t a, std::int32_t b) {  ///< a --> b
        st_[static_cast<std::size_t>(adj_.find(a, b))] = kAway;
        st_[static_cast<std::size_t>(adj_.find(b, a))] = kToward;
    }
    std::span<const std::int32_t> nbrs(std::int32_t v) const {
        return {adj_.row(v), static_cast<std::size_t>(adj_.degree(v))};
    }
    std::vector<Mark> marks() const {
        std::vector<Mark> m(st_.size());
        for (std::size_t s = 0; s < st_.size(); ++s) m[s] = st_[s] == kToward ? Mark::Arrow : Mark::Tail;
        return m;
    }

private:
    static constexpr std::uint8_t kUndirected = 0, kAway = 1, kToward = 2;
    Adjacency adj_;
    std::vector<std::uint8_t> st_;  ///< per adjacency entry (a, b): a - b, a -> b or b -> a
};

/// The knowledge forbids a -> b, or requires b -> a.
bool blocked(const Knowledge& k, std::int32_t a, std::int32_t b) { return k.forbidden(a, b) || k.required(b, a); }

/// Meek's rules 1-4 for a - b becoming a -> b.
bool meek_orients(const KnowledgePdag& g, std::int32_t a, std::int32_t b) {
    // Rule 1: c -> a - b, c and b not adjacent.
    for (std::int32_t c : g.nbrs(a))
        if (c != b && g.directed(c, a) && !g.adjacent(c, b)) return true;
    // Rule 2: a -> c -> b.
    for (std::int32_t c : g.nbrs(a))
        if (c != b && g.directed(a, c) && g.directed(c, b)) return true;
    // Rule 3: a - c -> b, a - d -> b, c and d not adjacent.
    std::vector<std::int32_t> cs;
    for (std::int32_t c : g.nbrs(a))
        if (c != b && g.undirected(a, c) && g.directed(c, b)) cs.push_back(c);
    for (std::size_t u = 0; u < cs.size(); ++u)
        for (std::size_t v = u + 1; v < cs.size(); ++v)
            if (!g.adjacent(cs[u], cs[v])) return true;
    // Rule 4: a - c -> d -> b, a adjacent to d, c and b not adjacent.
    for (std::int32_t c : g.nbrs(a)) {
        if (c == b || !g.undirected(a, c) || g.adjacent(c, b)) continue;
        for (std::int32_t d : g.nbrs(c))
            if (d != a && d != b && g.directed(c, d) && g.directed(d, b) && g.adjacent(a, d)) return true;
    }
    return false;
}

}  // namespace

Pdag orient_with_knowledge(const Graph& skel, const SepSets& sepsets, const Knowledge& k) {
    KnowledgePdag g(skel);
    const auto n = static_cast<std::int32_t>(g.n());
    // 1. The knowledge's directions.
    for (std::int32_t a = 0; a < n; ++a)
        for (std::int32_t b : g.nbrs(a)) {
            if (b < a) continue;
            if (blocked(k, b, a))
                g.orient(a, b);
            else if (blocked(k, a, b))
                g.orient(b, a);
        }
    // 2. Colliders: into[(a, b)] <=> some allowed collider has b in the middle, a at an end.
    const Adjacency& adj = g.adjacency();
    std::vector<char> into(adj.nbrs.size(), 0);
    for (std::int32_t y = 0; y < n; ++y) {
        const auto ny = g.nbrs(y);
        for (std::size_t u = 0; u < ny.size(); ++u)
            for (std::size_t v = u + 1; v < ny.size(); ++v) {
                const std::int32_t x = ny[u], z = ny[v];
                if (g.adjacent(x, z) || sepsets.contains(x, z, y)) continue;
                if (blocked(k, x, y) || blocked(k, z, y)) continue;
                into[static_cast<std::size_t>(adj.find(x, y))] = 1;
                into[static_cast<std::size_t>(adj.find(z, y))] = 1;
            }
    }
    for (std::int32_t a = 0; a < n; ++a)
        for (std::int32_t b : g.nbrs(a)) {
            if (b < a || !g.undirected(a, b)) continue;
            if (into[static_cast<std::size_t>(adj.find(a, b))])
                g.orient(a, b);
            else if (into[static_cast<std::size_t>(adj.find(b, a))])
                g.orient(b, a);
        }
    // 3. Meek's rules 1-4 until nothing changes.
    for (bool changed = true; changed;) {
        changed = false;
        for (std::int32_t a = 0; a < n; ++a)
            for (std::int32_t b : g.nbrs(a)) {
                if (!g.undirected(a, b)) continue;
                if (meek_orients(g, a, b)) {
                    g.orient(a, b);
                    changed = true;
                }
            }
    }
    const std::vector<Mark> marks = g.marks();
    return Pdag(adj, marks);
}

}  // namespace cudag::pc::detail
