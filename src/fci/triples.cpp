// SPDX-License-Identifier: Apache-2.0
#include "fci/triples.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "core/error.hpp"

namespace cudag::fci {

std::vector<Triple> unshielded_triples(const Graph& g) {
    std::vector<Triple> out;
    const auto n = static_cast<std::int32_t>(g.n());
    for (std::int32_t b = 0; b < n; ++b) {
        const std::vector<std::int32_t> nb = g.neighbours(b);
        for (const std::int32_t a : nb)
            for (const std::int32_t c : nb)
                if (a < c && !g.has(a, c)) out.push_back({a, b, c});
    }
    return out;
}

namespace {

/// Subsets are 2^k tests: beyond this many neighbours a check would run for days (pcalg
/// would too); refuse instead.
constexpr int kMaxSubsetNeighbours = 24;

void subsets(std::span<const std::int32_t> nbrs, std::int32_t a, std::int32_t c, TestBatch& batch) {
    const auto k = static_cast<int>(nbrs.size());
    std::vector<std::int32_t> s;
    for (std::uint64_t m = 0; m < (std::uint64_t{1} << k); ++m) {  // expand.grid: first column fastest
        s.clear();
        for (int i = 0; i < k; ++i)
            if (m >> i & 1u) s.push_back(nbrs[static_cast<std::size_t>(i)]);
        batch.add(a, c, s);
    }
}

void check_degree(std::span<const std::int32_t> nbrs, std::int32_t node) {
    if (static_cast<int>(nbrs.size()) > kMaxSubsetNeighbours)
        throw InputError("the conservative / majority-rule check tests every subset of a node's neighbours: variable " +
                         std::to_string(node) + " has " + std::to_string(nbrs.size()) + " neighbours (2^" +
                         std::to_string(nbrs.size()) + " tests); the check handles up to " +
                         std::to_string(kMaxSubsetNeighbours));
}

/// checkTriple's decision for b from the separating sets (each test's set and whether it
/// separated), as pcalg counts: `tmp` holds "b in S" for every separating S.
TripleDecision decide(std::int32_t b, const TestBatch& batch, std::size_t q0, std::size_t q1, std::span<const double> p,
                      const Tester& tester, const ConsOptions& opt, bool& version2) {
    std::int64_t with = 0, total = 0;
    for (std::size_t q = q0; q < q1; ++q) {
        if (!tester.independent(p[q])) continue;
        ++total;
        const auto s = batch.set(q);
        if (std::find(s.begin(), s.end(), b) != s.end()) ++with;
    }
    version2 = opt.unseparated_ambiguous && total == 0;
    if (total == 0) return TripleDecision::Collider;  // tmp <- FALSE: in no set
    if (with == total) return TripleDecision::NonCollider;
    if (with == 0) return TripleDecision::Collider;
    if (!opt.majority) return TripleDecision::Ambiguous;
    if (2 * with < total) return TripleDecision::Collider;
    if (2 * with > total) return TripleDecision::NonCollider;
    return TripleDecision::Ambiguous;
}

std::vector<std::int32_t> revised(std::span<const std::int32_t> s, std::int32_t b, TripleDecision d) {
    std::vector<std::int32_t> out(s.begin(), s.end());
    const auto it = std::lower_bound(out.begin(), out.end(), b);
    const bool has = it != out.end() && *it == b;
    if (d == TripleDecision::NonCollider && !has) out.insert(it, b);
    if (d == TripleDecision::Collider && has) out.erase(it);
    return out;
}

}  // namespace

SepSets update_sepsets(const SepSets& s, std::vector<SepSetUpdate> updates) {
    for (auto& u : updates) {
        if (u.i > u.j) std::swap(u.i, u.j);
        std::sort(u.set.begin(), u.set.end());
    }
    // The last update of a pair wins.
    std::stable_sort(updates.begin(), updates.end(), [](const SepSetUpdate& x, const SepSetUpdate& y) {
        return SepSets::pack(x.i, x.j) < SepSets::pack(y.i, y.j);
    });
    SepSets out;
    std::size_t u = 0;
    auto flush_until = [&](std::uint64_t key) {  // updates of pairs before `key`
        while (u < updates.size() && SepSets::pack(updates[u].i, updates[u].j) < key) {
            std::size_t last = u;
            while (last + 1 < updates.size() &&
                   SepSets::pack(updates[last + 1].i, updates[last + 1].j) == SepSets::pack(updates[u].i, updates[u].j))
                ++last;
            out.append_sorted(updates[last].i, updates[last].j, updates[last].set);
            u = last + 1;
        }
    };
    for (const auto e : s.all()) {
        const std::uint64_t key = SepSets::pack(e.key.first, e.key.second);
        flush_until(key);
        if (u < updates.size() && SepSets::pack(updates[u].i, updates[u].j) == key) {
            flush_until(key + 1);
        } else {
            out.append_sorted(e.key.first, e.key.second, e.set);
        }
    }
    flush_until(~std::uint64_t{0});
    return out;
}

TripleDecision check_triple(std::int32_t a, std::int32_t b, std::int32_t c, std::span<const std::int32_t> nbrs_a,
                            std::span<const std::int32_t> nbrs_c, Tester& tester, const ConsOptions& opt,
                            SepSets& sepsets, bool& version2) {
    check_degree(nbrs_a, a);
    check_degree(nbrs_c, c);
    TestBatch batch;
    subsets(nbrs_a, a, c, batch);
    subsets(nbrs_c, a, c, batch);
    std::vector<double> p(batch.size());
    tester.p_values(batch, p);
    const TripleDecision d = decide(b, batch, 0, batch.size(), p, tester, opt, version2);
    sepsets = update_sepsets(sepsets, {{a, c, revised(sepsets.view(a, c), b, d)}});
    return d;
}

TripleSet conservative_triples(const Graph& g, Tester& tester, const ConsOptions& opt, SepSets& sepsets) {
    // The tests depend on (a, c) only (subsets of their neighbours), not on b: run them once
    // per pair, then decide every b of the pair. Pairs go in chunks of bounded batch size.
    const std::vector<Triple> triples = unshielded_triples(g);
    std::map<std::pair<std::int32_t, std::int32_t>, std::vector<std::int32_t>> pairs;
    for (const Triple& t : triples) pairs[{t.a, t.c}].push_back(t.b);
    TripleSet unf;
    std::vector<SepSetUpdate> updates;
    constexpr std::size_t kBatchNodes = std::size_t{1} << 24;
    auto it = pairs.begin();
    while (it != pairs.end()) {
        TestBatch batch;
        std::vector<std::pair<decltype(it), std::pair<std::size_t, std::size_t>>> chunk;
        while (it != pairs.end() && (chunk.empty() || batch.nodes.size() < kBatchNodes)) {
            const auto [a, c] = it->first;
            const std::vector<std::int32_t> na = g.neighbours(a), nc = g.neighbours(c);
            check_degree(na, a);
            check_degree(nc, c);
            const std::size_t q0 = batch.size();
            subsets(na, a, c, batch);
            subsets(nc, a, c, batch);
            chunk.push_back({it, {q0, batch.size()}});
            ++it;
        }
        std::vector<double> p(batch.size());
        tester.p_values(batch, p);
        for (const auto& [pit, range] : chunk) {
            const auto [a, c] = pit->first;
            std::vector<std::int32_t> set = sepsets.get(a, c);
            for (const std::int32_t b : pit->second) {
                bool version2 = false;
                const TripleDecision d = decide(b, batch, range.first, range.second, p, tester, opt, version2);
                if (d == TripleDecision::Ambiguous || version2) unf.insert(a, b, c);
                set = revised(set, b, d);
            }
            updates.push_back({a, c, std::move(set)});
        }
    }
    sepsets = update_sepsets(sepsets, std::move(updates));
    return unf;
}

}  // namespace cudag::fci
