// SPDX-License-Identifier: Apache-2.0
// causal-learn's rule0, R1-R3 and R4B (fci/cl_rules.hpp).
#include <algorithm>
#include <deque>
#include <vector>

#include "core/error.hpp"
#include "fci/cl_rules.hpp"

namespace cudag::fci::cl {

namespace {

/// ChoiceGenerator(len, 2): pairs (i, j), i < j, lexicographic.
template <class Fn>
void each_pair(const std::vector<std::int32_t>& v, Fn&& fn) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = i + 1; j < v.size(); ++j) fn(v[i], v[j]);
}

std::vector<std::int32_t> nbrs(const Pag& g, std::int32_t b) {
    const auto nb = g.neighbours(b);
    return {nb.begin(), nb.end()};
}

bool rule_r1(Pag& g, std::int32_t a, std::int32_t b, std::int32_t c, const Knowledge* bk, bool flag) {
    if (g.adjacent(a, c)) return flag;
    if (g(a, b) == kArrow && g(c, b) == kCircle) {
        if (!arrow_allowed(g, b, c, bk)) return flag;
        put_edge(g, c, b, kArrow, kTail);
        flag = true;
    }
    return flag;
}

bool rule_r2(Pag& g, std::int32_t a, std::int32_t b, std::int32_t c, const Knowledge* bk, bool flag) {
    if (g.adjacent(a, c) && g(a, c) == kCircle) {
        if (g(a, b) == kArrow && g(b, c) == kArrow && (g(b, a) == kTail || g(c, b) == kTail)) {
            if (!arrow_allowed(g, a, c, bk)) return flag;
            put_edge(g, a, c, g(c, a), kArrow);
            flag = true;
        }
    }
    return flag;
}

}  // namespace

void rule0(Pag& g, const SepSetLookup& seps, const Knowledge* bk) {
    orient_bk(g, bk);
    for (std::int32_t b = 0; b < g.n(); ++b) {
        const auto adj = nbrs(g, b);
        each_pair(adj, [&](std::int32_t a, std::int32_t c) {
            if (g.adjacent(a, c) || is_def_collider(g, a, b, c)) return;
            if (!seps.has(a, c) || seps.contains(a, c, b)) return;
            if (!arrow_allowed(g, a, b, bk) || !arrow_allowed(g, c, b, bk)) return;
            put_edge(g, a, b, g(b, a), kArrow);
            put_edge(g, c, b, g(b, c), kArrow);
        });
    }
}

bool rules_r1_r2(Pag& g, const Knowledge* bk, bool flag) {
    for (std::int32_t b = 0; b < g.n(); ++b) {
        const auto adj = nbrs(g, b);
        each_pair(adj, [&](std::int32_t a, std::int32_t c) {
            flag = rule_r1(g, a, b, c, bk, flag);
            flag = rule_r1(g, c, b, a, bk, flag);
            flag = rule_r2(g, a, b, c, bk, flag);
            flag = rule_r2(g, c, b, a, bk, flag);
        });
    }
    return flag;
}

bool rule_r3(Pag& g, const SepSetLookup& seps, const Knowledge* bk, bool flag) {
    for (std::int32_t b = 0; b < g.n(); ++b) {
        const auto arrows = into(g, b, kArrow);
        const auto circles = into(g, b, kCircle);
        for (const std::int32_t d : circles) {
            if (arrows.size() < 2) continue;
            each_pair(arrows, [&](std::int32_t a, std::int32_t c) {
                if (g.adjacent(a, c)) return;
                if (!g.adjacent(a, d) || !g.adjacent(c, d)) return;
                if (!seps.contains(a, c, d)) return;  // isNoncollider
                if (g(a, d) != kCircle || g(c, d) != kCircle) return;
                if (!arrow_allowed(g, d, b, bk)) return;
                put_edge(g, d, b, g(b, d), kArrow);
                flag = true;
            });
        }
    }
    return flag;
}

namespace {

/// doDdpOrientation; returns whether it oriented (flag then true).
bool do_ddp_orientation(Pag& g, std::int32_t d, std::int32_t a, std::int32_t b, std::int32_t c,
                        const std::vector<std::int32_t>& previous, DdpContext& ctx, bool& flag) {
    if (g.adjacent(d, c)) throw Error("fci (causal-learn): doDdpOrientation on adjacent nodes");
    std::vector<std::int32_t> path;  // getPath: previous[d], previous[previous[d]], ... (ends with b)
    for (std::int32_t p = previous[static_cast<std::size_t>(d)]; p >= 0; p = previous[static_cast<std::size_t>(p)])
        path.push_back(p);
    const std::int32_t x = std::min(d, c), y = std::max(d, c);
    std::vector<std::int32_t> s1 = path;
    std::sort(s1.begin(), s1.end());
    bool ind = ctx.tester.independent(ctx.tester.p_value(x, y, s1));
    std::vector<std::int32_t> s2;
    for (const std::int32_t v : s1)
        if (v != b) s2.push_back(v);
    const bool ind2 = ctx.tester.independent(ctx.tester.p_value(x, y, s2));
    ctx.tests += 2;
    if (!ind && !ind2) {
        if (!ctx.seps.has(d, c)) return false;
        ind = ctx.seps.contains(d, c, b);
    }
    if (ind) {
        put_edge(g, c, b, g(b, c), kTail);
        flag = true;
        return true;
    }
    if (!arrow_allowed(g, a, b, ctx.bk) || !arrow_allowed(g, c, b, ctx.bk)) return false;
    put_edge(g, a, b, g(b, a), kArrow);
    put_edge(g, c, b, g(b, c), kArrow);
    flag = true;
    return true;
}

bool ddp_orient(Pag& g, std::int32_t a, std::int32_t b, std::int32_t c, DdpContext& ctx, bool flag) {
    const auto n = static_cast<std::size_t>(g.n());
    std::vector<char> seen(n, 0);
    std::vector<std::int32_t> previous(n, -1);
    std::vector<char> c_parent(n, 0);
    for (const std::int32_t v : g.neighbours(c))
        if (is_parent_of(g, v, c)) c_parent[static_cast<std::size_t>(v)] = 1;
    std::deque<std::int32_t> queue{a};
    seen[static_cast<std::size_t>(a)] = seen[static_cast<std::size_t>(b)] = 1;
    previous[static_cast<std::size_t>(a)] = b;
    std::int32_t e = -1;
    int distance = 0;
    const int limit = ctx.max_path_length == -1 ? 1000 : ctx.max_path_length;
    while (!queue.empty()) {
        const std::int32_t t = queue.front();
        queue.pop_front();
        if (e < 0 || e == t) {
            e = t;
            if (++distance > limit) return flag;
        }
        for (const std::int32_t d : into(g, t, kArrow)) {
            const auto ud = static_cast<std::size_t>(d);
            if (seen[ud]) continue;
            previous[ud] = t;
            const std::int32_t p = previous[static_cast<std::size_t>(t)];
            if (p < 0 || !g.adjacent(d, t) || !g.adjacent(t, p) || !is_def_collider(g, d, t, p)) continue;
            if (!g.adjacent(d, c) && d != c && do_ddp_orientation(g, d, a, b, c, previous, ctx, flag)) return flag;
            if (c_parent[ud]) {
                queue.push_back(d);
                seen[ud] = 1;
            }
        }
    }
    return flag;
}

}  // namespace

bool rule_r4b(Pag& g, DdpContext& ctx, bool flag) {
    for (std::int32_t b = 0; b < g.n(); ++b) {
        const auto poss_a = out_of(g, b, kArrow);
        const auto poss_c = into(g, b, kCircle);
        for (const std::int32_t a : poss_a)
            for (const std::int32_t c : poss_c) {
                if (!is_parent_of(g, a, c)) continue;
                if (g(b, c) != kArrow) continue;
                flag = ddp_orient(g, a, b, c, ctx, flag);
            }
    }
    return flag;
}

}  // namespace cudag::fci::cl
