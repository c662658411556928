// SPDX-License-Identifier: Apache-2.0
#include "core/graph.hpp"

#include <algorithm>
#include <bit>

#include "core/parallel.hpp"

namespace cudag {
namespace {

// Set bits of a row. Without -mpopcnt std::popcount is a libgcc call per word; a clone
// for CPUs with POPCNT (chosen at load time) makes degree scans several times faster.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default")))
#endif
std::int64_t
row_popcount(const std::uint64_t* r, std::int64_t words) {
    std::int64_t d = 0;
    for (std::int64_t w = 0; w < words; ++w) d += __builtin_popcountll(r[w]);
    return d;
}

}  // namespace

Graph::Graph(std::int64_t n, bool complete)
    : n_(n), words_((n + 63) / 64), bits_(static_cast<std::size_t>(n * ((n + 63) / 64)), 0) {
    if (!complete) return;
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint64_t* r = bits_.data() + i * words_;
        for (std::int64_t w = 0; w < words_; ++w) r[w] = ~0ull;
        if (n % 64) r[words_ - 1] = (1ull << (n % 64)) - 1;
        r[i >> 6] &= ~(1ull << (i & 63));
    }
}

std::int64_t Graph::degree(std::int64_t i) const { return row_popcount(row(i), words_); }

std::int64_t Graph::max_degree() const {
    std::int64_t m = 0;
    for (std::int64_t i = 0; i < n_; ++i) m = std::max(m, degree(i));
    return m;
}

std::int64_t Graph::n_edges() const {
    std::int64_t s = 0;
    for (std::int64_t i = 0; i < n_; ++i) s += degree(i);
    return s / 2;
}

std::vector<std::int32_t> Graph::neighbours(std::int64_t i) const {
    std::vector<std::int32_t> out;
    const std::uint64_t* r = row(i);
    for (std::int64_t w = 0; w < words_; ++w) {
        std::uint64_t x = r[w];
        while (x) {
            out.push_back(static_cast<std::int32_t>(w * 64 + std::countr_zero(x)));
            x &= x - 1;
        }
    }
    return out;
}

Adjacency Adjacency::from_graph(const Graph& g, int threads) {
    Adjacency a;
    a.n = g.n();
    a.offsets.assign(static_cast<std::size_t>(a.n + 1), 0);
    constexpr std::int64_t kRows = 256;  // rows per work item
    parallel_for(0, a.n, threads, kRows, [&](std::int64_t i, int) { a.offsets[i + 1] = g.degree(i); });
    for (std::int64_t i = 0; i < a.n; ++i) a.offsets[i + 1] += a.offsets[i];
    a.nbrs.resize(static_cast<std::size_t>(a.offsets[a.n]));
    parallel_for(0, a.n, threads, kRows, [&](std::int64_t i, int) {
        const std::uint64_t* r = g.row(i);
        std::int64_t p = a.offsets[i];
        for (std::int64_t w = 0; w < g.words_per_row(); ++w) {
            std::uint64_t x = r[w];
            while (x) {
                a.nbrs[p++] = static_cast<std::int32_t>(w * 64 + std::countr_zero(x));
                x &= x - 1;
            }
        }
    });
    return a;
}

std::int64_t Adjacency::max_degree() const {
    std::int64_t m = 0;
    for (std::int64_t i = 0; i < n; ++i) m = std::max(m, degree(i));
    return m;
}

std::int64_t Adjacency::find(std::int64_t i, std::int32_t j) const {
    const std::int32_t* b = nbrs.data() + offsets[i];
    const std::int32_t* e = nbrs.data() + offsets[i + 1];
    const std::int32_t* p = std::lower_bound(b, e, j);
    return (p != e && *p == j) ? (p - nbrs.data()) : -1;
}

}  // namespace cudag
