// SPDX-License-Identifier: Apache-2.0
// Reference orientation for tests: the semantics pc::orient() reproduces, written
// the plain way, on dense n×n matrices with every list built in full and every
// scan over all nodes, as the peers' code reads. Meant for graphs of a few
// hundred nodes (pcalg) or a few dozen (causal-learn: its kite list is built
// from all pairs of triangles).
//  - pcalg: udag2pdagRelaxed(solve.confl = FALSE) and its rules 1-3, with
//    search.pdag refreshed after each candidate as pcalg does.
//  - causal-learn: GeneralGraph's graph and dpath matrices, dpath rebuilt at
//    once on every removal of a directed edge; uc_sepset / maxp /
//    definite_maxp, Meek.meek and Meek.definite_meek.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "core/graph.hpp"
#include "core/pdag.hpp"
#include "core/sepsets.hpp"
#include "pc/orient.hpp"

namespace cudag::test::reference {

using Matrix = std::vector<std::vector<int>>;

inline Matrix skeleton_matrix(const Graph& skel) {
    const auto n = static_cast<std::size_t>(skel.n());
    Matrix g(n, std::vector<int>(n, 0));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) g[i][j] = skel.has(i, j) ? 1 : 0;
    return g;
}

// ---- pcalg ------------------------------------------------------------------

/// R's which(cond(a, b), arr.ind = TRUE): column-major, so by b, then a.
template <typename Cond>
std::vector<std::pair<int, int>> which_arr_ind(int n, Cond cond) {
    std::vector<std::pair<int, int>> ind;
    for (int b = 0; b < n; ++b)
        for (int a = 0; a < n; ++a)
            if (cond(a, b)) ind.emplace_back(a, b);
    return ind;
}

inline void pcalg_rule1(Matrix& pdag, int n) {
    const auto ind = which_arr_ind(n, [&](int a, int b) { return pdag[a][b] == 1 && pdag[b][a] == 0; });
    for (const auto& [a, b] : ind) {
        std::vector<int> is_c;
        for (int c = 0; c < n; ++c)
            if (pdag[b][c] == 1 && pdag[c][b] == 1 && pdag[a][c] == 0 && pdag[c][a] == 0) is_c.push_back(c);
        for (int c : is_c) {
            pdag[b][c] = 1;
            pdag[c][b] = 0;
        }
    }
}

inline void pcalg_rule2(Matrix& pdag, int n) {
    const auto ind = which_arr_ind(n, [&](int a, int b) { return pdag[a][b] == 1 && pdag[b][a] == 1; });
    for (const auto& [a, b] : ind) {
        bool any = false;
        for (int c = 0; c < n; ++c)
            any = any || (pdag[a][c] == 1 && pdag[c][a] == 0 && pdag[c][b] == 1 && pdag[b][c] == 0);
        if (any) {
            pdag[a][b] = 1;
            pdag[b][a] = 0;
        }
    }
}

inline void pcalg_rule3(Matrix& pdag, int n) {
    const auto ind = which_arr_ind(n, [&](int a, int b) { return pdag[a][b] == 1 && pdag[b][a] == 1; });
    for (const auto& [a, b] : ind) {
        std::vector<int> c;
        for (int v = 0; v < n; ++v)
            if (pdag[a][v] == 1 && pdag[v][a] == 1 && pdag[v][b] == 1 && pdag[b][v] == 0) c.push_back(v);
        bool found = false;
        for (std::size_t u = 0; u < c.size() && !found; ++u)
            for (std::size_t v = u + 1; v < c.size() && !found; ++v)
                found = pdag[c[u]][c[v]] == 0 && pdag[c[v]][c[u]] == 0;
        if (found) {
            pdag[a][b] = 1;
            pdag[b][a] = 0;
        }
    }
}

/// pc()'s orientation with u2pd = "relaxed": udag2pdagRelaxed(solve.confl = FALSE).
inline Pdag orient_pcalg(const Graph& skel, const SepSets& sepsets) {
    const int n = static_cast<int>(skel.n());
    const Matrix g = skeleton_matrix(skel);
    Matrix pdag = g;
    for (const auto& [x, y] : which_arr_ind(n, [&](int a, int b) { return g[a][b] == 1; }))
        for (int z = 0; z < n; ++z)
            if (g[y][z] == 1 && z != x && g[x][z] == 0 && !sepsets.contains(x, z, y)) {
                pdag[x][y] = pdag[z][y] = 1;
                pdag[y][x] = pdag[y][z] = 0;
            }
    while (true) {
        const Matrix old = pdag;
        pcalg_rule1(pdag, n);
        pcalg_rule2(pdag, n);
        pcalg_rule3(pdag, n);
        if (pdag == old) break;
    }
    Pdag out(skel);
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            if (g[i][j] == 0) continue;
            if (pdag[i][j] == 1 && pdag[j][i] == 0) out.orient(i, j);
            if (pdag[i][j] == 0 && pdag[j][i] == 1) out.orient(j, i);
        }
    return out;
}

// ---- causal-learn -------------------------------------------------------------

constexpr int kTail = -1;
constexpr int kArrow = 1;

/// GeneralGraph: graph[i][j] is the mark at i of edge i-j; dpath[j][i] = 1 means
/// i is recorded as an ancestor of j.
class ClGraph {
public:
    explicit ClGraph(const Graph& skel)
        : n_(static_cast<int>(skel.n())),
          graph_(skeleton_matrix(skel)),
          dpath_(static_cast<std::size_t>(n_), std::vector<int>(static_cast<std::size_t>(n_), 0)) {
        for (auto& row : graph_)
            for (int& v : row) v = v ? kTail : 0;
        for (int i = 0; i < n_; ++i) dpath_[i][i] = 1;
    }
    int n() const { return n_; }
    int at(int i, int j) const { return graph_[i][j]; }
    bool adjacent(int i, int j) const { return graph_[i][j] != 0; }
    bool is_undirected(int i, int j) const { return at(i, j) == kTail && at(j, i) == kTail; }
    bool is_fully_directed(int i, int j) const { return at(i, j) == kTail && at(j, i) == kArrow; }
    bool is_ancestor_of(int a, int b) const { return dpath_[b][a] == 1; }

    void remove_edge(int i, int j) {
        const bool directed = is_fully_directed(i, j) || is_fully_directed(j, i);
        graph_[i][j] = graph_[j][i] = 0;
        if (directed) reconstitute_dpath();
    }
    void add_directed(int i, int j) {
        if (adjacent(i, j) || adjacent(j, i)) return;
        graph_[i][j] = kTail;
        graph_[j][i] = kArrow;
        adjust_dpath(i, j);
    }
    void add_bidirected(int i, int j) { graph_[i][j] = graph_[j][i] = kArrow; }
    void replace_with_directed(int i, int j) {
        if (adjacent(i, j)) remove_edge(i, j);
        add_directed(i, j);
    }
    std::vector<int> neighbours(int i) const {
        std::vector<int> out;
        for (int j = 0; j < n_; ++j)
            if (adjacent(i, j)) out.push_back(j);
        return out;
    }
    Pdag to_pdag() const {
        Pdag p{Graph(n_)};
        for (int i = 0; i < n_; ++i)
            for (int j = i + 1; j < n_; ++j)
                if (adjacent(i, j)) p.set(i, j, static_cast<Mark>(at(i, j)), static_cast<Mark>(at(j, i)));
        return p;
    }

private:
    void adjust_dpath(int i, int j) {
        dpath_[j][i] = 1;
        for (int k = 0; k < n_; ++k) {
            if (dpath_[i][k] == 1) dpath_[j][k] = 1;
            if (dpath_[k][j] == 1) dpath_[k][i] = 1;
        }
    }
    /// reconstitute_dpath(get_graph_edges()): edges (i < j, row-major) popped
    /// from the end.
    void reconstitute_dpath() {
        for (auto& row : dpath_) std::fill(row.begin(), row.end(), 0);
        for (int i = 0; i < n_; ++i) adjust_dpath(i, i);
        std::vector<std::pair<int, int>> edges;
        for (int i = 0; i < n_; ++i)
            for (int j = i + 1; j < n_; ++j)
                if (adjacent(i, j)) edges.emplace_back(i, j);
        while (!edges.empty()) {
            const auto [i, j] = edges.back();
            edges.pop_back();
            if (is_fully_directed(i, j))
                adjust_dpath(i, j);
            else if (is_fully_directed(j, i))
                adjust_dpath(j, i);
        }
    }

    int n_;
    Matrix graph_;
    Matrix dpath_;
};

using Triple = std::array<int, 3>;
using Quad = std::array<int, 4>;

/// find_adj(): np.where over the tails, then over the arrow heads, graph[r, c]
/// listed as (c, r).
inline std::vector<std::pair<int, int>> find_adj(const ClGraph& g) {
    std::vector<std::pair<int, int>> adj;
    for (int mark : {kTail, kArrow})
        for (int r = 0; r < g.n(); ++r)
            for (int c = 0; c < g.n(); ++c)
                if (g.at(r, c) == mark) adj.emplace_back(c, r);
    return adj;
}

/// The (a0, a1, b1) of permutations(find_adj(), 2) with a1 == b0, a0 != b1 and keep(a0, b1).
template <typename Keep>
std::vector<Triple> adj_paths(const ClGraph& g, Keep keep) {
    const auto adj = find_adj(g);
    std::vector<Triple> out;
    for (std::size_t p = 0; p < adj.size(); ++p)
        for (std::size_t q = 0; q < adj.size(); ++q)
            if (p != q && adj[p].second == adj[q].first && adj[p].first != adj[q].second &&
                keep(adj[p].first, adj[q].second))
                out.push_back({adj[p].first, adj[p].second, adj[q].second});
    return out;
}

inline std::vector<Triple> find_unshielded_triples(const ClGraph& g) {
    return adj_paths(g, [&g](int a, int c) { return g.at(a, c) == 0; });
}

inline std::vector<Triple> find_triangles(const ClGraph& g) {
    const auto adj = find_adj(g);
    const std::set<std::pair<int, int>> in_adj(adj.begin(), adj.end());
    return adj_paths(g, [&in_adj](int a, int c) { return in_adj.count({a, c}) != 0; });
}

inline std::vector<Quad> find_kites(const ClGraph& g) {
    const auto tri = find_triangles(g);
    std::vector<Quad> out;
    for (std::size_t p = 0; p < tri.size(); ++p)
        for (std::size_t q = 0; q < tri.size(); ++q)
            if (p != q && tri[p][0] == tri[q][0] && tri[p][2] == tri[q][2] && tri[p][1] < tri[q][1] &&
                g.at(tri[p][1], tri[q][1]) == 0)
                out.push_back({tri[p][0], tri[p][1], tri[q][1], tri[p][2]});
    return out;
}

/// find_cond_sets(x, z): powerset(adj(x)) ∪ powerset(adj(z)), each set sorted.
inline std::set<std::vector<int>> cond_sets(const ClGraph& g, int x, int z) {
    std::set<std::vector<int>> out;
    for (int v : {x, z}) {
        const auto nb = g.neighbours(v);
        for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << nb.size()); ++mask) {
            std::vector<int> s;
            for (std::size_t b = 0; b < nb.size(); ++b)
                if ((mask >> b) & 1u) s.push_back(nb[b]);
            out.insert(s);
        }
    }
    return out;
}

inline double p_value(const pc::PValueFn& pv, int x, int z, const std::vector<int>& s) {
    return pv(std::min(x, z), std::max(x, z), std::vector<std::int32_t>(s.begin(), s.end()));
}

/// Max p over the conditioning sets with (with_y) or without y.
inline double max_p(const ClGraph& g, const pc::PValueFn& pv, const Triple& t, bool with_y) {
    double best = -std::numeric_limits<double>::infinity();
    for (const auto& s : cond_sets(g, t[0], t[2]))
        if ((std::find(s.begin(), s.end(), t[1]) != s.end()) == with_y)
            best = std::max(best, p_value(pv, t[0], t[2], s));
    return best;
}

inline std::vector<Triple> forward_triples(const ClGraph& g) {
    std::vector<Triple> out;
    for (const Triple& t : find_unshielded_triples(g))
        if (t[0] < t[2]) out.push_back(t);
    return out;
}

inline bool orient_if_free(ClGraph& g, const Triple& t) {
    if (g.is_fully_directed(t[1], t[0]) || g.is_fully_directed(t[1], t[2])) return false;
    g.replace_with_directed(t[0], t[1]);
    g.replace_with_directed(t[2], t[1]);
    return true;
}

inline void orient_with_priority(ClGraph& g, const Triple& t, int priority) {
    if (priority == 0) {
        g.replace_with_directed(t[0], t[1]);
        g.replace_with_directed(t[2], t[1]);
    } else if (priority == 1) {
        for (int a : {t[0], t[2]}) {
            const int y = t[1];
            if (!g.adjacent(a, y)) {
                g.add_directed(a, y);
            } else if (g.is_undirected(a, y)) {
                g.remove_edge(a, y);
                g.add_directed(a, y);
            } else if (g.at(a, y) == kArrow && g.at(y, a) == kTail) {
                g.remove_edge(a, y);
                g.add_bidirected(a, y);
            }
        }
    } else {
        orient_if_free(g, t);
    }
}

/// Python's sorted(dict.items(), key=value, reverse=descending): stable.
inline std::vector<Triple> sorted_keys(std::vector<std::pair<Triple, double>> d, bool descending) {
    std::stable_sort(d.begin(), d.end(), [descending](const auto& a, const auto& b) {
        return descending ? a.second > b.second : a.second < b.second;
    });
    std::vector<Triple> out;
    for (const auto& e : d) out.push_back(e.first);
    return out;
}

inline bool meek_orient(ClGraph& g, int a, int b) {
    if (g.is_ancestor_of(b, a)) return false;
    g.remove_edge(a, b);
    g.add_directed(a, b);
    return true;
}

inline void meek(ClGraph& g) {
    const auto ut = find_unshielded_triples(g);
    const auto tri = find_triangles(g);
    const auto kites = find_kites(g);
    for (bool loop = true; loop;) {
        loop = false;
        for (const auto& [i, j, k] : ut)
            if (g.is_fully_directed(i, j) && g.is_undirected(j, k)) loop |= meek_orient(g, j, k);
        for (const auto& [i, j, k] : tri)
            if (g.is_fully_directed(i, j) && g.is_fully_directed(j, k) && g.is_undirected(i, k))
                loop |= meek_orient(g, i, k);
        for (const auto& [i, j, k, l] : kites)
            if (g.is_undirected(i, j) && g.is_undirected(i, k) && g.is_fully_directed(j, l) &&
                g.is_fully_directed(k, l) && g.is_undirected(i, l))
                loop |= meek_orient(g, i, l);
    }
}

/// causal-learn's pc() orientation for uc_rule 0-2 (`opt.uc_priority` already
/// resolved from -1 to the rule's default by the caller or not: both work).
inline Pdag orient_causal_learn(const Graph& skel, const SepSets& sepsets, const pc::OrientOptions& opt,
                                const pc::PValueFn& pv) {
    int priority = opt.uc_priority;
    if (priority == -1) priority = opt.rule == pc::UcRule::DefiniteMaxP ? 4 : 3;
    ClGraph g(skel);
    if (opt.rule == pc::UcRule::Sepset) {
        std::vector<Triple> r0;
        for (const Triple& t : forward_triples(g)) {
            if (sepsets.contains(t[0], t[2], t[1])) continue;
            if (priority <= 2)
                orient_with_priority(g, t, priority);
            else
                r0.push_back(t);
        }
        if (priority >= 3) {
            std::vector<std::pair<Triple, double>> d;
            for (const Triple& t : r0) d.emplace_back(t, max_p(g, pv, t, priority == 3));
            for (const Triple& t : sorted_keys(d, priority == 4)) orient_if_free(g, t);
        }
        meek(g);
    } else if (opt.rule == pc::UcRule::MaxP) {
        std::vector<std::pair<Triple, double>> d;
        for (const Triple& t : forward_triples(g)) {
            const double with_y = max_p(g, pv, t, true);
            const double without_y = max_p(g, pv, t, false);
            if (!(without_y > with_y)) continue;
            if (priority <= 2)
                orient_with_priority(g, t, priority);
            else
                d.emplace_back(t, priority == 3 ? with_y : without_y);
        }
        if (priority >= 3)
            for (const Triple& t : sorted_keys(d, priority == 4)) orient_if_free(g, t);
        meek(g);
    } else {
        const auto independent = [&opt](double p) { return opt.independence_strict ? p > opt.alpha : p >= opt.alpha; };
        std::set<Triple> uc;
        std::vector<Triple> non_uc;
        std::vector<std::pair<Triple, double>> d;
        for (const Triple& t : forward_triples(g)) {
            // Conditioning sets with y: any separating one rules the collider out.
            bool is_uc = true, is_nuc = true;
            double max_with = 0.0, max_without = 0.0;
            const auto sets = cond_sets(g, t[0], t[2]);
            for (const auto& s : sets) {
                if (std::find(s.begin(), s.end(), t[1]) == s.end()) continue;
                const double p = p_value(pv, t[0], t[2], s);
                if (independent(p)) is_uc = false;
                max_with = std::max(max_with, p);
            }
            for (const auto& s : sets) {
                if (std::find(s.begin(), s.end(), t[1]) != s.end()) continue;
                const double p = p_value(pv, t[0], t[2], s);
                if (independent(p)) is_nuc = false;
                max_without = std::max(max_without, p);
            }
            if (is_uc && (!is_nuc || max_without > max_with))
                d.emplace_back(t, priority == 4 ? max_without : max_with);
            else if (is_uc || is_nuc)
                non_uc.push_back(t);
        }
        std::vector<Triple> order;
        if (priority == 2)
            for (const auto& e : d) order.push_back(e.first);
        else
            order = sorted_keys(d, priority == 4);
        for (const Triple& t : order)
            if (orient_if_free(g, t)) uc.insert(t);
        // definite_meek
        const std::set<Triple> non_uc_set(non_uc.begin(), non_uc.end());
        const auto in = [](const std::set<Triple>& s, int a, int b, int c) {
            return s.count({a, b, c}) != 0 || s.count({c, b, a}) != 0;
        };
        const auto tri = find_triangles(g);
        const auto kites = find_kites(g);
        for (bool loop = true; loop;) {
            loop = false;
            for (const auto& [i, j, k] : non_uc) {
                if (g.is_fully_directed(i, j) && g.is_undirected(j, k))
                    loop |= meek_orient(g, j, k);
                else if (g.is_fully_directed(k, j) && g.is_undirected(j, i))
                    loop |= meek_orient(g, j, i);
            }
            for (const auto& [i, j, k] : tri)
                if (g.is_fully_directed(i, j) && g.is_fully_directed(j, k) && g.is_undirected(i, k))
                    loop |= meek_orient(g, i, k);
            for (const auto& [i, j, k, l] : kites)
                if (in(uc, j, l, k) && in(non_uc_set, j, i, k) && g.is_undirected(i, l)) loop |= meek_orient(g, i, l);
        }
        meek(g);
    }
    return g.to_pdag();
}

}  // namespace cudag::test::reference
