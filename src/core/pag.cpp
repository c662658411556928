// SPDX-License-Identifier: Apache-2.0
#include "core/pag.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace cudag {

using namespace marks;

Pag Pag::circles(const Graph& g) {
    Pag p(static_cast<std::int32_t>(g.n()));
    for (std::int64_t i = 0; i < g.n(); ++i) {
        auto& r = p.nbrs_[static_cast<std::size_t>(i)];
        r = g.neighbours(i);
        p.marks_[static_cast<std::size_t>(i)].assign(r.size(), kCircle);
    }
    return p;
}

std::int64_t Pag::find(std::int32_t a, std::int32_t b) const {
    const auto& r = nbrs_[static_cast<std::size_t>(a)];
    const auto it = std::lower_bound(r.begin(), r.end(), b);
    return it != r.end() && *it == b ? it - r.begin() : -1;
}

void Pag::set(std::int32_t a, std::int32_t b, std::uint8_t mark) {
    const std::int64_t k = find(a, b);
    if (k < 0) throw Error("fci: setting a mark on " + std::to_string(a) + "-" + std::to_string(b) + ", not an edge");
    marks_[static_cast<std::size_t>(a)][static_cast<std::size_t>(k)] = mark;
}

void Pag::add(std::int32_t a, std::int32_t b, std::uint8_t at_a, std::uint8_t at_b) {
    auto put = [&](std::int32_t u, std::int32_t v, std::uint8_t m) {
        auto& r = nbrs_[static_cast<std::size_t>(u)];
        auto& mk = marks_[static_cast<std::size_t>(u)];
        const auto it = std::lower_bound(r.begin(), r.end(), v);
        const auto k = it - r.begin();
        if (it != r.end() && *it == v) {
            mk[static_cast<std::size_t>(k)] = m;
        } else {
            r.insert(it, v);
            mk.insert(mk.begin() + k, m);
        }
    };
    put(a, b, at_b);
    put(b, a, at_a);
}

void Pag::remove(std::int32_t a, std::int32_t b) {
    auto drop = [&](std::int32_t u, std::int32_t v) {
        auto& r = nbrs_[static_cast<std::size_t>(u)];
        auto& mk = marks_[static_cast<std::size_t>(u)];
        const auto it = std::lower_bound(r.begin(), r.end(), v);
        if (it == r.end() || *it != v) return;
        mk.erase(mk.begin() + (it - r.begin()));
        r.erase(it);
    };
    drop(a, b);
    drop(b, a);
}

std::int64_t Pag::n_edges() const {
    std::int64_t d = 0;
    for (const auto& r : nbrs_) d += static_cast<std::int64_t>(r.size());
    return d / 2;
}

Graph Pag::skeleton() const {
    Graph g(n());
    for (std::int32_t a = 0; a < n(); ++a)
        for (const std::int32_t b : neighbours(a))
            if (a < b) g.add(a, b);
    return g;
}

namespace {
char end_char(std::uint8_t m, bool at_source) {
    switch (m) {
        case kTail:
            return '-';
        case kArrow:
            return at_source ? '<' : '>';
        case kCircle:
            return 'o';
        default:
            return '?';
    }
}
}  // namespace

std::string edge_string(const Pag& g, std::int32_t a, std::int32_t b) {
    return {end_char(g(b, a), true), '-', end_char(g(a, b), false)};
}

bool parse_edge_string(const std::string& s, std::uint8_t& at_a, std::uint8_t& at_b) {
    if (s.size() != 3 || s[1] != '-') return false;
    switch (s[0]) {
        case '-':
            at_a = kTail;
            break;
        case '<':
            at_a = kArrow;
            break;
        case 'o':
            at_a = kCircle;
            break;
        default:
            return false;
    }
    switch (s[2]) {
        case '-':
            at_b = kTail;
            break;
        case '>':
            at_b = kArrow;
            break;
        case 'o':
            at_b = kCircle;
            break;
        default:
            return false;
    }
    return true;
}

const std::vector<std::string>& edge_kinds() {
    static const std::vector<std::string> k{"o->", "<-o", "o-o", "-->", "<--", "<->", "---", "o--", "--o"};
    return k;
}

}  // namespace cudag
