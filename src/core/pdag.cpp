// SPDX-License-Identifier: Apache-2.0
#include "core/pdag.hpp"

#include <algorithm>

#include "core/parallel.hpp"

namespace cudag {

Pdag::Pdag(const Graph& skeleton) : adj_(static_cast<std::size_t>(skeleton.n())) {
    for (std::int64_t i = 0; i < skeleton.n(); ++i)
        for (std::int32_t j : skeleton.neighbours(i)) adj_[i].push_back({j, Mark::Tail});
}

Pdag::Pdag(const Adjacency& adj, std::span<const Mark> marks, int threads) : adj_(static_cast<std::size_t>(adj.n)) {
    parallel_for(0, adj.n, threads, 256, [&](std::int64_t i, int) {
        auto& r = adj_[i];
        r.reserve(static_cast<std::size_t>(adj.degree(i)));
        for (std::int64_t s = adj.offsets[i]; s < adj.offsets[i + 1]; ++s) r.push_back({adj.nbrs[s], marks[s]});
    });
}

std::int64_t Pdag::find(std::int32_t i, std::int32_t j) const {
    const auto& r = adj_[i];
    auto it = std::lower_bound(r.begin(), r.end(), j, [](const Entry& e, std::int32_t v) { return e.nbr < v; });
    return (it != r.end() && it->nbr == j) ? (it - r.begin()) : -1;
}

Mark Pdag::end(std::int32_t i, std::int32_t j) const {
    const std::int64_t p = find(i, j);
    return p < 0 ? Mark::None : adj_[i][p].mark;
}

void Pdag::set(std::int32_t i, std::int32_t j, Mark at_i, Mark at_j) {
    auto put = [this](std::int32_t a, std::int32_t b, Mark m) {
        auto& r = adj_[a];
        auto it = std::lower_bound(r.begin(), r.end(), b, [](const Entry& e, std::int32_t v) { return e.nbr < v; });
        if (it != r.end() && it->nbr == b)
            it->mark = m;
        else
            r.insert(it, Entry{b, m});
    };
    put(i, j, at_i);
    put(j, i, at_j);
}

void Pdag::remove(std::int32_t i, std::int32_t j) {
    auto drop = [this](std::int32_t a, std::int32_t b) {
        const std::int64_t p = find(a, b);
        if (p >= 0) adj_[a].erase(adj_[a].begin() + p);
    };
    drop(i, j);
    drop(j, i);
}

std::vector<std::int32_t> Pdag::neighbours(std::int32_t i) const {
    std::vector<std::int32_t> out;
    out.reserve(adj_[i].size());
    for (const Entry& e : adj_[i]) out.push_back(e.nbr);
    return out;
}

std::int64_t Pdag::n_edges() const {
    std::int64_t s = 0;
    for (const auto& r : adj_) s += static_cast<std::int64_t>(r.size());
    return s / 2;
}

Graph Pdag::skeleton() const {
    Graph g(n());
    for (std::int64_t i = 0; i < n(); ++i)
        for (const Entry& e : adj_[i]) g.add(i, e.nbr);
    return g;
}

}  // namespace cudag
