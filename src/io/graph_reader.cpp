// SPDX-License-Identifier: Apache-2.0
#include "io/graph_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"

namespace cudag::io {

namespace {

struct Line {
    std::int64_t number;  ///< 1-based line number in the file
    std::string text;     ///< without the line end
};

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t\r\n");
    return s.substr(first, last - first + 1);
}

std::vector<std::string> split(std::string_view s, char sep) {
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

std::vector<std::string> split_ws(std::string_view s) {
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

/// Builds the Pdag while checking nodes and edges; every error names path:line.
class GraphBuilder {
public:
    GraphBuilder(std::string path, std::vector<std::string>& names)
        : path_(std::move(path)), names_(names), fixed_(!names.empty()) {
        for (std::size_t i = 0; i < names_.size(); ++i) {
            if (!index_.emplace(names_[i], static_cast<std::int32_t>(i)).second)
                throw InputError(path_ + ": variable name '" + names_[i] + "' is given twice");
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
        if (fixed_) fail(line, "node '" + name + "' is not one of the data's variables");
        const auto id = static_cast<std::int32_t>(names_.size());
        names_.push_back(name);
        index_.emplace(name, id);
        return id;
    }

    void add_edge(std::int32_t a, std::int32_t b, Mark at_a, Mark at_b, std::int64_t line) {
        if (a == b) fail(line, "self loop at node '" + names_[a] + "'");
        edges_.push_back({a, b, at_a, at_b, line});
    }

    Pdag finish() const {
        Pdag g{Graph(static_cast<std::int64_t>(names_.size()))};
        for (const PendingEdge& e : edges_) {
            if (g.adjacent(e.a, e.b)) {
                if (g.end(e.a, e.b) == e.at_a && g.end(e.b, e.a) == e.at_b) continue;
                fail(e.line, "edge " + names_[e.a] + " - " + names_[e.b] +
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
    std::unordered_map<std::string, std::int32_t> index_;
    std::vector<PendingEdge> edges_;
};

/// Parses `-->`, `<--`, `---`, `<->` into the marks at the left and right node.
bool parse_mark(std::string_view s, Mark& left, Mark& right, std::string& why) {
    if (s.size() != 3 || s[1] != '-') {
        why = "unknown edge mark '" + std::string(s) + "' (expected -->, <--, --- or <->)";
        return false;
    }
    if (s[0] == 'o' || s[2] == 'o') {
        why = "circle marks such as '" + std::string(s) + "' are not supported";
        return false;
    }
    const bool ok = (s[0] == '<' || s[0] == '-') && (s[2] == '>' || s[2] == '-');
    if (!ok) {
        why = "unknown edge mark '" + std::string(s) + "' (expected -->, <--, --- or <->)";
        return false;
    }
    left = s[0] == '<' ? Mark::Arrow : Mark::Tail;
    right = s[2] == '>' ? Mark::Arrow : Mark::Tail;
    return true;
}

bool looks_like_mark(std::string_view s) {
    return s.size() == 3 && s[1] == '-' && std::string_view("<-o").find(s[0]) != s.npos &&
           std::string_view(">-o").find(s[2]) != s.npos;
}

Pdag read_tsv(const std::vector<Line>& lines, std::size_t header, GraphBuilder& b) {
    const std::vector<std::string> cols = split(lines[header].text, '\t');
    int c_source = -1;
    int c_target = -1;
    int c_mark = -1;
    for (std::size_t c = 0; c < cols.size(); ++c) {
        const std::string_view name = trim(cols[c]);
        if (name == "source") c_source = static_cast<int>(c);
        if (name == "target") c_target = static_cast<int>(c);
        if (name == "mark") c_mark = static_cast<int>(c);
    }
    const std::int64_t hl = lines[header].number;
    if (c_source < 0) b.fail(hl, "edge list header has no 'source' column");
    if (c_target < 0) b.fail(hl, "edge list header has no 'target' column");
    if (c_mark < 0) b.fail(hl, "edge list header has no 'mark' column");
    const auto need = static_cast<std::size_t>(std::max({c_source, c_target, c_mark})) + 1;
    for (std::size_t k = header + 1; k < lines.size(); ++k) {
        const std::string_view text = trim(lines[k].text);
        if (text.empty() || text.front() == '#') continue;
        const std::vector<std::string> f = split(lines[k].text, '\t');
        if (f.size() < need)
            b.fail(lines[k].number, "expected at least " + std::to_string(need) +
                                        " tab-separated fields, found " + std::to_string(f.size()));
        Mark ms = Mark::None;
        Mark mt = Mark::None;
        std::string why;
        if (!parse_mark(trim(f[c_mark]), ms, mt, why)) b.fail(lines[k].number, why);
        const std::int32_t s = b.node(std::string(trim(f[c_source])), lines[k].number);
        const std::int32_t t = b.node(std::string(trim(f[c_target])), lines[k].number);
        b.add_edge(s, t, ms, mt, lines[k].number);
    }
    return b.finish();
}

Pdag read_tetrad(const std::vector<Line>& lines, std::size_t first, GraphBuilder& b) {
    // Node list: after the colon of "Graph Nodes:" or on the next non-blank line.
    std::size_t k = first;
    std::string_view list =
        trim(std::string_view(lines[k].text).substr(lines[k].text.find(':') + 1));
    std::int64_t list_line = lines[k].number;
    ++k;
    if (list.empty()) {
        while (k < lines.size() && trim(lines[k].text).empty()) ++k;
        if (k == lines.size()) b.fail(lines[first].number, "no node list after 'Graph Nodes:'");
        list = trim(lines[k].text);
        list_line = lines[k].number;
        ++k;
    }
    if (list.rfind("Graph Edges", 0) == 0) b.fail(list_line, "the node list is missing");
    const char sep = list.find(';') != std::string_view::npos ? ';' : ',';
    std::vector<std::string> listed;
    for (const std::string& raw : split(list, sep)) {
        const std::string name(trim(raw));
        if (name.empty()) continue;
        listed.push_back(name);
    }
    std::vector<std::string> listed_sorted = listed;
    std::sort(listed_sorted.begin(), listed_sorted.end());
    const auto dup = std::adjacent_find(listed_sorted.begin(), listed_sorted.end());
    if (dup != listed_sorted.end()) b.fail(list_line, "node '" + *dup + "' is listed twice");
    for (const std::string& name : listed) b.node(name, list_line);
    auto in_list = [&](const std::string& name) {
        return std::binary_search(listed_sorted.begin(), listed_sorted.end(), name);
    };

    while (k < lines.size() && trim(lines[k].text).empty()) ++k;
    if (k == lines.size()) return b.finish();  // no edge section: an empty graph
    if (trim(lines[k].text).rfind("Graph Edges", 0) != 0)
        b.fail(lines[k].number, "expected 'Graph Edges:'");
    for (++k; k < lines.size(); ++k) {
        const std::string_view text = trim(lines[k].text);
        if (text.empty()) continue;
        std::vector<std::string> tok = split_ws(text);
        if (!tok.empty() && tok[0].size() > 1 && tok[0].back() == '.' &&
            std::all_of(tok[0].begin(), tok[0].end() - 1,
                        [](char c) { return c >= '0' && c <= '9'; }))
            tok.erase(tok.begin());
        if (tok.size() < 3 || !looks_like_mark(tok[1])) {
            if (text.back() == ':' || text.find(':') != std::string_view::npos) break;
            b.fail(lines[k].number, "cannot read edge line '" + std::string(text) + "'");
        }
        Mark ma = Mark::None;
        Mark mb = Mark::None;
        std::string why;
        if (!parse_mark(tok[1], ma, mb, why)) b.fail(lines[k].number, why);
        for (const std::string* end : {&tok[0], &tok[2]})
            if (!in_list(*end))
                b.fail(lines[k].number, "node '" + *end + "' is not in the 'Graph Nodes:' list");
        const std::int32_t a = b.node(tok[0], lines[k].number);
        const std::int32_t c = b.node(tok[2], lines[k].number);
        b.add_edge(a, c, ma, mb, lines[k].number);
    }
    return b.finish();
}

bool parse_matrix_value(std::string_view tok, int& value) {
    const std::string s(tok);
    char* endp = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &endp);
    if (endp == s.c_str() || *endp != '\0' || errno != 0 || v != std::floor(v)) return false;
    if (v < -1000 || v > 1000) return false;
    value = static_cast<int>(v);
    return true;
}

Pdag read_matrix(const std::vector<Line>& lines, GraphBuilder& b, std::vector<std::string>& names) {
    std::vector<std::vector<std::int8_t>> g;  // int8: a 20,000-node matrix then takes 400 MB
    std::vector<std::int64_t> line_of;
    for (const Line& l : lines) {
        const std::string_view text = trim(l.text);
        if (text.empty() || text.front() == '#') continue;
        std::vector<std::int8_t> row;
        for (const std::string& tok : split_ws(text)) {
            int v = 0;
            if (!parse_matrix_value(tok, v))
                b.fail(l.number, "matrix entry '" + tok + "' is not an integer");
            if (v == 2) b.fail(l.number, "matrix entry 2 is a circle mark, which is not supported");
            if (v < -1 || v > 1) b.fail(l.number, "matrix entry " + tok + " is not -1, 0 or 1");
            row.push_back(static_cast<std::int8_t>(v));
        }
        g.push_back(std::move(row));
        line_of.push_back(l.number);
    }
    const std::size_t n = g.size();
    for (std::size_t i = 0; i < n; ++i)
        if (g[i].size() != n)
            b.fail(line_of[i], "matrix row has " + std::to_string(g[i].size()) +
                                   " entries but there are " + std::to_string(n) + " rows");
    if (!names.empty() && names.size() != n)
        b.fail(0, "matrix has " + std::to_string(n) + " nodes but the data has " +
                      std::to_string(names.size()) + " variables");
    if (names.empty())
        for (std::size_t i = 0; i < n; ++i)
            b.node(std::string("X").append(std::to_string(i + 1)), 0);
    auto entry = [](std::size_t i, std::size_t j) {
        return std::string("entry (").append(std::to_string(i + 1)) + ", " + std::to_string(j + 1) +
               ")";
    };
    for (std::size_t i = 0; i < n; ++i) {
        if (g[i][i] != 0) b.fail(line_of[i], entry(i, i) + " is on the diagonal and must be 0");
        for (std::size_t j = i + 1; j < n; ++j) {
            const int v = g[i][j];
            const int u = g[j][i];
            if ((v == 0) != (u == 0))
                b.fail(line_of[v == 0 ? j : i], entry(v == 0 ? j : i, v == 0 ? i : j) + " is " +
                                                    std::to_string(v == 0 ? u : v) + " but " +
                                                    entry(v == 0 ? i : j, v == 0 ? j : i) +
                                                    " is 0");
            if (v != 0)
                b.add_edge(static_cast<std::int32_t>(i), static_cast<std::int32_t>(j),
                           static_cast<Mark>(v), static_cast<Mark>(u), line_of[i]);
        }
    }
    return b.finish();
}

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

}  // namespace

Pdag read_graph(const std::string& path, std::vector<std::string>& names) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open graph file");
    std::vector<Line> lines;
    {
        std::string text;
        std::int64_t number = 0;
        while (std::getline(in, text)) {
            ++number;
            if (!text.empty() && text.back() == '\r') text.pop_back();
            if (number == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
            lines.push_back({number, std::move(text)});
        }
    }
    if (!lines.empty() && lines[0].text.rfind("\x89HDF", 0) == 0)
        throw InputError(path +
                         ": reading graphs from HDF5 is not supported; give a TSV edge "
                         "list, a causal-learn graph file or an integer matrix");

    std::size_t first = 0;
    while (first < lines.size() &&
           (trim(lines[first].text).empty() || trim(lines[first].text).front() == '#'))
        ++first;
    if (first == lines.size()) throw InputError(path + ": graph file is empty");

    std::vector<std::string> read_names = names;
    GraphBuilder builder(path, read_names);
    const std::string_view head = trim(lines[first].text);
    Pdag g;
    if (head.rfind("Graph Nodes", 0) == 0) {
        g = read_tetrad(lines, first, builder);
    } else if (is_tsv_header(head)) {
        g = read_tsv(lines, first, builder);
    } else if (const auto tok = split_ws(head);
               !tok.empty() && std::all_of(tok.begin(), tok.end(), is_number)) {
        g = read_matrix(std::vector<Line>(lines.begin() + first, lines.end()), builder, read_names);
    } else {
        throw InputError(path + ":" + std::to_string(lines[first].number) +
                         ": unknown graph format (expected a TSV edge list with header "
                         "source/target/mark, a 'Graph Nodes:' file or an integer matrix)");
    }
    names = std::move(read_names);
    return g;
}

void write_truth_tsv(const std::vector<std::string>& names,
                     const std::vector<std::tuple<std::int32_t, std::int32_t, double>>& dag_edges,
                     const std::string& path, const std::vector<std::string>& functions) {
    const auto n = static_cast<std::int64_t>(names.size());
    CUDAG_ASSERT(functions.empty() || functions.size() == dag_edges.size());
    std::string out = functions.empty() ? "source\ttarget\tmark\tweight\n"
                                        : "source\ttarget\tmark\tweight\tfunction\n";
    std::size_t row = 0;
    for (const auto& [from, to, w] : dag_edges) {
        CUDAG_EXPECTS(from >= 0 && from < n && to >= 0 && to < n,
                      path + ": edge " + std::to_string(from) + " -> " + std::to_string(to) +
                          " has an endpoint outside the " + std::to_string(n) + " variables");
        char buf[64];
        const auto res = std::to_chars(buf, buf + sizeof buf, w);
        out += names[from];
        out += '\t';
        out += names[to];
        out += "\t-->\t";
        out.append(buf, res.ptr);
        if (!functions.empty()) out += '\t' + functions[row];
        ++row;
        out += '\n';
    }
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) throw InputError(path + ": cannot write (opening " + tmp + " failed)");
        f << out;
        f.close();
        if (!f) throw InputError(path + ": writing " + tmp + " failed");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw InputError(path + ": cannot rename " + tmp + " into place");
    }
}

}  // namespace cudag::io
