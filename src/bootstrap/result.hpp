// SPDX-License-Identifier: Apache-2.0
// A bootstrap run's result, for a learner that keeps nothing of its replicates but their
// graphs (order MCMC's best DAGs): the CPDAG table, its consensus graph and the provenance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bootstrap/scheduler.hpp"
#include "bootstrap/table.hpp"
#include "core/pdag.hpp"
#include "io/graph_view.hpp"

namespace cudag::bootstrap {

struct Result {
    std::vector<std::string> names;  ///< variable names, input order
    /// Discrete data: each variable's level labels in code order (empty otherwise).
    std::vector<std::vector<std::string>> level_labels;
    std::int64_t n_samples = 0;  ///< the data's rows
    Pdag consensus;              ///< the table's consensus graph (consensus_graph)
    Table table;                 ///< a CPDAG table (a DAG learner's replicates)
    Provenance config;           ///< the run's provenance as ordered key/value strings
    double seconds_total = 0.0;

    /// The consensus graph as the graph writers take it (io/writers.hpp).
    operator io::GraphView() const { return {names, consensus}; }
};

}  // namespace cudag::bootstrap
