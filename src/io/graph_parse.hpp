// SPDX-License-Identifier: Apache-2.0
// Internal to the graph readers (io/graph_*.cpp): the line and token helpers, the
// GraphBuilder that checks nodes and edges, and one reader per format. read_graph_file
// (io/graph_reader.cpp) picks the reader.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/pdag.hpp"
#include "io/writers.hpp"

namespace cudag::io::graph_detail {

struct Line {
    std::int64_t number;  ///< 1-based line number in the file
    std::string text;     ///< without the line end
};

inline std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t\r\n");
    return s.substr(first, last - first + 1);
}

inline std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const auto pos = s.find(sep, start);
        out.emplace_back(s.substr(start, pos == std::string_view::npos ? pos : pos - start));
        if (pos == std::string_view::npos) break;
        start = pos + 1;
    }
    return out;
}

inline std::vector<std::string> split_ws(std::string_view s) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
        std::size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
        if (j > i) out.emplace_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

inline std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// `name` quoted for a message, line breaks and tabs shown escaped so that the message
/// stays one line.
inline std::string shown(const std::string& name) {
    std::string out(1, '\'');
    out += tsv_escape(name);
    out += '\'';
    return out;
}

/// Builds the Pdag while checking nodes and edges; every error names path:line.
class GraphBuilder {
public:
    /// `circles`: circle marks are read (a PAG, for `cudag compare`); otherwise refused.
    GraphBuilder(std::string path, std::vector<std::string>& names, bool circles = false)
        : path_(std::move(path)), names_(names), fixed_(!names.empty()), circles_(circles) {
        for (std::size_t i = 0; i < names_.size(); ++i) {
            if (!index_.emplace(names_[i], static_cast<std::int32_t>(i)).second)
                throw InputError(path_ + ": variable name " + shown(names_[i]) + " is given twice");
        }
    }

    [[noreturn]] void fail(std::int64_t line, const std::string& msg) const {
        throw InputError(path_ + (line > 0 ? ":" + std::to_string(line) : "") + ": " + msg);
    }

    /// Index of node `name`, added when the names come from the file.
    std::int32_t node(const std::string& name, std::int64_t line) {
        if (name.empty()) fail(line, "empty node name");
        const auto it = index_.find(name);
        if (it != index_.end()) return it->second;
        if (fixed_) fail(line, "node " + shown(name) + " is not one of the data's variables");
        const auto id = static_cast<std::int32_t>(names_.size());
        names_.push_back(name);
        index_.emplace(name, id);
        return id;
    }

    /// Index of node `name` from the file's list of nodes; listing a node twice is an error.
    std::int32_t list_node(const std::string& name, std::int64_t line) {
        const std::int32_t id = node(name, line);
        if (!listed_.insert(id).second) fail(line, "node " + shown(name) + " is listed twice");
        return id;
    }

    /// Whether `name` was given to list_node.
    bool listed(const std::string& name) const {
        const auto it = index_.find(name);
        return it != index_.end() && listed_.count(it->second) > 0;
    }

    /// From now on a directed edge given again in the opposite direction makes the edge
    /// undirected (a networkx DiGraph stores a --- b as two arcs).
    void merge_opposite_arcs() { merge_arcs_ = true; }

    /// Whether circle marks are read (the readers refuse them otherwise).
    bool circles() const { return circles_; }
    /// The file says it holds a PAG (an FCI result, a PAG amat, JSON with graph kind "pag").
    void declare_pag() { pag_ = true; }
    /// Whether the graph is a PAG: declared so, or an edge has a circle mark.
    bool pag() const { return pag_; }

    void add_edge(std::int32_t a, std::int32_t b, Mark at_a, Mark at_b, std::int64_t line) {
        if (a == b) fail(line, "self loop at node " + shown(names_[a]));
        if (at_a == Mark::Circle || at_b == Mark::Circle) {
            if (!circles_) fail(line, "circle marks are not supported");
            pag_ = true;
        }
        edges_.push_back({a, b, at_a, at_b, line});
    }

    Pdag finish() const {
        Pdag g{Graph(static_cast<std::int64_t>(names_.size()))};
        for (const PendingEdge& e : edges_) {
            if (g.adjacent(e.a, e.b)) {
                if (g.end(e.a, e.b) == e.at_a && g.end(e.b, e.a) == e.at_b) continue;
                if (merge_arcs_ && g.is_directed(e.b, e.a) && e.at_a == Mark::Tail && e.at_b == Mark::Arrow) {
                    g.make_undirected(e.a, e.b);
                    continue;
                }
                fail(e.line, "edge " + shown(names_[e.a]) + " - " + shown(names_[e.b]) +
                                 " is listed again with different marks");
            }
            g.set(e.a, e.b, e.at_a, e.at_b);
        }
        return g;
    }

private:
    struct PendingEdge {
        std::int32_t a, b;
        Mark at_a, at_b;
        std::int64_t line;
    };
    std::string path_;
    std::vector<std::string>& names_;
    bool fixed_;
    bool circles_;
    bool pag_ = false;
    bool merge_arcs_ = false;
    std::unordered_map<std::string, std::int32_t> index_;
    std::unordered_set<std::int32_t> listed_;
    std::vector<PendingEdge> edges_;
};

/// Parses `-->`, `<--`, `---`, `<->` into the marks at the left and right node; with
/// `circles`, also a PAG's `o->`, `<-o`, `o-o`, `o--`, `--o` (an 'o' end is Mark::Circle).
inline bool parse_mark(std::string_view s, Mark& left, Mark& right, std::string& why, bool circles = false) {
    const bool shape = s.size() == 3 && s[1] == '-' && std::string_view("<-o").find(s[0]) != s.npos &&
                       std::string_view(">-o").find(s[2]) != s.npos;
    if (!shape) {
        why = "unknown edge mark '";
        why += s;
        why += circles ? "' (expected -->, <--, ---, <->, o->, <-o, o-o, o-- or --o)"
                       : "' (expected -->, <--, --- or <->)";
        return false;
    }
    if (!circles && (s[0] == 'o' || s[2] == 'o')) {
        why = "circle marks such as '";
        why += s;
        why += "' are not supported";
        return false;
    }
    left = s[0] == '<' ? Mark::Arrow : s[0] == 'o' ? Mark::Circle : Mark::Tail;
    right = s[2] == '>' ? Mark::Arrow : s[2] == 'o' ? Mark::Circle : Mark::Tail;
    return true;
}

inline bool looks_like_mark(std::string_view s) {
    return s.size() == 3 && s[1] == '-' && std::string_view("<-o").find(s[0]) != s.npos &&
           std::string_view(">-o").find(s[2]) != s.npos;
}

/// Edge list with a `source`, `target` and `mark` column (header at lines[header]).
Pdag read_tsv(const std::vector<Line>& lines, std::size_t header, GraphBuilder& b);
/// Tetrad's text graph ("Graph Nodes:" / "Graph Edges:"), starting at lines[first].
Pdag read_tetrad(const std::vector<Line>& lines, std::size_t first, GraphBuilder& b);
/// One cell of causal-learn's integer matrix (-1, 0 or 1) into `value`; false if it is none.
bool parse_matrix_value(std::string_view tok, int& value);
/// causal-learn's integer matrix (G.graph encoding); names X1..Xn.
Pdag read_matrix(const std::vector<Line>& lines, GraphBuilder& b, std::vector<std::string>& names);
/// pcalg's adjacency matrix as CSV (amat.cpdag encoding).
Pdag read_amat(const std::string& path, GraphBuilder& b);
/// networkx's node-link JSON.
Pdag read_json(const std::string& text, GraphBuilder& b);
/// cudag's HDF5 result: a PC result's /cpdag, an MCMC result's /best_dag (the graph its edge
/// list, DOT, JSON, amat and matrix files hold; its CPDAG is in .cpdag.tsv), an FCI result's
/// /pag (refused unless b.circles()). `graph` says which.
Pdag read_result_h5(const std::string& path, GraphBuilder& b, std::string& graph);
/// Graphviz DOT; `has_node_statements` tells whether the file lists its nodes.
Pdag read_dot(const std::string& text, GraphBuilder& b, bool& has_node_statements);

}  // namespace cudag::io::graph_detail
