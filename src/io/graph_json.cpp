// SPDX-License-Identifier: Apache-2.0
// networkx node-link JSON graphs (an RFC 8259 parser for one value).
#include "io/graph_parse.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace cudag::io::graph_detail {

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
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
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
        if (i_ == start || res.ptr != s_.data() + i_) fail("unexpected character '" + std::string(1, c) + "'");
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
    // cudag fci's JSON says {"graph": {"kind": "pag"}}: a PAG even without a circle.
    if (const JsonValue* g = doc.find("graph"); g && g->kind == Kind::Object && b.circles())
        if (const JsonValue* k = g->find("kind"); k && k->kind == Kind::String && k->text == "pag") b.declare_pag();
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
                b.fail(v->line, std::string("link ") + key + " " + shown(name) + " is not in \"nodes\"");
            end[k] = b.node(name, v->line);
        }
        Mark ms = Mark::Tail;
        Mark mt = directed ? Mark::Arrow : Mark::Tail;
        if (const JsonValue* mark = link.find("mark"); mark) {
            std::string why;
            if (mark->kind != Kind::String || !parse_mark(mark->text, ms, mt, why, b.circles()))
                b.fail(mark->line, why.empty() ? "\"mark\" must be a string" : why);
        }
        b.add_edge(end[0], end[1], ms, mt, link.line);
    }
    return b.finish();
}

}  // namespace cudag::io::graph_detail
