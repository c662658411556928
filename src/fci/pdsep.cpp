// SPDX-License-Identifier: Apache-2.0
#include "fci/pdsep.hpp"

#include <algorithm>
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

namespace {

/// The collider graph flat, for many qreach walks: CSR neighbour lists; per entry e = (a,
/// k), the mark at nb[e] of a - nb[e] (`mark`) and the entry of a in nb[e]'s list (`back`),
/// so the mark at a of that edge is mark[back[e]].
struct QreachGraph {
    std::vector<std::int64_t> start;
    std::vector<std::int32_t> nb;
    std::vector<std::uint8_t> mark;
    std::vector<std::int64_t> back;

    explicit QreachGraph(const Pag& g) {
        const auto n = static_cast<std::size_t>(g.n());
        start.assign(n + 1, 0);
        for (std::size_t a = 0; a < n; ++a)
            start[a + 1] = start[a] + static_cast<std::int64_t>(g.neighbours(static_cast<std::int32_t>(a)).size());
        nb.resize(static_cast<std::size_t>(start[n]));
        mark.resize(nb.size());
        back.resize(nb.size());
        for (std::size_t a = 0; a < n; ++a) {
            const auto ns = g.neighbours(static_cast<std::int32_t>(a));
            const auto ms = g.marks(static_cast<std::int32_t>(a));
            std::copy(ns.begin(), ns.end(), nb.begin() + start[a]);
            std::copy(ms.begin(), ms.end(), mark.begin() + start[a]);
        }
        for (std::size_t a = 0; a < n; ++a)
            for (std::int64_t e = start[a]; e < start[a + 1]; ++e) {
                const auto b = static_cast<std::size_t>(nb[static_cast<std::size_t>(e)]);
                const auto it =
                    std::lower_bound(nb.begin() + start[b], nb.begin() + start[b + 1], static_cast<std::int32_t>(a));
                back[static_cast<std::size_t>(e)] = it - nb.begin();
            }
    }
    bool adjacent(std::int32_t a, std::int32_t b) const {
        const auto u = static_cast<std::size_t>(a);
        return std::binary_search(nb.begin() + start[u], nb.begin() + start[u + 1], b);
    }
};

/// One worker's marks for qreach walks, stamped per walk (never cleared).
struct QreachScratch {
    std::vector<std::int32_t> used;  ///< per entry: the walk that queued the directed edge
    std::vector<std::int32_t> in;    ///< per node: the walk that reached it
    std::vector<std::int64_t> queue;
    std::int32_t walk = 0;
};

/// qreach(x) as a breadth-first walk over directed edges (entries): each is expanded once,
/// so the set reached does not depend on the order (qreach's A. bookkeeping).
std::vector<std::int32_t> qreach(const QreachGraph& g, std::int32_t x, QreachScratch& w) {
    if (w.used.size() != g.nb.size()) w.used.assign(g.nb.size(), 0);
    if (w.in.size() + 1 != g.start.size()) w.in.assign(g.start.size() - 1, 0);
    const std::int32_t id = ++w.walk;
    std::vector<std::int32_t> out;
    w.queue.clear();
    const auto ux = static_cast<std::size_t>(x);
    for (std::int64_t e = g.start[ux]; e < g.start[ux + 1]; ++e) {
        w.used[static_cast<std::size_t>(e)] = id;
        w.queue.push_back(e);
        const std::int32_t b = g.nb[static_cast<std::size_t>(e)];
        if (w.in[static_cast<std::size_t>(b)] != id) {
            w.in[static_cast<std::size_t>(b)] = id;
            out.push_back(b);
        }
    }
    for (std::size_t head = 0; head < w.queue.size(); ++head) {
        const auto e = static_cast<std::size_t>(w.queue[head]);  // pred -> a
        const std::int32_t a = g.nb[e];
        const std::int32_t pred = g.nb[static_cast<std::size_t>(g.back[e])];
        const bool arrow_at_a = g.mark[e] == kArrow;
        const auto ua = static_cast<std::size_t>(a);
        for (std::int64_t f = g.start[ua]; f < g.start[ua + 1]; ++f) {  // a -> b
            const auto uf = static_cast<std::size_t>(f);
            const std::int32_t b = g.nb[uf];
            if (b == pred || w.used[uf] == id) continue;
            const bool collider = arrow_at_a && g.mark[static_cast<std::size_t>(g.back[uf])] == kArrow;
            if (!collider && !g.adjacent(pred, b)) continue;
            w.used[uf] = id;
            w.queue.push_back(f);
            if (w.in[static_cast<std::size_t>(b)] != id) {
                w.in[static_cast<std::size_t>(b)] = id;
                out.push_back(b);
            }
        }
    }
    std::erase(out, x);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

std::vector<std::int32_t> possible_dsep(const Pag& g, std::int32_t x) {
    QreachScratch w;
    return qreach(QreachGraph(g), x, w);
}

PdsepResult pdsep(Graph& g, SepSets& sepsets, Tester& tester, const PdsepOptions& opt) {
    PdsepResult res;
    const auto n = static_cast<std::int32_t>(g.n());
    res.pdsep.resize(static_cast<std::size_t>(n));
    if (g.n_edges() == 0) return res;
    const Pag amat = pdsep_colliders(g, sepsets);
    const QreachGraph qg(amat);
    std::vector<QreachScratch> scratch(static_cast<std::size_t>(tester.threads()));
    parallel_for(0, n, tester.threads(), 1, [&](std::int64_t x, int w) {
        res.pdsep[static_cast<std::size_t>(x)] =
            qreach(qg, static_cast<std::int32_t>(x), scratch[static_cast<std::size_t>(w)]);
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
