// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bootstrap/table.hpp"
#include "core/bulk_vector.hpp"
#include "core/graph.hpp"
#include "core/pag.hpp"
#include "core/pdag.hpp"
#include "core/sepsets.hpp"
#include "io/graph_view.hpp"
#include "skeleton/types.hpp"

namespace cudag::pc {

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
    skeleton::PairPList pmax;
    /// Which rows `sepsets` and `pmax` hold on this rank.
    skeleton::RecordRows record_rows;
    std::vector<skeleton::LevelStats> levels;
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
    std::optional<cudag::bootstrap::Table> bootstrap;

    static constexpr std::int64_t dense_pmax_limit = skeleton::dense_pmax_limit;

    /// The CPDAG as the graph writers take it (io/writers.hpp).
    operator io::GraphView() const { return {names, cpdag}; }
};

}  // namespace cudag::pc
