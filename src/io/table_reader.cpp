// SPDX-License-Identifier: Apache-2.0
#include "io/table_reader.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <system_error>
#include <filesystem>
#include <limits>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"

namespace cudag::io {

namespace {

constexpr char kWhitespace = ' ';

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

bool is_blank(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return is_space(c); });
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

/// Position just past the quote closing the quoted field that opens at `open`
/// ("" inside is an escaped quote); line.size() when unterminated.
std::size_t skip_quoted(std::string_view line, std::size_t open) {
    std::size_t i = open + 1;
    while (i < line.size()) {
        if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') {
                i += 2;
                continue;
            }
            return i + 1;
        }
        ++i;
    }
    return line.size();
}

/// Split `line` into raw fields (quotes kept, not trimmed). With delim == ' ' fields are
/// separated by runs of spaces/tabs and leading/trailing blanks are ignored; otherwise
/// every delimiter outside quotes separates two fields (so "a,,b" has an empty field).
void split(std::string_view line, char delim, std::vector<std::string_view>& out) {
    out.clear();
    const std::size_t n = line.size();
    if (delim == kWhitespace) {
        std::size_t i = 0;
        while (true) {
            while (i < n && is_space(line[i])) ++i;
            if (i >= n) break;
            std::size_t e = i;
            if (line[e] == '"') e = skip_quoted(line, e);
            while (e < n && !is_space(line[e])) ++e;
            out.push_back(line.substr(i, e - i));
            i = e;
        }
        return;
    }
    std::size_t i = 0;
    while (true) {
        std::size_t k = i;
        while (k < n && line[k] == ' ') ++k;
        std::size_t from = (k < n && line[k] == '"') ? skip_quoted(line, k) : i;
        const std::size_t e = std::min(line.find(delim, from), n);
        out.push_back(line.substr(i, e - i));
        if (e >= n) break;
        i = e + 1;
        if (i == n) {  // delimiter at the very end: one empty last field
            out.push_back(line.substr(n, 0));
            break;
        }
    }
}

/// Number of fields after dropping one blank trailing field (a trailing delimiter).
std::size_t field_count(std::string_view line, char delim) {
    std::vector<std::string_view> f;
    split(line, delim, f);
    if (delim != kWhitespace && f.size() > 1 && trim(f.back()).empty()) f.pop_back();
    return f.size();
}

std::size_t count_unquoted(std::string_view line, char c) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '"') {
            i = skip_quoted(line, i) - 1;
            continue;
        }
        if (line[i] == c) ++count;
    }
    return count;
}

/// The text of a cell: blanks trimmed, surrounding quotes removed.
std::string_view cell_text(std::string_view raw) {
    std::string_view s = trim(raw);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = trim(s.substr(1, s.size() - 2));
    return s;
}

/// Whether `line` opens a quoted field it does not close (a line break inside quotes).
bool open_quote(std::string_view line) { return std::count(line.begin(), line.end(), '"') % 2 != 0; }

/// The one-line error for a quoted field that spans lines, at line `row` of `path`.
std::string quoted_line_break(const std::string& path, std::int64_t row) {
    return path + ":" + std::to_string(row) +
           ": a quoted field runs past the end of the line (a line break inside quotes); cudag reads one row "
           "per line: remove the line breaks from the quoted fields";
}

/// A header name: trimmed, unquoted, "" unescaped.
std::string header_name(std::string_view raw) {
    std::string_view s = trim(raw);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') {
        s = s.substr(1, s.size() - 2);
        std::string out;
        out.reserve(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) {
            out.push_back(s[i]);
            if (s[i] == '"' && i + 1 < s.size() && s[i + 1] == '"') ++i;
        }
        return out;
    }
    return std::string(s);
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

bool is_missing_token(std::string_view s) {
    // Every token below starts with n, #, or ? and is at most 4 characters long.
    if (s.empty() || s.size() > 4) return false;
    if (const char c = s[0]; c != 'n' && c != 'N' && c != '#' && c != '?') return false;
    for (std::string_view t : {"na", "n/a", "#n/a", "nan", "null", "none", "?"})
        if (iequals(s, t)) return true;
    return false;
}

enum class Cell { Ok, Missing, NonFinite, NonNumeric };

Cell parse_number(std::string_view s, double& out) {
    if (s.empty()) return Cell::Missing;
    const char* b = s.data();
    const char* e = b + s.size();
    if (*b == '+') {
        ++b;
        if (b == e || *b == '+' || *b == '-') return Cell::NonNumeric;
    }
    const auto r = std::from_chars(b, e, out);
    if (r.ptr == e && r.ec == std::errc()) {
        if (std::isnan(out)) return Cell::Missing;
        if (std::isinf(out)) return Cell::NonFinite;
        return Cell::Ok;
    }
    if (r.ptr == e && r.ec == std::errc::result_out_of_range) {
        // Overflow is an error; underflow rounds to a denormal or zero, as strtod does.
        const std::string copy(b, e);
        const double x = std::strtod(copy.c_str(), nullptr);
        if (std::isinf(x)) return Cell::NonFinite;
        out = x;
        return Cell::Ok;
    }
    return is_missing_token(s) ? Cell::Missing : Cell::NonNumeric;
}

std::string shown(std::string_view s) {
    constexpr std::size_t max_len = 40;
    if (s.size() <= max_len) return std::string(s);
    return std::string(s.substr(0, max_len)) + "...";
}

/// Whether a cell that is not a number reads as one with its ',' taken for a decimal point
/// ("1,2881", "-0,5e3"): one ',' and no '.', in a table that ',' does not separate (there a
/// quoted "1,5" is a label of its own).
bool is_decimal_comma(std::string_view text, char delim) {
    if (delim == ',') return false;
    const std::size_t comma = text.find(',');
    if (comma == std::string_view::npos || text.find(',', comma + 1) != std::string_view::npos ||
        text.find('.') != std::string_view::npos)
        return false;
    std::string dotted(text);
    dotted[comma] = '.';
    double x = 0;
    return parse_number(dotted, x) == Cell::Ok;
}

/// The NaN a kept missing cell holds while the table is parsed: a quiet NaN with a payload of
/// its own, so that TableMode::Auto tells it from a label (any NaN is missing in a Dataset).
constexpr std::uint64_t kMissingBits = 0x7ff800000000da7aULL;
double missing_value() { return std::bit_cast<double>(kMissingBits); }
bool is_missing_value(double x) { return std::bit_cast<std::uint64_t>(x) == kMissingBits; }

/// The NaN that TableMode::Auto stores for a decimal-comma cell (a label is a positive NaN).
double decimal_comma_nan() { return -std::numeric_limits<double>::quiet_NaN(); }
bool is_decimal_comma_nan(double x) { return std::isnan(x) && std::signbit(x); }
/// A label stored as NaN by TableMode::Auto (not a missing cell kept as NaN).
bool is_label_nan(double x) { return std::isnan(x) && !is_missing_value(x); }

struct Line {
    std::size_t begin = 0;
    std::size_t size = 0;
    std::int64_t row = 0;  ///< physical line number, 1-based
};

struct FirstError {
    bool set = false;
    bool non_numeric = false;
    bool decimal_comma = false;
    bool saw_label = false;  ///< TableMode::Auto: a non-numeric cell was stored as NaN
    std::string message;
    std::exception_ptr exception;
};

struct Table {
    std::string_view text;
    const std::string* path = nullptr;
    char delim = ',';
    const std::vector<std::string>* names = nullptr;
    const std::vector<Line>* lines = nullptr;
    double* values = nullptr;
    std::int64_t n_samples = 0;
    bool auto_mode = false;                               ///< TableMode::Auto: a non-numeric cell is stored as NaN
    const std::vector<std::string>* na_values = nullptr;  ///< --na-values: cells that are missing
    bool keep_missing = false;                            ///< missing cells become missing_value()
    /// TableMode::Labels: columns that hold numbers (mixed data), parsed as in Numeric mode.
    const std::vector<char>* numeric_columns = nullptr;
};

/// Whether `text` is one of the user's --na-values tokens (compared exactly).
bool is_na_value(const Table& t, std::string_view text) {
    if (!t.na_values) return false;
    for (const std::string& na : *t.na_values)
        if (text == na) return true;
    return false;
}

/// Hash for looking labels up by string_view without building a std::string.
struct LabelHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// One parser thread's labels (TableMode::Labels): per column, label text → local id,
/// ids assigned in order of first appearance in the thread's rows.
struct LabelDicts {
    std::vector<std::unordered_map<std::string, std::int32_t, LabelHash, std::equal_to<>>> ids;
    std::vector<std::vector<std::string>> texts;  ///< per column, local id → text
    std::size_t lo = 0, hi = 0;                   ///< the thread's data lines

    std::int32_t intern(std::size_t col, std::string_view text) {
        auto& m = ids[col];
        if (auto it = m.find(text); it != m.end()) return it->second;
        const auto id = static_cast<std::int32_t>(texts[col].size());
        texts[col].emplace_back(text);
        m.emplace(texts[col].back(), id);
        return id;
    }
};

/// "path:row:col: '1,2881' in column 'a' looks like a number with a decimal comma; ...".
std::string decimal_comma_error(const Table& t, std::int64_t row, std::size_t col, std::string_view text) {
    return *t.path + ":" + std::to_string(row) + ":" + std::to_string(col + 1) + ": '" + shown(text) + "' in column '" +
           (*t.names)[col] +
           "' looks like a number with a decimal comma; cudag reads decimal points: write the table with '.' as "
           "the decimal mark (R: write.csv, not write.csv2) or replace each ',' with '.'";
}

std::string cell_error(const Table& t, std::int64_t row, std::size_t col, Cell status, std::string_view text) {
    if (status == Cell::NonNumeric && is_decimal_comma(text, t.delim)) return decimal_comma_error(t, row, col, text);
    std::string what;
    switch (status) {
        case Cell::Missing:
            what = text.empty() ? "missing value (empty field)" : "missing value '" + shown(text) + "'";
            break;
        case Cell::NonFinite:
            what = "non-finite value '" + shown(text) + "'";
            break;
        default:
            what = "non-numeric value '" + shown(text) + "'";
    }
    return *t.path + ":" + std::to_string(row) + ":" + std::to_string(col + 1) + ": " + what + " in column '" +
           (*t.names)[col] + "'";
}

/// Parse data lines [lo, hi) into t.values; stop at the first bad line.
void parse_rows(const Table& t, std::size_t lo, std::size_t hi, FirstError& err, LabelDicts* labels) {
    try {
        const std::size_t n_vars = t.names->size();
        std::vector<std::string_view> fields;
        fields.reserve(n_vars + 1);
        for (std::size_t k = lo; k < hi; ++k) {
            const Line& line = (*t.lines)[k];
            split(t.text.substr(line.begin, line.size), t.delim, fields);
            if (t.delim != kWhitespace && fields.size() == n_vars + 1 && trim(fields.back()).empty()) fields.pop_back();
            if (fields.size() != n_vars) {
                err.set = true;
                if (open_quote(t.text.substr(line.begin, line.size))) {
                    err.message = quoted_line_break(*t.path, line.row);
                    return;
                }
                err.message = *t.path + ":" + std::to_string(line.row) + ": row " + std::to_string(line.row) + " has " +
                              std::to_string(fields.size()) + (fields.size() == 1 ? " field" : " fields") +
                              ", header has " + std::to_string(n_vars);
                return;
            }
            for (std::size_t v = 0; v < n_vars; ++v) {
                const std::string_view text = cell_text(fields[v]);
                double x = 0.0;
                Cell status = Cell::Ok;
                const bool numeric = !labels || (t.numeric_columns && (*t.numeric_columns)[v]);
                if (!text.empty() && is_na_value(t, text)) {
                    status = Cell::Missing;  // --na-values: missing in every mode
                } else if (numeric) {
                    status = parse_number(text, x);
                    // Auto: a label, for now; so is a missing-value token (NA, None, ?,
                    // ...), which is a level in a label column and a missing value in a
                    // numeric one (has_label_column tells them apart).
                    if (t.auto_mode && !labels &&
                        (status == Cell::NonNumeric || (status == Cell::Missing && !text.empty()))) {
                        x = status == Cell::NonNumeric && is_decimal_comma(text, t.delim)
                                ? decimal_comma_nan()
                                : std::numeric_limits<double>::quiet_NaN();
                        status = Cell::Ok;
                        err.saw_label = true;
                    }
                } else if (text.empty()) {
                    // Labels: only an empty cell is missing; NA, None, ? ... are levels
                    // (bnlearn's CHILD and INSURANCE have a state "None").
                    status = Cell::Missing;
                } else {
                    x = labels->intern(v, text);
                }
                if (status == Cell::Missing && t.keep_missing) {
                    x = missing_value();
                    status = Cell::Ok;
                }
                if (status != Cell::Ok) {
                    err.set = true;
                    err.non_numeric = status == Cell::NonNumeric;
                    err.decimal_comma = err.non_numeric && is_decimal_comma(text, t.delim);
                    err.message = cell_error(t, line.row, v, status, text);
                    return;
                }
                t.values[static_cast<std::int64_t>(v) * t.n_samples + static_cast<std::int64_t>(k)] = x;
            }
        }
    } catch (...) {
        err.set = true;
        err.exception = std::current_exception();
    }
}

/// Shortest text that reads back as x.
std::string number_label(double x) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
}

std::string too_many_levels(const std::string& where, const std::string& name, std::int64_t v, std::size_t levels) {
    return where + ": column " + std::to_string(v + 1) + " '" + name + "' has " + std::to_string(levels) +
           " distinct values; a discrete variable may have at most " + std::to_string(kMaxLevels) +
           " levels (is it continuous?)";
}

void discretize_filled(double* col, std::int64_t m, std::vector<std::string>& levels, const std::string& where,
                       const std::string& name, std::int64_t v);

/// Column `col` (m values) → codes of its distinct values in increasing order; missing
/// cells (NaN) stay missing.
void discretize_column(double* col, std::int64_t m, std::vector<std::string>& levels, const std::string& where,
                       const std::string& name, std::int64_t v) {
    if (std::none_of(col, col + m, [](double x) { return std::isnan(x); })) {
        discretize_filled(col, m, levels, where, name, v);
        return;
    }
    std::vector<double> filled;
    for (std::int64_t k = 0; k < m; ++k)
        if (!std::isnan(col[k])) filled.push_back(col[k]);
    discretize_filled(filled.data(), static_cast<std::int64_t>(filled.size()), levels, where, name, v);
    for (std::int64_t k = 0, f = 0; k < m; ++k)
        if (!std::isnan(col[k])) col[k] = filled[static_cast<std::size_t>(f++)];
}

/// discretize_column on a column without missing cells.
void discretize_filled(double* col, std::int64_t m, std::vector<std::string>& levels, const std::string& where,
                       const std::string& name, std::int64_t v) {
    // At most kMaxLevels distinct values: collect them in a small list rather than sorting
    // the whole column; small non-negative integers (the usual codes) go through a table.
    constexpr int kTable = 1024;
    std::vector<std::uint8_t> seen(kTable, 0);
    std::vector<double> distinct;
    double last = 0.0;
    bool have_last = false;
    for (std::int64_t k = 0; k < m; ++k) {
        const double x = col[k];
        if (have_last && x == last) continue;
        last = x;
        have_last = true;
        if (x >= 0 && x < kTable && x == std::floor(x)) {
            std::uint8_t& s = seen[static_cast<std::size_t>(x)];
            if (s) continue;
            s = 1;
        } else if (std::find(distinct.begin(), distinct.end(), x) != distinct.end()) {
            continue;
        }
        distinct.push_back(x);
        if (static_cast<std::int64_t>(distinct.size()) > kMaxLevels) {
            // Report the full count, as before.
            std::vector<double> all(col, col + m);
            std::sort(all.begin(), all.end());
            all.erase(std::unique(all.begin(), all.end()), all.end());
            throw InputError(too_many_levels(where, name, v, all.size()));
        }
    }
    std::sort(distinct.begin(), distinct.end());
    std::vector<double> code(kTable, -1.0);
    for (std::size_t c = 0; c < distinct.size(); ++c) {
        const double x = distinct[c];
        if (x >= 0 && x < kTable && x == std::floor(x)) code[static_cast<std::size_t>(x)] = static_cast<double>(c);
    }
    for (std::int64_t k = 0; k < m; ++k) {
        const double x = col[k];
        col[k] = x >= 0 && x < kTable && x == std::floor(x)
                     ? code[static_cast<std::size_t>(x)]
                     : static_cast<double>(std::lower_bound(distinct.begin(), distinct.end(), x) - distinct.begin());
    }
    levels.clear();
    for (double x : distinct) levels.push_back(number_label(x));
}

/// TableMode::Labels: the parser threads stored local label ids; give each column its
/// codes (numeric order when every label is a number, else byte order) and rewrite the
/// values.
void apply_labels(Dataset& d, const std::vector<LabelDicts>& labels, const std::vector<char>* numeric_columns) {
    d.levels.assign(static_cast<std::size_t>(d.n_vars), {});
    for (std::int64_t v = 0; v < d.n_vars; ++v) {
        if (numeric_columns && (*numeric_columns)[static_cast<std::size_t>(v)]) continue;  // continuous
        double* col = d.column(v);
        bool numeric = true;
        for (const LabelDicts& t : labels)
            for (const std::string& text : t.texts[v]) numeric = numeric && is_numeric_cell(text);
        if (numeric) {
            // Local id → number, then the numeric discretisation.
            for (const LabelDicts& t : labels)
                for (std::size_t k = t.lo; k < t.hi; ++k) {
                    if (std::isnan(col[k])) continue;  // a missing cell kept
                    double x = 0.0;
                    parse_number(t.texts[v][static_cast<std::size_t>(col[k])], x);
                    col[k] = x;
                }
            discretize_column(col, d.n_samples, d.levels[v], d.source, d.names[v], v);
            continue;
        }
        std::vector<std::string> all;
        for (const LabelDicts& t : labels) all.insert(all.end(), t.texts[v].begin(), t.texts[v].end());
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        if (static_cast<std::int64_t>(all.size()) > kMaxLevels)
            throw InputError(too_many_levels(d.source, d.names[v], v, all.size()));
        for (const LabelDicts& t : labels) {
            std::vector<double> code(t.texts[v].size());
            for (std::size_t id = 0; id < code.size(); ++id)
                code[id] = static_cast<double>(std::lower_bound(all.begin(), all.end(), t.texts[v][id]) - all.begin());
            for (std::size_t k = t.lo; k < t.hi; ++k)
                if (!std::isnan(col[k])) col[k] = code[static_cast<std::size_t>(col[k])];
        }
        d.levels[v] = std::move(all);
    }
}

/// The text of the cell of data line k, column v (the line split again: for messages).
std::string cell_at(const Table& t, std::int64_t k, std::size_t v) {
    std::vector<std::string_view> fields;
    const Line& at = (*t.lines)[static_cast<std::size_t>(k)];
    split(t.text.substr(at.begin, at.size), t.delim, fields);
    return std::string(cell_text(fields[v]));
}

/// The file row of data line k.
std::int64_t row_of(const Table& t, std::int64_t k) { return (*t.lines)[static_cast<std::size_t>(k)].row; }

/// TableMode::Auto after parsing (labels stored as NaN, decimal-comma cells as negative
/// NaN): throw DecimalComma for a column whose non-numbers all have a decimal comma, at the
/// first such cell in the file; throw MixedColumn for a column holding both numbers and
/// labels; return whether some column holds labels only.
bool has_label_column(const Table& t) {
    const std::size_t n_vars = t.names->size();
    const std::int64_t m = t.n_samples;
    {
        std::int64_t first_k = -1;
        std::size_t first_v = 0;
        for (std::size_t v = 0; v < n_vars; ++v) {
            const double* col = t.values + static_cast<std::int64_t>(v) * m;
            std::int64_t first = -1;
            bool all = true;
            for (std::int64_t k = 0; k < m && all; ++k) {
                if (!is_label_nan(col[k])) continue;
                all = is_decimal_comma_nan(col[k]);
                if (first < 0) first = k;
            }
            if (all && first >= 0 && (first_k < 0 || first < first_k)) {
                first_k = first;
                first_v = v;
            }
        }
        if (first_k >= 0)
            throw DecimalComma(decimal_comma_error(t, row_of(t, first_k), first_v, cell_at(t, first_k, first_v)));
    }
    if (t.keep_missing) {
        // A numeric column whose only non-numbers are missing-value tokens (NA, NaN, ?, ...):
        // those are missing cells, kept.
        for (std::size_t v = 0; v < n_vars; ++v) {
            double* col = t.values + static_cast<std::int64_t>(v) * m;
            bool any_number = false, only_tokens = true, any_token = false;
            for (std::int64_t k = 0; k < m && only_tokens; ++k) {
                if (!is_label_nan(col[k])) {
                    any_number = any_number || !std::isnan(col[k]);
                    continue;
                }
                only_tokens = is_missing_token(cell_at(t, k, v));
                any_token = true;
            }
            if (!any_number || !only_tokens || !any_token) continue;
            for (std::int64_t k = 0; k < m; ++k)
                if (is_label_nan(col[k])) col[k] = missing_value();
        }
    }
    bool label_column = false;
    std::int64_t best_k = -1;  // the data line and column of the cell to report
    std::size_t best_v = 0;
    std::int64_t best_labels = 0;
    for (std::size_t v = 0; v < n_vars; ++v) {
        const double* col = t.values + static_cast<std::int64_t>(v) * m;
        const std::int64_t labels = std::count_if(col, col + m, is_label_nan);
        const std::int64_t kept = std::count_if(col, col + m, is_missing_value);  // missing cells kept
        if (labels == 0) continue;
        if (labels == m - kept) {
            label_column = true;
            continue;
        }
        // Mixed: the rarer kind is the stray one (labels on a tie).
        const bool stray_label = labels <= m - kept - labels;
        std::int64_t k = 0;
        while (k < m && (is_missing_value(col[k]) || is_label_nan(col[k]) != stray_label)) ++k;
        if (best_k < 0 || k < best_k) {
            best_k = k;
            best_v = v;
            best_labels = labels;
        }
    }
    if (best_k < 0) return label_column;
    const auto cell = [&t](std::int64_t k, std::size_t v) { return cell_at(t, k, v); };
    // A numeric column whose only non-numbers are missing-value tokens: a missing value
    // (its first), as in Numeric mode.
    for (std::size_t v = 0; v < n_vars; ++v) {
        const double* col = t.values + static_cast<std::int64_t>(v) * m;
        std::int64_t first_token = -1;
        bool only_tokens = true, any_number = false;
        for (std::int64_t k = 0; k < m && only_tokens; ++k) {
            if (!is_label_nan(col[k])) {
                any_number = true;
                continue;
            }
            only_tokens = is_missing_token(cell(k, v));
            if (only_tokens && first_token < 0) first_token = k;
        }
        if (only_tokens && any_number && first_token >= 0) {
            const Line& at = (*t.lines)[static_cast<std::size_t>(first_token)];
            throw InputError(cell_error(t, at.row, v, Cell::Missing, cell(first_token, v)));
        }
    }
    const Line& line = (*t.lines)[static_cast<std::size_t>(best_k)];
    const std::string text = cell(best_k, best_v);
    const double* best_col = t.values + static_cast<std::int64_t>(best_v) * m;
    const std::int64_t filled = m - std::count_if(best_col, best_col + m, is_missing_value);
    const bool stray_label = best_labels <= filled - best_labels;
    const std::string counts = " (" + std::to_string(stray_label ? filled - best_labels : best_labels) + " of its " +
                               std::to_string(filled) + " cells are " + (stray_label ? "numbers)" : "labels)");
    if (stray_label) throw MixedColumn(cell_error(t, line.row, best_v, Cell::NonNumeric, text) + counts);
    throw MixedColumn(*t.path + ":" + std::to_string(line.row) + ":" + std::to_string(best_v + 1) +
                      ": numeric value '" + shown(text) + "' in column '" + (*t.names)[best_v] + "'" + counts);
}

/// Whether a numeric column (missing cells NaN) holds integer codes: integers only, at most
/// kFewLevels distinct values.
bool few_integer_codes(const double* col, std::int64_t m) {
    std::vector<double> seen;
    for (std::int64_t k = 0; k < m; ++k) {
        const double x = col[k];
        if (std::isnan(x)) continue;
        if (x != std::floor(x)) return false;
        if (std::find(seen.begin(), seen.end(), x) != seen.end()) continue;
        seen.push_back(x);
        if (static_cast<std::int64_t>(seen.size()) > kFewLevels) return false;
    }
    return true;
}

/// TableMode::Labels after parsing (local label ids stored): throw DecimalComma for a
/// column whose labels are all numbers, one or more written with a decimal comma, at the
/// first such cell in the file; labels that merely contain a comma ("x,y") pass.
void refuse_decimal_commas(const Table& t, const std::vector<LabelDicts>& labels) {
    if (t.delim == ',') return;
    const std::size_t n_vars = t.names->size();
    std::int64_t first_k = -1;
    std::size_t first_v = 0;
    std::vector<char> comma;
    for (std::size_t v = 0; v < n_vars; ++v) {
        bool any = false, numbers = true;
        for (const LabelDicts& w : labels)
            for (const std::string& text : w.texts[v]) {
                const bool dc = is_decimal_comma(text, t.delim);
                any = any || dc;
                numbers = numbers && (dc || is_numeric_cell(text));
            }
        if (!any || !numbers) continue;
        const double* col = t.values + static_cast<std::int64_t>(v) * t.n_samples;
        bool found = false;
        for (const LabelDicts& w : labels) {  // blocks of rows in file order
            comma.assign(w.texts[v].size(), 0);
            for (std::size_t id = 0; id < comma.size(); ++id) comma[id] = is_decimal_comma(w.texts[v][id], t.delim);
            for (std::size_t k = w.lo; k < w.hi && !found; ++k) {
                if (std::isnan(col[k]) || !comma[static_cast<std::size_t>(col[k])]) continue;
                found = true;
                if (first_k < 0 || static_cast<std::int64_t>(k) < first_k) {
                    first_k = static_cast<std::int64_t>(k);
                    first_v = v;
                }
            }
            if (found) break;
        }
    }
    if (first_k >= 0)
        throw DecimalComma(decimal_comma_error(t, row_of(t, first_k), first_v, cell_at(t, first_k, first_v)));
}

}  // namespace

char sniff_delimiter(std::string_view header, std::string_view first_data) {
    const char candidates[] = {'\t', ',', ';'};
    if (!first_data.empty()) {
        char best = 0;
        std::size_t best_fields = 0;
        for (char c : candidates) {
            if (count_unquoted(header, c) == 0) continue;
            const std::size_t nh = field_count(header, c);
            // The data line may end in its delimiter: a trailing delimiter, or an empty
            // (missing) last cell.
            if ((nh == field_count(first_data, c) || nh == count_unquoted(first_data, c) + 1) && nh > best_fields) {
                best = c;
                best_fields = nh;
            }
        }
        if (best) return best;
        if (field_count(header, kWhitespace) == field_count(first_data, kWhitespace)) return kWhitespace;
    }
    char best = kWhitespace;
    std::size_t best_count = 0;
    for (char c : candidates) {
        const std::size_t count = count_unquoted(header, c);
        if (count > best_count) {
            best = c;
            best_count = count;
        }
    }
    return best;
}

namespace {

/// Refuse, in one line, a file that is not a text table: compressed (gzip, bzip2, xz, zstd,
/// zip: an .xlsx too), an HDF5 file given a text name, or binary (a NUL byte).
void require_text(std::string_view text, const std::string& path) {
    const auto starts = [&](std::string_view magic) { return text.substr(0, magic.size()) == magic; };
    static const std::pair<std::string_view, const char*> kinds[] = {
        {std::string_view("\x1f\x8b", 2), "gzip-compressed: decompress it first (gunzip -k)"},
        {"BZh", "bzip2-compressed: decompress it first (bunzip2 -k)"},
        {std::string_view("\xfd"
                          "7zXZ\0",
                          6),
         "xz-compressed: decompress it first (unxz -k)"},
        {"\x28\xb5\x2f\xfd", "zstd-compressed: decompress it first (unzstd)"},
        {"PK\x03\x04", "a zip archive (an .xlsx workbook?): save the table as CSV"},
        {"\x89HDF\r\n\x1a\n", "an HDF5 file: give it a .h5 name (and --dataset)"},
    };
    for (const auto& [magic, what] : kinds)
        if (starts(magic)) throw InputError(path + " is " + what + "; cudag reads CSV/TSV text or HDF5");
    const std::string_view head = text.substr(0, 1 << 16);
    if (const std::size_t nul = head.find('\0'); nul != std::string_view::npos)
        throw InputError(path + " holds binary data (a NUL byte at byte " + std::to_string(nul + 1) +
                         "), not a CSV/TSV text table");
}

}  // namespace

namespace {

Dataset parse_with(std::string_view text, const std::string& path, const ReadOptions& options,
                   const std::vector<char>* numeric_columns);

}  // namespace

Dataset parse_table(std::string_view text, const std::string& path, TableMode mode,
                    const std::vector<std::string>& na_values) {
    ReadOptions o;
    o.mode = mode;
    o.na_values = na_values;
    return parse_table(text, path, o);
}

Dataset parse_table(std::string_view text, const std::string& path, const ReadOptions& options) {
    return parse_with(text, path, options, nullptr);
}

namespace {

/// parse_table; `numeric_columns` (TableMode::Labels only): the columns that hold numbers
/// (continuous columns of mixed data).
Dataset parse_with(std::string_view text, const std::string& path, const ReadOptions& options,
                   const std::vector<char>* numeric_columns) {
    const TableMode mode = options.mode;
    const std::vector<std::string>& na_values = options.na_values;
    require_text(text, path);
    if (text.size() >= 3 && std::memcmp(text.data(), "\xEF\xBB\xBF", 3) == 0)
        text.remove_prefix(3);  // UTF-8 byte-order mark

    // Index the lines: the first non-blank one is the header, later non-blank ones data.
    Line header;
    bool have_header = false;
    std::vector<Line> lines;
    std::int64_t row = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
        const std::size_t end = nl ? static_cast<const char*>(nl) - text.data() : text.size();
        std::size_t size = end - pos;
        if (size > 0 && text[pos + size - 1] == '\r') --size;
        ++row;
        const std::string_view line = text.substr(pos, size);
        if (!is_blank(line)) {
            if (!have_header) {
                header = {pos, size, row};
                have_header = true;
            } else {
                lines.push_back({pos, size, row});
            }
        }
        pos = end + 1;
    }
    if (!have_header) throw InputError(path + ":1: no header row (the file is empty)");

    const std::string_view header_text = text.substr(header.begin, header.size);
    if (open_quote(header_text)) throw InputError(quoted_line_break(path, header.row));
    const std::string_view first_data = lines.empty() ? std::string_view() : text.substr(lines[0].begin, lines[0].size);
    const char delim = sniff_delimiter(header_text, first_data);

    std::vector<std::string_view> fields;
    split(header_text, delim, fields);
    if (delim != kWhitespace && fields.size() > 1 && trim(fields.back()).empty()) fields.pop_back();
    const std::string at_header = path + ":" + std::to_string(header.row) + ":";
    std::vector<std::string> names;
    names.reserve(fields.size());
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t c = 0; c < fields.size(); ++c) {
        std::string name = header_name(fields[c]);
        if (name.empty())
            throw InputError(at_header + std::to_string(c + 1) +
                             ": empty name in header for "
                             "column " +
                             std::to_string(c + 1) + " (a row-index column? write the file without it)");
        const auto [it, fresh] = seen.emplace(name, c);
        if (!fresh)
            throw InputError(at_header + std::to_string(c + 1) + ": duplicate column name '" + name +
                             "' (also column " + std::to_string(it->second + 1) + ")");
        names.push_back(std::move(name));
    }
    if (lines.empty())
        throw InputError(path + ":" + std::to_string(header.row + 1) + ": no data rows after the header");

    Dataset d;
    d.n_samples = static_cast<std::int64_t>(lines.size());
    d.n_vars = static_cast<std::int64_t>(names.size());
    d.values.resize(static_cast<std::size_t>(d.n_samples * d.n_vars));

    Table t;
    t.text = text;
    t.path = &path;
    t.delim = delim;
    t.names = &names;
    t.lines = &lines;
    t.values = d.values.data();
    t.n_samples = d.n_samples;
    t.auto_mode = mode == TableMode::Auto;
    t.na_values = na_values.empty() ? nullptr : &na_values;
    t.keep_missing = options.keep_missing;
    t.numeric_columns = numeric_columns;

    // Several threads for big inputs; each takes a contiguous block of rows, so the
    // first failing block holds the first error in file order.
    constexpr std::size_t parallel_bytes = std::size_t{4} << 20;
    std::size_t n_threads = 1;
    if (text.size() >= parallel_bytes) n_threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
    n_threads = std::min(n_threads, lines.size());
    std::vector<FirstError> errors(n_threads);
    std::vector<LabelDicts> labels(mode == TableMode::Labels ? n_threads : 0);
    for (std::size_t w = 0; w < labels.size(); ++w) {
        labels[w].ids.resize(names.size());
        labels[w].texts.resize(names.size());
        labels[w].lo = lines.size() * w / n_threads;
        labels[w].hi = lines.size() * (w + 1) / n_threads;
    }
    auto dicts = [&labels](std::size_t w) { return labels.empty() ? nullptr : &labels[w]; };
    if (n_threads == 1) {
        parse_rows(t, 0, lines.size(), errors[0], dicts(0));
    } else {
        std::vector<std::thread> pool;
        pool.reserve(n_threads);
        const auto lo = [&](std::size_t w) { return lines.size() * w / n_threads; };
        try {
            for (std::size_t w = 0; w < n_threads; ++w)
                pool.emplace_back(parse_rows, std::cref(t), lo(w), lo(w + 1), std::ref(errors[w]), dicts(w));
        } catch (const std::system_error&) {
            // No more threads to be had (a thread or address-space limit): this one parses the rest.
        }
        for (std::size_t w = pool.size(); w < n_threads; ++w) parse_rows(t, lo(w), lo(w + 1), errors[w], dicts(w));
        for (std::thread& th : pool) th.join();
    }
    for (const FirstError& e : errors) {
        if (!e.set) continue;
        if (e.exception) std::rethrow_exception(e.exception);
        if (e.decimal_comma) throw DecimalComma(e.message);
        if (e.non_numeric) throw NonNumericCell(e.message);
        throw InputError(e.message);
    }
    if (t.auto_mode && std::any_of(errors.begin(), errors.end(), [](const FirstError& e) { return e.saw_label; })) {
        if (has_label_column(t)) {
            // Label columns are discrete; so are integer codes beside them (few distinct
            // integers: a discrete variable whose levels are numbers); other numeric columns
            // are continuous: mixed data.
            std::vector<char> numbers(names.size(), 0);
            for (std::size_t v = 0; v < names.size(); ++v) {
                const double* col = t.values + static_cast<std::int64_t>(v) * t.n_samples;
                numbers[v] = std::none_of(col, col + t.n_samples, is_label_nan) &&
                             std::any_of(col, col + t.n_samples, [](double x) { return !std::isnan(x); }) &&
                             !few_integer_codes(col, t.n_samples);
            }
            ReadOptions labels_mode = options;
            labels_mode.mode = TableMode::Labels;
            const bool any_numbers = std::any_of(numbers.begin(), numbers.end(), [](char c) { return c != 0; });
            return parse_with(text, path, labels_mode, any_numbers ? &numbers : nullptr);
        }
    }
    if (mode == TableMode::Labels) refuse_decimal_commas(t, labels);

    d.names = std::move(names);
    d.source = path;
    if (mode == TableMode::Labels) apply_labels(d, labels, numeric_columns);
    for (double& x : d.values)
        if (std::isnan(x)) {
            x = std::numeric_limits<double>::quiet_NaN();  // one NaN for every missing cell
            ++d.missing;
        }
    return d;
}

}  // namespace

bool is_numeric_cell(std::string_view text) {
    double x = 0.0;
    return parse_number(text, x) == Cell::Ok;
}

void check_integer_levels(const Dataset& d, const std::string& needs) {
    // The first such value in the file's order (by sample, then column), as the reader
    // reports cells.
    std::int64_t first_s = d.n_samples, first_v = -1;
    std::vector<char> fraction;  // per level of a discrete column: a number with a fraction
    for (std::int64_t v = 0; v < d.n_vars; ++v) {
        const double* col = d.column(v);
        if (d.discrete()) {
            const auto& levels = d.levels[static_cast<std::size_t>(v)];
            fraction.assign(levels.size(), 0);
            bool numbers = true, any = false;
            for (std::size_t l = 0; l < levels.size() && numbers; ++l) {
                double x = 0.0;
                numbers = parse_number(levels[l], x) == Cell::Ok;
                fraction[l] = numbers && x != std::floor(x);
                any = any || fraction[l];
            }
            if (!numbers || !any) continue;
        }
        for (std::int64_t s = 0; s < first_s; ++s) {
            const bool bad =
                d.discrete() ? fraction[static_cast<std::size_t>(col[s])] != 0 : col[s] != std::floor(col[s]);
            if (!bad) continue;
            first_s = s;
            first_v = v;
            break;
        }
    }
    if (first_v < 0) return;
    const double x = d.column(first_v)[first_s];
    const std::string value =
        d.discrete() ? d.levels[static_cast<std::size_t>(first_v)][static_cast<std::size_t>(x)] : number_label(x);
    throw InputError(d.source + ": column '" + d.names[first_v] + "' holds the non-integer value " + value +
                     " (data row " + std::to_string(first_s + 1) + ") among numbers only: " + needs);
}

std::int64_t integer_coded_levels(const Dataset& d) {
    if (d.discrete() || d.n_vars == 0) return 0;
    const std::int64_t most = std::min(kFewLevels, d.n_samples / 10);
    if (most < 2) return 0;
    // Small integers are looked up in a table, others in the (short) list of values seen.
    constexpr std::int64_t kSpan = 1024;
    std::vector<std::uint8_t> seen(2 * kSpan);
    std::vector<double> others;
    std::int64_t levels = 0;
    for (std::int64_t v = 0; v < d.n_vars; ++v) {
        const double* col = d.column(v);
        std::fill(seen.begin(), seen.end(), 0);
        others.clear();
        std::int64_t distinct = 0;
        for (std::int64_t k = 0; k < d.n_samples; ++k) {
            const double x = col[k];
            if (x != std::floor(x)) return 0;
            if (x >= -kSpan && x < kSpan) {
                std::uint8_t& s = seen[static_cast<std::size_t>(x + kSpan)];
                if (s) continue;
                s = 1;
            } else if (std::find(others.begin(), others.end(), x) != others.end()) {
                continue;
            } else {
                others.push_back(x);
            }
            if (++distinct > most) return 0;
        }
        levels = std::max(levels, distinct);
    }
    return levels;
}

void discretize(Dataset& d, const std::string& where) {
    if (d.discrete()) return;
    d.levels.assign(static_cast<std::size_t>(d.n_vars), {});
    for (std::int64_t v = 0; v < d.n_vars; ++v)
        discretize_column(d.column(v), d.n_samples, d.levels[v], where, d.names[v], v);
}

Dataset read_table(const std::string& path, TableMode mode, const std::vector<std::string>& na_values) {
    ReadOptions o;
    o.mode = mode;
    o.na_values = na_values;
    return read_table(path, o);
}

Dataset read_table(const std::string& path, const ReadOptions& options) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError("cannot open '" + path + "': Is a directory");
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw InputError("cannot open '" + path + "': " + std::strerror(errno));
    std::string text;
    char buf[1 << 16];
    std::size_t got = 0;
    if (std::fseek(f, 0, SEEK_END) == 0) {
        const long size = std::ftell(f);
        if (size > 0) text.reserve(static_cast<std::size_t>(size));
        std::rewind(f);
    }
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
    const bool failed = std::ferror(f) != 0;
    const int saved = errno;
    std::fclose(f);
    if (failed) throw InputError("cannot read '" + path + "': " + std::strerror(saved));
    return parse_table(text, path, options);
}

}  // namespace cudag::io

namespace cudag::io {

void apply_column_types(Dataset& d, const ColumnTypes& types) {
    if (types.discrete.empty() && types.continuous.empty()) return;
    std::unordered_map<std::string, std::int64_t> index;
    for (std::int64_t v = 0; v < d.n_vars; ++v) index.emplace(d.names[static_cast<std::size_t>(v)], v);
    const auto find = [&](const std::string& name, const char* option) {
        const auto it = index.find(name);
        if (it == index.end()) throw InputError(std::string(option) + ": no column '" + name + "' in " + d.source);
        return it->second;
    };
    for (const std::string& name : types.discrete)
        if (std::find(types.continuous.begin(), types.continuous.end(), name) != types.continuous.end())
            throw InputError("column '" + name + "' is named by both --discrete-columns and --continuous-columns");
    if (d.levels.empty()) d.levels.assign(static_cast<std::size_t>(d.n_vars), {});
    for (const std::string& name : types.discrete) {
        const std::int64_t v = find(name, "--discrete-columns");
        if (!d.levels[static_cast<std::size_t>(v)].empty()) continue;  // discrete already
        discretize_column(d.column(v), d.n_samples, d.levels[static_cast<std::size_t>(v)], d.source, name, v);
    }
    for (const std::string& name : types.continuous) {
        const std::int64_t v = find(name, "--continuous-columns");
        auto& levels = d.levels[static_cast<std::size_t>(v)];
        if (levels.empty()) continue;  // continuous already
        std::vector<double> number(levels.size());
        for (std::size_t l = 0; l < levels.size(); ++l) {
            if (parse_number(levels[l], number[l]) == Cell::Ok) continue;
            const double* col = d.column(v);
            std::int64_t row = 0;
            while (row < d.n_samples && !(col[row] == static_cast<double>(l))) ++row;
            throw InputError(d.source + ": column '" + name + "' holds the label '" + shown(levels[l]) +
                             "' (data row " + std::to_string(row + 1) + "): --continuous-columns reads numbers only");
        }
        double* col = d.column(v);
        for (std::int64_t k = 0; k < d.n_samples; ++k)
            if (!std::isnan(col[k])) col[k] = number[static_cast<std::size_t>(col[k])];
        levels.clear();
    }
    if (std::all_of(d.levels.begin(), d.levels.end(), [](const auto& l) { return l.empty(); })) d.levels.clear();
}

}  // namespace cudag::io
