// SPDX-License-Identifier: Apache-2.0
// Graphviz DOT graphs: a tokenizer and the statements that decide nodes and edge marks.
#include "io/graph_parse.hpp"

#include <charconv>
#include <cstdlib>
#include <sstream>

namespace cudag::io::graph_detail {

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
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || static_cast<unsigned char>(ch) >= 0x80;
        };
        const bool numeral = c == '-' || c == '.' || std::isdigit(static_cast<unsigned char>(c));
        std::size_t k = i_;
        if (numeral) {
            if (s_[k] == '-') ++k;
            while (k < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[k])) || s_[k] == '.')) ++k;
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

namespace {

/// The DOT grammar cudag reads (graph or digraph, node and edge statements with their
/// attribute lists, default edge attributes; no subgraphs), over a DotLexer.
class DotParser {
public:
    using Token = DotLexer::Token;
    using Type = Token::Type;

    DotParser(const std::string& text, GraphBuilder& b) : lex_(text, b), b_(b) {}

    Pdag parse(bool& has_node_statements) {
        header();
        has_node_statements = false;
        b_.merge_opposite_arcs();
        for (;;) {
            const Token& t = lex_.peek();
            if (t.type == Type::End) b_.fail(t.line, "the graph is not closed by '}'");
            if (is_punct(t, "}")) break;
            if (is_punct(t, ";")) {
                lex_.take();
                continue;
            }
            if (is_punct(t, "{") || is_keyword(t, "subgraph")) b_.fail(t.line, "subgraphs are not supported");
            if (is_keyword(t, "graph") || is_keyword(t, "node") || is_keyword(t, "edge")) {
                const bool edge = is_keyword(t, "edge");
                lex_.take();
                DotEdgeStyle ignored;
                attr_lists(edge ? defaults_ : ignored);
                continue;
            }
            if (statement()) has_node_statements = true;
        }
        lex_.take();
        if (lex_.peek().type != Type::End)
            b_.fail(lex_.peek().line, "unexpected " + describe(lex_.peek()) + " after the graph");
        return b_.finish();
    }

private:
    static bool is_keyword(const Token& t, const char* word) {
        return t.type == Type::Id && !t.quoted && lower(t.text) == word;
    }
    static bool is_punct(const Token& t, const char* p) { return t.type == Type::Punct && t.text == p; }
    static std::string describe(const Token& t) {
        return t.type == Type::End ? std::string("the end of the file") : "'" + t.text + "'";
    }
    void expect_punct(const char* p) {
        if (!is_punct(lex_.peek(), p))
            b_.fail(lex_.peek().line, std::string("expected '") + p + "' but found " + describe(lex_.peek()));
        lex_.take();
    }
    Token expect_id(const char* what) {
        if (lex_.peek().type != Type::Id)
            b_.fail(lex_.peek().line, std::string("expected ") + what + " but found " + describe(lex_.peek()));
        return lex_.take();
    }

    /// [strict] (digraph | graph) [name] {
    void header() {
        if (is_keyword(lex_.peek(), "strict")) lex_.take();
        if (is_keyword(lex_.peek(), "digraph"))
            directed_ = true;
        else if (!is_keyword(lex_.peek(), "graph"))
            b_.fail(lex_.peek().line, "expected 'digraph' or 'graph' but found " + describe(lex_.peek()));
        lex_.take();
        if (lex_.peek().type == Type::Id) lex_.take();  // the graph's name
        expect_punct("{");
    }

    /// [a=b, c=d][...]: the edge-style attributes into `style`, the others read and dropped.
    void attr_lists(DotEdgeStyle& style) {
        while (is_punct(lex_.peek(), "[")) {
            lex_.take();
            while (!is_punct(lex_.peek(), "]")) {
                const Token key = expect_id("an attribute name");
                std::string value = "true";
                if (is_punct(lex_.peek(), "=")) {
                    lex_.take();
                    value = expect_id("an attribute value").text;
                }
                if (key.text == "dir") style.dir = value;
                if (key.text == "arrowhead") style.arrowhead = value;
                if (key.text == "arrowtail") style.arrowtail = value;
                if (is_punct(lex_.peek(), ";") || is_punct(lex_.peek(), ",")) lex_.take();
            }
            lex_.take();
        }
    }

    Token node_id() {
        const Token t = expect_id("a node name");
        if (!t.quoted && (lower(t.text) == "subgraph" || lower(t.text) == "node" || lower(t.text) == "edge" ||
                          lower(t.text) == "graph"))
            b_.fail(t.line, "expected a node name but found keyword '" + t.text + "'");
        for (int k = 0; k < 2 && is_punct(lex_.peek(), ":"); ++k) {  // port[:compass]
            lex_.take();
            expect_id("a port");
        }
        return t;
    }

    /// The mark a drawn arrow shape stands for.
    Mark arrow_mark(const std::string& shape, std::int64_t line) {
        if (shape == "none") return Mark::Tail;
        if ((shape == "odot" || shape == "dot") && b_.circles()) return Mark::Circle;
        if (shape == "odot" || shape == "dot")
            b_.fail(line, "circle marks (arrow shape '" + shape + "') are not supported");
        return Mark::Arrow;
    }

    /// A graph attribute (a = b), a node statement or an edge chain a -> b -> c [attrs].
    /// Returns whether it was a node statement.
    bool statement() {
        const Token first = node_id();
        if (is_punct(lex_.peek(), "=")) {  // graph attribute a = b
            lex_.take();
            expect_id("an attribute value");
            return false;
        }
        std::vector<Token> chain{first};
        while (is_punct(lex_.peek(), "->") || is_punct(lex_.peek(), "--")) {
            const Token op = lex_.take();
            if ((op.text == "->") != directed_)
                b_.fail(op.line, "'" + op.text + "' in a " + (directed_ ? "digraph" : "graph") + " (use '" +
                                     (directed_ ? "->" : "--") + "')");
            if (is_punct(lex_.peek(), "{") || is_keyword(lex_.peek(), "subgraph"))
                b_.fail(lex_.peek().line, "subgraphs are not supported");
            chain.push_back(node_id());
        }
        DotEdgeStyle style = defaults_;
        attr_lists(style);
        if (chain.size() == 1) {
            b_.node(first.text, first.line);
            return true;
        }
        const std::string dir = style.dir.empty() ? (directed_ ? "forward" : "none") : style.dir;
        if (dir != "forward" && dir != "back" && dir != "both" && dir != "none")
            b_.fail(first.line, "unknown dir '" + dir + "' (expected forward, back, both, none)");
        const bool head = dir == "forward" || dir == "both";
        const bool tail = dir == "back" || dir == "both";
        const Mark at_target = head ? arrow_mark(style.arrowhead, first.line) : Mark::Tail;
        const Mark at_source = tail ? arrow_mark(style.arrowtail, first.line) : Mark::Tail;
        for (std::size_t k = 0; k + 1 < chain.size(); ++k) {
            const std::int32_t s = b_.node(chain[k].text, chain[k].line);
            const std::int32_t d = b_.node(chain[k + 1].text, chain[k + 1].line);
            b_.add_edge(s, d, at_source, at_target, chain[k].line);
        }
        return false;
    }

    DotLexer lex_;
    GraphBuilder& b_;
    bool directed_ = false;
    DotEdgeStyle defaults_;  ///< from `edge [...]` statements
};

}  // namespace

Pdag read_dot(const std::string& text, GraphBuilder& b, bool& has_node_statements) {
    return DotParser(text, b).parse(has_node_statements);
}

}  // namespace cudag::io::graph_detail
