// SPDX-License-Identifier: Apache-2.0
#include "io/graph_reader.hpp"
#include "io/graph_parse.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/error.hpp"
#include "io/hdf5_file.hpp"
#include "io/writers.hpp"

namespace cudag::io {

namespace {

using namespace graph_detail;

// ---- dispatch -----------------------------------------------------------------------------

/// A tab-separated header naming a `source` and a `target` column.
bool is_tsv_header(std::string_view head) {
    bool source = false;
    bool target = false;
    for (const std::string& f : split(head, '\t')) {
        source = source || trim(f) == "source";
        target = target || trim(f) == "target";
    }
    return source && target;
}

bool is_number(std::string_view s) {
    int v = 0;
    return parse_matrix_value(s, v);
}

std::vector<Line> read_lines(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open graph file");
    std::vector<Line> lines;
    std::string text;
    std::int64_t number = 0;
    while (std::getline(in, text)) {
        ++number;
        if (!text.empty() && text.back() == '\r') text.pop_back();
        if (number == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
        lines.push_back({number, std::move(text)});
    }
    return lines;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open graph file");
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.replace(0, 3, "   ");  // keep columns
    return text;
}

/// The first line that is neither blank nor a '#' comment, trimmed, and its number; "" when
/// the file has none.
std::string first_content_line(const std::string& path, std::int64_t& number) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open graph file");
    std::string text;
    number = 0;
    while (std::getline(in, text)) {
        ++number;
        if (number == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
        const std::string_view t = trim(text);
        if (!t.empty() && t.front() != '#') return std::string(t);
    }
    return "";
}

GraphFile read_any(const std::string& path, const std::vector<std::string>& given, PagMarks pag) {
    GraphFile out;
    out.path = path;
    std::vector<std::string> names = given;
    GraphBuilder builder(path, names, pag != PagMarks::Refuse);
    if (pag == PagMarks::Assume) builder.declare_pag();
    // The format is told from the content, then the file read again: a pipe (bash's
    // <(...), a FIFO) would be empty the second time (and a FIFO without a writer blocks
    // the first open).
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        throw InputError(path +
                         ": a graph file must be a regular file (it is read more than once), not a pipe, "
                         "device or directory; save it to a file first");
    {
        std::ifstream probe(path, std::ios::binary);
        if (!probe) throw InputError(path + ": cannot open graph file");
    }
    if (h5::has_hdf5_signature(path)) {
        out.format = "cudag result";
        out.graph = read_result_h5(path, builder, out.graph_name);
        out.lists_every_variable = true;
    } else {
        std::int64_t head_line = 0;
        const std::string head = first_content_line(path, head_line);
        if (head.empty()) throw InputError(path + ": graph file is empty");
        std::string word;
        for (char c : head) {
            if (!std::isalpha(static_cast<unsigned char>(c))) break;
            word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
        if (head.rfind("Graph Nodes", 0) == 0) {
            out.format = "Tetrad graph";
            const std::vector<Line> lines = read_lines(path);
            std::size_t first = 0;
            while (lines[first].number != head_line) ++first;
            out.graph = read_tetrad(lines, first, builder);
            out.lists_every_variable = true;
        } else if (head.front() == '{') {
            out.format = "node-link JSON";
            out.graph = read_json(read_text(path), builder);
            out.lists_every_variable = true;
        } else if (word == "digraph" || word == "graph" || word == "strict" || head.rfind("//", 0) == 0 ||
                   head.rfind("/*", 0) == 0) {
            out.format = "DOT";
            out.graph = read_dot(read_text(path), builder, out.lists_every_variable);
        } else if (is_tsv_header(head)) {
            out.format = "edge list";
            const std::vector<Line> lines = read_lines(path);
            std::size_t first = 0;
            while (lines[first].number != head_line) ++first;
            out.graph = read_tsv(lines, first, builder);
        } else if (head.front() == ',' || (head.rfind("\"\"", 0) == 0 && trim(head.substr(2)).rfind(',', 0) == 0)) {
            out.format = "pcalg amat";
            out.graph = read_amat(path, builder);
            out.lists_every_variable = true;
        } else if (const auto tok = split_ws(head); !tok.empty() && std::all_of(tok.begin(), tok.end(), is_number)) {
            out.format = "causal-learn matrix";
            out.names_by_position = given.empty();
            const std::vector<Line> lines = read_lines(path);
            out.graph = read_matrix(lines, builder, names);
            out.lists_every_variable = true;
        } else {
            throw InputError(path + ":" + std::to_string(head_line) +
                             ": unknown graph format (expected a TSV edge list with header "
                             "source/target/mark, a 'Graph Nodes:' file, a pcalg amat CSV, "
                             "node-link JSON, a DOT graph, a cudag .h5 result or an integer "
                             "matrix)");
        }
    }
    out.names = std::move(names);
    out.pag = builder.pag();
    return out;
}

/// `g` over `from` names re-indexed onto `to` (which holds every name of `from`).
Pdag remap(const Pdag& g, const std::vector<std::string>& from, const std::unordered_map<std::string, std::int32_t>& to,
           std::int64_t n) {
    Pdag out{Graph(n)};
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (std::int32_t j : g.neighbours(i))
            if (i < j) out.set(to.at(from[i]), to.at(from[j]), g.end(i, j), g.end(j, i));
    return out;
}

}  // namespace

GraphFile read_graph_file(const std::string& path, PagMarks pag) { return read_any(path, {}, pag); }

Pdag read_graph(const std::string& path, std::vector<std::string>& names) {
    GraphFile f = read_any(path, names, PagMarks::Refuse);
    names = std::move(f.names);
    return std::move(f.graph);
}

Dag read_dag(const std::string& path, std::vector<std::string>& names) {
    GraphFile f = read_any(path, {}, PagMarks::Refuse);
    names = std::move(f.names);
    const Pdag& g = f.graph;
    Dag dag(g.n());
    for (std::int32_t a = 0; a < g.n(); ++a)
        for (const std::int32_t b : g.neighbours(a)) {
            if (g.is_directed(a, b)) {
                dag.add_edge(a, b);
            } else if (a < b && !g.is_directed(b, a)) {
                const char* mark = g.is_undirected(a, b) ? "---" : "<->";
                throw InputError(path + ": the edge " + names[static_cast<std::size_t>(a)] + " " + mark + " " +
                                 names[static_cast<std::size_t>(b)] + " is not directed; a DAG has only --> edges");
            }
        }
    if (dag.n() > 0 && dag.topological_order().empty())
        throw InputError(path + ": the graph has a directed cycle, so it is not a DAG");
    return dag;
}

AlignedGraphs align_graphs(const GraphFile& truth, const GraphFile& estimate) {
    // A nameless matrix is X1..Xn by name when the other graph has those names, else the
    // other graph's variables by position when it lists every variable and has as many.
    auto names_of = [](const GraphFile& self, const GraphFile& other) {
        if (!self.names_by_position || other.names_by_position) return self.names;
        const std::unordered_set<std::string> has(other.names.begin(), other.names.end());
        const bool by_name =
            std::all_of(self.names.begin(), self.names.end(), [&](const std::string& s) { return has.count(s) > 0; });
        if (!by_name && other.lists_every_variable && other.names.size() == self.names.size()) return other.names;
        return self.names;
    };
    const std::vector<std::string> tnames = names_of(truth, estimate);
    const std::vector<std::string> enames = names_of(estimate, truth);

    AlignedGraphs out;
    out.names = tnames;
    std::unordered_map<std::string, std::int32_t> index;
    for (std::size_t k = 0; k < tnames.size(); ++k) index.emplace(tnames[k], static_cast<std::int32_t>(k));
    const std::unordered_set<std::string> in_estimate(enames.begin(), enames.end());

    std::vector<std::string> extra;  // in the estimate, not in the truth
    for (const std::string& name : enames)
        if (!index.count(name)) extra.push_back(name);
    std::vector<std::string> missing;  // in the truth, not in the estimate
    for (const std::string& name : tnames)
        if (!in_estimate.count(name)) missing.push_back(name);

    const std::string nameless = truth.names_by_position || estimate.names_by_position
                                     ? "; a causal-learn matrix has no names, its nodes are X1..Xn"
                                     : "";
    if (!extra.empty() && (truth.lists_every_variable || !estimate.lists_every_variable)) {
        std::string hint = nameless;
        if (hint.empty() && !truth.lists_every_variable)
            hint =
                "; an edge-list truth names only variables with edges: give an estimate that "
                "lists every variable (.h5, .json, .amat.csv, .dot) to take the others as "
                "isolated";
        throw InputError(estimate.path + ": variable " + shown(extra.front()) +
                         " of the estimate is not in the truth " + truth.path +
                         " (absent: " + std::to_string(extra.size()) + " of the estimate's " +
                         std::to_string(enames.size()) + " variables" + hint + ")");
    }
    if (!missing.empty() && estimate.lists_every_variable)
        throw InputError(
            estimate.path + ": the truth's variable " + shown(missing.front()) +
            " is not in the estimate, which lists every variable (absent: " + std::to_string(missing.size()) +
            " of the truth's " + std::to_string(tnames.size()) + " variables" + nameless + ")");

    for (const std::string& name : extra) {
        index.emplace(name, static_cast<std::int32_t>(out.names.size()));
        out.names.push_back(name);
    }
    const auto n = static_cast<std::int64_t>(out.names.size());
    out.truth = remap(truth.graph, tnames, index, n);
    out.estimate = remap(estimate.graph, enames, index, n);
    return out;
}

void write_truth_tsv(const std::vector<std::string>& names,
                     const std::vector<std::tuple<std::int32_t, std::int32_t, double>>& dag_edges,
                     const std::string& path, const std::vector<std::string>& functions) {
    const auto n = static_cast<std::int64_t>(names.size());
    CUDAG_ASSERT(functions.empty() || functions.size() == dag_edges.size());
    std::string out = functions.empty() ? "source\ttarget\tmark\tweight\n" : "source\ttarget\tmark\tweight\tfunction\n";
    std::size_t row = 0;
    for (const auto& [from, to, w] : dag_edges) {
        CUDAG_EXPECTS(from >= 0 && from < n && to >= 0 && to < n,
                      path + ": edge " + std::to_string(from) + " -> " + std::to_string(to) +
                          " has an endpoint outside the " + std::to_string(n) + " variables");
        char buf[64];
        const auto res = std::to_chars(buf, buf + sizeof buf, w);
        out += tsv_escape(names[from]);
        out += '\t';
        out += tsv_escape(names[to]);
        out += "\t-->\t";
        out.append(buf, res.ptr);
        if (!functions.empty()) out += '\t' + functions[row];
        ++row;
        out += '\n';
    }
    // `path` is a temporary from the caller's OutputSet (or "-", standard output).
    TextFile f(path);
    f.write(out);
    f.close();
}

}  // namespace cudag::io
