// SPDX-License-Identifier: Apache-2.0
// A bootstrap's edge-frequency table, for any learner: per pair i < j, how many replicates
// gave it each edge kind, of a CPDAG's four (PC's, order MCMC's DAGs) or a PAG's nine (FCI,
// RFCI); the consensus graph of the table and its frequencies as a TSV (Tetrad's style).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/pag.hpp"
#include "core/pdag.hpp"

namespace cudag::bootstrap {

/// What a table counts: a CPDAG's edge kinds (a DAG's among them) or a PAG's.
enum class TableKind { Cpdag, Pag };

/// Edge frequencies of a bootstrap run: one row per pair i < j adjacent in at least one
/// replicate, sorted by (i, j), with the count of replicates that gave it each kind (CPDAG:
/// CpdagKind order: none, i --> j, j --> i, i --- j, i <-> j; PAG: none, then edge_kinds()
/// read from i to j); a row sums to `replicates`.
struct Table {
    std::int64_t replicates = 0;       ///< B
    std::string resample;              ///< "bootstrap" or "half"
    std::uint64_t seed = 0;            ///< key of the resamples
    double consensus = 0.5;            ///< the consensus graph's adjacency threshold
    std::vector<std::int32_t> pairs;   ///< K x 2, row-major: (i, j)
    std::vector<std::int32_t> counts;  ///< K x columns(), row-major
    bool pag = false;                  ///< a PAG bootstrap's: 10 columns (none, edge_kinds()), else 5
    std::size_t size() const { return pairs.size() / 2; }
    std::size_t columns() const { return pag ? 10 : 5; }
    TableKind kind() const { return pag ? TableKind::Pag : TableKind::Cpdag; }
};

/// The index of a pair's edge kind in a CPDAG table's row (i < j).
enum CpdagKind : int {
    kNoEdge = 0,      ///< not adjacent
    kForward = 1,     ///< i --> j
    kBackward = 2,    ///< j --> i
    kUndirected = 3,  ///< i --- j
    kBidirected = 4,  ///< i <-> j
    kCpdagKinds = 5,
};

/// The kind of pair (i, j), i < j, in `g` (kNoEdge when not adjacent).
CpdagKind cpdag_kind(const Pdag& g, std::int32_t i, std::int32_t j);

/// A PAG table's columns: "none", then the nine edge kinds of edge_kinds() (read from i to
/// j, i < j) in their order.
constexpr int kPagKinds = 10;

/// The columns of a table of `kind` (5 or 10).
constexpr int columns(TableKind kind) { return kind == TableKind::Pag ? kPagKinds : kCpdagKinds; }

/// The column of pair (i, j), i < j, in a PAG table: 0 when not adjacent, else 1 + the
/// place of edge_string(g, i, j) in edge_kinds().
int pag_kind(const Pag& g, std::int32_t i, std::int32_t j);

/// One adjacent pair of a replicate's graph: i < j and its table column (>= 1).
struct PairKind {
    std::int32_t i, j, kind;
};
/// A replicate's adjacent pairs, as the bootstrap counts them.
using ReplicateEdges = std::vector<PairKind>;

/// The pairs (i, j), i < j, adjacent in `g`, with their CpdagKind (a CPDAG table's).
ReplicateEdges edges_of(const Pdag& g);
/// The pairs (i, j), i < j, adjacent in `g`, with their pag_kind (a PAG table's).
ReplicateEdges edges_of(const Pag& g);

/// The consensus graph on `n` nodes of a CPDAG table: pair (i, j) is adjacent when its
/// adjacency frequency (replicates adjacent / B) is at least t.consensus, with the kind
/// counted most often among the replicates where it is adjacent; ties go to the less
/// committal kind, in the order i --- j, i --> j, j --> i, i <-> j.
Pdag consensus_graph(const Table& t, std::int64_t n);

/// The consensus PAG on `n` nodes of a PAG table: pair (i, j) is adjacent when its adjacency
/// frequency is at least t.consensus, with the edge kind counted most often among the
/// replicates where it is adjacent; ties go to the less committal kind, in the order o-o,
/// o->, <-o, -->, <--, <->, ---, o--, --o (circles before arrowheads and tails).
Pag consensus_pag(const Table& t, std::int64_t n);

/// A CPDAG table's edge list with frequencies (Tetrad's bootstrap style), tab-separated:
/// header "source target adjacency none --> <-- --- <-> consensus", then one line per pair
/// adjacent in at least one replicate (the table's rows), the frequencies of the kinds (for
/// source --> target, target --> source, ...) to 6 significant digits, and the consensus
/// graph's mark ("" when the pair is not in it). Names tsv_escape'd. `path` "-": stdout.
void write_frequencies_tsv(const Table& t, const Pdag& consensus, const std::vector<std::string>& names,
                           const std::string& path);

/// A PAG table's edge list with frequencies, as write_frequencies_tsv: header "source target
/// adjacency none o-> <-o o-o --> <-- <-> --- o-- --o consensus" (edge_kinds(), read from
/// source to target), the consensus PAG's edge string last ("" when not adjacent).
void write_pag_frequencies_tsv(const Table& t, const Pag& consensus, const std::vector<std::string>& names,
                               const std::string& path);

}  // namespace cudag::bootstrap
