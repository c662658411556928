// SPDX-License-Identifier: Apache-2.0
// A graph as the writers take it: the variable names and the graph, whatever learner made
// it (pc::PcResult converts to one, its CPDAG; an MCMC result gives its best DAG or CPDAG).
#pragma once

#include <string>
#include <vector>

#include "core/pdag.hpp"

namespace cudag::io {

struct GraphView {
    const std::vector<std::string>& names;
    const Pdag& graph;
};

}  // namespace cudag::io
