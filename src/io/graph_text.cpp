// SPDX-License-Identifier: Apache-2.0
// Line-based graph formats: TSV edge lists, Tetrad text graphs and causal-learn integer
// matrices (pcalg's adjacency CSV: io/graph_amat.cpp).
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
        if (!parse_mark(trim(f[c_mark]), ms, mt, why, b.circles())) b.fail(lines[k].number, why);
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
        if (!parse_mark(tok[1], ma, mb, why, b.circles())) b.fail(lines[k].number, why);
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
            if (v == 2 && !b.circles()) b.fail(l.number, "matrix entry 2 is a circle mark, which is not supported");
            if (v < -1 || v > (b.circles() ? 2 : 1)) {
                std::string msg = "matrix entry ";
                msg += tok;
                msg += b.circles() ? " is not -1, 0, 1 or 2" : " is not -1, 0 or 1";
                b.fail(l.number, msg);
            }
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

}  // namespace cudag::io::graph_detail
