// SPDX-License-Identifier: Apache-2.0
#include "fci/cl_graph.hpp"

#include <algorithm>
#include <deque>

namespace cudag::fci::cl {

std::vector<std::int32_t> into(const Pag& g, std::int32_t b, std::uint8_t mark) {
    std::vector<std::int32_t> out;
    for (const std::int32_t j : g.neighbours(b))
        if (g(j, b) == mark) out.push_back(j);
    return out;
}

std::vector<std::int32_t> out_of(const Pag& g, std::int32_t b, std::uint8_t mark) {
    std::vector<std::int32_t> out;
    const auto nb = g.neighbours(b);
    const auto mk = g.marks(b);
    for (std::size_t k = 0; k < nb.size(); ++k)
        if (mk[k] == mark) out.push_back(nb[k]);
    return out;
}

void put_edge(Pag& g, std::int32_t a, std::int32_t b, std::uint8_t at_a, std::uint8_t at_b) {
    if (at_a == kCircle && at_b == kTail) {  // GeneralGraph.add_edge returns False: the edge is gone
        g.remove(a, b);
        return;
    }
    g.set(a, b, at_b);
    g.set(b, a, at_a);
}

void orient_bk(Pag& g, const Knowledge* k) {
    if (!k) return;
    for (std::int32_t i = 0; i < g.n(); ++i) {
        const std::vector<std::int32_t> nb(g.neighbours(i).begin(), g.neighbours(i).end());
        for (const std::int32_t j : nb) {
            if (j <= i) continue;
            const bool j_to_i = k->forbidden(i, j)   ? true
                                : k->forbidden(j, i) ? false
                                : k->required(i, j)  ? false
                                                     : k->required(j, i);
            const bool i_to_j = !j_to_i && (k->forbidden(j, i) || k->required(i, j));
            if (!j_to_i && !i_to_j) continue;
            const std::int32_t from = j_to_i ? j : i, to = j_to_i ? i : j;
            g.set(from, to, kArrow);  // add_directed_edge(from, to)
            g.set(to, from, kTail);
        }
    }
}

bool semi_directed_path(const Pag& g, std::int32_t from, std::int32_t to) {
    std::vector<char> seen(static_cast<std::size_t>(g.n()), 0);
    std::deque<std::int32_t> queue;
    auto expand = [&](std::int32_t u) {
        const auto nb = g.neighbours(u);
        for (const std::int32_t v : nb) {
            const std::uint8_t at_u = g(v, u);
            if ((at_u == kTail || at_u == kCircle) && !seen[static_cast<std::size_t>(v)]) {
                seen[static_cast<std::size_t>(v)] = 1;
                queue.push_back(v);
            }
        }
    };
    expand(from);
    while (!queue.empty()) {
        const std::int32_t t = queue.front();
        queue.pop_front();
        if (t == to) return true;
        expand(t);
    }
    return false;
}

bool SepSetLookup::contains(std::int32_t i, std::int32_t j, std::int32_t k) const {
    const auto it = pd_.find({i, j});
    if (it != pd_.end()) return std::find(it->second.begin(), it->second.end(), k) != it->second.end();
    return !skeleton_.has(i, j) && sets_.contains(i, j, k);
}

}  // namespace cudag::fci::cl
