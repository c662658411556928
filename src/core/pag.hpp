// SPDX-License-Identifier: Apache-2.0
// A partial ancestral graph (PAG), as FCI and RFCI learn it: edges with a mark at each end (tail, arrowhead, circle).
// mark(a, b) is pcalg's amat.pag[a, b]: the mark at b on the edge a–b (0: not adjacent).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/graph.hpp"

namespace cudag {

/// pcalg's amat.pag codes (in a namespace of their own: code that reads marks says
/// `using namespace cudag::marks;`).
namespace marks {
enum PagMark : std::uint8_t { kNone = 0, kCircle = 1, kArrow = 2, kTail = 3 };
}

/// The marks of a PAG, stored as sorted neighbour lists (any n: a hub costs its degree,
/// not n). Lookups are binary searches.
class Pag {
public:
    Pag() = default;
    explicit Pag(std::int32_t n) : nbrs_(static_cast<std::size_t>(n)), marks_(static_cast<std::size_t>(n)) {}
    /// Every edge of `g` as o-o (FCI's starting point).
    static Pag circles(const Graph& g);

    std::int32_t n() const { return static_cast<std::int32_t>(nbrs_.size()); }
    /// The mark at b on a–b (kNone when not adjacent).
    std::uint8_t operator()(std::int32_t a, std::int32_t b) const {
        const std::int64_t k = find(a, b);
        return k < 0 ? std::uint8_t{marks::kNone} : marks_[static_cast<std::size_t>(a)][static_cast<std::size_t>(k)];
    }
    bool adjacent(std::int32_t a, std::int32_t b) const { return find(a, b) >= 0; }
    /// Set the mark at b on the existing edge a–b.
    void set(std::int32_t a, std::int32_t b, std::uint8_t mark);
    /// Add a–b with marks (at a, at b); replaces existing marks.
    void add(std::int32_t a, std::int32_t b, std::uint8_t at_a, std::uint8_t at_b);
    void remove(std::int32_t a, std::int32_t b);
    /// a's neighbours, ascending.
    std::span<const std::int32_t> neighbours(std::int32_t a) const { return nbrs_[static_cast<std::size_t>(a)]; }
    /// The marks at a's neighbours (mark(a, neighbours(a)[k]) at k).
    std::span<const std::uint8_t> marks(std::int32_t a) const { return marks_[static_cast<std::size_t>(a)]; }
    std::int64_t n_edges() const;
    Graph skeleton() const;
    bool operator==(const Pag& o) const { return nbrs_ == o.nbrs_ && marks_ == o.marks_; }

private:
    std::int64_t find(std::int32_t a, std::int32_t b) const;
    std::vector<std::vector<std::int32_t>> nbrs_;
    std::vector<std::vector<std::uint8_t>> marks_;
};

/// The edge a–b as causal-learn and Tetrad print it, read from a to b: the mark at a
/// ('-' tail, '<' arrowhead, 'o' circle), then '-', then the mark at b ('-', '>', 'o'):
/// "o->", "<-o", "o-o", "-->", "<--", "<->", "---", "o--", "--o".
std::string edge_string(const Pag& g, std::int32_t a, std::int32_t b);
/// The marks (at a, at b) of an edge string as edge_string writes it; false when `s` is not one.
bool parse_edge_string(const std::string& s, std::uint8_t& at_a, std::uint8_t& at_b);
/// The nine edge strings of a PAG with a < b read from a to b, in a fixed order (the
/// bootstrap's frequency columns, pc/bootstrap.hpp): "o->", "<-o", "o-o", "-->", "<--", "<->",
/// "---", "o--", "--o".
const std::vector<std::string>& edge_kinds();

}  // namespace cudag
