// SPDX-License-Identifier: Apache-2.0
// causal-learn's ruleR5-R7 and rule8-10 (fci/cl_rules.hpp).
#include <deque>
#include <utility>
#include <vector>

#include "fci/cl_pyhash.hpp"
#include "fci/cl_rules.hpp"

namespace cudag::fci::cl {

namespace {

bool uncovered(const Pag& g, const std::vector<std::int32_t>& path) {
    for (std::size_t i = 0; i + 2 < path.size(); ++i)
        if (g.adjacent(path[i], path[i + 2])) return false;
    return true;
}

bool both_circles(const Pag& g, std::int32_t u, std::int32_t v) { return g(u, v) == kCircle && g(v, u) == kCircle; }

/// GetUncoveredCirclePath(from, to, exclude = {ex1, ex2}) as the Python generator runs: it
/// starts at the first next() and resumes after each path it yields, reading the graph as
/// it is then (ruleR5 orients between two paths).
class CirclePaths {
public:
    CirclePaths(std::int32_t from, std::int32_t to, std::int32_t ex1, std::int32_t ex2)
        : from_(from), to_(to), ex1_(ex1), ex2_(ex2) {}

    bool next(const Pag& g, std::vector<std::int32_t>& out) {
        if (!started_) {
            started_ = true;
            seen_.assign(static_cast<std::size_t>(g.n()), 0);
            expand(g, from_, {from_});
        } else if (pending_) {
            pending_ = false;
            expand(g, pending_node_, pending_path_);
        }
        while (!queue_.empty()) {
            auto [t, path] = std::move(queue_.front());
            queue_.pop_front();
            if (t == to_ && uncovered(g, path)) {
                pending_ = true;
                pending_node_ = t;
                pending_path_ = path;
                out = std::move(path);
                return true;
            }
            expand(g, t, path);
        }
        return false;
    }

private:
    bool excluded(std::int32_t v) const { return v == ex1_ || v == ex2_; }
    void expand(const Pag& g, std::int32_t t, const std::vector<std::int32_t>& path) {
        for (const std::int32_t u : g.neighbours(t)) {
            if (excluded(u) || !both_circles(g, t, u) || seen_[static_cast<std::size_t>(u)]) continue;
            seen_[static_cast<std::size_t>(u)] = 1;
            std::vector<std::int32_t> p = path;
            p.push_back(u);
            queue_.emplace_back(u, std::move(p));
        }
    }
    std::int32_t from_, to_, ex1_, ex2_;
    bool started_ = false, pending_ = false;
    std::int32_t pending_node_ = -1;
    std::vector<std::int32_t> pending_path_;
    std::vector<char> seen_;
    std::deque<std::pair<std::int32_t, std::vector<std::int32_t>>> queue_;
};

/// is_possible_parent(parent, child): adjacent, no arrowhead at the parent.
bool possible_parent(const Pag& g, std::int32_t parent, std::int32_t child) {
    return parent != child && g.adjacent(parent, child) && g(child, parent) != kArrow;
}

/// existsUncoveredPdPath(from, next, to).
bool uncovered_pd_path(const Pag& g, std::int32_t from, std::int32_t next, std::int32_t to) {
    std::vector<char> seen(static_cast<std::size_t>(g.n()), 0);
    seen[static_cast<std::size_t>(from)] = seen[static_cast<std::size_t>(next)] = 1;
    std::deque<std::pair<std::int32_t, std::vector<std::int32_t>>> queue;
    auto expand = [&](std::int32_t t, const std::vector<std::int32_t>& path) {
        for (const std::int32_t u : g.neighbours(t)) {
            const std::uint8_t at_t = g(u, t), at_u = g(t, u);
            const bool pd = (at_t == kTail || at_t == kCircle) && (at_u == kArrow || at_u == kCircle);
            if (!pd || seen[static_cast<std::size_t>(u)]) continue;
            seen[static_cast<std::size_t>(u)] = 1;
            std::vector<std::int32_t> p = path;
            p.push_back(u);
            queue.emplace_back(u, std::move(p));
        }
    };
    expand(next, {from, next});
    while (!queue.empty()) {
        auto [t, path] = std::move(queue.front());
        queue.pop_front();
        if (t == to && uncovered(g, path)) return true;
        expand(t, path);
    }
    return false;
}

}  // namespace

bool rule_r5(Pag& g, bool flag) {
    for (std::int32_t b = 0; b < g.n(); ++b) {
        for (const std::int32_t a : into(g, b, kCircle)) {
            if (g(b, a) != kCircle) continue;
            std::vector<std::int32_t> a_list, b_list;
            for (const std::int32_t v : g.neighbours(a))
                if (v != a && v != b && both_circles(g, a, v)) a_list.push_back(v);
            for (const std::int32_t v : g.neighbours(b))
                if (v != a && v != b && both_circles(g, b, v)) b_list.push_back(v);
            std::vector<CirclePaths> found;
            for (const std::int32_t c : a_list) {
                if (g.adjacent(b, c)) continue;
                for (const std::int32_t d : b_list)
                    if (!g.adjacent(a, d)) found.emplace_back(c, d, a, b);
            }
            std::vector<std::int32_t> path;
            for (CirclePaths& paths : found)
                while (paths.next(g, path)) {
                    flag = true;
                    put_edge(g, a, b, kTail, kTail);
                    put_edge(g, a, path.front(), kTail, kTail);
                    put_edge(g, b, path.back(), kTail, kTail);
                    for (std::size_t i = 0; i + 1 < path.size(); ++i) put_edge(g, path[i], path[i + 1], kTail, kTail);
                }
        }
    }
    return flag;
}

bool rule_r6(Pag& g, bool flag) {
    for (std::int32_t b = 0; b < g.n(); ++b) {
        bool exist = false;
        for (const std::int32_t a : into(g, b, kTail))
            if (g(b, a) == kTail) exist = true;
        if (!exist) continue;
        for (const std::int32_t c : into(g, b, kCircle)) {
            flag = true;
            put_edge(g, b, c, kTail, g(b, c));
        }
    }
    return flag;
}

bool rule_r7(Pag& g, bool flag) {
    for (std::int32_t b = 0; b < g.n(); ++b) {
        const auto circles = into(g, b, kCircle);
        std::vector<std::int32_t> a_list;
        for (const std::int32_t v : circles)
            if (g(b, v) == kTail) a_list.push_back(v);
        for (const std::int32_t c : circles)
            for (const std::int32_t a : a_list) {
                if (a == c || g.adjacent(a, c)) continue;
                flag = true;
                put_edge(g, b, c, kTail, g(b, c));
            }
    }
    return flag;
}

bool rule8(Pag& g, bool flag) {
    for (std::int32_t b = 0; b < g.n(); ++b) {
        const auto nb = g.neighbours(b);
        const std::vector<std::int32_t> adj(nb.begin(), nb.end());
        for (std::size_t i = 0; i < adj.size(); ++i)
            for (std::size_t j = i + 1; j < adj.size(); ++j) {
                const std::int32_t a = adj[i], c = adj[j];
                const bool ab = (g(a, b) == kArrow || g(a, b) == kCircle) && g(b, a) == kTail;
                if (ab && g(b, c) == kArrow && g(c, b) == kTail && g.adjacent(a, c) && g(a, c) == kArrow &&
                    g(c, a) == kCircle) {
                    put_edge(g, a, c, kTail, kArrow);
                    flag = true;
                }
            }
    }
    return flag;
}

bool rule9(Pag& g, bool flag) {
    for (std::int32_t c = 0; c < g.n(); ++c)
        for (const std::int32_t a : into(g, c, kArrow)) {
            if (g(c, a) != kCircle) continue;
            std::vector<std::int32_t> children;  // a Python set; the rule's outcome does not depend on its order
            for (const std::int32_t v : g.neighbours(a))
                if (v != c && possible_parent(g, a, v)) children.push_back(v);
            for (const std::int32_t b : children) {
                if (g.adjacent(b, c)) continue;
                if (uncovered_pd_path(g, a, b, c)) {
                    put_edge(g, a, c, kTail, kArrow);
                    flag = true;
                    break;
                }
            }
        }
    return flag;
}

bool rule10(Pag& g, const std::vector<std::int64_t>& hashes, bool flag) {
    for (std::int32_t c = 0; c < g.n(); ++c) {
        const auto arrows = into(g, c, kArrow);
        if (arrows.size() < 2) continue;
        std::vector<std::int32_t> a_nodes;
        for (const std::int32_t a : arrows)
            if (g(c, a) == kCircle) a_nodes.push_back(a);
        for (const std::int32_t a : a_nodes) {
            // A Python set, iterated by combinations() in its hash order (node order without hashes).
            std::vector<std::int32_t> children;
            for (const std::int32_t v : g.neighbours(a))
                if (v != c && possible_parent(g, a, v)) children.push_back(v);
            if (!hashes.empty()) children = python_set_order(children, hashes);
            if (children.size() < 2) continue;
            for (std::size_t i = 0; i < arrows.size(); ++i)
                for (std::size_t j = i + 1; j < arrows.size(); ++j) {
                    const std::int32_t b = arrows[i], d = arrows[j];
                    if (g(c, b) != kTail || g(c, d) != kTail) continue;
                    bool done = false;
                    for (std::size_t u = 0; u < children.size() && !done; ++u)
                        for (std::size_t v = u + 1; v < children.size() && !done; ++v) {
                            const std::int32_t one = children[u], two = children[v];
                            if (!semi_directed_path(g, one, b) || !semi_directed_path(g, two, d)) continue;
                            if (!g.adjacent(one, two)) {
                                put_edge(g, a, c, kTail, kArrow);
                                flag = true;
                                done = true;
                            }
                        }
                }
        }
    }
    return flag;
}

}  // namespace cudag::fci::cl
