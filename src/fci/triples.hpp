// SPDX-License-Identifier: Apache-2.0
// Unshielded triples and pcalg's conservative / majority-rule checks of them
// (pc.cons.intern, checkTriple): the ambiguous ("unfaithful") triples that orientation
// must leave alone, and the separating sets those checks revise.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <unordered_set>
#include <vector>

#include "core/graph.hpp"
#include "core/pag.hpp"
#include "core/sepsets.hpp"
#include "fci/tester.hpp"

namespace cudag::fci {

using namespace cudag::marks;

/// A set of ordered triples (a, b, c); pcalg's unfVect. Membership asks for (a, b, c) or
/// (c, b, a) where pcalg does (contains_either).
class TripleSet {
public:
    void insert(std::int32_t a, std::int32_t b, std::int32_t c) { set_.insert(key(a, b, c)); }
    bool contains(std::int32_t a, std::int32_t b, std::int32_t c) const { return set_.count(key(a, b, c)) != 0; }
    bool contains_either(std::int32_t a, std::int32_t b, std::int32_t c) const {
        return contains(a, b, c) || contains(c, b, a);
    }
    bool empty() const { return set_.empty(); }
    std::size_t size() const { return set_.size(); }

private:
    struct Hash {
        std::size_t operator()(const std::array<std::int32_t, 3>& t) const {
            std::uint64_t h = 1469598103934665603ull;
            for (const std::int32_t v : t) h = (h ^ static_cast<std::uint32_t>(v)) * 1099511628211ull;
            return static_cast<std::size_t>(h);
        }
    };
    static std::array<std::int32_t, 3> key(std::int32_t a, std::int32_t b, std::int32_t c) { return {a, b, c}; }
    std::unordered_set<std::array<std::int32_t, 3>, Hash> set_;
};

/// pcalg's find.unsh.triple order: every unshielded triple a - b - c of `g` with a < c,
/// enumerated as pcalg does (edges (a, b) column-major, then c ascending).
struct Triple {
    std::int32_t a, b, c;
};
std::vector<Triple> unshielded_triples(const Graph& g);

/// A new separating set for the pair {i, j} (any order; the set in any order).
struct SepSetUpdate {
    std::int32_t i, j;
    std::vector<std::int32_t> set;
};
/// `s` with `updates` applied (a pair's last update wins; new pairs are inserted), in one
/// pass over the table.
SepSets update_sepsets(const SepSets& s, std::vector<SepSetUpdate> updates);

/// What checkTriple decided for a triple.
enum class TripleDecision : std::uint8_t { Collider = 1, NonCollider = 2, Ambiguous = 3 };

/// How pc.cons.intern decides (pcalg's version.unf and maj.rule).
struct ConsOptions {
    /// version.unf[1] == 2: a triple whose ends no subset of either end's neighbours separates
    /// is ambiguous too (fci without Possible-D-SEP).
    bool unseparated_ambiguous = false;
    /// maj.rule: decide by the share of separating subsets that contain b (< 1/2 collider,
    /// > 1/2 not, = 1/2 ambiguous) instead of all-or-none.
    bool majority = false;
};

/// checkTriple for one triple: tests a ⟂ c | S for every subset S of nbrs_a, then of nbrs_c
/// (each including the empty set), and decides from the separating ones whether b is in
/// none, all or some of them. Revises sepset(a, c) (b added for NonCollider, removed for
/// Collider) in `sepsets`. `version2` (out): version.unf[1] == 2 and nothing separated.
TripleDecision check_triple(std::int32_t a, std::int32_t b, std::int32_t c, std::span<const std::int32_t> nbrs_a,
                            std::span<const std::int32_t> nbrs_c, Tester& tester, const ConsOptions& opt,
                            SepSets& sepsets, bool& version2);

/// pc.cons.intern over every unshielded triple of `g` (pcalg's order; the decisions and the
/// revised sets do not depend on it): returns the ambiguous triples (as (a, b, c), a < c).
/// Tests of all triples run in one batch on the tester's workers.
TripleSet conservative_triples(const Graph& g, Tester& tester, const ConsOptions& opt, SepSets& sepsets);

}  // namespace cudag::fci
