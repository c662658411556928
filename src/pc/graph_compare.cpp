// SPDX-License-Identifier: Apache-2.0
#include "pc/graph_compare.hpp"

namespace cudag::pc {

GraphComparison compare_aligned(io::AlignedGraphs& g, bool truth_pag, bool estimate_pag) {
    GraphComparison c;
    c.pag = truth_pag || estimate_pag;
    const auto take = [&](Pdag& graph, bool pag, SideTaken& side) {
        side.pag = pag;
        if (pag) return;
        if (is_dag(graph) && graph.n_edges() > 0) {
            graph = dag_to_cpdag(graph);
            side.was_dag = true;
        }
        if (c.pag) {
            // PC's undirected edge says "either direction": a PAG's circles at both ends.
            graph = cpdag_as_pag(graph);
            side.as_pag = true;
        }
    };
    take(g.truth, truth_pag, c.truth);
    take(g.estimate, estimate_pag, c.estimate);
    if (c.pag)
        c.scores = compare_pags(g.truth, g.estimate);
    else
        c.scores.skeleton = compare_graphs(g.truth, g.estimate);
    return c;
}

}  // namespace cudag::pc
