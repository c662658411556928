// SPDX-License-Identifier: Apache-2.0
// bnlearn 4.9's orientation of a constraint-based skeleton (its learn.arc.directions, as
// pc.stable runs it), reproduced from its documented steps and behaviour (not its code), for
// the R face's pc.stable:
//  1. every skeleton edge as two arcs, less the blacklisted ones (the user's blacklist, the
//     reverse of each arc whitelisted one way; as bnlearn's build.blacklist);
//  2. the v-structures y -> x <- z: x in node order, y < z among the nodes with an arc into x,
//     y and z without an arc between them and x outside their separating set; each weighted
//     by the p-value of the test that separated y and z (from the lower node's side when that
//     test separates them, else from the other's);
//  3. taken in increasing p-value order (stable), each applied when both its arcs still point
//     into x and the directed arcs stay acyclic, skipped otherwise (bnlearn's warning
//     "vstructure ... is not applicable");
//  4. bnlearn's CPDAG step on the result with the directed arcs fixed: when a whitelist or
//     blacklist is in play, colliders (nodes with two directed parents) keep their arcs only
//     where they form an unshielded collider; then until nothing changes, in node order,
//     rule by rule: an undirected arc on a directed path is directed along it (left
//     undirected and fixed where that makes a v-structure), an undirected arc into a node
//     with a parent is directed away from it or fixed as undirected where either direction
//     makes an unshielded collider or a cycle, an undirected i - j with two non-adjacent
//     i - k -> j is directed i -> j, and i - j with i - k -> l -> j, i - l and k, j not
//     adjacent is directed i -> j (Meek's rules 2, 1, 3 and 4 as bnlearn words them).
//  A pair y, z blacklisted both ways was never tested (no separating set): as bnlearn's
//  vstruct.detect, y -> x <- z is a v-structure when y and z stay dependent given x and
//  given x with each subset of the smaller of adj(y) \ {x, z} and adj(z) \ {x, y} (z's on
//  a tie; subsets by size, then in order; at most max.sx of them), the tests stopping at the
//  first p > alpha (bnlearn's allsubs.test); it is weighted by the largest p of its tests.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/combinations.hpp"
#include "core/error.hpp"
#include "pc/orient_detail.hpp"

namespace cudag::pc::detail {
namespace {

enum State : std::uint8_t { kAbsent = 0, kPresent = 1, kFixed = 2, kImmutable = 3 };

/// The arc states a(i, j) of i -> j over n nodes, and the skeleton's neighbour lists.
class ArcMatrix {
public:
    ArcMatrix(std::int32_t n, std::vector<std::vector<std::int32_t>> nbrs)
        : n_(n), a_(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), kAbsent), nbrs_(std::move(nbrs)) {}
    std::uint8_t& operator()(std::int32_t i, std::int32_t j) {
        return a_[static_cast<std::size_t>(i) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(j)];
    }
    std::uint8_t operator()(std::int32_t i, std::int32_t j) const {
        return a_[static_cast<std::size_t>(i) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(j)];
    }
    std::int32_t n() const { return n_; }
    const std::vector<std::int32_t>& nbrs(std::int32_t i) const { return nbrs_[static_cast<std::size_t>(i)]; }
    /// i -> j is an arc with no arc back.
    bool directed(std::int32_t i, std::int32_t j) const { return (*this)(i, j) != kAbsent && (*this)(j, i) == kAbsent; }

    /// A path of directed arcs from `from` to `to`.
    bool directed_path(std::int32_t from, std::int32_t to) const {
        std::vector<char> seen(static_cast<std::size_t>(n_), 0);
        std::vector<std::int32_t> stack{from};
        seen[static_cast<std::size_t>(from)] = 1;
        while (!stack.empty()) {
            const std::int32_t u = stack.back();
            stack.pop_back();
            for (const std::int32_t v : nbrs(u)) {
                if (!directed(u, v) || seen[static_cast<std::size_t>(v)]) continue;
                if (v == to) return true;
                seen[static_cast<std::size_t>(v)] = 1;
                stack.push_back(v);
            }
        }
        return false;
    }

    /// Whether the directed arcs hold a cycle.
    bool has_directed_cycle() const {
        std::vector<std::int32_t> indegree(static_cast<std::size_t>(n_), 0);
        for (std::int32_t u = 0; u < n_; ++u)
            for (const std::int32_t v : nbrs(u))
                if (directed(u, v)) ++indegree[static_cast<std::size_t>(v)];
        std::vector<std::int32_t> ready;
        for (std::int32_t u = 0; u < n_; ++u)
            if (indegree[static_cast<std::size_t>(u)] == 0) ready.push_back(u);
        std::int32_t done = 0;
        while (!ready.empty()) {
            const std::int32_t u = ready.back();
            ready.pop_back();
            ++done;
            for (const std::int32_t v : nbrs(u))
                if (directed(u, v) && --indegree[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
        }
        return done != n_;
    }

private:
    std::int32_t n_;
    std::vector<std::uint8_t> a_;
    std::vector<std::vector<std::int32_t>> nbrs_;
};

/// Some k (not i, j) with k -> j (any state) and no arc between k and i: j would be an
/// unshielded collider of k and i.
bool unshielded_into(const ArcMatrix& a, std::int32_t i, std::int32_t j) {
    for (const std::int32_t k : a.nbrs(j)) {
        if (k == i) continue;
        if (a(k, j) >= kPresent && a(j, k) == kAbsent && a(k, i) == kAbsent && a(i, k) == kAbsent) return true;
    }
    return false;
}

bool undirected_present(const ArcMatrix& a, std::int32_t i, std::int32_t j) {
    return a(i, j) == kPresent && a(j, i) == kPresent;
}

/// i -> j, fixed.
void fix_direction(ArcMatrix& a, std::int32_t i, std::int32_t j) {
    a(i, j) = kFixed;
    a(j, i) = kAbsent;
}

/// i - j, fixed undirected.
void fix_undirected(ArcMatrix& a, std::int32_t i, std::int32_t j) {
    a(i, j) = kFixed;
    a(j, i) = kFixed;
}

/// Rule 2: an undirected arc i - j with a directed path i ~> j.
bool prevent_cycles(ArcMatrix& a) {
    bool changed = false;
    for (std::int32_t j = 0; j < a.n(); ++j)
        for (const std::int32_t i : a.nbrs(j)) {
            if (!undirected_present(a, i, j) || !a.directed_path(i, j)) continue;
            // i -> j would make a v-structure at j: fixed undirected
            if (unshielded_into(a, i, j))
                fix_undirected(a, i, j);
            else
                fix_direction(a, i, j);
            changed = true;
        }
    return changed;
}

/// Rule 1: undirected arcs at a node with parents (bnlearn's step 3b, its branches as it has
/// them).
bool prevent_additional_vstructures(ArcMatrix& a) {
    const std::int32_t n = a.n();
    std::vector<char> has_parent(static_cast<std::size_t>(n), 0), has_neighbour(static_cast<std::size_t>(n), 0);
    for (std::int32_t j = 0; j < n; ++j)
        for (const std::int32_t i : a.nbrs(j)) {
            if (a(i, j) == kAbsent) continue;
            (a(j, i) == kPresent ? has_neighbour : has_parent)[static_cast<std::size_t>(j)] = 1;
        }
    bool changed = false;
    for (std::int32_t j = 0; j < n; ++j) {
        if (!(has_parent[static_cast<std::size_t>(j)] && has_neighbour[static_cast<std::size_t>(j)])) continue;
        for (const std::int32_t i : a.nbrs(j)) {
            if (!(a(i, j) != kAbsent && a(j, i) == kPresent)) continue;
            if (has_parent[static_cast<std::size_t>(i)]) {
                const bool at_i = unshielded_into(a, j, i);  // j -> i: a collider at i
                const bool at_j = unshielded_into(a, i, j);  // i -> j: a collider at j
                const bool path_to_j = a.directed_path(i, j);
                if (at_j && !at_i && !path_to_j) {
                    fix_direction(a, j, i);
                    changed = true;
                } else if ((at_j && !at_i) || (at_i && at_j)) {
                    fix_undirected(a, i, j);
                    changed = true;
                }
            } else if (unshielded_into(a, i, j)) {
                if (a.directed_path(i, j))
                    fix_undirected(a, i, j);
                else
                    fix_direction(a, j, i);
                changed = true;
            }
        }
    }
    return changed;
}

/// Rule 3: i - j with two non-adjacent k, l where i - k -> j and i - l -> j.
bool prevent_conflicts(ArcMatrix& a) {
    bool changed = false;
    std::vector<std::int32_t> mid;
    for (std::int32_t i = 0; i < a.n(); ++i)
        for (const std::int32_t j : a.nbrs(i)) {
            if (!undirected_present(a, i, j)) continue;
            mid.clear();
            for (const std::int32_t k : a.nbrs(i))
                if (k != j && undirected_present(a, i, k) && a(k, j) >= kPresent && a(j, k) == kAbsent)
                    mid.push_back(k);
            bool found = false;
            for (std::size_t p = 0; p < mid.size() && !found; ++p)
                for (std::size_t q = p + 1; q < mid.size() && !found; ++q)
                    found = a(mid[p], mid[q]) == kAbsent && a(mid[q], mid[p]) == kAbsent;
            if (found) {
                fix_direction(a, i, j);
                changed = true;
                break;
            }
        }
    return changed;
}

/// Rule 4: i - j with i - k -> l -> j, i - l, and k, j not adjacent.
bool prevent_chains(ArcMatrix& a) {
    bool changed = false;
    for (std::int32_t i = 0; i < a.n(); ++i)
        for (const std::int32_t j : a.nbrs(i)) {
            if (!undirected_present(a, i, j)) continue;
            bool found = false;
            for (const std::int32_t k : a.nbrs(i)) {
                if (!(a(i, k) >= kPresent && a(k, i) >= kPresent)) continue;
                for (const std::int32_t l : a.nbrs(k))
                    if (a(k, l) >= kPresent && a(l, k) == kAbsent && a(l, j) >= kPresent && a(j, l) == kAbsent &&
                        a(i, l) >= kPresent && a(l, i) >= kPresent && a(k, j) == kAbsent && a(j, k) == kAbsent) {
                        found = true;
                        break;
                    }
                if (found) break;
            }
            if (found) {
                fix_direction(a, i, j);
                changed = true;
                break;
            }
        }
    return changed;
}

}  // namespace

Pdag orient_bnlearn(const Graph& skel, const SepSets& sepsets, const OrientOptions& opt, const PValueFn& pvalue) {
    const auto n = static_cast<std::int32_t>(skel.n());
    if (n > 20000)
        throw InputError("bnlearn's orientation (an n x n arc matrix) takes at most 20,000 variables, these are " +
                         std::to_string(n));
    const Knowledge* k = opt.knowledge;
    // bnlearn's whitelist and its full blacklist (build.whitelist / build.blacklist)
    const auto white = [&](std::int32_t x, std::int32_t y) {
        return k && (k->required(x, y) || k->undirected_required_pairs().count({std::min(x, y), std::max(x, y)}) != 0);
    };
    const auto black = [&](std::int32_t x, std::int32_t y) {
        return k && !white(x, y) && (k->forbidden(x, y) || k->required(y, x));
    };
    std::vector<std::vector<std::int32_t>> nbrs(static_cast<std::size_t>(n));
    for (std::int32_t i = 0; i < n; ++i) nbrs[static_cast<std::size_t>(i)] = skel.neighbours(i);
    ArcMatrix a(n, nbrs);
    for (std::int32_t i = 0; i < n; ++i)
        for (const std::int32_t j : a.nbrs(i))
            if (!black(i, j)) a(i, j) = kPresent;

    // 2. v-structures, weighted by the separating test's p-value
    struct VStructure {
        double p;
        std::int32_t y, x, z;
    };
    std::vector<VStructure> vs;
    std::map<std::pair<std::int32_t, std::int32_t>, double> separating_p;
    const auto weight = [&](std::int32_t y, std::int32_t z, const std::vector<std::int32_t>& s) {
        const auto key = std::make_pair(y, z);
        if (const auto it = separating_p.find(key); it != separating_p.end()) return it->second;
        CUDAG_EXPECTS(pvalue != nullptr, "bnlearn's orientation needs the test's p-values");
        double p = pvalue(y, z, s);  // y < z: bnlearn's first endpoint
        if (!(p > opt.alpha)) p = pvalue(z, y, s);
        separating_p.emplace(key, p);
        return p;
    };
    // bnlearn's allsubs.test(y, z, fixed = x, sx) for a pair blacklisted both ways: the
    // largest p of its tests when every one is dependent (a v-structure), else none.
    const auto dependent_given_x = [&](std::int32_t y, std::int32_t x, std::int32_t z) -> std::optional<double> {
        CUDAG_EXPECTS(pvalue != nullptr, "bnlearn's orientation needs the test's p-values");
        std::vector<std::int32_t> sy, sz;
        for (const std::int32_t v : nbrs[static_cast<std::size_t>(y)])
            if (v != x && v != z) sy.push_back(v);
        for (const std::int32_t v : nbrs[static_cast<std::size_t>(z)])
            if (v != x && v != y) sz.push_back(v);
        const std::vector<std::int32_t>& sx = sy.size() < sz.size() ? sy : sz;
        const auto k = static_cast<int>(sx.size());
        const int most = opt.max_sx < 0 ? k : std::min(opt.max_sx, k);
        std::vector<std::int32_t> set{x};
        double largest = pvalue(y, z, set);
        if (!(largest <= opt.alpha)) return std::nullopt;
        std::vector<int> c;
        for (int size = 1; size <= most; ++size) {
            c.resize(static_cast<std::size_t>(size));
            std::iota(c.begin(), c.end(), 0);  // the first subset
            do {
                set.assign(1, x);
                for (const int u : c) set.push_back(sx[static_cast<std::size_t>(u)]);
                const double p = pvalue(y, z, set);
                largest = std::max(largest, p);
                if (!(p <= opt.alpha)) return std::nullopt;
            } while (next_combination(c.data(), size, k));  // lexicographic order
        }
        return largest;
    };
    std::vector<std::int32_t> into;
    for (std::int32_t x = 0; x < n; ++x) {
        into.clear();
        for (const std::int32_t y : a.nbrs(x))
            if (a(y, x) == kPresent) into.push_back(y);
        for (std::size_t p = 0; p < into.size(); ++p)
            for (std::size_t q = p + 1; q < into.size(); ++q) {
                const std::int32_t y = into[p], z = into[q];
                if (a(y, z) != kAbsent || a(z, y) != kAbsent || skel.has(y, z)) continue;
                if (black(y, z) && black(z, y)) {  // never tested: bnlearn tests them given x
                    if (const std::optional<double> p = dependent_given_x(y, x, z)) vs.push_back({*p, y, x, z});
                    continue;
                }
                if (sepsets.contains(y, z, x)) continue;
                vs.push_back({weight(y, z, sepsets.get(y, z)), y, x, z});
            }
    }
    std::stable_sort(vs.begin(), vs.end(), [](const VStructure& l, const VStructure& r) { return l.p < r.p; });

    // 3. applied in that order where they still fit
    for (const VStructure& v : vs) {
        if (a(v.y, v.x) == kAbsent || a(v.z, v.x) == kAbsent) continue;  // an arc already points the other way
        const std::uint8_t back_y = a(v.x, v.y), back_z = a(v.x, v.z);
        a(v.x, v.y) = kAbsent;
        a(v.x, v.z) = kAbsent;
        if (a.has_directed_cycle()) {
            a(v.x, v.y) = back_y;
            a(v.x, v.z) = back_z;
        }
    }

    // 4. bnlearn's CPDAG step, the directed arcs fixed
    std::vector<char> collider(static_cast<std::size_t>(n), 0);
    for (std::int32_t j = 0; j < n; ++j) {
        int parents = 0;
        for (const std::int32_t i : a.nbrs(j)) parents += a.directed(i, j) ? 1 : 0;
        collider[static_cast<std::size_t>(j)] = parents >= 2;
    }
    for (std::int32_t i = 0; i < n; ++i)
        for (const std::int32_t j : a.nbrs(i))
            if (a(i, j) == kPresent && a(j, i) == kAbsent) a(i, j) = kFixed;
    if (k && !k->empty()) {  // a whitelist or blacklist: the colliders checked
        for (std::int32_t j = 0; j < n; ++j)
            if (!collider[static_cast<std::size_t>(j)])
                for (const std::int32_t i : a.nbrs(j))
                    if (a(i, j) == kPresent) a(j, i) = kPresent;
        for (std::int32_t j = 0; j < n; ++j) {
            if (!collider[static_cast<std::size_t>(j)]) continue;
            for (const std::int32_t i : a.nbrs(j)) {
                if (a(i, j) != kPresent) continue;
                if (a(j, i) == kAbsent)
                    a(i, j) = kFixed;
                else if (a(j, i) == kPresent && collider[static_cast<std::size_t>(i)])
                    a(i, j) = a(j, i) = kFixed;
            }
        }
        const auto fixed = [](std::uint8_t s) { return s == kFixed || s == kImmutable; };
        for (std::int32_t i = 0; i < n; ++i) {
            if (!collider[static_cast<std::size_t>(i)]) continue;
            for (const std::int32_t j : a.nbrs(i)) {
                if (!fixed(a(j, i))) continue;
                bool unshielded = false;
                for (const std::int32_t m : a.nbrs(i)) {
                    if (m == j || !fixed(a(m, i))) continue;
                    if ((a(j, m) == kAbsent && a(m, j) == kAbsent) ||
                        (a(j, i) == kImmutable && a(m, i) == kImmutable)) {
                        unshielded = true;
                        break;
                    }
                }
                if (!unshielded && a(j, i) == kFixed) a(j, i) = a(i, j) = kPresent;
            }
        }
    }
    const std::int64_t rounds = static_cast<std::int64_t>(n) * n;
    for (std::int64_t r = 0; r < rounds; ++r) {
        bool changed = prevent_cycles(a);
        changed |= prevent_additional_vstructures(a);
        changed |= prevent_conflicts(a);
        changed |= prevent_chains(a);
        if (!changed) break;
    }

    Pdag g(skel);
    for (std::int32_t i = 0; i < n; ++i)
        for (const std::int32_t j : a.nbrs(i))
            if (i < j && a(i, j) != kAbsent && a(j, i) == kAbsent)
                g.orient(i, j);
            else if (i < j && a(j, i) != kAbsent && a(i, j) == kAbsent)
                g.orient(j, i);
    return g;
}

}  // namespace cudag::pc::detail
