// SPDX-License-Identifier: Apache-2.0
// The files `cudag mcmc` writes: the HDF5 result, the edge posterior list and the score
// traces (the graph formats come from io/writers.hpp through a PcResult view of the best DAG).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bn/diagnostics.hpp"
#include "bn/order_mcmc.hpp"
#include "core/pdag.hpp"

namespace cudag::bn {

/// Convergence across chains (bn/diagnostics.hpp), NaN where undefined (one chain, ...).
struct McmcDiagnostics {
    double score_psrf = 0.0;  ///< potential scale reduction of the score traces
    double score_ess = 0.0;   ///< effective sample size of the score traces, all chains
    bn::EdgeConvergence edges{};
};

struct McmcOutput {
    std::vector<std::string> names;
    std::int64_t n_samples = 0;
    bn::OrderMcmcResult result;
    std::int64_t best_chain = 0;  ///< the chain whose best order scored highest (the first on ties)
    Pdag best_dag;                ///< the best DAG of that order (every edge -->)
    double best_dag_score = 0.0;
    Pdag cpdag;  ///< its Markov equivalence class
    McmcDiagnostics diagnostics;
    std::int64_t burn_in = 0, thin = 1;
    std::vector<std::pair<std::string, std::string>> config;  ///< options and provenance
    double seconds_table = 0.0, seconds_sort = 0.0, seconds_chains = 0.0, seconds_total = 0.0;
};

/// Layout (0-based indices):
///   /                    attrs format, cudag_version, n_vars, n_samples, best_score (the
///                        best DAG's score), best_order_score, best_chain, seconds_table,
///                        seconds_chains, seconds_total
///   /variables/names     vlen UTF-8, n
///   /best_dag/edges      int32 E×2 (parent, child), sorted; /best_dag/parents_score float64 n
///                        (each node's local score)
///   /cpdag/edges         int32 E×3 (a, b, kind) as in the PC result
///   /edge_prob           float64 n×n, [p, v] = posterior of p --> v (empty without kept iterations)
///   /chains/{trace float64 C×K, acceptance float64 C, best_score float64 C,
///            best_order int32 C×n, final_order int32 C×n}, attrs burn_in, thin
///   /diagnostics         attrs score_psrf, score_ess, edge_psrf_max, edge_psrf_fraction_above
///                        (PSRF > 1.1), edges_counted, max_chain_difference
///   /config              one string attribute per entry
void write_mcmc_result_hdf5(const McmcOutput& o, const std::vector<double>& local_scores, const std::string& path);

/// "source\ttarget\tprobability", one line per ordered pair with a non-zero posterior,
/// by source then target (names tsv-escaped, probabilities as %.17g).
void write_edgeprob_tsv(const McmcOutput& o, const std::string& path);

/// "iteration\tchain_0\t...": one row per kept iteration (its number), the score of each
/// chain's order then; R: x <- read.delim(f); coda::mcmc.list(lapply(x[-1], coda::mcmc,
/// start = x$iteration[1], thin = thin)).
void write_traces_tsv(const McmcOutput& o, const std::string& path);

/// The score traces drawn by gnuplot (found on PATH; optional) into the PNG `path`: one
/// line per chain against the iteration. Returns false with a one-line `message` when
/// gnuplot is missing or fails (nothing is left at `path` then).
bool write_traces_png(const McmcOutput& o, const std::string& path, std::string& message);

}  // namespace cudag::bn
