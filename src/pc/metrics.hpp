// SPDX-License-Identifier: Apache-2.0
// Comparing a learned graph with a known truth: DAG -> CPDAG, skeleton precision / recall /
// F1 and pcalg's structural Hamming distance.
#pragma once

#include <cstdint>
#include <string>

#include "core/pdag.hpp"

namespace cudag::pc {

/// Whether every edge of g is directed (i --> j) and the directed graph has no cycle.
/// A graph without edges is a DAG.
bool is_dag(const Pdag& g);

/// The CPDAG (essential graph) of a DAG, by Chickering's edge labelling (UAI 1995,
/// "A transformational characterization of equivalent Bayesian network structures",
/// Order-Edges + Find-Compelled): compelled edges stay directed, reversible edges become
/// undirected (Tail/Tail). Throws InputError when dag has an undirected or bidirected edge,
/// or a directed cycle.
Pdag dag_to_cpdag(const Pdag& dag);

/// Result of compare_graphs. Counts are over unordered node pairs.
struct Comparison {
    std::int64_t tp = 0;            ///< adjacent in both graphs
    std::int64_t fp = 0;            ///< adjacent in the estimate only
    std::int64_t fn = 0;            ///< adjacent in the truth only
    double precision = 0.0;         ///< tp / (tp + fp); 0 when nothing was estimated
    double recall = 0.0;            ///< tp / (tp + fn); 0 when the truth has no edge
    double f1 = 0.0;                ///< 2PR / (P + R); 0 when P + R = 0
    std::int64_t shd = 0;           ///< structural Hamming distance, as pcalg::shd
    std::int64_t n_true_edges = 0;  ///< edges of the truth (tp + fn)
    std::int64_t n_est_edges = 0;   ///< edges of the estimate (tp + fp)
};

/// Compares `estimate` with `truth` (same node count and order; InputError otherwise).
///
/// Skeleton scores ignore marks. Zero denominators give 0, as scikit-learn's
/// zero_division=0: precision is 0 when the estimate has no edge, recall is 0 when the truth
/// has none, F1 is 0 when both are 0, so two empty graphs score P = R = F1 = 0 and SHD = 0.
///
/// SHD counts, over unordered pairs {i, j}, 1 for a pair adjacent in one graph only and 1 for
/// a pair adjacent in both whose marks differ (i --> j vs j --> i, vs i --- j, vs i <-> j).
/// That is pcalg's shd(): delete extra edges (1 each), add missing ones with the truth's
/// orientation (1 each), then count differently oriented pairs (1 each). Compare CPDAGs with
/// CPDAGs: convert a true DAG with dag_to_cpdag first.
Comparison compare_graphs(const Pdag& truth, const Pdag& estimate);

/// Human-readable two-column table (metric, value), one metric per line, ending in '\n'.
std::string comparison_table(const Comparison& c);

/// One JSON object with keys n_true_edges, n_est_edges, tp, fp, fn, precision, recall, f1,
/// shd (reals in shortest round-trip form), no trailing newline.
std::string comparison_json(const Comparison& c);

}  // namespace cudag::pc
