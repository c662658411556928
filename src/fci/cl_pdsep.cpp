// SPDX-License-Identifier: Apache-2.0
#include "fci/cl_pdsep.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "fci/cl_pyhash.hpp"

namespace cudag::fci::cl {

std::vector<std::int32_t> possible_dsep(const Pag& g, std::int32_t x, std::int32_t y,
                                        const std::vector<std::vector<char>>& reach,
                                        const std::vector<std::string>& names,
                                        const std::vector<std::int64_t>& hashes) {
    const auto n = static_cast<std::size_t>(g.n());
    std::vector<char> in(n, 0), queued(n, 0), done(n, 0);
    std::deque<std::int32_t> queue;
    // causal-learn walks set(adjacent nodes) in its hash order (node order without hashes;
    // the result depends on it only in rare cases: README, "--compat causal-learn").
    const auto nb = g.neighbours(x);
    const std::vector<std::int32_t> first =
        hashes.empty() ? std::vector<std::int32_t>(nb.begin(), nb.end()) : python_set_order(nb, hashes);
    for (const std::int32_t b : first) {
        if (b == y) continue;
        queue.push_back(b);
        queued[static_cast<std::size_t>(b)] = in[static_cast<std::size_t>(b)] = 1;
    }
    while (!queue.empty()) {
        const std::int32_t b = queue.front();
        queue.pop_front();
        const auto ub = static_cast<std::size_t>(b);
        if (!in[ub])  // existOnePathWithPossibleParents: previous[b] = the neighbours processed so far
            for (const std::int32_t r : g.neighbours(b)) {
                const auto ur = static_cast<std::size_t>(r);
                if (done[ur] && r != x && (reach[ur][static_cast<std::size_t>(x)] || reach[ur][ub])) {
                    in[ub] = 1;
                    break;
                }
            }
        done[ub] = 1;
        for (const std::int32_t c : g.neighbours(b)) {
            if (c == x || c == y || queued[static_cast<std::size_t>(c)]) continue;
            if (is_def_collider(g, x, b, c) || g.adjacent(x, c)) {
                queued[static_cast<std::size_t>(c)] = 1;
                queue.push_back(c);
            }
        }
    }
    std::vector<std::int32_t> out;
    for (std::size_t v = 0; v < n; ++v)
        if (in[v] && static_cast<std::int32_t>(v) != x && static_cast<std::int32_t>(v) != y)
            out.push_back(static_cast<std::int32_t>(v));
    std::sort(out.begin(), out.end(), [&](std::int32_t a, std::int32_t b) {
        return names[static_cast<std::size_t>(a)] > names[static_cast<std::size_t>(b)];
    });
    return out;
}

namespace {

struct Inputs {
    std::vector<std::int32_t> pd1, pd2, adj_a, adj_b;
    bool operator==(const Inputs& o) const {
        return pd1 == o.pd1 && pd2 == o.pd2 && adj_a == o.adj_a && adj_b == o.adj_b;
    }
};

struct Outcome {
    bool computed = false;
    Inputs in;
    bool removed = false;
    std::vector<std::int32_t> set;
    double pmax = -1.0;
    std::int64_t tests = 0;
    int order = 0;
};

bool within(const std::vector<std::int32_t>& sorted_adj, std::span<const std::int32_t> s) {
    for (const std::int32_t v : s)
        if (!std::binary_search(sorted_adj.begin(), sorted_adj.end(), v)) return false;
    return true;
}

/// The tests of one side (a, b) over the subsets of `pd` in causal-learn's order.
void run_side(std::int32_t a, std::int32_t b, const std::vector<std::int32_t>& pd, const Inputs& in, ci::CiTest& test,
              const ci::Decision& decision, Outcome& out) {
    const std::size_t m = pd.size();
    std::vector<std::size_t> pos;
    std::vector<std::int32_t> s;
    const std::int32_t x = std::min(a, b), y = std::max(a, b);
    for (std::size_t k = 2; k <= m; ++k) {
        pos.resize(k);
        for (std::size_t i = 0; i < k; ++i) pos[i] = i;
        bool first = true;
        const bool single = k == m;  // C(m, k) == 1: its one subset is tested
        for (;;) {
            if (!first || single) {
                s.resize(k);
                for (std::size_t i = 0; i < k; ++i) s[i] = pd[pos[i]];
                if (!within(in.adj_a, s) && !within(in.adj_b, s)) {
                    std::sort(s.begin(), s.end());
                    const double p = test.test(x, y, s).p;
                    if (!std::isfinite(p)) {
                        std::string msg = "fci: the test of variables ";
                        msg += std::to_string(x);
                        msg += " and ";
                        msg += std::to_string(y);
                        msg += " gave a non-finite p-value";
                        throw InputError(msg);
                    }
                    ++out.tests;
                    out.pmax = std::max(out.pmax, p);
                    out.order = std::max(out.order, static_cast<int>(k));
                    if (decision.independent(p)) {
                        out.removed = true;
                        out.set = s;
                        return;
                    }
                }
            }
            first = false;
            std::size_t i = k;
            while (i > 0 && pos[i - 1] == m - k + (i - 1)) --i;
            if (i == 0) break;
            ++pos[i - 1];
            for (std::size_t j = i; j < k; ++j) pos[j] = pos[j - 1] + 1;
        }
    }
}

/// Semi-directed reachability from every node of `g`.
std::vector<std::vector<char>> reachability(const Pag& g, int threads) {
    const auto n = static_cast<std::size_t>(g.n());
    std::vector<std::vector<char>> reach(n);
    parallel_for(0, static_cast<std::int64_t>(n), threads, 1, [&](std::int64_t r, int) {
        auto& seen = reach[static_cast<std::size_t>(r)];
        seen.assign(n, 0);
        std::deque<std::int32_t> queue{static_cast<std::int32_t>(r)};
        while (!queue.empty()) {
            const std::int32_t u = queue.front();
            queue.pop_front();
            for (const std::int32_t v : g.neighbours(u)) {
                const std::uint8_t at_u = g(v, u);
                if ((at_u == kTail || at_u == kCircle) && !seen[static_cast<std::size_t>(v)]) {
                    seen[static_cast<std::size_t>(v)] = 1;
                    queue.push_back(v);
                }
            }
        }
    });
    return reach;
}

}  // namespace

ClPdsepResult remove_by_possible_dsep(Pag& g, SepSetLookup& seps, Tester& tester, const std::vector<std::string>& names,
                                      const std::vector<std::int64_t>& hashes,
                                      const std::function<void(std::int64_t, std::int64_t)>& on_progress) {
    ClPdsepResult res;
    // get_graph_edges (i < j) and each Edge object's first node.
    std::vector<std::pair<std::int32_t, std::int32_t>> edges;
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (const std::int32_t j : g.neighbours(i)) {
            if (j <= i) continue;
            const bool flip = g(j, i) == kArrow && (g(i, j) == kTail || g(i, j) == kCircle);
            edges.emplace_back(flip ? j : i, flip ? i : j);
        }
    const auto total = static_cast<std::int64_t>(edges.size());
    std::vector<Outcome> outcome(edges.size());
    const ci::Decision decision = tester.decision();
    std::vector<PairMax> pmax;
    std::int64_t pos = 0;
    while (pos < total) {
        ++res.rounds;
        const auto reach = reachability(g, tester.threads());
        tester.each(total - pos, [&](std::int64_t t, ci::CiTest& test) {
            const auto k = static_cast<std::size_t>(pos + t);
            const auto [a, b] = edges[k];
            Inputs in;
            in.pd1 = possible_dsep(g, a, b, reach, names, hashes);
            in.pd2 = possible_dsep(g, b, a, reach, names, hashes);
            const auto na = g.neighbours(a), nb = g.neighbours(b);
            in.adj_a.assign(na.begin(), na.end());
            in.adj_b.assign(nb.begin(), nb.end());
            Outcome& o = outcome[k];
            if (o.computed && o.in == in) return;
            o = Outcome{};
            o.computed = true;
            o.in = std::move(in);
            run_side(a, b, o.in.pd1, o.in, test, decision, o);
            if (!o.removed) run_side(a, b, o.in.pd2, o.in, test, decision, o);
        });
        for (; pos < total;) {
            const auto k = static_cast<std::size_t>(pos++);
            const auto [a, b] = edges[k];
            Outcome& o = outcome[k];
            res.tests += o.tests;
            res.max_order = std::max(res.max_order, o.order);
            if (o.tests) pmax.push_back({std::min(a, b), std::max(a, b), o.pmax});
            if (o.removed) {
                g.remove(a, b);
                seps.add_pdsep(a, b, o.set);
                res.removed.push_back({a, b, o.set});
                break;
            }
        }
        if (on_progress) on_progress(pos, total);
    }
    tester.count(res.tests);
    std::sort(pmax.begin(), pmax.end(),
              [](const PairMax& u, const PairMax& v) { return u.i != v.i ? u.i < v.i : u.j < v.j; });
    res.pmax = std::move(pmax);  // one record per edge: each pair is tested at one place
    return res;
}

}  // namespace cudag::fci::cl
