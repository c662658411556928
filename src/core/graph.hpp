// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include "core/bulk_vector.hpp"

namespace cudag {

/// Undirected graph on n nodes as a bit-packed symmetric adjacency matrix
/// (row i holds words_per_row() 64-bit words; bit j of row i set <=> edge i–j).
/// n²/8 bytes: 50 MB at n = 20,000.
class Graph {
public:
    Graph() = default;
    /// n nodes, complete (every i != j adjacent) when `complete`, else empty.
    explicit Graph(std::int64_t n, bool complete = false);

    std::int64_t n() const { return n_; }
    std::int64_t words_per_row() const { return words_; }

    bool has(std::int64_t i, std::int64_t j) const { return (bits_[i * words_ + (j >> 6)] >> (j & 63)) & 1u; }
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

    const std::uint64_t* row(std::int64_t i) const { return bits_.data() + i * words_; }
    const std::vector<std::uint64_t>& words() const { return bits_; }
    std::vector<std::uint64_t>& words() { return bits_; }

    bool operator==(const Graph& o) const { return n_ == o.n_ && bits_ == o.bits_; }

private:
    void set_bit(std::int64_t i, std::int64_t j) { bits_[i * words_ + (j >> 6)] |= 1ull << (j & 63); }
    void clear_bit(std::int64_t i, std::int64_t j) { bits_[i * words_ + (j >> 6)] &= ~(1ull << (j & 63)); }

    std::int64_t n_ = 0;
    std::int64_t words_ = 0;
    std::vector<std::uint64_t> bits_;
};

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
