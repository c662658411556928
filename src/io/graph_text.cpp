// SPDX-License-Identifier: Apache-2.0
// Line-based graph formats: TSV edge lists, Tetrad text graphs, causal-learn integer
// matrices and pcalg adjacency matrices (CSV).
#include "io/graph_parse.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace cudag::io::graph_detail {

// ---- TSV edge list ----------------------------------------------------------------------

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
        // No comments after the header: a name may start with '#'.
        if (trim(lines[k].text).empty()) continue;
        const std::vector<std::string> f = split(lines[k].text, '\t');
        if (f.size() < need)
            b.fail(lines[k].number, "expected at least " + std::to_string(need) + " tab-separated fields, found " +
                                        std::to_string(f.size()));
        Mark ms = Mark::None;
        Mark mt = Mark::None;
        std::string why;
        if (!parse_mark(trim(f[c_mark]), ms, mt, why)) b.fail(lines[k].number, why);
        const std::int32_t s = b.node(tsv_unescape(trim(f[c_source])), lines[k].number);
        const std::int32_t t = b.node(tsv_unescape(trim(f[c_target])), lines[k].number);
        b.add_edge(s, t, ms, mt, lines[k].number);
    }
    return b.finish();
}

// ---- Tetrad text graph ------------------------------------------------------------------

Pdag read_tetrad(const std::vector<Line>& lines, std::size_t first, GraphBuilder& b) {
    // Node list: after the colon of "Graph Nodes:" or on the next non-blank line.
    std::size_t k = first;
    std::string_view list = trim(std::string_view(lines[k].text).substr(lines[k].text.find(':') + 1));
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
    for (const std::string& raw : split(list, sep)) {
        const std::string name(trim(raw));
        if (!name.empty()) b.list_node(name, list_line);
    }

    while (k < lines.size() && trim(lines[k].text).empty()) ++k;
    if (k == lines.size()) return b.finish();  // no edge section: an empty graph
    if (trim(lines[k].text).rfind("Graph Edges", 0) != 0) b.fail(lines[k].number, "expected 'Graph Edges:'");
    for (++k; k < lines.size(); ++k) {
        const std::string_view text = trim(lines[k].text);
        if (text.empty()) continue;
        std::vector<std::string> tok = split_ws(text);
        if (!tok.empty() && tok[0].size() > 1 && tok[0].back() == '.' &&
            std::all_of(tok[0].begin(), tok[0].end() - 1, [](char c) { return c >= '0' && c <= '9'; }))
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
            if (!b.listed(*end)) b.fail(lines[k].number, "node " + shown(*end) + " is not in the 'Graph Nodes:' list");
        const std::int32_t a = b.node(tok[0], lines[k].number);
        const std::int32_t c = b.node(tok[2], lines[k].number);
        b.add_edge(a, c, ma, mb, lines[k].number);
    }
    return b.finish();
}

// ---- causal-learn integer matrix --------------------------------------------------------

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
            if (!parse_matrix_value(tok, v)) b.fail(l.number, "matrix entry '" + tok + "' is not an integer");
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
            b.fail(line_of[i], "matrix row has " + std::to_string(g[i].size()) + " entries but there are " +
                                   std::to_string(n) + " rows");
    if (!names.empty() && names.size() != n)
        b.fail(0, "matrix has " + std::to_string(n) + " nodes but the data has " + std::to_string(names.size()) +
                      " variables");
    if (names.empty())
        for (std::size_t i = 0; i < n; ++i) b.node(std::string("X").append(std::to_string(i + 1)), 0);
    auto entry = [](std::size_t i, std::size_t j) {
        return std::string("entry (").append(std::to_string(i + 1)) + ", " + std::to_string(j + 1) + ")";
    };
    for (std::size_t i = 0; i < n; ++i) {
        if (g[i][i] != 0) b.fail(line_of[i], entry(i, i) + " is on the diagonal and must be 0");
        for (std::size_t j = i + 1; j < n; ++j) {
            const int v = g[i][j];
            const int u = g[j][i];
            if ((v == 0) != (u == 0))
                b.fail(line_of[v == 0 ? j : i], entry(v == 0 ? j : i, v == 0 ? i : j) + " is " +
                                                    std::to_string(v == 0 ? u : v) + " but " +
                                                    entry(v == 0 ? i : j, v == 0 ? j : i) + " is 0");
            if (v != 0)
                b.add_edge(static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), static_cast<Mark>(v),
                           static_cast<Mark>(u), line_of[i]);
        }
    }
    return b.finish();
}

// ---- pcalg adjacency matrix (CSV) --------------------------------------------------------

/// RFC 4180 records from a stream: fields end at commas outside quotes, a quoted field may
/// hold commas, "" (one quote) and line breaks. Unquoted fields are trimmed of blanks.
class CsvRecords {
public:
    CsvRecords(std::istream& in, const GraphBuilder& b) : in_(in), b_(b) {}

    /// The next record that is not a blank line; false at the end. `line` is where it starts.
    bool next(std::vector<std::string>& fields, std::int64_t& line) {
        std::string text;
        do {
            if (!std::getline(in_, text)) return false;
            ++line_;
            if (line_ == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
        } while (trim(text).empty());
        line = line_;
        fields.clear();
        std::string cur;
        bool in_quotes = false;
        bool was_quoted = false;
        std::size_t i = 0;
        auto end_field = [&] {
            fields.push_back(was_quoted ? cur : std::string(trim(cur)));
            cur.clear();
            was_quoted = false;
        };
        for (;;) {
            if (i == text.size()) {
                if (!in_quotes) break;
                if (!std::getline(in_, text))
                    b_.fail(line, "column " + std::to_string(fields.size() + 1) + ": quoted field is not closed");
                ++line_;
                cur.push_back('\n');
                i = 0;
                continue;
            }
            const char c = text[i++];
            if (in_quotes) {
                if (c != '"') {
                    cur.push_back(c);
                } else if (i < text.size() && text[i] == '"') {
                    cur.push_back('"');
                    ++i;
                } else {
                    in_quotes = false;
                }
            } else if (c == ',') {
                end_field();
            } else if (was_quoted) {
                if (c != ' ' && c != '\t' && c != '\r')
                    b_.fail(line_, "column " + std::to_string(fields.size() + 1) + ": text after the closing quote");
            } else if (c == '"' && trim(cur).empty()) {
                cur.clear();
                in_quotes = true;
                was_quoted = true;
            } else {
                cur.push_back(c);
            }
        }
        end_field();
        return true;
    }

private:
    std::istream& in_;
    const GraphBuilder& b_;
    std::int64_t line_ = 0;
};

Pdag read_amat(const std::string& path, GraphBuilder& b) {
    std::ifstream in(path, std::ios::binary);
    if (!in) b.fail(0, "cannot open graph file");
    CsvRecords records(in, b);
    std::vector<std::string> f;
    std::int64_t line = 0;
    records.next(f, line);  // the caller saw the header
    if (!f.front().empty()) b.fail(line, "the header's first cell must be empty");
    const std::size_t n = f.size() - 1;
    const std::vector<std::string> header(f.begin() + 1, f.end());
    std::vector<std::int32_t> id(n);
    for (std::size_t c = 0; c < n; ++c) id[c] = b.list_node(header[c], line);

    std::vector<std::int8_t> amat(n * n, 0);  // int8: 400 MB for 20,000 variables
    std::vector<std::int64_t> line_of(n, 0);
    std::size_t rows = 0;
    while (records.next(f, line)) {
        if (rows == n) b.fail(line, "more rows than the " + std::to_string(n) + " variables of the header");
        if (f.size() != n + 1)
            b.fail(line, "row has " + std::to_string(f.size()) + " fields, expected " + std::to_string(n + 1) +
                             " (a name and " + std::to_string(n) + " codes)");
        if (f[0] != header[rows])
            b.fail(line, "row " + std::to_string(rows + 1) + " is " + shown(f[0]) + " but column " +
                             std::to_string(rows + 1) + " is " + shown(header[rows]) +
                             " (rows and columns must be in one order)");
        for (std::size_t c = 0; c < n; ++c) {
            const std::string& cell = f[c + 1];
            if (cell.size() != 1 || cell[0] < '0' || cell[0] > '2')
                b.fail(line, "column " + std::to_string(c + 2) + ": code '" + cell +
                                 "' is not 0, 1 or 2 (pcalg's cpdag coding)");
            amat[rows * n + c] = static_cast<std::int8_t>(cell[0] - '0');
        }
        line_of[rows++] = line;
    }
    if (rows != n)
        b.fail(0, "has " + std::to_string(rows) + " rows but the header names " + std::to_string(n) + " variables");
    for (std::size_t a = 0; a < n; ++a) {
        if (amat[a * n + a] != 0) b.fail(line_of[a], "column " + std::to_string(a + 2) + ": the diagonal must be 0");
        for (std::size_t c = a + 1; c < n; ++c) {
            const int v = amat[a * n + c];  // mark code at a's end
            const int u = amat[c * n + a];
            if (v == 0 && u == 0) continue;
            if (v == 0 && u == 1) {
                b.add_edge(id[a], id[c], Mark::Tail, Mark::Arrow, line_of[a]);
            } else if (v == 1 && u == 0) {
                b.add_edge(id[c], id[a], Mark::Tail, Mark::Arrow, line_of[a]);
            } else if (v == u) {
                const Mark m = v == 1 ? Mark::Tail : Mark::Arrow;
                b.add_edge(id[a], id[c], m, m, line_of[a]);
            } else {
                b.fail(line_of[a], "column " + std::to_string(c + 2) + ": codes " + std::to_string(v) + " at (" +
                                       shown(header[a]) + ", " + shown(header[c]) + ") and " + std::to_string(u) +
                                       " at (" + shown(header[c]) + ", " + shown(header[a]) +
                                       ") are no edge of pcalg's cpdag coding");
            }
        }
    }
    return b.finish();
}

}  // namespace cudag::io::graph_detail
