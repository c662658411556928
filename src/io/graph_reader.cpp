// SPDX-License-Identifier: Apache-2.0
#include "io/graph_reader.hpp"

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
#include "io/mcmc_result.hpp"
#include "io/result_file.hpp"
#include "io/writers.hpp"

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

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// `name` quoted for a message, line breaks and tabs shown escaped so that the message
/// stays one line.
std::string shown(const std::string& name) { return "'" + tsv_escape(name) + "'"; }

/// Builds the Pdag while checking nodes and edges; every error names path:line.
class GraphBuilder {
public:
    GraphBuilder(std::string path, std::vector<std::string>& names)
        : path_(std::move(path)), names_(names), fixed_(!names.empty()) {
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

    void add_edge(std::int32_t a, std::int32_t b, Mark at_a, Mark at_b, std::int64_t line) {
        if (a == b) fail(line, "self loop at node " + shown(names_[a]));
        edges_.push_back({a, b, at_a, at_b, line});
    }

    Pdag finish() const {
        Pdag g{Graph(static_cast<std::int64_t>(names_.size()))};
        for (const PendingEdge& e : edges_) {
            if (g.adjacent(e.a, e.b)) {
                if (g.end(e.a, e.b) == e.at_a && g.end(e.b, e.a) == e.at_b) continue;
                if (merge_arcs_ && g.is_directed(e.b, e.a) && e.at_a == Mark::Tail &&
                    e.at_b == Mark::Arrow) {
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
    bool merge_arcs_ = false;
    std::unordered_map<std::string, std::int32_t> index_;
    std::unordered_set<std::int32_t> listed_;
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
            b.fail(lines[k].number, "expected at least " + std::to_string(need) +
                                        " tab-separated fields, found " + std::to_string(f.size()));
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
    for (const std::string& raw : split(list, sep)) {
        const std::string name(trim(raw));
        if (!name.empty()) b.list_node(name, list_line);
    }

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
            if (!b.listed(*end))
                b.fail(lines[k].number,
                       "node " + shown(*end) + " is not in the 'Graph Nodes:' list");
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
                    b_.fail(line, "column " + std::to_string(fields.size() + 1) +
                                      ": quoted field is not closed");
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
                    b_.fail(line_, "column " + std::to_string(fields.size() + 1) +
                                       ": text after the closing quote");
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
        if (rows == n)
            b.fail(line, "more rows than the " + std::to_string(n) + " variables of the header");
        if (f.size() != n + 1)
            b.fail(line, "row has " + std::to_string(f.size()) + " fields, expected " +
                             std::to_string(n + 1) + " (a name and " + std::to_string(n) +
                             " codes)");
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
        b.fail(0, "has " + std::to_string(rows) + " rows but the header names " +
                      std::to_string(n) + " variables");
    for (std::size_t a = 0; a < n; ++a) {
        if (amat[a * n + a] != 0)
            b.fail(line_of[a], "column " + std::to_string(a + 2) + ": the diagonal must be 0");
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
                b.fail(line_of[a], "column " + std::to_string(c + 2) + ": codes " +
                                       std::to_string(v) + " at (" + shown(header[a]) + ", " +
                                       shown(header[c]) + ") and " + std::to_string(u) + " at (" +
                                       shown(header[c]) + ", " + shown(header[a]) +
                                       ") are no edge of pcalg's cpdag coding");
            }
        }
    }
    return b.finish();
}

// ---- node-link JSON ---------------------------------------------------------------------

struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    std::string text;  ///< a string's value, a number as written, "true"/"false"
    std::vector<JsonValue> items;
    std::vector<std::pair<std::string, JsonValue>> members;
    std::int64_t line = 0;

    const JsonValue* find(std::string_view key) const {
        for (const auto& [k, v] : members)
            if (k == key) return &v;
        return nullptr;
    }
};

/// RFC 8259 parser for one value; errors name the line.
class JsonParser {
public:
    JsonParser(std::string_view text, const GraphBuilder& b) : s_(text), b_(b) {}

    JsonValue parse_document() {
        JsonValue v = value(0);
        ws();
        if (i_ != s_.size()) fail("unexpected text after the JSON value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& msg) const { b_.fail(line_, msg); }

    void ws() {
        while (i_ < s_.size() &&
               (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
            if (s_[i_] == '\n') ++line_;
            ++i_;
        }
    }

    JsonValue value(int depth) {
        if (depth > 256) fail("JSON nested too deeply");
        ws();
        if (i_ >= s_.size()) fail("unexpected end of the JSON text");
        JsonValue v;
        v.line = line_;
        const char c = s_[i_];
        if (c == '{') {
            v.kind = JsonValue::Kind::Object;
            ++i_;
            ws();
            if (i_ < s_.size() && s_[i_] == '}') {
                ++i_;
                return v;
            }
            for (;;) {
                ws();
                if (i_ >= s_.size() || s_[i_] != '"') fail("expected a quoted member name");
                std::string key = string();
                ws();
                if (i_ >= s_.size() || s_[i_] != ':') fail("expected ':' after a member name");
                ++i_;
                v.members.emplace_back(std::move(key), value(depth + 1));
                ws();
                if (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < s_.size() && s_[i_] == '}') {
                    ++i_;
                    return v;
                }
                fail("expected ',' or '}' in an object");
            }
        }
        if (c == '[') {
            v.kind = JsonValue::Kind::Array;
            ++i_;
            ws();
            if (i_ < s_.size() && s_[i_] == ']') {
                ++i_;
                return v;
            }
            for (;;) {
                v.items.push_back(value(depth + 1));
                ws();
                if (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < s_.size() && s_[i_] == ']') {
                    ++i_;
                    return v;
                }
                fail("expected ',' or ']' in an array");
            }
        }
        if (c == '"') {
            v.kind = JsonValue::Kind::String;
            v.text = string();
            return v;
        }
        for (const char* word : {"true", "false", "null"}) {
            const std::string_view w(word);
            if (s_.substr(i_, w.size()) == w) {
                i_ += w.size();
                v.kind = w == "null" ? JsonValue::Kind::Null : JsonValue::Kind::Bool;
                v.text = std::string(w);
                return v;
            }
        }
        const std::size_t start = i_;
        while (i_ < s_.size() && std::string_view("+-.0123456789eE").find(s_[i_]) != s_.npos) ++i_;
        double number = 0;
        const auto res = std::from_chars(s_.data() + start, s_.data() + i_, number);
        if (i_ == start || res.ptr != s_.data() + i_)
            fail("unexpected character '" + std::string(1, c) + "'");
        v.kind = JsonValue::Kind::Number;
        v.text = std::string(s_.substr(start, i_ - start));
        return v;
    }

    unsigned hex4() {
        if (i_ + 4 > s_.size()) fail("incomplete \\u escape");
        unsigned u = 0;
        for (int k = 0; k < 4; ++k) {
            const char h = s_[i_++];
            u <<= 4;
            if (h >= '0' && h <= '9')
                u |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f')
                u |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                u |= static_cast<unsigned>(h - 'A' + 10);
            else
                fail("bad \\u escape");
        }
        return u;
    }

    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }

    std::string string() {
        ++i_;  // the opening quote
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) fail("string is not closed");
            const char c = s_[i_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (c != '\\') {
                out.push_back(c);
                continue;
            }
            if (i_ >= s_.size()) fail("string is not closed");
            const char e = s_[i_++];
            switch (e) {
                case '"':
                    out.push_back('"');
                    break;
                case '\\':
                    out.push_back('\\');
                    break;
                case '/':
                    out.push_back('/');
                    break;
                case 'b':
                    out.push_back('\b');
                    break;
                case 'f':
                    out.push_back('\f');
                    break;
                case 'n':
                    out.push_back('\n');
                    break;
                case 'r':
                    out.push_back('\r');
                    break;
                case 't':
                    out.push_back('\t');
                    break;
                case 'u': {
                    unsigned cp = hex4();
                    if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(i_, 2) == "\\u") {
                        i_ += 2;
                        const unsigned low = hex4();
                        if (low < 0xDC00 || low >= 0xE000) fail("bad surrogate pair");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    }
                    append_utf8(out, cp);
                    break;
                }
                default:
                    fail(std::string("bad escape '\\") + e + "' in a string");
            }
        }
    }

    std::string_view s_;
    const GraphBuilder& b_;
    std::size_t i_ = 0;
    std::int64_t line_ = 1;
};

Pdag read_json(const std::string& text, GraphBuilder& b) {
    const JsonValue doc = JsonParser(text, b).parse_document();
    using Kind = JsonValue::Kind;
    if (doc.kind != Kind::Object) b.fail(doc.line, "expected a node-link JSON object");
    bool directed = true;
    if (const JsonValue* d = doc.find("directed"); d) {
        if (d->kind != Kind::Bool) b.fail(d->line, "\"directed\" must be true or false");
        directed = d->text == "true";
    }
    auto id_of = [&](const JsonValue& v, const char* what) {
        if (v.kind != Kind::String && v.kind != Kind::Number)
            b.fail(v.line, std::string(what) + " must be a string or a number");
        return v.text;
    };
    const JsonValue* nodes = doc.find("nodes");
    if (!nodes || nodes->kind != Kind::Array) b.fail(doc.line, "no \"nodes\" array");
    for (const JsonValue& node : nodes->items) {
        const JsonValue* id = node.kind == Kind::Object ? node.find("id") : nullptr;
        if (!id) b.fail(node.line, "a node has no \"id\"");
        b.list_node(id_of(*id, "a node \"id\""), id->line);
    }
    const JsonValue* links = doc.find("links");
    if (!links) links = doc.find("edges");
    if (!links || links->kind != Kind::Array) b.fail(doc.line, "no \"links\" (or \"edges\") array");
    b.merge_opposite_arcs();
    for (const JsonValue& link : links->items) {
        if (link.kind != Kind::Object) b.fail(link.line, "a link must be an object");
        std::int32_t end[2] = {0, 0};
        for (int k = 0; k < 2; ++k) {
            const char* key = k == 0 ? "source" : "target";
            const JsonValue* v = link.find(key);
            if (!v) b.fail(link.line, std::string("a link has no \"") + key + "\"");
            const std::string name = id_of(*v, key);
            if (!b.listed(name))
                b.fail(v->line,
                       std::string("link ") + key + " " + shown(name) + " is not in \"nodes\"");
            end[k] = b.node(name, v->line);
        }
        Mark ms = Mark::Tail;
        Mark mt = directed ? Mark::Arrow : Mark::Tail;
        if (const JsonValue* mark = link.find("mark"); mark) {
            std::string why;
            if (mark->kind != Kind::String || !parse_mark(mark->text, ms, mt, why))
                b.fail(mark->line, why.empty() ? "\"mark\" must be a string" : why);
        }
        b.add_edge(end[0], end[1], ms, mt, link.line);
    }
    return b.finish();
}

// ---- Graphviz DOT -----------------------------------------------------------------------

/// Tokens of the DOT language: IDs (names, numerals, quoted and HTML strings) and
/// punctuation ("{", "->", ...). Comments and '#' lines are skipped.
class DotLexer {
public:
    struct Token {
        enum class Type { Id, Punct, End };
        Type type = Type::End;
        std::string text;
        bool quoted = false;
        std::int64_t line = 0;
    };

    DotLexer(std::string_view text, const GraphBuilder& b) : s_(text), b_(b) { advance(); }

    const Token& peek() const { return tok_; }
    Token take() {
        Token t = std::move(tok_);
        advance();
        return t;
    }

private:
    void skip_blanks() {
        for (;;) {
            while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) {
                if (s_[i_] == '\n') ++line_;
                ++i_;
            }
            if (s_.substr(i_, 2) == "//" || (s_.substr(i_, 1) == "#" && at_line_start())) {
                while (i_ < s_.size() && s_[i_] != '\n') ++i_;
            } else if (s_.substr(i_, 2) == "/*") {
                const std::int64_t start = line_;
                const std::size_t end = s_.find("*/", i_ + 2);
                if (end == std::string_view::npos) b_.fail(start, "comment is not closed");
                line_ += std::count(s_.begin() + static_cast<std::ptrdiff_t>(i_),
                                    s_.begin() + static_cast<std::ptrdiff_t>(end), '\n');
                i_ = end + 2;
            } else {
                return;
            }
        }
    }

    bool at_line_start() const {
        std::size_t k = i_;
        while (k > 0 && (s_[k - 1] == ' ' || s_[k - 1] == '\t')) --k;
        return k == 0 || s_[k - 1] == '\n';
    }

    std::string quoted_string() {
        const std::int64_t start = line_;
        ++i_;
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) b_.fail(start, "quoted string is not closed");
            const char c = s_[i_++];
            if (c == '"') return out;
            if (c == '\n') ++line_;
            if (c != '\\' || i_ >= s_.size()) {
                out.push_back(c);
                continue;
            }
            // Graphviz escapes \" (and a backslash-newline continues the line); cudag also
            // writes \\, \n and \r, which Graphviz shows as \, a line break and one more.
            const char e = s_[i_++];
            if (e == '"' || e == '\\') {
                out.push_back(e);
            } else if (e == 'n') {
                out.push_back('\n');
            } else if (e == 'r') {
                out.push_back('\r');
            } else if (e == '\n') {
                ++line_;
            } else if (e == '\r' && i_ < s_.size() && s_[i_] == '\n') {
                ++i_;
                ++line_;
            } else {
                out.push_back('\\');
                out.push_back(e);
            }
        }
    }

    void advance() {
        skip_blanks();
        tok_ = Token{};
        tok_.line = line_;
        if (i_ >= s_.size()) return;
        const char c = s_[i_];
        if (s_.substr(i_, 2) == "->" || s_.substr(i_, 2) == "--") {
            tok_.type = Token::Type::Punct;
            tok_.text = std::string(s_.substr(i_, 2));
            i_ += 2;
            return;
        }
        if (std::string_view("{}[];,=:").find(c) != std::string_view::npos) {
            tok_.type = Token::Type::Punct;
            tok_.text = std::string(1, c);
            ++i_;
            return;
        }
        tok_.type = Token::Type::Id;
        if (c == '"') {
            tok_.quoted = true;
            tok_.text = quoted_string();
            // "a" + "b" concatenates.
            for (;;) {
                const std::size_t save_i = i_;
                const std::int64_t save_line = line_;
                skip_blanks();
                if (i_ < s_.size() && s_[i_] == '+') {
                    ++i_;
                    skip_blanks();
                    if (i_ < s_.size() && s_[i_] == '"') {
                        tok_.text += quoted_string();
                        continue;
                    }
                    b_.fail(line_, "expected a quoted string after '+'");
                }
                i_ = save_i;
                line_ = save_line;
                return;
            }
        }
        if (c == '<') {  // HTML string, kept as written
            const std::int64_t start = line_;
            int depth = 0;
            std::size_t k = i_;
            for (; k < s_.size(); ++k) {
                if (s_[k] == '\n') ++line_;
                if (s_[k] == '<') ++depth;
                if (s_[k] == '>' && --depth == 0) break;
            }
            if (k >= s_.size()) b_.fail(start, "HTML string is not closed");
            tok_.quoted = true;
            tok_.text = std::string(s_.substr(i_ + 1, k - i_ - 1));
            i_ = k + 1;
            return;
        }
        auto name_char = [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' ||
                   static_cast<unsigned char>(ch) >= 0x80;
        };
        const bool numeral = c == '-' || c == '.' || std::isdigit(static_cast<unsigned char>(c));
        std::size_t k = i_;
        if (numeral) {
            if (s_[k] == '-') ++k;
            while (k < s_.size() &&
                   (std::isdigit(static_cast<unsigned char>(s_[k])) || s_[k] == '.'))
                ++k;
        } else if (name_char(c) && !std::isdigit(static_cast<unsigned char>(c))) {
            while (k < s_.size() && name_char(s_[k])) ++k;
        }
        if (k == i_ || (numeral && k == i_ + 1 && c == '-'))
            b_.fail(line_, "unexpected character '" + std::string(1, c) + "'");
        tok_.text = std::string(s_.substr(i_, k - i_));
        i_ = k;
    }

    std::string_view s_;
    const GraphBuilder& b_;
    std::size_t i_ = 0;
    std::int64_t line_ = 1;
    Token tok_;
};

/// Edge attributes that decide the marks.
struct DotEdgeStyle {
    std::string dir;  ///< "" until given: forward in a digraph, none in a graph
    std::string arrowhead;
    std::string arrowtail;
};

Pdag read_dot(const std::string& text, GraphBuilder& b, bool& has_node_statements) {
    DotLexer lex(text, b);
    using Type = DotLexer::Token::Type;
    auto is_keyword = [](const DotLexer::Token& t, const char* word) {
        return t.type == Type::Id && !t.quoted && lower(t.text) == word;
    };
    auto is_punct = [](const DotLexer::Token& t, const char* p) {
        return t.type == Type::Punct && t.text == p;
    };
    auto describe = [](const DotLexer::Token& t) {
        return t.type == Type::End ? std::string("the end of the file") : "'" + t.text + "'";
    };
    auto expect_punct = [&](const char* p) {
        if (!is_punct(lex.peek(), p))
            b.fail(lex.peek().line,
                   std::string("expected '") + p + "' but found " + describe(lex.peek()));
        lex.take();
    };
    auto expect_id = [&](const char* what) {
        if (lex.peek().type != Type::Id)
            b.fail(lex.peek().line,
                   std::string("expected ") + what + " but found " + describe(lex.peek()));
        return lex.take();
    };

    if (is_keyword(lex.peek(), "strict")) lex.take();
    bool directed = false;
    if (is_keyword(lex.peek(), "digraph")) {
        directed = true;
    } else if (!is_keyword(lex.peek(), "graph")) {
        b.fail(lex.peek().line, "expected 'digraph' or 'graph' but found " + describe(lex.peek()));
    }
    lex.take();
    if (lex.peek().type == Type::Id) lex.take();  // the graph's name
    expect_punct("{");

    // [a=b, c=d][...]: calls `set` for each attribute.
    auto attr_lists = [&](auto&& set) {
        while (is_punct(lex.peek(), "[")) {
            lex.take();
            while (!is_punct(lex.peek(), "]")) {
                const DotLexer::Token key = expect_id("an attribute name");
                std::string value = "true";
                if (is_punct(lex.peek(), "=")) {
                    lex.take();
                    value = expect_id("an attribute value").text;
                }
                set(key.text, value, key.line);
                if (is_punct(lex.peek(), ";") || is_punct(lex.peek(), ",")) lex.take();
            }
            lex.take();
        }
    };
    auto style_setter = [](DotEdgeStyle& style) {
        return [&style](const std::string& key, const std::string& value, std::int64_t) {
            if (key == "dir") style.dir = value;
            if (key == "arrowhead") style.arrowhead = value;
            if (key == "arrowtail") style.arrowtail = value;
        };
    };
    auto node_id = [&]() {
        const DotLexer::Token t = expect_id("a node name");
        if (!t.quoted && (lower(t.text) == "subgraph" || lower(t.text) == "node" ||
                          lower(t.text) == "edge" || lower(t.text) == "graph"))
            b.fail(t.line, "expected a node name but found keyword '" + t.text + "'");
        for (int k = 0; k < 2 && is_punct(lex.peek(), ":"); ++k) {  // port[:compass]
            lex.take();
            expect_id("a port");
        }
        return t;
    };
    // The mark a drawn arrow shape stands for.
    auto arrow_mark = [&](const std::string& shape, std::int64_t line) {
        if (shape == "none") return Mark::Tail;
        if (shape == "odot" || shape == "dot")
            b.fail(line, "circle marks (arrow shape '" + shape + "') are not supported");
        return Mark::Arrow;
    };

    DotEdgeStyle defaults;
    has_node_statements = false;
    b.merge_opposite_arcs();
    for (;;) {
        const DotLexer::Token& t = lex.peek();
        if (t.type == Type::End) b.fail(t.line, "the graph is not closed by '}'");
        if (is_punct(t, "}")) break;
        if (is_punct(t, ";")) {
            lex.take();
            continue;
        }
        if (is_punct(t, "{") || is_keyword(t, "subgraph"))
            b.fail(t.line, "subgraphs are not supported");
        if (is_keyword(t, "graph") || is_keyword(t, "node") || is_keyword(t, "edge")) {
            const bool edge = is_keyword(t, "edge");
            lex.take();
            DotEdgeStyle ignored;
            attr_lists(style_setter(edge ? defaults : ignored));
            continue;
        }
        const DotLexer::Token first = node_id();
        if (is_punct(lex.peek(), "=")) {  // graph attribute a = b
            lex.take();
            expect_id("an attribute value");
            continue;
        }
        std::vector<DotLexer::Token> chain{first};
        while (is_punct(lex.peek(), "->") || is_punct(lex.peek(), "--")) {
            const DotLexer::Token op = lex.take();
            if ((op.text == "->") != directed)
                b.fail(op.line, "'" + op.text + "' in a " + (directed ? "digraph" : "graph") +
                                    " (use '" + (directed ? "->" : "--") + "')");
            if (is_punct(lex.peek(), "{") || is_keyword(lex.peek(), "subgraph"))
                b.fail(lex.peek().line, "subgraphs are not supported");
            chain.push_back(node_id());
        }
        DotEdgeStyle style = defaults;
        attr_lists(style_setter(style));
        if (chain.size() == 1) {
            b.node(first.text, first.line);
            has_node_statements = true;
            continue;
        }
        const std::string dir = style.dir.empty() ? (directed ? "forward" : "none") : style.dir;
        if (dir != "forward" && dir != "back" && dir != "both" && dir != "none")
            b.fail(first.line, "unknown dir '" + dir + "' (expected forward, back, both, none)");
        const bool head = dir == "forward" || dir == "both";
        const bool tail = dir == "back" || dir == "both";
        const Mark at_target = head ? arrow_mark(style.arrowhead, first.line) : Mark::Tail;
        const Mark at_source = tail ? arrow_mark(style.arrowtail, first.line) : Mark::Tail;
        for (std::size_t k = 0; k + 1 < chain.size(); ++k) {
            const std::int32_t s = b.node(chain[k].text, chain[k].line);
            const std::int32_t d = b.node(chain[k + 1].text, chain[k + 1].line);
            b.add_edge(s, d, at_source, at_target, chain[k].line);
        }
    }
    lex.take();
    if (lex.peek().type != Type::End)
        b.fail(lex.peek().line, "unexpected " + describe(lex.peek()) + " after the graph");
    return b.finish();
}

// ---- cudag's HDF5 result ----------------------------------------------------------------

Pdag read_result_h5(const std::string& path, GraphBuilder& b) {
    const std::string where = path;
    h5::Handle file = h5::open_file(path);
    const hid_t root = file.get();
    const std::vector<std::string> format = h5::has_attr(root, "format")
                                                ? h5::read_string_attr(root, "format", where)
                                                : std::vector<std::string>{};
    // A PC result's CPDAG, or an order-MCMC result's (its best DAG's class): the same layout.
    if (format != std::vector<std::string>{pc_result_format} && format != std::vector<std::string>{mcmc_result_format})
        b.fail(0, "is an HDF5 file but not a cudag PC or MCMC result (root attribute format = " +
                      (format.empty() ? std::string("none") : "'" + format[0] + "'") + ", expected '" +
                      pc_result_format + "' or '" + mcmc_result_format + "')");
    std::vector<std::int32_t> id;
    for (const std::string& name : h5::read_strings(root, "variables/names", where))
        id.push_back(b.list_node(name, 0));
    const std::vector<hsize_t> shape = h5::dataset_shape(root, "cpdag/edges", where);
    if (shape.size() != 2 || shape[1] != 3) b.fail(0, "/cpdag/edges is not an E x 3 array");
    const auto rows = h5::read_array<std::int32_t>(root, "cpdag/edges", where);
    const auto n = static_cast<std::int32_t>(id.size());
    for (std::size_t k = 0; k + 2 < rows.size(); k += 3) {
        const std::int32_t x = rows[k];
        const std::int32_t y = rows[k + 1];
        const std::int32_t kind = rows[k + 2];
        if (x < 0 || x >= n || y < 0 || y >= n || kind < 0 || kind > 2)
            b.fail(0, "/cpdag/edges row " + std::to_string(k / 3) + " (" + std::to_string(x) +
                          ", " + std::to_string(y) + ", " + std::to_string(kind) +
                          ") is not (a, b, kind) with a, b < " + std::to_string(n) +
                          " and kind 0, 1 or 2");
        const Mark at_x = kind == 2 ? Mark::Arrow : Mark::Tail;
        const Mark at_y = kind == 0 ? Mark::Tail : Mark::Arrow;
        b.add_edge(id[x], id[y], at_x, at_y, 0);
    }
    return b.finish();
}

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

GraphFile read_any(const std::string& path, const std::vector<std::string>& given) {
    GraphFile out;
    out.path = path;
    std::vector<std::string> names = given;
    GraphBuilder builder(path, names);
    {
        std::ifstream probe(path, std::ios::binary);
        if (!probe) throw InputError(path + ": cannot open graph file");
    }
    if (h5::has_hdf5_signature(path)) {
        out.format = "cudag result";
        out.graph = read_result_h5(path, builder);
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
        } else if (word == "digraph" || word == "graph" || word == "strict" ||
                   head.rfind("//", 0) == 0 || head.rfind("/*", 0) == 0) {
            out.format = "DOT";
            out.graph = read_dot(read_text(path), builder, out.lists_every_variable);
        } else if (is_tsv_header(head)) {
            out.format = "edge list";
            const std::vector<Line> lines = read_lines(path);
            std::size_t first = 0;
            while (lines[first].number != head_line) ++first;
            out.graph = read_tsv(lines, first, builder);
        } else if (head.front() == ',' ||
                   (head.rfind("\"\"", 0) == 0 && trim(head.substr(2)).rfind(',', 0) == 0)) {
            out.format = "pcalg amat";
            out.graph = read_amat(path, builder);
            out.lists_every_variable = true;
        } else if (const auto tok = split_ws(head);
                   !tok.empty() && std::all_of(tok.begin(), tok.end(), is_number)) {
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
    return out;
}

/// `g` over `from` names re-indexed onto `to` (which holds every name of `from`).
Pdag remap(const Pdag& g, const std::vector<std::string>& from,
           const std::unordered_map<std::string, std::int32_t>& to, std::int64_t n) {
    Pdag out{Graph(n)};
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (std::int32_t j : g.neighbours(i))
            if (i < j) out.set(to.at(from[i]), to.at(from[j]), g.end(i, j), g.end(j, i));
    return out;
}

}  // namespace

GraphFile read_graph_file(const std::string& path) { return read_any(path, {}); }

Pdag read_graph(const std::string& path, std::vector<std::string>& names) {
    GraphFile f = read_any(path, names);
    names = std::move(f.names);
    return std::move(f.graph);
}

AlignedGraphs align_graphs(const GraphFile& truth, const GraphFile& estimate) {
    // A nameless matrix is X1..Xn by name when the other graph has those names, else the
    // other graph's variables by position when it lists every variable and has as many.
    auto names_of = [](const GraphFile& self, const GraphFile& other) {
        if (!self.names_by_position || other.names_by_position) return self.names;
        const std::unordered_set<std::string> has(other.names.begin(), other.names.end());
        const bool by_name = std::all_of(self.names.begin(), self.names.end(),
                                         [&](const std::string& s) { return has.count(s) > 0; });
        if (!by_name && other.lists_every_variable && other.names.size() == self.names.size())
            return other.names;
        return self.names;
    };
    const std::vector<std::string> tnames = names_of(truth, estimate);
    const std::vector<std::string> enames = names_of(estimate, truth);

    AlignedGraphs out;
    out.names = tnames;
    std::unordered_map<std::string, std::int32_t> index;
    for (std::size_t k = 0; k < tnames.size(); ++k)
        index.emplace(tnames[k], static_cast<std::int32_t>(k));
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
        throw InputError(estimate.path + ": the truth's variable " + shown(missing.front()) +
                         " is not in the estimate, which lists every variable (absent: " +
                         std::to_string(missing.size()) + " of the truth's " +
                         std::to_string(tnames.size()) + " variables" + nameless + ")");

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
    std::string out = functions.empty() ? "source\ttarget\tmark\tweight\n"
                                        : "source\ttarget\tmark\tweight\tfunction\n";
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
