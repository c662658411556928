// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/bulk_vector.hpp"

namespace cudag {

struct Adjacency;

/// Undirected graph on n nodes, held one of two ways (the same graph, the same answers):
///  - dense (n <= dense_limit()): a bit-packed symmetric adjacency matrix, row i holding
///    words_per_row() 64-bit words, bit j of row i set <=> edge i–j; n²/8 bytes (50 MB at
///    n = 20,000);
///  - sparse (larger n): each row's neighbours as an increasing list, 4 bytes per edge end
///    and a few words per row, so that a million-node skeleton of a few edges per node
///    takes tens of MB instead of 125 GB (issue 35).
/// row(), words() and words_per_row() are the dense form's (for its fast paths); every
/// other call works on both.
class Graph {
public:
    Graph() = default;
    /// n nodes, complete (every i != j adjacent) when `complete`, else
    /// empty; dense iff n <= dense_limit().
    explicit Graph(std::int64_t n, bool complete = false);

    /// The largest n held dense: 32,768 (128 MB of bits), or the hidden tuning variable
    /// CUDAG_GRAPH_DENSE_LIMIT (read once; tests run the sparse form on small graphs).
    static std::int64_t dense_limit();
    /// n nodes without edges, held dense or sparse as asked (tests of both forms).
    static Graph with_form(std::int64_t n, bool dense);

    std::int64_t n() const { return n_; }
    bool dense() const { return dense_; }
    std::int64_t words_per_row() const { return words_; }

    bool has(std::int64_t i, std::int64_t j) const {
        if (dense_) return (bits_[i * words_ + (j >> 6)] >> (j & 63)) & 1u;
        return sparse_has(i, j);
    }
    /// Set or clear both directions of i–j.
    void add(std::int64_t i, std::int64_t j) {
        set_bit(i, j);
        set_bit(j, i);
    }
    void remove(std::int64_t i, std::int64_t j) {
        clear_bit(i, j);
        clear_bit(j, i);
    }

    std::int64_t degree(std::int64_t i) const;
    std::int64_t max_degree() const;
    std::int64_t n_edges() const;
    /// Neighbours of i in increasing order.
    std::vector<std::int32_t> neighbours(std::int64_t i) const;
    /// fn(j) for each neighbour j >= from of i, increasing, without a copy.
    template <class Fn>
    void for_each_neighbour(std::int64_t i, Fn&& fn, std::int64_t from = 0) const;

    /// The graph whose edges are the entries of the symmetric CSR `a` (rows on `threads`).
    void assign(const Adjacency& a, int threads = 1);
    /// Add, in both directions, the pairs (i, j) listed by an upper-triangle CSR over all
    /// n rows (row i's j > i at [start[i], start[i + 1]) of cols, increasing), rows on
    /// `threads` threads.
    void add_upper_pairs(const std::int64_t* start, const std::int32_t* cols, int threads = 1);

    /// Dense form only: row i's words, and all of them.
    const std::uint64_t* row(std::int64_t i) const { return bits_.data() + i * words_; }
    const std::vector<std::uint64_t>& words() const { return bits_; }
    std::vector<std::uint64_t>& words() { return bits_; }

    /// The graph as flat data (either form) and back, for broadcasts.
    std::vector<std::int64_t> serialize() const;
    static Graph deserialize(const std::vector<std::int64_t>& flat);

    bool operator==(const Graph& o) const;

private:
    bool sparse_has(std::int64_t i, std::int64_t j) const;
    void set_bit(std::int64_t i, std::int64_t j);
    void clear_bit(std::int64_t i, std::int64_t j);

    std::int64_t n_ = 0;
    bool dense_ = true;
    std::int64_t words_ = 0;
    std::vector<std::uint64_t> bits_;              ///< dense
    std::vector<std::vector<std::int32_t>> rows_;  ///< sparse: increasing neighbours
};

template <class Fn>
void Graph::for_each_neighbour(std::int64_t i, Fn&& fn, std::int64_t from) const {
    if (!dense_) {
        const std::vector<std::int32_t>& r = rows_[static_cast<std::size_t>(i)];
        for (auto it = std::lower_bound(r.begin(), r.end(), from); it != r.end(); ++it) fn(*it);
        return;
    }
    if (from >= n_) return;
    const std::uint64_t* r = row(i);
    for (std::int64_t w = from >> 6; w < words_; ++w) {
        std::uint64_t x = r[w];
        if (w == from >> 6) x &= ~std::uint64_t{0} << (from & 63);
        for (; x; x &= x - 1) fn(static_cast<std::int32_t>(w * 64 + __builtin_ctzll(x)));
    }
}

/// Compacted adjacency (cuPC's A'_G): row i's neighbours in increasing order at
/// nbrs[offsets[i] .. offsets[i+1]). Doubles as the per-level snapshot G'.
struct Adjacency {
    std::int64_t n = 0;
    std::vector<std::int64_t> offsets;  ///< n + 1 entries
    BulkVector<std::int32_t> nbrs;

    /// The CSR of g, rows built on `threads` threads.
    static Adjacency from_graph(const Graph& g, int threads = 1);
    std::int64_t degree(std::int64_t i) const { return offsets[i + 1] - offsets[i]; }
    std::int64_t max_degree() const;
    const std::int32_t* row(std::int64_t i) const { return nbrs.data() + offsets[i]; }
    /// Position of j in row i (index into nbrs), or -1.
    std::int64_t find(std::int64_t i, std::int32_t j) const;
};

}  // namespace cudag
