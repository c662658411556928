// SPDX-License-Identifier: Apache-2.0
// `cudag compare` (and cudag.compare) on two graphs read from files: which graph each side is
// taken as (a DAG as its CPDAG, a CPDAG as PAG marks when the other side is a PAG), then the
// scores. One place for these decisions, so that the command line and Python agree.
#pragma once

#include "io/graph_reader.hpp"
#include "pc/pag_metrics.hpp"

namespace cudag::pc {

/// What was done to one side before scoring.
struct SideTaken {
    bool pag = false;      ///< the file holds a PAG (io::GraphFile::pag): compared as it is
    bool was_dag = false;  ///< a DAG (with an edge): replaced by its CPDAG
    bool as_pag = false;   ///< a CPDAG (or a DAG's CPDAG) compared as PAG marks, --- as o-o
};

/// The outcome of compare_aligned.
struct GraphComparison {
    SideTaken truth, estimate;
    /// Either side is a PAG: `scores` holds mark scores too and the SHD is the SHD on PAGs.
    bool pag = false;
    PagComparison scores;  ///< scores.skeleton: the CPDAG comparison when !pag
};

/// Scores `g.estimate` against `g.truth` as `cudag compare` does, changing `g` in place:
/// a side that is not a PAG and is a DAG with an edge becomes its CPDAG (dag_to_cpdag); if
/// either side is a PAG (`truth_pag` / `estimate_pag`: io::GraphFile::pag), a side that is
/// not becomes PAG marks (cpdag_as_pag: --- as o-o) and compare_pags scores them, else
/// compare_graphs does.
GraphComparison compare_aligned(io::AlignedGraphs& g, bool truth_pag, bool estimate_pag);

}  // namespace cudag::pc
