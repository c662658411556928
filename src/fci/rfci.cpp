// SPDX-License-Identifier: Apache-2.0
// pcalg's rfci() after skeleton(): rfci.vStruc with dep.triple, and checkEdges (R4's
// tests), line by line. R's loops are kept where they decide the answer: dep.triple's
// `for (k in seq_len(ncol(unshTripl)))` takes the column count once (triples appended on
// the way are oriented but not tested), the minimal sets are searched by size in combn
// order, and every change to the graph is seen by the later steps. Tests whose answers do
// not depend on one another go to the tester in one batch.
#include "fci/rfci.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "core/combinations.hpp"
#include "core/error.hpp"
#include "fci/rfci_internal.hpp"

namespace cudag::fci {

using namespace cudag::marks;

namespace rfci_detail {

// ---- OrderedSepsets ------------------------------------------------------------------

std::span<const std::int32_t> OrderedSepsets::get(std::int32_t i, std::int32_t j) const {
    const auto it = over_.find(key(i, j));
    if (it != over_.end()) return it->second;
    if (base_ && i < j) return base_->view(i, j);
    return {};
}

void OrderedSepsets::set(std::int32_t i, std::int32_t j, std::vector<std::int32_t> s) {
    over_[key(i, j)] = std::move(s);
}

std::vector<std::int32_t> OrderedSepsets::either(std::int32_t i, std::int32_t j) const {
    const auto a = get(i, j);
    const auto b = get(j, i);
    std::vector<std::int32_t> out;
    out.reserve(a.size() + b.size());
    for (const auto& part : {a, b})
        for (const std::int32_t v : part)
            if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    return out;
}

bool OrderedSepsets::contains_either(std::int32_t i, std::int32_t j, std::int32_t k) const {
    const auto a = get(i, j);
    const auto b = get(j, i);
    return std::find(a.begin(), a.end(), k) != a.end() || std::find(b.begin(), b.end(), k) != b.end();
}

SepSets OrderedSepsets::to_sepsets() const {
    std::vector<SepSetUpdate> updates;
    updates.reserve(over_.size());
    for (const auto& [k, s] : over_) {
        const auto i = static_cast<std::int32_t>(k >> 32);
        const auto j = static_cast<std::int32_t>(k & 0xffffffffu);
        updates.push_back({std::min(i, j), std::max(i, j), either(i, j)});
    }
    // A pair set in both orders gives the same union twice: either one may win.
    return update_sepsets(base_ ? *base_ : SepSets{}, std::move(updates));
}

// ---- TripleList ----------------------------------------------------------------------

void TripleList::add(const Triple& t) {
    first_.try_emplace({t.a, t.b, t.c}, items_.size());
    items_.push_back(t);
    live_.push_back(1);
}

void TripleList::kill_first(std::int32_t a, std::int32_t b, std::int32_t c) {
    const auto it = first_.find({a, b, c});
    if (it != first_.end()) live_[it->second] = 0;
}

namespace {

using Set = std::vector<std::int32_t>;

/// setdiff(s, drop), in s's order.
Set without(const Set& s, std::initializer_list<std::int32_t> drop) {
    Set out;
    out.reserve(s.size());
    for (const std::int32_t v : s)
        if (std::find(drop.begin(), drop.end(), v) == drop.end()) out.push_back(v);
    return out;
}

/// The subsets of `s` of size k in R's combn(s, k) order (lexicographic in positions), as
/// a batch of tests of x ⟂ y.
void subsets_of_size(std::int32_t x, std::int32_t y, const Set& s, int k, TestBatch& batch) {
    const int n = static_cast<int>(s.size());
    std::vector<int> c(static_cast<std::size_t>(k));
    for (int t = 0; t < k; ++t) c[static_cast<std::size_t>(t)] = t;
    Set sub(static_cast<std::size_t>(k));
    do {
        for (int t = 0; t < k; ++t)
            sub[static_cast<std::size_t>(t)] = s[static_cast<std::size_t>(c[static_cast<std::size_t>(t)])];
        batch.add(x, y, sub);
    } while (next_combination(c.data(), k, n));
}

/// The minimal-set loops of dep.triple and checkEdges: for ord = 1, ..., |s|, the subsets
/// of size ord in combn order, until one gives x ⟂ y (as indepTest(x, y, S)). The tests of
/// one size go in one batch (pcalg stops at the first independent one; the tests are
/// deterministic, so the first in order is the same). `full_known`: x ⟂ y | s is known to
/// hold (dep.triple tested it first), so the last size needs no test.
std::optional<Set> first_separating(std::int32_t x, std::int32_t y, const Set& s, Tester& tester, bool full_known) {
    const int n = static_cast<int>(s.size());
    TestBatch batch;
    std::vector<double> p;
    for (int k = 1; k <= n; ++k) {
        if (k == n && full_known) return s;
        batch.clear();
        subsets_of_size(x, y, s, k, batch);
        p.assign(batch.size(), 0.0);
        tester.p_values(batch, p);
        for (std::size_t q = 0; q < batch.size(); ++q)
            if (tester.independent(p[q])) {
                const auto v = batch.set(q);
                return Set(v.begin(), v.end());
            }
    }
    return std::nullopt;
}

bool oo(const Pag& g, std::int32_t p, std::int32_t q) { return g(p, q) == kCircle && g(q, p) == kCircle; }

/// dep.triple's bookkeeping after the edge u - y of the triple (x, y, z) (u = x or z) was
/// removed: case 1, u o-o m o-o y is a new unshielded triple; case 2.a, q o-o u with q not
/// adjacent to y, and case 2.b, y o-o r with r not adjacent to u: triples gone. pcalg reads
/// the marks (== 1 both ways: o-o edges only), and skips x, y, z.
void after_removal(const Pag& g, std::int32_t u, std::int32_t y, std::int32_t x, std::int32_t z, TripleList& triples) {
    auto skipped = [&](std::int32_t v) { return v == x || v == y || v == z; };
    const std::int32_t lo = std::min(u, y), hi = std::max(u, y);
    for (const std::int32_t m : g.neighbours(u))
        if (!skipped(m) && oo(g, u, m) && oo(g, y, m)) triples.add({lo, m, hi});
    for (const std::int32_t q : g.neighbours(u))
        if (!skipped(q) && oo(g, u, q) && !g.adjacent(y, q)) {
            if (q < y)
                triples.kill_first(q, u, y);
            else
                triples.kill_first(y, u, q);
        }
    for (const std::int32_t r : g.neighbours(y))
        if (!skipped(r) && oo(g, y, r) && !g.adjacent(u, r)) {
            if (r < u)
                triples.kill_first(r, y, u);
            else
                triples.kill_first(u, y, r);
        }
}

/// checkTriple's revision of sepset(a, c) for b: appended where all separating sets hold b
/// (`if (b %nin% sepsetA) sepsetA <- c(sepsetA, b)`), removed where none does.
Set revised(std::span<const std::int32_t> s, std::int32_t b, TripleDecision d) {
    Set out(s.begin(), s.end());
    const auto it = std::find(out.begin(), out.end(), b);
    if (d == TripleDecision::NonCollider && it == out.end()) out.push_back(b);
    if (d == TripleDecision::Collider && it != out.end()) out.erase(it);
    return out;
}

}  // namespace

// pcalg's dep.triple.
void dep_triple(Pag& g, OrderedSepsets& sep, Tester& tester, TripleList& triples) {
    const std::size_t n0 = triples.size();  // seq_len(ncol(unshTripl)), taken once
    // Every triple's first two tests, indepTest(x, y, SepSet) and indepTest(z, y, SepSet),
    // in one batch up front: SepSet is sepset(x, z) \ {y}, and the loop below only writes
    // the sets of pairs it removes, which were adjacent, never an (x, z). A triple set
    // FALSE before its turn is not tested by pcalg; its answers here go unused.
    std::vector<Set> sets(n0);
    std::vector<std::int64_t> first(n0, -1);
    TestBatch batch;
    for (std::size_t k = 0; k < n0; ++k) {
        if (!triples.live(k)) continue;
        const auto [x, y, z] = triples[k];
        sets[k] = without(sep.either(x, z), {y});
        if (sets[k].empty()) continue;  // nothing to test: x - y - z stays
        first[k] = static_cast<std::int64_t>(batch.size());
        batch.add(x, y, sets[k]);
        batch.add(z, y, sets[k]);
    }
    std::vector<double> p0(batch.size());
    tester.p_values(batch, p0);
    for (std::size_t k = 0; k < n0; ++k) {
        if (!triples.live(k) || first[k] < 0) continue;
        const auto [x, y, z] = triples[k];
        const Set& s = sets[k];
        const double* p = p0.data() + first[k];
        bool removed = false;
        for (int side = 0; side < 2; ++side) {
            if (!tester.independent(p[side])) continue;
            removed = true;
            const std::int32_t u = side == 0 ? x : z;
            // The full set separates, so the search ends at the latest at size |s|.
            Set m = *first_separating(u, y, s, tester, true);
            g.remove(u, y);
            sep.set(u, y, m);
            sep.set(y, u, std::move(m));
            after_removal(g, u, y, x, z, triples);
        }
        if (removed) triples.kill(k);
    }
}

// pcalg's rfci.vStruc.
std::vector<Triple> rfci_vstruc(Pag& g, OrderedSepsets& sep, Tester& tester, TripleList triples,
                                const VstrucOptions& opt) {
    std::vector<Triple> unf_list;
    if (triples.size() == 0) return unf_list;
    dep_triple(g, sep, tester, triples);
    TripleSet unf;  // this call's unfTripl: the only ambiguous triples its orientation reads
    const ConsOptions cons{opt.unseparated_ambiguous, opt.majority};
    for (std::size_t i = 0; i < triples.size(); ++i) {
        if (!triples.live(i)) continue;
        const auto [x, y, z] = triples[i];
        if (opt.conservative) {
            const Set nx(g.neighbours(x).begin(), g.neighbours(x).end());
            const Set nz(g.neighbours(z).begin(), g.neighbours(z).end());
            SepSets scratch;  // check_triple's own revision (sorted, unordered) is not pcalg's: redone below
            bool version2 = false;
            const TripleDecision d = check_triple(x, y, z, nx, nz, tester, cons, scratch, version2);
            if (d == TripleDecision::Ambiguous || version2) {
                unf.insert(x, y, z);
                unf_list.push_back({x, y, z});
            }
            Set a = revised(sep.get(x, z), y, d);
            Set c = revised(sep.get(z, x), y, d);
            sep.set(x, z, std::move(a));
            sep.set(z, x, std::move(c));
        }
        if (!g.adjacent(x, z) && g.adjacent(x, y) && g.adjacent(z, y) && !sep.contains_either(x, z, y) &&
            !(opt.conservative && unf.contains_either(x, y, z))) {
            g.set(x, y, kArrow);
            g.set(z, y, kArrow);
        }
    }
    return unf_list;
}

// pcalg's checkEdges.
bool check_edges(Pag& g, OrderedSepsets& sep, Tester& tester, std::span<const std::int32_t> path, const TripleSet& unf,
                 std::vector<Triple>& new_unf) {
    if (path.size() < 2) throw Error("rfci: checkEdges on a path of fewer than two nodes");
    const bool conservative = !unf.empty();
    const Set total = sep.either(path.front(), path.back());
    if (total.empty()) return false;  // the ends are surely dependent: nothing to test
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const std::int32_t x = path[i], y = path[i + 1];
        const Set s = without(total, {x, y});
        if (s.empty()) continue;
        std::optional<Set> m = first_separating(x, y, s, tester, false);
        if (!m) continue;
        g.remove(x, y);
        sep.set(x, y, *m);
        sep.set(y, x, std::move(*m));
        // Before, a triangle x - m - y; now an unshielded triple to check (any marks).
        TripleList triples;
        const std::int32_t lo = std::min(x, y), hi = std::max(x, y);
        for (const std::int32_t v : g.neighbours(x))
            if (v != y && g.adjacent(y, v)) triples.add({lo, v, hi});
        if (triples.size() > 0)
            new_unf = rfci_vstruc(g, sep, tester, std::move(triples),
                                  {conservative, /*version.unf = c(2, 1)*/ true, /*maj.rule*/ false});
        return true;
    }
    return false;
}

// rfci() after skeleton().
Pag rfci_orient_ordered(const Graph& skeleton, OrderedSepsets& sep, Tester& tester, const RfciOptions& opt) {
    if (opt.conservative && opt.majority)
        throw InputError("RFCI: choose one of the conservative and the majority rule, not both");
    Pag g = Pag::circles(skeleton);
    TripleList triples;
    for (const Triple& t : unshielded_triples(skeleton)) triples.add(t);
    const std::vector<Triple> unf_list =
        rfci_vstruc(g, sep, tester, std::move(triples),
                    {opt.conservative || opt.majority, /*version.unf = c(1, 1)*/ false, opt.majority});
    TripleSet unf;
    for (const Triple& t : unf_list) unf.insert(t.a, t.b, t.c);
    udag2apag(g, sep, tester, unf, opt.rules);
    return g;
}

}  // namespace rfci_detail

Pag rfci_orient(const Graph& skeleton, SepSets& sepsets, Tester& tester, const RfciOptions& opt) {
    rfci_detail::OrderedSepsets sep(&sepsets);
    Pag g = rfci_detail::rfci_orient_ordered(skeleton, sep, tester, opt);
    sepsets = sep.to_sepsets();
    return g;
}

}  // namespace cudag::fci
