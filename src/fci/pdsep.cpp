// SPDX-License-Identifier: Apache-2.0
#include "fci/pdsep.hpp"

#include <algorithm>
#include <deque>
#include <limits>

#include "core/parallel.hpp"
#include "fci/pdsep_tests.hpp"

namespace cudag::fci {

Pag pdsep_colliders(const Graph& g, const SepSets& sepsets) {
    Pag amat = Pag::circles(g);
    const auto n = static_cast<std::int32_t>(g.n());
    for (std::int32_t y = 0; y < n; ++y) {
        const auto nb = g.neighbours(y);
        for (const std::int32_t x : nb)
            for (const std::int32_t z : nb)
                if (z != x && !g.has(x, z) && !sepsets.contains(x, z, y)) {
                    amat.set(x, y, kArrow);
                    amat.set(z, y, kArrow);
                }
    }
    return amat;
}

std::vector<std::int32_t> possible_dsep(const Pag& g, std::int32_t x) {
    // Breadth first over directed edges (pred -> a): each is expanded once, so the set
    // reached does not depend on the order (qreach's A. bookkeeping).
    const auto n = static_cast<std::size_t>(g.n());
    std::vector<char> in(n, 0);
    std::vector<std::vector<char>> used(n);  // used[a][k]: edge a -> neighbours(a)[k] queued
    auto mark_used = [&](std::int32_t a, std::int32_t b) {
        auto& u = used[static_cast<std::size_t>(a)];
        if (u.empty()) u.assign(g.neighbours(a).size(), 0);
        const auto nb = g.neighbours(a);
        const auto k = static_cast<std::size_t>(std::lower_bound(nb.begin(), nb.end(), b) - nb.begin());
        if (u[k]) return false;
        u[k] = 1;
        return true;
    };
    std::deque<std::pair<std::int32_t, std::int32_t>> queue;
    for (const std::int32_t b : g.neighbours(x)) {
        mark_used(x, b);
        queue.emplace_back(x, b);
        in[static_cast<std::size_t>(b)] = 1;
    }
    while (!queue.empty()) {
        const auto [pred, a] = queue.front();
        queue.pop_front();
        const std::uint8_t pa = g(pred, a);
        for (const std::int32_t b : g.neighbours(a)) {
            if (b == pred) continue;
            const bool legal = g.adjacent(pred, b) || (pa == kArrow && g(b, a) == kArrow);
            if (!legal || !mark_used(a, b)) continue;
            queue.emplace_back(a, b);
            in[static_cast<std::size_t>(b)] = 1;
        }
    }
    std::vector<std::int32_t> out;
    for (std::size_t v = 0; v < n; ++v)
        if (in[v] && static_cast<std::int32_t>(v) != x) out.push_back(static_cast<std::int32_t>(v));
    return out;
}

PdsepResult pdsep(Graph& g, SepSets& sepsets, Tester& tester, const PdsepOptions& opt) {
    PdsepResult res;
    const auto n = static_cast<std::int32_t>(g.n());
    res.pdsep.resize(static_cast<std::size_t>(n));
    if (g.n_edges() == 0) return res;
    const Pag amat = pdsep_colliders(g, sepsets);
    parallel_for(0, n, tester.threads(), 1, [&](std::int64_t x, int) {
        res.pdsep[static_cast<std::size_t>(x)] = possible_dsep(amat, static_cast<std::int32_t>(x));
    });

    // Every directed edge (x, y) against x's starting adjacency, in parallel.
    std::vector<std::vector<std::int32_t>> adj0(static_cast<std::size_t>(n));
    std::vector<std::int64_t> first(static_cast<std::size_t>(n) + 1, 0);
    for (std::int32_t x = 0; x < n; ++x) {
        adj0[static_cast<std::size_t>(x)] = g.neighbours(x);
        first[static_cast<std::size_t>(x) + 1] =
            first[static_cast<std::size_t>(x)] + static_cast<std::int64_t>(adj0[static_cast<std::size_t>(x)].size());
    }
    std::vector<detail::EdgeJob> jobs;
    jobs.reserve(static_cast<std::size_t>(first.back()));
    for (std::int32_t x = 0; x < n; ++x)
        for (const std::int32_t y : adj0[static_cast<std::size_t>(x)])
            jobs.push_back({x, y, &res.pdsep[static_cast<std::size_t>(x)], &adj0[static_cast<std::size_t>(x)]});
    std::vector<detail::EdgeOutcome> outcome =
        detail::test_edges(jobs, opt, tester, [&](std::int64_t decided, std::int64_t total, std::int64_t tests) {
            if (opt.on_progress) opt.on_progress("edges decided", decided, total, tests);
        });

    // pcalg's pass: x ascending; its adjacency lacks the edges removed at earlier nodes.
    std::vector<std::vector<std::int32_t>> gone(static_cast<std::size_t>(n));  // partners removed earlier
    std::vector<PairMax> pmax;
    for (std::int32_t x = 0; x < n; ++x) {
        const auto& a0 = adj0[static_cast<std::size_t>(x)];
        auto& lost = gone[static_cast<std::size_t>(x)];
        std::vector<detail::EdgeOutcome> rerun;
        std::vector<std::int32_t> adj;
        if (!lost.empty()) {  // rerun x's edges against its adjacency now
            std::sort(lost.begin(), lost.end());
            std::set_difference(a0.begin(), a0.end(), lost.begin(), lost.end(), std::back_inserter(adj));
            std::vector<detail::EdgeJob> again;
            for (const std::int32_t y : adj) again.push_back({x, y, &res.pdsep[static_cast<std::size_t>(x)], &adj});
            rerun = detail::test_edges(again, opt, tester, {});
        }
        const std::size_t m = lost.empty() ? a0.size() : adj.size();
        for (std::size_t k = 0; k < m; ++k) {
            const std::int32_t y = lost.empty() ? a0[k] : adj[k];
            detail::EdgeOutcome& o =
                lost.empty() ? outcome[static_cast<std::size_t>(first[static_cast<std::size_t>(x)]) + k] : rerun[k];
            if (!o.tested) continue;
            res.tests += o.tests;
            res.max_order = std::max(res.max_order, o.order);
            pmax.push_back({std::min(x, y), std::max(x, y), o.pmax});
            if (o.removed) {
                g.remove(x, y);
                gone[static_cast<std::size_t>(y)].push_back(x);
                res.removed.push_back({std::min(x, y), std::max(x, y), std::move(o.set)});
            }
        }
        if (opt.on_progress) opt.on_progress("nodes of pcalg's pass", x + 1, n, -1);
    }
    // A pair's largest p over both sides.
    std::sort(pmax.begin(), pmax.end(), [](const PairMax& u, const PairMax& v) {
        return u.i != v.i ? u.i < v.i : u.j != v.j ? u.j < v.j : u.p < v.p;
    });
    for (const PairMax& pm : pmax) {
        if (!res.pmax.empty() && res.pmax.back().i == pm.i && res.pmax.back().j == pm.j)
            res.pmax.back().p = std::max(res.pmax.back().p, pm.p);
        else
            res.pmax.push_back(pm);
    }
    sepsets = update_sepsets(sepsets, res.removed);
    return res;
}

}  // namespace cudag::fci
