// SPDX-License-Identifier: Apache-2.0
#include "fci/paths.hpp"

#include <algorithm>
#include <deque>

#include "core/error.hpp"

namespace cudag::fci {

namespace {
bool circle_or_arrow(std::uint8_t m) { return m == kCircle || m == kArrow; }
bool circle_or_tail(std::uint8_t m) { return m == kCircle || m == kTail; }
/// x (o-)--(o>) y: the edge can be oriented x --> y.
bool pd_edge(const Pag& g, std::int32_t x, std::int32_t y) {
    return circle_or_arrow(g(x, y)) && circle_or_tail(g(y, x));
}

/// No two nodes two apart on `path` are adjacent.
bool uncovered(const Pag& g, const std::vector<std::int32_t>& path) {
    for (std::size_t l = 0; l + 2 < path.size(); ++l)
        if (g.adjacent(path[l], path[l + 2])) return false;
    return true;
}
}  // namespace

bool faithful(std::span<const std::int32_t> cp, const TripleSet& unf) {
    // pcalg's loop `for (l in 0:(n-1))` indexes i1[l] with l = 0 first, an empty index in R:
    // it checks the triples starting at positions 1..n-1 (1-based) and never the one starting
    // at the last node (cp[n], cp[1], cp[2]). cudag checks the same n - 1 triples.
    const std::size_t n = cp.size();
    for (std::size_t l = 0; l + 1 < n; ++l)
        if (unf.contains_either(cp[l], cp[(l + 1) % n], cp[(l + 2) % n])) return false;
    return true;
}

namespace {
struct VisitStore {
    std::vector<std::uint32_t> marks;
    std::uint32_t stamp = 0;
    bool busy = false;
};
thread_local VisitStore visit_store;
}  // namespace

VisitMarks::VisitMarks(std::int32_t n) {
    VisitStore& s = visit_store;
    CUDAG_ASSERT(!s.busy);
    s.busy = true;
    if (s.marks.size() < static_cast<std::size_t>(n)) s.marks.resize(static_cast<std::size_t>(n), 0);
    if (++s.stamp == 0) {  // wrapped: clear once
        std::fill(s.marks.begin(), s.marks.end(), 0u);
        s.stamp = 1;
    }
    marks_ = s.marks.data();
    stamp_ = s.stamp;
}

VisitMarks::~VisitMarks() { visit_store.busy = false; }

std::optional<std::int32_t> min_discr_path(const Pag& g, std::int32_t a, std::int32_t b, std::int32_t c) {
    VisitMarks visited(g.n());
    for (const std::int32_t v : {a, b, c}) visited.set(v);
    // pcalg queues paths but only ever uses their last two nodes (pred, d).
    std::deque<std::pair<std::int32_t, std::int32_t>> queue;
    for (const std::int32_t d : g.neighbours(a))
        if (g(d, a) == kArrow && !visited[d]) queue.emplace_back(a, d);
    while (!queue.empty()) {
        const auto [pred, d] = queue.front();
        if (!g.adjacent(c, d)) return d;
        queue.pop_front();
        if (g(d, c) == kArrow && g(c, d) == kTail && g(pred, d) == kArrow) {
            visited.set(d);
            for (const std::int32_t r : g.neighbours(d))
                if (g(r, d) == kArrow && !visited[r]) queue.emplace_back(d, r);
        }
    }
    return std::nullopt;
}

std::vector<std::int32_t> min_uncov_pd_path(const Pag& g, std::int32_t a, std::int32_t b, std::int32_t c,
                                            const TripleSet& unf) {
    if (pd_edge(g, b, c) && g(c, a) == kNone) {
        std::vector<std::int32_t> path{a, b, c};
        if (unf.empty() || faithful(path, unf)) return path;
    }
    VisitMarks visited(g.n());
    for (const std::int32_t v : {a, b, c}) visited.set(v);
    std::deque<std::vector<std::int32_t>> queue;
    for (const std::int32_t d : g.neighbours(b))
        if (pd_edge(g, b, d) && g(d, a) == kNone && !visited[d]) queue.push_back({b, d});
    while (!queue.empty()) {
        std::vector<std::int32_t> mpath = std::move(queue.front());
        queue.pop_front();
        const std::int32_t d = mpath.back();
        visited.set(d);
        if (pd_edge(g, d, c)) {
            std::vector<std::int32_t> path;
            path.reserve(mpath.size() + 2);
            path.push_back(a);
            path.insert(path.end(), mpath.begin(), mpath.end());
            path.push_back(c);
            if (uncovered(g, path) && (unf.empty() || faithful(path, unf))) return path;
        } else {
            for (const std::int32_t r : g.neighbours(d))
                if (pd_edge(g, d, r) && !visited[r]) {
                    std::vector<std::int32_t> next = mpath;
                    next.push_back(r);
                    queue.push_back(std::move(next));
                }
        }
    }
    return {};
}

std::vector<std::int32_t> min_uncov_circ_path(const Pag& g, std::int32_t a, std::int32_t c, std::int32_t d,
                                              std::int32_t b, const TripleSet& unf) {
    VisitMarks visited(g.n());
    for (const std::int32_t v : {a, c, d, b}) visited.set(v);
    auto circle = [&](std::int32_t x, std::int32_t y) { return g(x, y) == kCircle && g(y, x) == kCircle; };
    std::deque<std::vector<std::int32_t>> queue;
    for (const std::int32_t x : g.neighbours(c))
        if (circle(c, x) && !visited[x]) queue.push_back({c, x});
    while (!queue.empty()) {
        std::vector<std::int32_t> mpath = std::move(queue.front());
        queue.pop_front();
        const std::int32_t x = mpath.back();
        visited.set(x);
        if (circle(x, d)) {
            std::vector<std::int32_t> path;
            path.reserve(mpath.size() + 3);
            path.push_back(a);
            path.insert(path.end(), mpath.begin(), mpath.end());
            path.push_back(d);
            path.push_back(b);
            if (uncovered(g, path) && (unf.empty() || faithful(path, unf))) return path;
        } else {
            for (const std::int32_t r : g.neighbours(x))
                if (circle(x, r) && !visited[r]) {
                    std::vector<std::int32_t> next = mpath;
                    next.push_back(r);
                    queue.push_back(std::move(next));
                }
        }
    }
    return {};
}

}  // namespace cudag::fci
