// SPDX-License-Identifier: Apache-2.0
// pcalg's adjacency matrix as CSV: a CPDAG in amat.cpdag coding (cudag pc's .amat.csv) or,
// when PAG marks are read, a PAG in amat.pag coding (cudag fci's .pag.amat.csv).
#include "io/graph_parse.hpp"

#include <fstream>
#include <istream>

namespace cudag::io::graph_detail {

namespace {

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

/// Whether the matrix is in pcalg's amat.pag coding (amat[a, b] = the mark at b: 1 circle,
/// 2 arrowhead, 3 tail; both codes of an edge nonzero) rather than amat.cpdag's (a --> b is
/// amat[a, b] = 0, amat[b, a] = 1): a code 3 or an edge with two different nonzero codes
/// says pag; `declared` (the caller was told the file is a PAG) says pag too. A matrix of
/// only 1/1 and 2/2 pairs reads either way and is taken as a CPDAG unless declared.
bool pag_coding(const std::vector<std::int8_t>& amat, std::size_t n, bool declared) {
    if (declared) return true;
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t c = a + 1; c < n; ++c) {
            const int v = amat[a * n + c];
            const int u = amat[c * n + a];
            if (v == 3 || u == 3 || (v != 0 && u != 0 && v != u)) return true;
        }
    return false;
}

/// The edges of an amat.pag matrix; an edge with one code 0 is refused (file:line).
void add_pag_edges(const std::vector<std::int8_t>& amat, std::size_t n, const std::vector<std::int32_t>& id,
                   const std::vector<std::string>& header, const std::vector<std::int64_t>& line_of, GraphBuilder& b) {
    constexpr Mark kMark[4] = {Mark::None, Mark::Circle, Mark::Arrow, Mark::Tail};
    for (std::size_t a = 0; a < n; ++a) {
        if (amat[a * n + a] != 0) b.fail(line_of[a], "column " + std::to_string(a + 2) + ": the diagonal must be 0");
        for (std::size_t c = a + 1; c < n; ++c) {
            const int at_c = amat[a * n + c];
            const int at_a = amat[c * n + a];
            if (at_c == 0 && at_a == 0) continue;
            if (at_c == 0 || at_a == 0) {
                std::string msg = "column ";
                msg += std::to_string(c + 2);
                msg += ": codes ";
                msg += std::to_string(at_c);
                msg += " at (";
                msg += shown(header[a]) + ", " + shown(header[c]) + ") and ";
                msg += std::to_string(at_a);
                msg += " at (";
                msg += shown(header[c]) + ", " + shown(header[a]);
                msg += ") are no edge of pcalg's pag coding (both codes of an edge are 1, 2 or 3)";
                b.fail(line_of[a], msg);
            }
            b.add_edge(id[a], id[c], kMark[at_a], kMark[at_c], line_of[a]);
        }
    }
}

}  // namespace

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

    const char top = b.circles() ? '3' : '2';
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
            if (cell.size() != 1 || cell[0] < '0' || cell[0] > top) {
                std::string msg = "column ";
                msg += std::to_string(c + 2);
                msg += ": code '";
                msg += cell;
                msg += b.circles() ? "' is not 0, 1, 2 or 3 (pcalg's cpdag or pag coding)"
                                   : "' is not 0, 1 or 2 (pcalg's cpdag coding)";
                b.fail(line, msg);
            }
            amat[rows * n + c] = static_cast<std::int8_t>(cell[0] - '0');
        }
        line_of[rows++] = line;
    }
    if (rows != n)
        b.fail(0, "has " + std::to_string(rows) + " rows but the header names " + std::to_string(n) + " variables");
    if (b.circles() && pag_coding(amat, n, b.pag())) {
        b.declare_pag();
        add_pag_edges(amat, n, id, header, line_of, b);
        return b.finish();
    }
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
