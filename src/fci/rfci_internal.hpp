// SPDX-License-Identifier: Apache-2.0
// RFCI's pieces (pcalg's rfci.vStruc, dep.triple, checkEdges, udag2apag) on pcalg's own
// separating-set lists: for rfci.cpp and rfci_apag.cpp, and for tests that feed pcalg's
// skeleton() output (ordered pairs) unchanged.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/pag.hpp"
#include "core/sepsets.hpp"
#include "fci/rfci.hpp"
#include "fci/tester.hpp"
#include "fci/triples.hpp"

namespace cudag::fci::rfci_detail {

/// pcalg's sepset (a list of lists) for one run: sepset[[i]][[j]] per ordered pair (i, j),
/// each set in pcalg's element order. Reads fall back to a base table (cudag's SepSets:
/// one set per unordered pair), read as sepset[[i]][[j]] for i < j and NULL for i > j.
class OrderedSepsets {
public:
    OrderedSepsets() = default;
    explicit OrderedSepsets(const SepSets* base) : base_(base) {}

    /// sepset[[i]][[j]] (empty for NULL).
    std::span<const std::int32_t> get(std::int32_t i, std::int32_t j) const;
    /// sepset[[i]][[j]] <- s.
    void set(std::int32_t i, std::int32_t j, std::vector<std::int32_t> s);
    /// unique(c(sepset[[i]][[j]], sepset[[j]][[i]])): pcalg's reading of a pair's set.
    std::vector<std::int32_t> either(std::int32_t i, std::int32_t j) const;
    /// (k %in% sepset[[i]][[j]]) || (k %in% sepset[[j]][[i]]).
    bool contains_either(std::int32_t i, std::int32_t j, std::int32_t k) const;
    /// The base table with every pair this run set replaced by its union `either`, sorted.
    SepSets to_sepsets() const;
    /// Every ordered pair set in this run (for tests).
    const std::unordered_map<std::uint64_t, std::vector<std::int32_t>>& overrides() const { return over_; }

private:
    static std::uint64_t key(std::int32_t i, std::int32_t j) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 32) | static_cast<std::uint32_t>(j);
    }
    const SepSets* base_ = nullptr;
    std::unordered_map<std::uint64_t, std::vector<std::int32_t>> over_;
};

/// pcalg's unshTripl (columns (x, y, z), x < z) with unshVect and trueVstruct: triples are
/// appended, never removed; kill_first marks the first column equal to a triple FALSE
/// (`trueVstruct[which.max(unshVect == ...)] <- FALSE`).
class TripleList {
public:
    void add(const Triple& t);
    void kill_first(std::int32_t a, std::int32_t b, std::int32_t c);
    std::size_t size() const { return items_.size(); }
    const Triple& operator[](std::size_t k) const { return items_[k]; }
    bool live(std::size_t k) const { return live_[k] != 0; }
    void kill(std::size_t k) { live_[k] = 0; }

private:
    std::vector<Triple> items_;
    std::vector<char> live_;
    std::map<std::array<std::int32_t, 3>, std::size_t> first_;
};

/// rfci.vStruc's arguments beyond the graph and the triples.
struct VstrucOptions {
    bool conservative = false;
    /// version.unf[1] == 2: a triple whose ends nothing separates is ambiguous too.
    bool unseparated_ambiguous = false;
    bool majority = false;
};

/// pcalg's dep.triple: for each triple (x, y, z) still TRUE among the first size() columns,
/// tests x - y and z - y given sepset(x, z) \ {y}; an independent pair loses its edge (its
/// sepset: the first subset, by size then combn order, that separates), the new unshielded
/// triples through it are appended and the destroyed ones set FALSE.
void dep_triple(Pag& g, OrderedSepsets& sep, Tester& tester, TripleList& triples);

/// pcalg's rfci.vStruc: dep_triple, then x *-> y <-* z for every TRUE triple still
/// unshielded with y in neither sepset (conservative: after checkTriple, unless ambiguous).
/// Returns its unfTripl (the ambiguous triples found here, in order).
std::vector<Triple> rfci_vstruc(Pag& g, OrderedSepsets& sep, Tester& tester, TripleList triples,
                                const VstrucOptions& opt);

/// pcalg's checkEdges on the path (d, ..., b, c) of R4: every edge on it tested given the
/// subsets of sepset(d, c) minus its ends; the first independent one is removed, and
/// rfci.vStruc runs on the triples it unshields. Returns whether an edge was removed;
/// `new_unf` gets rfci.vStruc's unfTripl.
bool check_edges(Pag& g, OrderedSepsets& sep, Tester& tester, std::span<const std::int32_t> path, const TripleSet& unf,
                 std::vector<Triple>& new_unf);

/// pcalg's udag2apag: R1-R10 in one loop until nothing changes; R4 runs check_edges on each
/// discriminating path before orienting. `unf` (unfVect) grows with check_edges' finds.
void udag2apag(Pag& g, OrderedSepsets& sep, Tester& tester, TripleSet& unf, const RuleOptions& opt);

/// rfci_orient on pcalg's separating sets as they are (ordered pairs).
Pag rfci_orient_ordered(const Graph& skeleton, OrderedSepsets& sep, Tester& tester, const RfciOptions& opt);

}  // namespace cudag::fci::rfci_detail
