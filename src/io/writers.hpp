// SPDX-License-Identifier: Apache-2.0
// Text and image formats of a PC result: edge list, Graphviz, node-link JSON, pcalg and
// causal-learn matrices. Each single-file writer writes exactly the path it is given
// (callers pass a temporary from an OutputSet and commit at the end).
#pragma once

#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/pdag.hpp"
#include "io/graph_view.hpp"

namespace cudag::io {

class OutputSet;

/// A file opened for writing with a large buffer; write errors (disk full) are reported
/// by close() as InputError naming the path. The destructor closes without checking.
class TextFile {
public:
    /// Open (truncate) `path`; "-" writes to standard output. Throws
    /// InputError("cannot write 'path': <reason>").
    explicit TextFile(const std::string& path);
    ~TextFile();
    TextFile(const TextFile&) = delete;
    TextFile& operator=(const TextFile&) = delete;

    /// Append `s` (buffered); a failure is remembered and reported by close().
    void write(std::string_view s);
    /// Flush and close; throws InputError if anything failed to reach the file.
    void close();

private:
    std::string path_;
    std::FILE* file_ = nullptr;
    bool failed_ = false;
};

/// How a CPDAG edge is marked.
enum class EdgeKind : std::int32_t {
    Undirected = 0,  ///< a --- b
    Directed = 1,    ///< a --> b
    Bidirected = 2,  ///< a <-> b
};

/// One CPDAG edge as cudag writes it: Directed edges as source a, target b; the others
/// with a < b.
struct CpdagEdge {
    std::int32_t a = 0;  ///< source (Directed) or lower index
    std::int32_t b = 0;  ///< target (Directed) or higher index
    EdgeKind kind = EdgeKind::Undirected;
    bool operator==(const CpdagEdge& o) const { return a == o.a && b == o.b && kind == o.kind; }
};

/// The edges of `g` in the written orientation, sorted by (a, b). Throws LogicError on
/// an end mark that is neither Tail nor Arrow.
std::vector<CpdagEdge> cpdag_edges(const Pdag& g);

/// "-->", "---" or "<->".
const char* edge_mark(EdgeKind kind);

/// pcalg "cpdag" adjacency code of the mark at row `a`, column `b` (amatType
/// amat.cpdag: amat[a,b] = 0 and amat[b,a] = 1 means a --> b; 1/1 means a --- b).
/// Bidirected edges are 2/2, as pcalg's pc(solve.confl = TRUE) writes them.
int amat_code(const Pdag& g, std::int32_t a, std::int32_t b);

/// A name as one field of a tab-separated edge list: backslash, tab, newline and carriage
/// return become `\\`, `\t`, `\n` and `\r`; every other byte is kept. tsv_unescape undoes it.
std::string tsv_escape(std::string_view name);

/// The inverse of tsv_escape: `\\`, `\t`, `\n`, `\r` become backslash, tab, newline, carriage
/// return; a backslash before any other character (or at the end) is kept as it is, so
/// hand-written names such as `C:\data` read unchanged.
std::string tsv_unescape(std::string_view field);

/// `s` as a JSON string literal (quotes, backslashes and control characters escaped), always
/// valid JSON: well-formed UTF-8 is kept as it is; a byte that is not part of it (a name from a
/// Latin-1 file) becomes the \u00XX escape of the character it is in Latin-1.
std::string json_quote(const std::string& s);

/// `s` as a Graphviz quoted ID (`"` and `\` escaped, newline and carriage return as `\n`, `\r`).
std::string dot_quote(const std::string& s);
/// `s` as an always-quoted CSV field (RFC 4180: `"` doubled).
std::string csv_quote(const std::string& s);

/// Edge list TSV: header "source\ttarget\tmark", then one line per CPDAG edge in
/// cpdag_edges order with variable names (tsv_escape'd) and mark "-->", "---" or "<->".
void write_edges(const GraphView& r, const std::string& path);

/// Graphviz digraph: every variable as a quoted node (a node statement each, so isolated
/// variables are kept), then the edges; undirected edges get [dir=none], bidirected
/// [dir=both]. In names, `"` and `\` are escaped with a backslash and newline and carriage
/// return written as `\n` and `\r` (Graphviz shows them as line breaks in labels).
void write_dot(const GraphView& r, const std::string& path);

/// networkx node-link JSON (nx.node_link_graph(data, edges="links") reads it as a
/// DiGraph): nodes [{"id": name}], links [{"source", "target", "mark"}]. Undirected and
/// bidirected edges appear in both directions, with mark "---" / "<->".
void write_json(const GraphView& r, const std::string& path);

/// pcalg adjacency matrix as R's write.csv writes it: a header row of quoted names after
/// an empty first cell, then per variable its quoted name and n codes (see amat_code).
/// Names are always quoted, a `"` doubled (RFC 4180), so commas and line breaks in names
/// stay inside their field.
/// read.csv(path, row.names = 1) gives back the amat.
void write_amat(const GraphView& r, const std::string& path);

/// causal-learn's graph matrix as np.savetxt(path, G, fmt="%d") writes it: n lines of n
/// space-separated integers; i --> j is G[i,j] = -1, G[j,i] = 1; i --- j is -1/-1;
/// i <-> j is 1/1. np.loadtxt(path) reads it back.
void write_cl(const GraphView& r, const std::string& path);

/// Render the graph with Graphviz: writes a temporary DOT file beside `path` and runs
/// `dot -T<format> -o <path>` (format "png" or "svg", found on PATH). Returns false and
/// sets `message` when dot is not on PATH ("graphviz 'dot' not found on PATH: skipped
/// <path>") or fails (its exit status); true on success. An unknown format is an
/// InputError.
bool write_graphviz_image(const GraphView& r, const std::string& path, const std::string& format, std::string& message);

/// Render DOT text with Graphviz, as write_graphviz_image does (a temporary DOT file beside
/// `path`, `dot -T<format> -o <path>`, the same messages and return value): for drawings
/// whose DOT text a command makes itself (cudag pcmci's graphs).
bool render_dot(const std::string& dot, const std::string& path, const std::string& format, std::string& message);

/// Run `program` (found on PATH) with `args` and wait for it; it is to write `output`.
/// Returns false with a one-line `message` ("<program> not found on PATH: skipped
/// <output>", or its failure, after which `output` is removed); true on exit status 0.
/// The child is stopped by SIGINT/SIGTERM as cudag is.
bool run_helper(const std::string& program, std::vector<std::string> args, const std::string& output,
                std::string& message);

/// The format names write_formats accepts: edges, dot, json, amat, cl, png, svg.
const std::vector<std::string>& format_names();

/// File name suffix written for a format, e.g. ".edges.tsv" for "edges" (and for cudag
/// mcmc's own: ".edgeprob.tsv" for "edgeprob", ".traces.tsv" for "traces", ".cpdag.tsv"
/// for "cpdag").
std::string format_suffix(const std::string& format);

/// Throw InputError naming the first unknown format and listing the valid ones.
void validate_formats(const std::vector<std::string>& formats);

/// The most variables a format that is an n x n matrix by nature (amat, cl) is written
/// for: 20,000 (4·10^8 cells, about 1 GB of text).
inline constexpr std::int64_t kMaxMatrixFormatVars = 20000;
/// Throws InputError for a matrix format (amat, cl) of more than kMaxMatrixFormatVars
/// variables, saying why and what to write instead (edge lists: edges, json, the HDF5 result).
void check_formats_scale(const std::vector<std::string>& formats, std::int64_t n_vars);

/// The path write_formats uses for `format`: out_h5 without a trailing .h5/.hdf5
/// (any case) followed by format_suffix(format).
std::string format_path(const std::string& out_h5, const std::string& format);

/// Write each requested format beside `out_h5` (see format_path): edges → .edges.tsv,
/// dot → .dot, json → .json, amat → .amat.csv, cl → .cl.txt, png → .png, svg → .svg.
/// All names are validated before anything is written; repeated names are written once.
/// Files go to temporaries from `outputs` (the caller commits). When Graphviz is missing
/// or fails, png/svg are skipped with one line on `warnings` and discarded from
/// `outputs`.
void write_formats(const GraphView& r, const std::string& out_h5, const std::vector<std::string>& formats,
                   OutputSet& outputs, std::ostream& warnings);

}  // namespace cudag::io
