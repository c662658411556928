// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/graph.hpp"

namespace cudag {

/// Endpoint mark at one end of an edge, with causal-learn's numbers. Circle (a PAG's "not
/// decided") appears only in graphs that `cudag compare` reads as PAGs (io::read_graph_file
/// with PAG marks accepted); the learners' CPDAGs and every other reader never hold one.
enum class Mark : std::int8_t { None = 0, Tail = -1, Arrow = 1, Circle = 2 };

/// A partially directed graph (CPDAG or PDAG) over n nodes, stored sparsely: for
/// each node its adjacent nodes in increasing order with the mark at *this* node's
/// end. end(i, j) equals causal-learn's G[i, j]: i --> j is end(i,j) = Tail and
/// end(j,i) = Arrow; i --- j is Tail/Tail; i <-> j is Arrow/Arrow.
class Pdag {
public:
    Pdag() = default;
    /// Every skeleton edge becomes undirected (Tail/Tail).
    explicit Pdag(const Graph& skeleton);
    /// The graph with an edge i–j for each entry j of row i of `adj` (which must be
    /// symmetric), marked at i's end with the entry's mark in `marks` (one per entry of
    /// adj.nbrs, never Mark::None). Rows filled on `threads` threads.
    Pdag(const Adjacency& adj, std::span<const Mark> marks, int threads = 1);

    std::int64_t n() const { return static_cast<std::int64_t>(adj_.size()); }
    bool adjacent(std::int32_t i, std::int32_t j) const { return find(i, j) >= 0; }
    /// Mark at i's end of edge i–j; Mark::None when not adjacent.
    Mark end(std::int32_t i, std::int32_t j) const;

    bool is_directed(std::int32_t i, std::int32_t j) const {  ///< i --> j
        return end(i, j) == Mark::Tail && end(j, i) == Mark::Arrow;
    }
    bool is_undirected(std::int32_t i, std::int32_t j) const {  ///< i --- j
        return end(i, j) == Mark::Tail && end(j, i) == Mark::Tail;
    }
    bool is_bidirected(std::int32_t i, std::int32_t j) const {  ///< i <-> j
        return end(i, j) == Mark::Arrow && end(j, i) == Mark::Arrow;
    }

    /// Add edge i–j (if absent) and set both ends.
    void set(std::int32_t i, std::int32_t j, Mark at_i, Mark at_j);
    void orient(std::int32_t i, std::int32_t j) { set(i, j, Mark::Tail, Mark::Arrow); }  ///< i --> j
    void make_undirected(std::int32_t i, std::int32_t j) { set(i, j, Mark::Tail, Mark::Tail); }
    void remove(std::int32_t i, std::int32_t j);

    /// Adjacent nodes of i, increasing.
    std::vector<std::int32_t> neighbours(std::int32_t i) const;
    std::int64_t n_edges() const;
    /// The skeleton of this graph.
    Graph skeleton() const;

    bool operator==(const Pdag& o) const { return adj_ == o.adj_; }

private:
    struct Entry {
        std::int32_t nbr;
        Mark mark;  ///< mark at the owning node's end
        bool operator==(const Entry& o) const { return nbr == o.nbr && mark == o.mark; }
    };
    std::int64_t find(std::int32_t i, std::int32_t j) const;
    std::vector<std::vector<Entry>> adj_;
};

}  // namespace cudag
