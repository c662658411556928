// SPDX-License-Identifier: Apache-2.0
// Reading graphs with edge marks (a truth to compare against, or another tool's output) and
// writing a simulated DAG as a TSV edge list.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/pdag.hpp"

namespace cudag::io {

/// Reads a graph with marks from `path`. The format is recognised from the first non-blank
/// line:
///  - TSV edge list: header with columns `source`, `target`, `mark` (tab separated, other
///    columns such as `weight` ignored), one edge per row; marks `-->`, `<--`, `---`, `<->`.
///  - Tetrad / causal-learn text graph: `Graph Nodes:`, a line of names separated by `;` (or
///    `,`), `Graph Edges:`, then lines `1. X1 --> X2`; any later section (`Graph
///    Attributes:` ...) ends the edge list.
///  - causal-learn integer matrix: n rows of n whitespace-separated values in {-1, 0, 1} with
///    G[i,j] = the mark at i's end (-1 tail, 1 arrow); nodes are X1..Xn, or names by position.
/// Circle marks (`o`, matrix value 2) and HDF5 files are refused.
///
/// If `names` is non-empty on entry, the returned Pdag has names.size() nodes in that order
/// and every node in the file must be one of them (InputError naming the unknown node).
/// Otherwise `names` is filled from the file: the node list (Tetrad), the order of first
/// appearance (TSV; nodes without edges cannot be recovered) or X1..Xn (matrix).
/// The marks follow Pdag's causal-learn encoding. Errors name the file and line.
Pdag read_graph(const std::string& path, std::vector<std::string>& names);

/// Writes a DAG as a TSV edge list with header `source\ttarget\tmark\tweight`, one row
/// `names[parent]\tnames[child]\t-->\tweight` per (parent, child, weight) edge, in the given
/// order; weights in shortest round-trip decimal form. With `functions` (one per edge, e.g.
/// simulate nonlinear's), a fifth column `function` holds them (read_graph ignores it).
/// Writes `path.tmp` and renames it to `path` at the end. Throws InputError for an edge
/// endpoint outside names or an unwritable path.
void write_truth_tsv(const std::vector<std::string>& names,
                     const std::vector<std::tuple<std::int32_t, std::int32_t, double>>& dag_edges,
                     const std::string& path, const std::vector<std::string>& functions = {});

}  // namespace cudag::io
