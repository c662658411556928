// SPDX-License-Identifier: Apache-2.0
// The canonical per-row search of one PC-stable level, shared by the CPU engines.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <vector>

#include "core/combinations.hpp"
#include "core/graph.hpp"
#include "core/interrupt.hpp"
#include "core/pair_index.hpp"
#include "core/parallel.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::skeleton {

/// Whether c is a neighbour of j in `snap` (rows increasing).
inline bool adjacent(const Adjacency& snap, std::int64_t j, std::int32_t c) {
    const std::int32_t* row = snap.row(j);
    return std::binary_search(row, row + snap.degree(j), c);
}

/// Whether adj(i) \ {j} = adj(j) \ {i} in `snap` (rows increasing).
inline bool same_neighbours(const Adjacency& snap, std::int64_t i, std::int64_t j) {
    if (snap.degree(i) != snap.degree(j)) return false;
    const std::int32_t *a = snap.row(i), *a_end = a + snap.degree(i);
    const std::int32_t *b = snap.row(j), *b_end = b + snap.degree(j);
    for (;;) {
        while (a != a_end && *a == j) ++a;
        while (b != b_end && *b == i) ++b;
        if (a == a_end || b == b_end) return a == a_end && b == b_end;
        if (*a++ != *b++) return false;
    }
}

/// Tests every entry (i, j) of row i of `snap` at level l from row i's side, walking
/// the l-subsets S of adj(i) in lexicographic order (so the first separating set found
/// is the lexicographically smallest, DESIGN.md's determinism rule) and, for each S,
/// the neighbours j ∉ S in increasing order. `tester` provides
///   void prepare(const std::int32_t* s, int l)  — called once per S, lazily, before the
///        first test with that S (work shared by all j: a factorisation, strata, ...);
///   double test(std::int32_t j)                 — p-value of i ⟂ j | S; or
///   double test(std::int32_t j, std::int64_t q) — the same, j at row position q; it may
///        return -1 for a test whose p can change neither pMax nor the outcome (counted
///        and marked tested all the same: FisherRowTester); or
///   void batch(const std::int64_t* q, std::int64_t count) and
///   double batched(std::int64_t t, std::int64_t q) — the tests of one set at the row
///        positions q[0..count) computed together, then their p-values (or -1 as above)
///        asked for in that order (FisherRowTester: its arithmetic across the tests).
/// Without policy.exhaustive an entry stops at its first separating set and the row
/// stops once every entry is separated (cuPC §4.1 early termination); with it every S is
/// tested and the union of the separating sets is kept. Only the entries at positions
/// [q_begin, q_end) of the row are tested (a row cut between ranks, LevelBlock): each
/// still walks every set of the row, so its outcome is the one of a whole-row search.
/// policy.bnlearn_pairs leaves out the tests bnlearn's pc.stable runs from the other
/// endpoint's side only (TestPolicy::bnlearn_pairs).
/// Returns the number of tests.
template <class Tester>
std::int64_t search_row(int l, const Adjacency& snap, std::int64_t i, const TestPolicy& policy, LevelOutput& out,
                        Tester& tester, std::int64_t q_begin = 0,
                        std::int64_t q_end = std::numeric_limits<std::int64_t>::max()) {
    const std::int64_t d = snap.degree(i);
    q_end = std::min(q_end, d);
    if (d - 1 < l || q_end <= q_begin) return 0;
    const std::int32_t* nb = snap.row(i);
    const std::int64_t e0 = snap.offsets[i];
    const bool exhaustive = policy.exhaustive;
    std::vector<int> c(static_cast<std::size_t>(l));
    std::vector<std::int32_t> s(static_cast<std::size_t>(l));
    std::vector<char> in_set(static_cast<std::size_t>(d), 0);
    std::vector<std::int64_t> todo;       // a batching tester's row positions of one set
    std::int64_t open = q_end - q_begin;  // entries not yet separated from this side
    std::int64_t tests = 0;
    // policy.bnlearn_pairs: the tests bnlearn's pc.stable runs from j's side only (j < i)
    const bool pairs = policy.bnlearn_pairs && l >= 1;
    std::vector<char> from_j_only;  // level >= 2: every set of the entry
    if (pairs && l >= 2) {
        from_j_only.assign(static_cast<std::size_t>(q_end - q_begin), 0);
        for (std::int64_t q = q_begin; q < q_end; ++q)
            if (nb[q] < i && same_neighbours(snap, i, nb[q])) {
                from_j_only[static_cast<std::size_t>(q - q_begin)] = 1;
                --open;
            }
        if (open == 0) return 0;
    }
    const auto skipped = [&](std::int64_t q) {
        if (!pairs || nb[q] > i) return false;
        return l == 1 ? adjacent(snap, nb[q], s[0]) : from_j_only[static_cast<std::size_t>(q - q_begin)] != 0;
    };
    for (int t = 0; t < l; ++t) c[t] = t;
    do {
        // Ctrl-C in a binding (core/interrupt.hpp): looked at on the caller's thread; the
        // other workers drop the row once the run is ending (its results are never used).
        interrupt::poll();
        if (interrupt::stop_requested()) return tests;
        for (int t = 0; t < l; ++t) {
            s[t] = nb[c[t]];
            in_set[c[t]] = 1;
        }
        // One test's outcome recorded: entry e (row position q) tested with p.
        const auto record = [&](std::int64_t q, double p) {
            const std::int64_t e = e0 + q;
            ++tests;
            out.flags[e] |= kTested;
            out.pmax[e] = std::max(out.pmax[e], p);
            if (!policy.independent(p)) return;
            out.flags[e] |= kSeparated;
            if (!exhaustive) {
                std::copy(s.begin(), s.end(), out.set_slot(static_cast<std::size_t>(e)));
                --open;
            } else {
                std::vector<std::int32_t> u;
                auto& un = out.unions[static_cast<std::size_t>(e)];
                std::set_union(un.begin(), un.end(), s.begin(), s.end(), std::back_inserter(u));
                un.swap(u);
            }
        };
        if constexpr (requires { tester.batch(todo.data(), std::int64_t{0}); }) {
            // The set's tests all at once (a test's outcome changes only its own entry, so
            // the entries to test are known up front), then recorded in the same order.
            todo.clear();
            for (std::int64_t q = q_begin; q < q_end; ++q)
                if (!in_set[q] && (exhaustive || !(out.flags[e0 + q] & kSeparated)) && !skipped(q)) todo.push_back(q);
            if (!todo.empty()) {
                tester.prepare(s.data(), l);
                const auto count = static_cast<std::int64_t>(todo.size());
                tester.batch(todo.data(), count);
                for (std::int64_t t = 0; t < count; ++t) record(todo[t], tester.batched(t, todo[t]));
            }
        } else {
            bool prepared = false;
            for (std::int64_t q = q_begin; q < q_end; ++q) {
                if (in_set[q]) continue;
                if (!exhaustive && (out.flags[e0 + q] & kSeparated)) continue;
                if (skipped(q)) continue;
                if (!prepared) {
                    tester.prepare(s.data(), l);
                    prepared = true;
                }
                double p;  // a tester may take the row position too (FisherRowTester's bound)
                if constexpr (requires { tester.test(nb[q], q); })
                    p = tester.test(nb[q], q);
                else
                    p = tester.test(nb[q]);
                record(q, p);
            }
        }
        for (int t = 0; t < l; ++t) in_set[c[t]] = 0;
        if (!exhaustive && open == 0) break;
    } while (next_combination(c.data(), l, static_cast<int>(d)));
    return tests;
}

}  // namespace cudag::skeleton

namespace cudag::skeleton {

/// Level 0 for rows [row_begin, row_end) on `threads` workers: p = pfn(i, j, worker) for
/// every pair i < j with i in the block; dependent pairs are added to `g` and, unless
/// `dense`, to out.kept_p; with `dense` every p goes to out.dense_p (upper triangle, row
/// by row, see Level0Output).
template <class PFn>
void level0_rows(std::int64_t n, std::int64_t row_begin, std::int64_t row_end, bool dense, const TestPolicy& policy,
                 int threads, Graph& g, Level0Output& out, PFn&& pfn) {
    std::vector<std::vector<PairP>> kept(static_cast<std::size_t>(threads));
    // Rows near the top have the most pairs: small chunks keep threads balanced.
    parallel_for(row_begin, row_end, threads, 8, [&](std::int64_t i, int w) {
        interrupt::poll();  // as in search_row
        if (interrupt::stop_requested()) return;
        const std::int64_t base = pair_row_begin(i, n) - i - 1;  // + j: pair_index(i, j, n)
        for (std::int64_t j = i + 1; j < n; ++j) {
            const double p = pfn(i, j, w);
            if (dense) out.dense_p[base + j] = p;
            if (!policy.independent(p))
                kept[w].push_back({static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), p});
        }
    });
    for (const auto& k : kept) {
        for (const PairP& q : k) g.add(q.i, q.j);
        if (!dense) out.kept_p.insert(out.kept_p.end(), k.begin(), k.end());
    }
    for (std::int64_t i = row_begin; i < row_end; ++i) out.tests += n - 1 - i;
}

}  // namespace cudag::skeleton
