// SPDX-License-Identifier: Apache-2.0
// PC's orientation with causal-learn's semantics (uc_sepset, maxp, definite_maxp, Meek),
// on GeneralGraph's graph and dpath matrices (see orient.cpp).
#include "pc/orient_detail.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "ci/decision.hpp"

namespace cudag::pc {
namespace {

// =============================================================================
// causal-learn: UCSepset.uc_sepset / maxp / definite_maxp, Meek.meek /
// definite_meek, on the semantics of GeneralGraph (graph + dpath matrices).
// =============================================================================

constexpr std::int8_t kTail = -1;
constexpr std::int8_t kArrow = 1;

/// causal-learn's CausalGraph.G restricted to what PC produces: graph[i, j] is
/// the endpoint at i of edge i-j (-1 tail, 1 arrow, 0 none); dpath[j, i] = 1
/// means GeneralGraph believes i is an ancestor of j. dpath is maintained as
/// causal-learn does it: adjust_dpath on each added directed edge (not a full
/// transitive closure) and reconstitute_dpath, edges taken in reverse
/// get_graph_edges order, whenever a directed edge is removed. dpath is kept as
/// two bit matrices, by rows and by columns, so that both of adjust_dpath's
/// updates (a row OR and a column OR) cost n/64 words plus the bits they set.
///
/// The rebuild is deferred to the next ancestor query (PC's collider phases
/// remove many directed edges and query none): after a removal the directed
/// edges added since are queued, and the rebuild replays causal-learn's
/// history exactly: reconstitute over the directed edges that existed at the
/// removal (today's minus the queued ones; any later change to one of them
/// would have been a removal of a directed edge, starting a new rebuild), then
/// adjust_dpath for each queued edge in order.
class ClGraph {
public:
    explicit ClGraph(const Graph& skel)
        : n_(skel.n()),
          words_((n_ + 63) / 64),
          g_(static_cast<std::size_t>(n_ * n_), 0),
          nbrs_(static_cast<std::size_t>(n_)),
          rows_(static_cast<std::size_t>(n_ * words_), 0),
          cols_(static_cast<std::size_t>(n_ * words_), 0) {
        for (std::int64_t i = 0; i < n_; ++i) {
            nbrs_[i] = skel.neighbours(i);
            for (std::int32_t j : nbrs_[i]) g_[i * n_ + j] = kTail;
        }
        reset_dpath();
    }

    std::int64_t n() const { return n_; }
    std::int8_t at(std::int64_t i, std::int64_t j) const { return g_[i * n_ + j]; }
    bool adjacent(std::int64_t i, std::int64_t j) const { return at(i, j) != 0; }
    bool is_undirected(std::int64_t i, std::int64_t j) const { return at(i, j) == kTail && at(j, i) == kTail; }
    bool is_fully_directed(std::int64_t i, std::int64_t j) const {  ///< i --> j
        return at(i, j) == kTail && at(j, i) == kArrow;
    }
    /// GeneralGraph.is_ancestor_of(a, b): dpath[b, a].
    bool is_ancestor_of(std::int64_t a, std::int64_t b) {
        refresh_dpath();
        return (rows_[b * words_ + (a >> 6)] >> (a & 63)) & 1u;
    }

    /// GeneralGraph.remove_edge(get_edge(i, j)) on an adjacent pair. Removing a
    /// directed edge rebuilds dpath from the remaining edges.
    void remove_edge(std::int64_t i, std::int64_t j) {
        const bool was_directed = is_fully_directed(i, j) || is_fully_directed(j, i);
        g_[i * n_ + j] = 0;
        g_[j * n_ + i] = 0;
        if (was_directed) {
            stale_ = true;
            queued_.clear();
        }
    }
    /// GeneralGraph.add_edge(Edge(i, j, TAIL, ARROW)): a no-op where an edge other
    /// than <-> already joins i and j, as in causal-learn.
    void add_directed(std::int64_t i, std::int64_t j) {
        if (adjacent(i, j) || adjacent(j, i)) {
            // causal-learn would store TAIL_AND_ARROW / ARROW_AND_ARROW here; PC's
            // rules never add onto an existing <->.
            CUDAG_ASSERT(!(at(i, j) == kArrow && at(j, i) == kArrow));
            return;
        }
        g_[i * n_ + j] = kTail;
        g_[j * n_ + i] = kArrow;
        if (stale_)
            queued_.emplace_back(i, j);
        else
            adjust_dpath(i, j);
    }
    /// GeneralGraph.add_edge(Edge(i, j, ARROW, ARROW)) on a non-adjacent pair.
    void add_bidirected(std::int64_t i, std::int64_t j) {
        CUDAG_ASSERT(!adjacent(i, j) && !adjacent(j, i));
        g_[i * n_ + j] = kArrow;
        g_[j * n_ + i] = kArrow;
    }
    /// get_edge(i, j); remove it if present; add i --> j.
    void replace_with_directed(std::int64_t i, std::int64_t j) {
        if (adjacent(i, j)) remove_edge(i, j);
        add_directed(i, j);
    }

    /// CausalGraph.neighbors(i): nodes with a non-zero mark in row i, increasing.
    /// Every removal above is followed by an add, so these are the skeleton's.
    const std::vector<std::int32_t>& neighbours(std::int64_t i) const { return nbrs_[i]; }

    Pdag to_pdag() const {
        Pdag p{Graph(n_)};
        for (std::int64_t i = 0; i < n_; ++i)
            for (std::int32_t j : nbrs_[i])
                if (j > i)
                    p.set(static_cast<std::int32_t>(i), j, static_cast<Mark>(at(i, j)), static_cast<Mark>(at(j, i)));
        return p;
    }

private:
    /// dpath[a, b] <- 1, keeping both bit matrices in step.
    void set_dpath(std::int64_t a, std::int64_t b) {
        rows_[a * words_ + (b >> 6)] |= std::uint64_t{1} << (b & 63);
        cols_[b * words_ + (a >> 6)] |= std::uint64_t{1} << (a & 63);
    }
    /// dst |= src over one bit row; calls on_new(k) for each bit k newly set.
    template <typename OnNew>
    void or_into(std::uint64_t* dst, const std::uint64_t* src, OnNew on_new) {
        for (std::int64_t w = 0; w < words_; ++w) {
            std::uint64_t fresh = src[w] & ~dst[w];
            dst[w] |= fresh;
            while (fresh) {
                on_new(w * 64 + std::countr_zero(fresh));
                fresh &= fresh - 1;
            }
        }
    }
    /// GeneralGraph.adjust_dpath(i, j) after adding i --> j: dpath[j, i] = 1;
    /// dpath[j, k] |= dpath[i, k] (j gets i's recorded ancestors); dpath[k, i] |=
    /// dpath[k, j] (whatever records j as an ancestor gets i). causal-learn does
    /// both in one loop over k; with dpath's diagonal set the two never read a
    /// cell the other wrote, so doing them one after the other is the same.
    void adjust_dpath(std::int64_t i, std::int64_t j) {
        set_dpath(j, i);
        or_into(&rows_[j * words_], &rows_[i * words_],
                [&](std::int64_t k) { cols_[k * words_ + (j >> 6)] |= std::uint64_t{1} << (j & 63); });
        or_into(&cols_[i * words_], &cols_[j * words_],
                [&](std::int64_t k) { rows_[k * words_ + (i >> 6)] |= std::uint64_t{1} << (i & 63); });
    }
    void reset_dpath() {
        std::fill(rows_.begin(), rows_.end(), 0);
        std::fill(cols_.begin(), cols_.end(), 0);
        for (std::int64_t i = 0; i < n_; ++i) set_dpath(i, i);
    }
    /// GeneralGraph.reconstitute_dpath(get_graph_edges()) as of the last removal
    /// of a directed edge: identity, then the directed edges popped from the end
    /// of the (i < j, row-major) edge list; then the queued additions.
    void refresh_dpath() {
        if (!stale_) return;
        std::set<std::pair<std::int64_t, std::int64_t>> added;
        for (auto [i, j] : queued_) added.insert(std::minmax(i, j));
        reset_dpath();
        for (std::int64_t i = n_ - 1; i >= 0; --i) {
            const auto& nb = nbrs_[i];
            for (auto it = nb.rbegin(); it != nb.rend() && *it > i; ++it) {
                if (added.count({i, *it})) continue;
                if (is_fully_directed(i, *it))
                    adjust_dpath(i, *it);
                else if (is_fully_directed(*it, i))
                    adjust_dpath(*it, i);
            }
        }
        for (auto [i, j] : queued_) adjust_dpath(i, j);
        queued_.clear();
        stale_ = false;
    }

    std::int64_t n_;
    std::int64_t words_;
    std::vector<std::int8_t> g_;
    std::vector<std::vector<std::int32_t>> nbrs_;
    std::vector<std::uint64_t> rows_;  ///< bit b of row a: dpath[a, b]
    std::vector<std::uint64_t> cols_;  ///< bit a of row b: dpath[a, b]
    bool stale_ = false;               ///< a directed edge was removed since dpath was last rebuilt
    std::vector<std::pair<std::int64_t, std::int64_t>> queued_;  ///< i --> j added since
};

using Pair = std::pair<std::int32_t, std::int32_t>;
using Triple = std::array<std::int32_t, 3>;

/// causal-learn's background-knowledge tests (BackgroundKnowledge.is_forbidden takes the
/// tiers into account; a required pair without a direction is never is_required).
/// Meek's rules skip a -> b when it is forbidden or b -> a is required.
bool meek_blocked(const Knowledge* k, std::int32_t a, std::int32_t b) {
    return k && (k->forbidden(a, b) || k->required(b, a));
}
/// The collider rules skip x -> y <- z when x -> y or z -> y is forbidden, or y -> x or
/// y -> z is required.
bool collider_blocked(const Knowledge* k, const Triple& t) {
    return meek_blocked(k, t[0], t[1]) || meek_blocked(k, t[2], t[1]);
}

/// BackgroundKnowledgeOrientUtils.orient_by_background_knowledge: each undirected edge
/// node1 - node2 of get_graph_edges() (node1 < node2, row-major) becomes node1 -> node2
/// when node2 -> node1 is forbidden, else node2 -> node1 when node1 -> node2 is forbidden,
/// else the required direction (node2 -> node1 checked first).
void cl_orient_by_background_knowledge(ClGraph& g, const Knowledge& k) {
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (std::int32_t j : g.neighbours(i)) {
            if (j < i || !g.is_undirected(i, j)) continue;
            std::int32_t from = -1, to = -1;
            if (k.forbidden(j, i)) {
                from = i, to = j;
            } else if (k.forbidden(i, j)) {
                from = j, to = i;
            } else if (k.required(j, i)) {
                from = j, to = i;
            } else if (k.required(i, j)) {
                from = i, to = j;
            }
            if (from < 0) continue;
            g.remove_edge(i, j);
            g.add_directed(from, to);
        }
}

/// CausalGraph.find_adj(): find_tails() + find_arrow_heads(), each np.where over
/// the matrix in row-major order, an entry graph[r, c] listed as (c, r); with,
/// per node x, the nodes y of the entries (x, y) in list order. causal-learn's
/// triple lists are the pairs of entries in permutations(find_adj(), 2) order;
/// they are walked here from this snapshot instead of being stored (an
/// unshielded triple or a triangle is one of a node's neighbour pairs, and the
/// lists of a dense graph outgrow memory long before the graph does).
class AdjList {
public:
    explicit AdjList(const ClGraph& g) : offsets_(static_cast<std::size_t>(g.n() + 1), 0) {
        for (std::int8_t mark : {kTail, kArrow})
            for (std::int64_t r = 0; r < g.n(); ++r)
                for (std::int32_t c : g.neighbours(r))  // the only non-zero cells of row r
                    if (g.at(r, c) == mark) adj_.emplace_back(c, static_cast<std::int32_t>(r));
        for (const auto& e : adj_) ++offsets_[e.first + 1];
        for (std::size_t x = 1; x < offsets_.size(); ++x) offsets_[x] += offsets_[x - 1];
        seconds_.resize(adj_.size());
        std::vector<std::int64_t> at(offsets_.begin(), offsets_.end() - 1);
        for (const auto& e : adj_) seconds_[at[e.first]++] = e.second;
    }

    /// The y of the entries (x, y), in list order.
    std::span<const std::int32_t> seconds(std::int32_t x) const {
        return {seconds_.data() + offsets_[x], static_cast<std::size_t>(offsets_[x + 1] - offsets_[x])};
    }
    /// f(a0, a1, b1) for each pair of entries (a0, a1), (a1, b1) in
    /// permutations() order with a0 != b1 that `keep(a0, b1)` accepts.
    template <typename Keep, typename F>
    void for_each_path(Keep keep, F f) const {
        for (const auto& [a0, a1] : adj_)
            for (std::int32_t b1 : seconds(a1))
                if (b1 != a0 && keep(a0, b1)) f(a0, a1, b1);
    }
    /// CausalGraph.find_unshielded_triples(), in order.
    template <typename F>
    void for_each_unshielded(const ClGraph& g, F f) const {
        for_each_path([&g](std::int32_t a, std::int32_t c) { return !g.adjacent(a, c); }, f);
    }
    /// CausalGraph.find_triangles(), in order: (a0, b1) must be in find_adj(),
    /// i.e. a0 and b1 adjacent.
    template <typename F>
    void for_each_triangle(const ClGraph& g, F f) const {
        for_each_path([&g](std::int32_t a, std::int32_t c) { return g.adjacent(c, a); }, f);
    }

private:
    std::vector<Pair> adj_;
    std::vector<std::int64_t> offsets_;
    std::vector<std::int32_t> seconds_;
};

/// ci_test(x, z, S) with the p-values of one orient() call cached per (x, z, S).
class PValueCache {
public:
    explicit PValueCache(const PValueFn& fn) : fn_(fn) {}
    double operator()(std::int32_t x, std::int32_t z, const std::vector<std::int32_t>& s) {
        if (x > z) std::swap(x, z);
        auto& per_pair = cache_[{x, z}];
        auto it = per_pair.find(s);
        if (it != per_pair.end()) return it->second;
        const double p = fn_(x, z, s);
        per_pair.emplace(s, p);
        return p;
    }

private:
    const PValueFn& fn_;
    std::map<Pair, std::map<std::vector<std::int32_t>, double>> cache_;
};

/// CausalGraph.find_cond_sets(x, z) = powerset(adj(x)) ∪ powerset(adj(z)), each
/// set sorted, each once; `visit(S, y in S)` is called per set until it returns
/// false. causal-learn's order is a Python set's; every caller below only needs
/// maxima and existence, which do not depend on it.
template <typename Visit>
void for_each_cond_set(const ClGraph& g, std::int32_t x, std::int32_t z, std::int32_t y, Visit visit) {
    const auto& nx = g.neighbours(x);
    const auto& nz = g.neighbours(z);
    constexpr std::size_t kMaxDegree = 30;
    CUDAG_EXPECTS(nx.size() <= kMaxDegree && nz.size() <= kMaxDegree,
                  "maxP-type collider rules enumerate every subset of adj(x) and adj(z); node " +
                      std::to_string(nx.size() > kMaxDegree ? x : z) + " has degree above " +
                      std::to_string(kMaxDegree));
    std::vector<std::int32_t> s;
    // Subsets of adj(x), then the subsets of adj(z) not already seen (those with
    // an element outside adj(x)).
    for (int side = 0; side < 2; ++side) {
        const auto& base = side == 0 ? nx : nz;
        const std::uint64_t count = std::uint64_t{1} << base.size();
        for (std::uint64_t mask = 0; mask < count; ++mask) {
            s.clear();
            bool outside_x = false;
            bool has_y = false;
            for (std::size_t b = 0; b < base.size(); ++b) {
                if (!((mask >> b) & 1u)) continue;
                s.push_back(base[b]);
                has_y = has_y || base[b] == y;
                outside_x = outside_x || !std::binary_search(nx.begin(), nx.end(), base[b]);
            }
            if (side == 1 && !outside_x) continue;
            if (!visit(s, has_y)) return;
        }
    }
}

/// max p over the conditioning sets that contain y (with_y) or do not.
double max_p(const ClGraph& g, PValueCache& pv, const Triple& t, bool with_y) {
    double best = -std::numeric_limits<double>::infinity();
    for_each_cond_set(g, t[0], t[2], t[1], [&](const std::vector<std::int32_t>& s, bool has_y) {
        if (has_y == with_y) best = std::max(best, pv(t[0], t[2], s));
        return true;
    });
    return best;
}

/// f(t) for the unshielded triples t with x < z, in order (causal-learn skips
/// the mirror triples). The list is the one of the graph as it is now, even if
/// f changes the graph.
template <typename F>
void for_each_forward_triple(const ClGraph& g, F f) {
    AdjList(g).for_each_unshielded(g, [&f](std::int32_t x, std::int32_t y, std::int32_t z) {
        if (x < z) f(Triple{x, y, z});
    });
}

/// Priority 0 ("overwrite") and the collider step of priorities 2-4: x -> y <- z
/// whatever was there.
void orient_collider(ClGraph& g, const Triple& t) {
    g.replace_with_directed(t[0], t[1]);
    g.replace_with_directed(t[2], t[1]);
}

/// Priority 1: an undirected edge becomes a -> y, an edge y -> a becomes a <-> y,
/// anything else stays.
void orient_collider_bidirected(ClGraph& g, const Triple& t) {
    for (std::int32_t a : {t[0], t[2]}) {
        const std::int32_t y = t[1];
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
}

/// Priorities 2-4: orient only if neither edge already points away from y.
bool orient_collider_if_free(ClGraph& g, const Triple& t) {
    if (g.is_fully_directed(t[1], t[0]) || g.is_fully_directed(t[1], t[2])) return false;
    orient_collider(g, t);
    return true;
}

/// Apply priority 0-2 to one collider as soon as it is found.
void orient_now(ClGraph& g, const Triple& t, int priority) {
    if (priority == 0)
        orient_collider(g, t);
    else if (priority == 1)
        orient_collider_bidirected(g, t);
    else
        orient_collider_if_free(g, t);
}

/// sort_dict_ascending(UC_dict, descending): Python's stable sort by value;
/// with reverse=True equal values also keep their insertion order.
std::vector<Triple> sort_by_value(std::vector<std::pair<Triple, double>> dict, bool descending) {
    std::stable_sort(dict.begin(), dict.end(), [descending](const auto& a, const auto& b) {
        return descending ? a.second > b.second : a.second < b.second;
    });
    std::vector<Triple> out;
    out.reserve(dict.size());
    for (const auto& e : dict) out.push_back(e.first);
    return out;
}

/// UCSepset.uc_sepset.
void cl_uc_sepset(ClGraph& g, const SepSets& sepsets, int priority, PValueCache& pv, const Knowledge* bk) {
    std::vector<Triple> r0;
    for_each_forward_triple(g, [&](const Triple& t) {
        if (collider_blocked(bk, t)) return;
        if (sepsets.contains(t[0], t[2], t[1])) return;
        if (priority <= 2)
            orient_now(g, t, priority);
        else
            r0.push_back(t);
    });
    if (priority <= 2) return;
    std::vector<std::pair<Triple, double>> dict;
    for (const Triple& t : r0) dict.emplace_back(t, max_p(g, pv, t, priority == 3));
    for (const Triple& t : sort_by_value(std::move(dict), priority == 4))
        if (!collider_blocked(bk, t)) orient_collider_if_free(g, t);
}

/// UCSepset.maxp.
void cl_maxp(ClGraph& g, int priority, PValueCache& pv, const Knowledge* bk) {
    std::vector<std::pair<Triple, double>> dict;
    for_each_forward_triple(g, [&](const Triple& t) {
        if (collider_blocked(bk, t)) return;
        const double with_y = max_p(g, pv, t, true);
        const double without_y = max_p(g, pv, t, false);
        if (!(without_y > with_y)) return;
        if (priority <= 2)
            orient_now(g, t, priority);
        else
            dict.emplace_back(t, priority == 3 ? with_y : without_y);
    });
    if (priority <= 2) return;
    for (const Triple& t : sort_by_value(std::move(dict), priority == 4))
        if (!collider_blocked(bk, t)) orient_collider_if_free(g, t);
}

/// What definite_maxp records for definite_meek.
struct DefiniteTriples {
    std::set<Triple> uc;          ///< definite_UC (membership only is used)
    std::vector<Triple> non_uc;   ///< definite_non_UC, in discovery order
    std::set<Triple> non_uc_set;  ///< the same, for membership tests
};

/// UCSepset.definite_maxp.
DefiniteTriples cl_definite_maxp(ClGraph& g, int priority, PValueCache& pv, double alpha, bool strict,
                                 const Knowledge* bk) {
    const auto independent = [rule = ci::Decision{alpha, strict}](double p) { return rule.independent(p); };
    DefiniteTriples d;
    std::vector<std::pair<Triple, double>> dict;
    for_each_forward_triple(g, [&](const Triple& t) {
        // uc: no set containing y separates x and z; nuc: no set without y does.
        // The maxima start at 0 as in causal-learn; they are used only when the
        // corresponding loop ran to the end, so the set order does not matter.
        bool uc = true;
        double max_with = 0.0;
        for_each_cond_set(g, t[0], t[2], t[1], [&](const std::vector<std::int32_t>& s, bool has_y) {
            if (!has_y) return true;
            const double p = pv(t[0], t[2], s);
            if (independent(p)) {
                uc = false;
                return false;
            }
            max_with = std::max(max_with, p);
            return true;
        });
        bool nuc = true;
        double max_without = 0.0;
        for_each_cond_set(g, t[0], t[2], t[1], [&](const std::vector<std::int32_t>& s, bool has_y) {
            if (has_y) return true;
            const double p = pv(t[0], t[2], s);
            if (independent(p)) {
                nuc = false;
                if (!uc) return false;  // ambiguous triple
            }
            max_without = std::max(max_without, p);
            return true;
        });
        const double key = priority == 4 ? max_without : max_with;
        if (uc && (!nuc || max_without > max_with)) {
            dict.emplace_back(t, key);
        } else if (uc || nuc) {
            d.non_uc.push_back(t);
        }
    });
    std::vector<Triple> order;
    if (priority == 2) {
        for (const auto& e : dict) order.push_back(e.first);
    } else {
        order = sort_by_value(std::move(dict), priority == 4);
    }
    for (const Triple& t : order)
        if (!collider_blocked(bk, t) && orient_collider_if_free(g, t)) d.uc.insert(t);
    d.non_uc_set.insert(d.non_uc.begin(), d.non_uc.end());
    return d;
}

/// Meek's step "orient a -> b unless b is recorded as an ancestor of a".
/// Returns whether it oriented (causal-learn's `continue` otherwise).
bool meek_orient(ClGraph& g, std::int32_t a, std::int32_t b, const Knowledge* bk) {
    if (meek_blocked(bk, a, b)) return false;
    if (g.is_ancestor_of(b, a)) return false;
    g.remove_edge(a, b);
    g.add_directed(a, b);
    return true;
}

/// Meek.meek: rules 1-3 over the triples, triangles and kites listed once at the
/// start, repeated until a pass orients nothing. A kite (i, j, k, l) is a pair of
/// triangles (i, j, l), (i, k, l) in that order with j < k not adjacent; the
/// kites of one triangle (i, j, l) all orient i -> l, so after the first one
/// that does (or, l being recorded as an ancestor of i, would) the others change
/// nothing: the walk looks for that one only, among the triangle's kites whose
/// other edges qualify.
void cl_meek(ClGraph& g, const Knowledge* bk) {
    const AdjList adj(g);
    for (bool loop = true; loop;) {
        loop = false;
        adj.for_each_unshielded(g, [&](std::int32_t i, std::int32_t j, std::int32_t k) {
            if (g.is_fully_directed(i, j) && g.is_undirected(j, k)) loop |= meek_orient(g, j, k, bk);
        });
        adj.for_each_triangle(g, [&](std::int32_t i, std::int32_t j, std::int32_t k) {
            if (g.is_fully_directed(i, j) && g.is_fully_directed(j, k) && g.is_undirected(i, k))
                loop |= meek_orient(g, i, k, bk);
        });
        adj.for_each_triangle(g, [&](std::int32_t i, std::int32_t j, std::int32_t l) {
            if (!(g.is_undirected(i, j) && g.is_fully_directed(j, l) && g.is_undirected(i, l))) return;
            for (std::int32_t k : adj.seconds(i))
                if (k > j && g.is_undirected(i, k) && g.is_fully_directed(k, l) && !g.adjacent(j, k)) {
                    loop |= meek_orient(g, i, l, bk);
                    return;
                }
        });
    }
}

/// Meek.definite_meek: rule 1 over the definite non-colliders (both ways
/// round), rule 2 over the triangles, rule 3 over kites whose colliders and
/// non-colliders are definite (one kite per triangle, as in cl_meek()).
void cl_definite_meek(ClGraph& g, const DefiniteTriples& d, const Knowledge* bk) {
    const AdjList adj(g);
    // The definite colliders (j, l, k) both ways round, sorted: those of (j, l)
    // are one range.
    std::vector<Triple> uc;
    for (const Triple& t : d.uc) {
        uc.push_back(t);
        uc.push_back({t[2], t[1], t[0]});
    }
    std::sort(uc.begin(), uc.end());
    const auto non_uc = [&d](std::int32_t a, std::int32_t b, std::int32_t c) {
        return d.non_uc_set.count({a, b, c}) != 0 || d.non_uc_set.count({c, b, a}) != 0;
    };
    for (bool loop = true; loop;) {
        loop = false;
        for (const auto& [i, j, k] : d.non_uc) {
            if (g.is_fully_directed(i, j) && g.is_undirected(j, k))
                loop |= meek_orient(g, j, k, bk);
            else if (g.is_fully_directed(k, j) && g.is_undirected(j, i))
                loop |= meek_orient(g, j, i, bk);
        }
        adj.for_each_triangle(g, [&](std::int32_t i, std::int32_t j, std::int32_t k) {
            if (g.is_fully_directed(i, j) && g.is_fully_directed(j, k) && g.is_undirected(i, k))
                loop |= meek_orient(g, i, k, bk);
        });
        if (uc.empty()) continue;
        adj.for_each_triangle(g, [&](std::int32_t i, std::int32_t j, std::int32_t l) {
            if (!g.is_undirected(i, l)) return;
            const Triple lo{j, l, std::numeric_limits<std::int32_t>::min()};
            for (auto it = std::lower_bound(uc.begin(), uc.end(), lo); it != uc.end() && (*it)[0] == j && (*it)[1] == l;
                 ++it) {
                const std::int32_t k = (*it)[2];
                if (k > j && g.adjacent(i, k) && g.adjacent(k, l) && !g.adjacent(j, k) && non_uc(j, i, k)) {
                    loop |= meek_orient(g, i, l, bk);
                    return;
                }
            }
        });
    }
}

}  // namespace

namespace detail {

Pdag orient_causal_learn(const Graph& skel, const SepSets& sepsets, const OrientOptions& opt, const PValueFn& pvalue) {
    int priority = opt.uc_priority;
    if (priority == -1) priority = opt.rule == UcRule::DefiniteMaxP ? 4 : 3;
    const bool needs_p = opt.rule != UcRule::Sepset || priority >= 3;
    CUDAG_EXPECTS(!needs_p || static_cast<bool>(pvalue),
                  "orientation rule needs p-values but no p-value function was given");
    ClGraph g(skel);
    PValueCache pv(pvalue);
    const Knowledge* bk = opt.knowledge && !opt.knowledge->empty() ? opt.knowledge : nullptr;
    if (bk) cl_orient_by_background_knowledge(g, *bk);
    switch (opt.rule) {
        case UcRule::Sepset:
            cl_uc_sepset(g, sepsets, priority, pv, bk);
            cl_meek(g, bk);
            break;
        case UcRule::MaxP:
            cl_maxp(g, priority, pv, bk);
            cl_meek(g, bk);
            break;
        case UcRule::DefiniteMaxP: {
            CUDAG_EXPECTS(priority >= 2,
                          "uc_priority must be -1, 2, 3 or 4 for definiteMaxP, got " + std::to_string(opt.uc_priority));
            CUDAG_EXPECTS(opt.alpha >= 0.0 && opt.alpha < 1.0,
                          "alpha must lie in [0, 1) for definiteMaxP, got " + std::to_string(opt.alpha));
            const auto d = cl_definite_maxp(g, priority, pv, opt.alpha, opt.independence_strict, bk);
            cl_definite_meek(g, d, bk);
            cl_meek(g, bk);
            break;
        }
        case UcRule::Pcalg:
        case UcRule::Bnlearn:
            break;
    }
    return g.to_pdag();
}

}  // namespace detail
}  // namespace cudag::pc
