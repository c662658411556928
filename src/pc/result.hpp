// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/bulk_vector.hpp"
#include "core/graph.hpp"
#include "core/pag.hpp"
#include "core/pdag.hpp"
#include "core/sepsets.hpp"
#include "io/graph_view.hpp"

namespace cudag::pc {

/// What a level l >= 1 is about to run (SkeletonHooks::on_level_start), from its snapshot:
/// at most sum over rows of a_i * C(a_i - 1, l) tests (each entry against every l-subset
/// of its row's other neighbours; fewer when entries separate early).
struct LevelPlan {
    int level = 0;
    double planned_tests = 0.0;   ///< the upper bound above (saturates near 9.2e18 per row)
    std::int64_t rows = 0;        ///< rows with something to test (a_i - 1 >= l)
    std::int64_t max_degree = 0;  ///< the largest a_i
};

/// What happened at one level of the skeleton search.
struct LevelStats {
    int level = 0;
    std::int64_t tests = 0;        ///< CI tests performed (all ranks, both endpoints)
    std::int64_t removed = 0;      ///< edges removed at this level
    std::int64_t edges_after = 0;  ///< edges left after the level
    double seconds = 0.0;          ///< wall time of the level
    /// Estimated work of the busiest rank over the mean (1: balanced, or one rank): what
    /// the partition saw before the level.
    double imbalance = 1.0;
    /// Tests the busiest rank ran over the mean per rank: what happened (early
    /// termination makes it differ from the estimate). 1 on one rank.
    double tests_imbalance = 1.0;
    /// Seconds from the end of the level's tests on every rank to the level's end: the
    /// removal-map exchange and its application (0 on one rank: nothing to exchange).
    double merge_seconds = 0.0;
};

/// pcalg's pMax for one pair: the largest p-value over the tests the canonical
/// (pcalg-stable) procedure runs on that pair, over all levels.
/// Trivial (no member initialisers), so that a PairPList of millions of pairs is sized
/// without a serial zeroing pass and filled on threads; PairP{} is still all zero.
struct PairP {
    std::int32_t i;  ///< i < j
    std::int32_t j;
    double p;
    bool operator==(const PairP& o) const { return i == o.i && j == o.j && p == o.p; }
};
using PairPList = BulkVector<PairP>;

/// The rows (lower endpoints i of pairs i < j) whose separating sets and pMax a rank
/// holds. A run that keeps its records distributed (SkeletonOptions::distributed_records)
/// gives each rank one contiguous block, in rank order, so that the ranks' parts laid
/// end to end are the sorted whole; otherwise a rank holds every row (end < 0).
struct RecordRows {
    std::int64_t begin = 0;
    std::int64_t end = -1;
    bool all() const { return end < 0; }
};

/// Edge frequencies of a bootstrap run (pc/bootstrap.hpp): one row per pair i < j adjacent
/// in at least one replicate, sorted by (i, j), with the count of replicates that gave it
/// each kind (pc::BootstrapKind order: none, i --> j, j --> i, i --- j, i <-> j; they sum
/// to `replicates`).
struct BootstrapTable {
    std::int64_t replicates = 0;       ///< B
    std::string resample;              ///< "bootstrap" or "half"
    std::uint64_t seed = 0;            ///< key of the resamples
    double consensus = 0.5;            ///< the consensus graph's adjacency threshold
    std::vector<std::int32_t> pairs;   ///< K x 2, row-major: (i, j)
    std::vector<std::int32_t> counts;  ///< K x 5, row-major
    std::size_t size() const { return pairs.size() / 2; }
};

/// Everything a PC run produces. Written to HDF5 (io/result_file) and the
/// optional text formats (io/writers).
struct PcResult {
    std::vector<std::string> names;  ///< variable names, input order
    /// Discrete data: each variable's level labels in code order (empty otherwise).
    std::vector<std::vector<std::string>> level_labels;
    Graph skeleton;
    /// The separating sets of the rows `record_rows` (every row unless distributed).
    SepSets sepsets;
    Pdag cpdag;
    /// pMax for every pair tested at level >= 1 and, when n <= dense_pmax_limit,
    /// for every pair; sorted by (i, j). Pairs missing here were removed at level 0
    /// and their pMax is their marginal test's p-value.
    PairPList pmax;
    /// Which rows `sepsets` and `pmax` hold on this rank.
    RecordRows record_rows;
    std::vector<LevelStats> levels;
    std::int64_t n_samples = 0;
    /// Run configuration and input provenance as ordered key/value strings
    /// (alpha, test, compat, threads, input path, dataset, command line, ...).
    std::vector<std::pair<std::string, std::string>> config;
    double seconds_total = 0.0;
    /// FCI / RFCI (cudag fci): the PAG, written instead of the CPDAG (`cpdag` is then empty and
    /// the file's "kind" is "pag").
    std::optional<Pag> pag;
    /// A bootstrap run's frequencies (then `cpdag` and `skeleton` are its consensus graph,
    /// and `sepsets`, `pmax` and `levels` empty).
    std::optional<BootstrapTable> bootstrap;

    static constexpr std::int64_t dense_pmax_limit = 4096;

    /// The CPDAG as the graph writers take it (io/writers.hpp).
    operator io::GraphView() const { return {names, cpdag}; }
};

}  // namespace cudag::pc
