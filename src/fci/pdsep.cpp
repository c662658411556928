// SPDX-License-Identifier: Apache-2.0
#include "fci/pdsep.hpp"

#include <algorithm>
#include <deque>
#include <limits>

#include "core/parallel.hpp"

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

namespace {

/// One edge's tests from x's side, as pcalg's inner loop runs them.
struct EdgeOutcome {
    bool tested = false;
    bool removed = false;
    std::vector<std::int32_t> set;
    double pmax = -1.0;
    std::int64_t tests = 0;
    int order = 0;
};

EdgeOutcome run_edge(std::int32_t x, std::int32_t y, const std::vector<std::int32_t>& pdsep_x,
                     const std::vector<std::int32_t>& adj_x, const PdsepOptions& opt, ci::CiTest& test,
                     const ci::Decision& decision) {
    EdgeOutcome out;
    std::vector<std::int32_t> tf;
    tf.reserve(pdsep_x.size());
    for (const std::int32_t v : pdsep_x)
        if (v != y) tf.push_back(v);
    if (opt.pdsep_max >= 0 && static_cast<std::int64_t>(tf.size()) > opt.pdsep_max) return out;
    auto adjacent = [&](std::int32_t v) { return std::binary_search(adj_x.begin(), adj_x.end(), v); };
    std::vector<std::int32_t> diff;
    for (const std::int32_t v : tf)
        if (!adjacent(v)) diff.push_back(v);
    if (diff.empty()) return out;
    out.tested = true;
    const std::int64_t limit =
        std::min<std::int64_t>(static_cast<std::int64_t>(tf.size()),
                               opt.max_level < 0 ? std::numeric_limits<std::int64_t>::max() : opt.max_level);
    auto run = [&](std::span<const std::int32_t> s) {
        const double p = test.test(x, y, s).p;
        ++out.tests;
        out.pmax = std::max(out.pmax, p);
        if (!decision.independent(p)) return false;
        out.removed = true;
        out.set.assign(s.begin(), s.end());
        return true;
    };
    for (int ord = 1; ord <= limit && !out.removed; ++ord) {
        out.order = ord;
        if (ord == 1) {
            for (const std::int32_t v : diff)
                if (run(std::span<const std::int32_t>(&v, 1))) break;
            continue;
        }
        // combn(tf, ord): lexicographic positions.
        const auto k = static_cast<std::size_t>(ord);
        std::vector<std::size_t> pos(k);
        for (std::size_t i = 0; i < k; ++i) pos[i] = i;
        std::vector<std::int32_t> s(k);
        const bool filter = static_cast<std::size_t>(ord) <= adj_x.size();
        for (;;) {
            bool inside = true;
            for (std::size_t i = 0; i < k; ++i) {
                s[i] = tf[pos[i]];
                inside = inside && adjacent(s[i]);
            }
            if (!(filter && inside) && run(s)) break;
            std::size_t i = k;
            while (i > 0 && pos[i - 1] == tf.size() - k + (i - 1)) --i;
            if (i == 0) break;
            ++pos[i - 1];
            for (std::size_t j = i; j < k; ++j) pos[j] = pos[j - 1] + 1;
        }
    }
    return out;
}

/// An outcome through Tester::each_shared (to every rank).
void put(ByteWriter& out, const EdgeOutcome& o) {
    out.put(static_cast<std::uint8_t>((o.tested ? 1 : 0) | (o.removed ? 2 : 0)));
    out.put(o.pmax);
    out.put(o.tests);
    out.put(static_cast<std::int32_t>(o.order));
    if (o.removed) out.put_vector(o.set);
}

EdgeOutcome get(ByteReader& in) {
    EdgeOutcome o;
    const auto flags = in.get<std::uint8_t>();
    o.tested = (flags & 1) != 0;
    o.removed = (flags & 2) != 0;
    o.pmax = in.get<double>();
    o.tests = in.get<std::int64_t>();
    o.order = in.get<std::int32_t>();
    if (o.removed) o.set = in.get_vector<std::int32_t>();
    return o;
}

bool fixed(const PdsepOptions& opt, std::int32_t a, std::int32_t b) {
    if (a > b) std::swap(a, b);
    return std::binary_search(opt.fixed_edges.begin(), opt.fixed_edges.end(), std::make_pair(a, b));
}

}  // namespace

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
    std::vector<std::pair<std::int32_t, std::int32_t>> tasks;
    tasks.reserve(static_cast<std::size_t>(first.back()));
    for (std::int32_t x = 0; x < n; ++x)
        for (const std::int32_t y : adj0[static_cast<std::size_t>(x)]) tasks.emplace_back(x, y);
    std::vector<EdgeOutcome> outcome(tasks.size());
    const ci::Decision decision = tester.decision();
    tester.each_shared(
        static_cast<std::int64_t>(tasks.size()),
        [&](std::int64_t t, ci::CiTest& test, ByteWriter& out) {
            const auto [x, y] = tasks[static_cast<std::size_t>(t)];
            EdgeOutcome o;
            if (!fixed(opt, x, y))
                o = run_edge(x, y, res.pdsep[static_cast<std::size_t>(x)], adj0[static_cast<std::size_t>(x)], opt, test,
                             decision);
            put(out, o);
        },
        [&](std::int64_t t, ByteReader& in) { outcome[static_cast<std::size_t>(t)] = get(in); });

    // pcalg's pass: x ascending; its adjacency lacks the edges removed at earlier nodes.
    std::vector<std::vector<std::int32_t>> gone(static_cast<std::size_t>(n));  // partners removed earlier
    std::vector<PairMax> pmax;
    for (std::int32_t x = 0; x < n; ++x) {
        const auto& a0 = adj0[static_cast<std::size_t>(x)];
        auto& lost = gone[static_cast<std::size_t>(x)];
        std::vector<EdgeOutcome> rerun;
        std::vector<std::int32_t> adj;
        if (!lost.empty()) {  // rerun x's edges against its adjacency now
            std::sort(lost.begin(), lost.end());
            std::set_difference(a0.begin(), a0.end(), lost.begin(), lost.end(), std::back_inserter(adj));
            rerun.resize(adj.size());
            tester.each_shared(
                static_cast<std::int64_t>(adj.size()),
                [&](std::int64_t k, ci::CiTest& test, ByteWriter& out) {
                    const std::int32_t y = adj[static_cast<std::size_t>(k)];
                    EdgeOutcome o;
                    if (!fixed(opt, x, y))
                        o = run_edge(x, y, res.pdsep[static_cast<std::size_t>(x)], adj, opt, test, decision);
                    put(out, o);
                },
                [&](std::int64_t k, ByteReader& in) { rerun[static_cast<std::size_t>(k)] = get(in); });
        }
        const std::size_t m = lost.empty() ? a0.size() : adj.size();
        for (std::size_t k = 0; k < m; ++k) {
            const std::int32_t y = lost.empty() ? a0[k] : adj[k];
            EdgeOutcome& o =
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
        if (opt.on_progress) opt.on_progress(x + 1, n);
    }
    tester.count(res.tests);
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
