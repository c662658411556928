// SPDX-License-Identifier: Apache-2.0
// Reading graphs with edge marks (a truth to compare against, or another tool's output) and
// writing a simulated DAG as a TSV edge list.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/dsep.hpp"
#include "core/pdag.hpp"

namespace cudag::io {

/// A graph read from a file, with what the file says about its variables.
struct GraphFile {
    std::string path;    ///< the file, for messages
    std::string format;  ///< "edge list", "Tetrad graph", "causal-learn matrix",
                         ///< "pcalg amat", "node-link JSON", "DOT", "cudag result"
    Pdag graph;          ///< marks in Pdag's causal-learn encoding
    /// Which of the file's graphs `graph` is, when it holds several (a cudag result:
    /// "/cpdag, ..." or "/best_dag, ..."); empty: the file's only graph.
    std::string graph_name;
    std::vector<std::string> names;  ///< name of node i, in the file's order
    /// Whether the file lists every variable, isolated ones included (Tetrad node list,
    /// matrices, node-link JSON, cudag's HDF5 result, DOT with node statements). False for
    /// edge lists (TSV, DOT with edge statements only), which name only variables with edges.
    bool lists_every_variable = false;
    /// The file has no names (causal-learn matrix): names are X1..Xn for rows 1..n.
    bool names_by_position = false;
    /// The graph is a PAG (read with PagMarks::Accept or Assume): the file says so (a cudag
    /// fci result, a pcalg amat in amat.pag coding, node-link JSON with graph kind "pag"), an
    /// edge has a circle mark (Mark::Circle), or the caller said so (PagMarks::Assume).
    bool pag = false;
};

/// How read_graph_file treats a PAG (cudag fci's output: circle marks).
enum class PagMarks {
    Refuse,  ///< circle marks and FCI results are InputErrors (every reader but cudag compare)
    Accept,  ///< read; GraphFile::pag tells whether the file holds a PAG
    Assume,  ///< read, and the graph is a PAG even without a circle (a pcalg amat of only
             ///< 1/1 and 2/2 code pairs is then o-o and <->, not --- and <->)
};

/// Reads a graph with marks from `path`. The format is recognised from the content (the
/// first non-blank line not starting with '#'), never from the file name:
///  - cudag's HDF5 result: /variables/names and, of a PC result (format
///    "cudag-pc-result-1"), its CPDAG /cpdag/edges; of an order-MCMC result
///    ("cudag-mcmc-result-1"), its best DAG /best_dag/edges, the graph the run's other
///    graph files hold (one graph per file: the CPDAG is its .cpdag.tsv).
///  - TSV edge list: header with columns `source`, `target`, `mark` (tab separated, other
///    columns such as `weight` ignored), one edge per row; marks `-->`, `<--`, `---`, `<->`.
///    Names are tsv_unescape'd (`\t`, `\n`, `\r`, `\\`) and trimmed of blanks; '#' lines
///    are comments only before the header (after it a name may start with '#').
///  - Tetrad / causal-learn text graph: `Graph Nodes:`, a line of names separated by `;` (or
///    `,`), `Graph Edges:`, then lines `1. X1 --> X2`; any later section (`Graph
///    Attributes:` ...) ends the edge list.
///  - pcalg adjacency matrix as CSV (cudag's .amat.csv, R's write.csv, pandas' to_csv): a
///    header with an empty first cell then the n names, then per variable its name and n
///    codes in the "cpdag" coding (amat[a,b] = 0 and amat[b,a] = 1: a --> b; 1/1 a --- b;
///    2/2 a <-> b). RFC 4180 quoting: a quoted name may hold commas, "" and line breaks.
///  - networkx node-link JSON (cudag's .json, nx.node_link_data): "nodes" [{"id": ...}] and
///    "links" (or "edges") [{"source", "target", optional "mark"}]. A link without a mark is
///    source --> target (every link is undirected when "directed" is false).
///  - Graphviz DOT (cudag's .dot): `[strict] digraph|graph [id] { ... }` with node and edge
///    statements (chains a -> b -> c), `dir` = forward/back/both/none and, for causal-learn's
///    to_pydot output, `arrowhead`/`arrowtail` = none (a tail); nodes are named by their DOT
///    IDs (labels are ignored); quoted IDs with `\"`, `\\`, `\n`, `\r`; comments; attribute
///    statements are ignored. Subgraphs are refused.
///  - causal-learn integer matrix: n rows of n whitespace-separated values in {-1, 0, 1} with
///    G[i,j] = the mark at i's end (-1 tail, 1 arrow); nodes are X1..Xn, or names by position.
/// In JSON and DOT an edge given as two opposite directed arcs (a -> b and b -> a) is
/// undirected, as a networkx DiGraph stores a CPDAG. Circle marks (`o`, matrix value 2,
/// DOT arrowheads `odot`) are refused unless `pag` is Accept or Assume: then PAGs are read
/// too (marks `o->`, `<-o`, `o-o`, `o--`, `--o` in edge lists, Tetrad text and JSON; matrix
/// value 2; DOT `odot`/`dot`; a cudag fci result's /pag/edges; pcalg's amat.pag coding in an
/// amat CSV, recognised by a code 3 or an edge with two different codes). Errors name the
/// file and line (and column where it applies).
GraphFile read_graph_file(const std::string& path, PagMarks pag = PagMarks::Refuse);

/// read_graph_file onto a given variable list: if `names` is non-empty on entry, the
/// returned Pdag has names.size() nodes in that order and every node in the file must be
/// one of them (InputError naming the unknown node); a causal-learn matrix must have
/// names.size() rows and takes the names by position. Otherwise `names` is filled from
/// the file (GraphFile::names).
Pdag read_graph(const std::string& path, std::vector<std::string>& names);

/// A DAG read with read_graph_file (any format it reads; `cudag simulate --truth`'s TSV edge
/// list is the usual one) with its node names in the file's order (for an edge list, the
/// order of first appearance). Every edge must be directed and the graph acyclic:
/// InputError naming the file and the first undirected or bi-directed edge, or saying it
/// has a directed cycle.
Dag read_dag(const std::string& path, std::vector<std::string>& names);

/// Two graphs on one variable list, node k of both being names[k].
struct AlignedGraphs {
    Pdag truth;
    Pdag estimate;
    std::vector<std::string> names;  ///< the truth's names, then any the estimate adds
};

/// Puts `estimate` onto the variables of `truth` for `cudag compare`, refusing graphs over
/// different variable sets with an InputError naming the estimate's file, the first
/// offending variable and how many there are:
///  - a variable of the estimate that the truth lacks is refused, unless the truth cannot
///    list variables without edges (edge list) and the estimate lists every variable: then
///    it is a variable isolated in the truth;
///  - a variable of the truth that the estimate lacks is refused when the estimate lists
///    every variable; an edge-list estimate just has no edge on it.
/// A causal-learn matrix (names_by_position) is matched by its X1..Xn names when the other
/// graph has all of them, else by position when the other graph lists every variable and
/// has as many. Metrics do not depend on isolated variables, so the union is harmless.
AlignedGraphs align_graphs(const GraphFile& truth, const GraphFile& estimate);

/// Writes a DAG as a TSV edge list with header `source\ttarget\tmark\tweight`, one row
/// `names[parent]\tnames[child]\t-->\tweight` per (parent, child, weight) edge, in the given
/// order, names tsv_escape'd; weights in shortest round-trip decimal form. With `functions`
/// (one per edge, e.g. simulate nonlinear's), a fifth column `function` holds them
/// (read_graph ignores it). Writes `path` itself (callers pass a temporary from an
/// OutputSet; "-" is standard output). Throws InputError for an edge endpoint outside names
/// or an unwritable path.
void write_truth_tsv(const std::vector<std::string>& names,
                     const std::vector<std::tuple<std::int32_t, std::int32_t, double>>& dag_edges,
                     const std::string& path, const std::vector<std::string>& functions = {});

}  // namespace cudag::io
