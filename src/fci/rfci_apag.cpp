// SPDX-License-Identifier: Apache-2.0
// pcalg's udag2apag (RFCI's orientation). It is udag2pag's rules with three differences,
// all kept: R1-R10 run in one loop until nothing changes (udag2pag: R1-R4, then R5-R7, then
// R8-R10, each to its own fixed point); R4 runs checkEdges on each discriminating path
// before orienting, which may remove edges; and R10 asks minUncovPdPath for the path
// a, b even where the first node is b itself (udag2pag takes the edge a - b as the path
// there). The other rules are udag2pag's (fci/rules.hpp's apply_rule).
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "fci/paths.hpp"
#include "fci/rfci_internal.hpp"
#include "fci/rules.hpp"

namespace cudag::fci::rfci_detail {

using namespace cudag::marks;

namespace {

/// pcalg's minDiscrPath(pag, a, b, c) as udag2apag reads it: the path it returns,
/// c(rev(mpath), b, c). pcalg's queue keeps only the last two nodes of each path
/// (updateList(mpath[-1], ...)), so the path is (d, pred, b, c): d ends the discriminating
/// path, pred is the node before it (a when d is a's neighbour). checkEdges tests the edges
/// of these four nodes only. fci/paths.hpp's min_discr_path gives d alone (udag2pag needs no
/// more); this is the same search.
std::optional<std::array<std::int32_t, 4>> min_discr_path_ends(const Pag& g, std::int32_t a, std::int32_t b,
                                                               std::int32_t c) {
    VisitMarks visited(g.n());
    for (const std::int32_t v : {a, b, c}) visited.set(v);
    std::vector<std::pair<std::int32_t, std::int32_t>> queue;  // (pred, d), breadth first
    for (const std::int32_t d : g.neighbours(a))
        if (g(d, a) == kArrow && !visited[d]) queue.emplace_back(a, d);
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const auto [pred, d] = queue[head];
        if (!g.adjacent(c, d)) return std::array<std::int32_t, 4>{d, pred, b, c};
        if (g(d, c) == kArrow && g(c, d) == kTail && g(pred, d) == kArrow) {
            visited.set(d);
            for (const std::int32_t r : g.neighbours(d))
                if (g(r, d) == kArrow && !visited[r]) queue.emplace_back(d, r);
        }
    }
    return std::nullopt;
}



/// udag2apag's R4: for each b o-* c (listed at the start) and each a with a --> c and
/// a <-* b, while b o-* c is unoriented: find a minimal discriminating path for b, test its
/// edges (check_edges); an edge removed: search again while the triangle a, b, c stands;
/// none removed: b --> c if b is in sepset(d, c), else a <-> b <-> c.
void rule4(Pag& g, OrderedSepsets& sep, Tester& tester, TripleSet& unf) {
    for (const auto& [b, c] : which_pairs(g, [&](std::int32_t i, std::int32_t j) { return g(j, i) == kCircle; })) {
        std::vector<std::int32_t> ind_a;
        for (const std::int32_t a : g.neighbours(b))
            if (g(b, a) == kArrow && g(c, a) == kTail && g(a, c) == kArrow) ind_a.push_back(a);
        for (std::size_t k = 0; k < ind_a.size() && g(c, b) == kCircle; ++k) {
            const std::int32_t a = ind_a[k];
            bool done = false;
            while (!done && g.adjacent(a, b) && g.adjacent(a, c) && g.adjacent(b, c)) {
                const auto path = min_discr_path_ends(g, a, b, c);
                if (!path) {
                    done = true;
                    continue;
                }
                std::vector<Triple> new_unf;
                const bool removed = check_edges(g, sep, tester, *path, unf, new_unf);
                for (const Triple& t : new_unf) unf.insert(t.a, t.b, t.c);
                if (removed) continue;
                if (sep.contains_either((*path)[0], (*path)[3], b)) {
                    g.set(b, c, kArrow);
                    g.set(c, b, kTail);
                } else {
                    g.set(a, b, kArrow);
                    g.set(b, c, kArrow);
                    g.set(c, b, kArrow);
                }
                done = true;
            }
        }
    }
}

}  // namespace

// pcalg's udag2apag.
void udag2apag(Pag& g, OrderedSepsets& sep, Tester& tester, TripleSet& unf, const RuleOptions& opt) {
    if (g.n_edges() == 0) return;
    const auto& r = opt.rules;
    const SepSets none;  // apply_rule reads sepsets in R4 only, which runs here instead
    Pag old(g.n());      // old_apag1 <- matrix(0, p, p)
    while (!(old == g)) {
        old = g;
        for (int k = 1; k <= 10; ++k) {
            if (!r[static_cast<std::size_t>(k - 1)]) continue;
            if (k == 4)
                rule4(g, sep, tester, unf);
            else if (k == 10)
                apply_rule10(g, unf, false);
            else
                apply_rule(k, g, none, unf);
        }
    }
}

}  // namespace cudag::fci::rfci_detail
