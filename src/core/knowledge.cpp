// SPDX-License-Identifier: Apache-2.0
#include "core/knowledge.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "core/error.hpp"

namespace cudag {

bool Knowledge::forbidden(std::int32_t a, std::int32_t b) const {
    if (forbid_dir_.count({a, b}) || forbid_adj_.count(ordered(a, b))) return true;
    const int ta = tier(a), tb = tier(b);
    return ta >= 0 && tb >= 0 && ta > tb;
}

std::vector<Knowledge::Pair> Knowledge::forbidden_pairs() const {
    // Tiers alone never forbid a pair (one direction stays allowed): only pairs named in
    // the forbid file can be, as a pair or as a direction whose reverse is also forbidden.
    std::set<Pair> out(forbid_adj_.begin(), forbid_adj_.end());
    for (const auto& [a, b] : forbid_dir_)
        if (forbidden(b, a)) out.insert(ordered(a, b));
    return {out.begin(), out.end()};
}

std::vector<Knowledge::Pair> Knowledge::required_pairs() const {
    std::set<Pair> out(require_adj_.begin(), require_adj_.end());
    for (const auto& [a, b] : require_dir_) out.insert(ordered(a, b));
    return {out.begin(), out.end()};
}

void Knowledge::check(const std::vector<std::string>& names) const {
    const auto name = [&](std::int32_t v) {
        return static_cast<std::size_t>(v) < names.size() ? "'" + names[static_cast<std::size_t>(v)] + "'"
                                                          : std::to_string(v);
    };
    const std::string pre = "contradictory background knowledge: ";
    for (const auto& [i, j] : required_pairs())
        if (adjacency_forbidden(i, j))
            throw InputError(pre + name(i) + " and " + name(j) + " are both required and forbidden to be adjacent");
    for (const auto& [a, b] : require_dir_) {
        if (required(b, a))
            throw InputError(pre + name(a) + " -> " + name(b) + " and " + name(b) + " -> " + name(a) +
                             " are both required");
        if (forbidden(a, b)) {
            const bool by_tiers = !forbid_dir_.count({a, b}) && !forbid_adj_.count(ordered(a, b));
            throw InputError(pre + name(a) + " -> " + name(b) + " is required but " +
                             (by_tiers ? "runs from tier " + std::to_string(tier(a)) + " to the earlier tier " +
                                             std::to_string(tier(b))
                                       : std::string("forbidden")));
        }
    }
    // The required directions must be acyclic (Kahn's algorithm over the nodes they touch).
    std::map<std::int32_t, std::vector<std::int32_t>> out;
    std::map<std::int32_t, int> indeg;
    for (const auto& [a, b] : require_dir_) {
        out[a].push_back(b);
        indeg[a] += 0;
        ++indeg[b];
    }
    std::vector<std::int32_t> ready;
    for (const auto& [v, d] : indeg)
        if (d == 0) ready.push_back(v);
    std::size_t done = 0;
    while (!ready.empty()) {
        const std::int32_t v = ready.back();
        ready.pop_back();
        ++done;
        for (std::int32_t w : out[v])
            if (--indeg[w] == 0) ready.push_back(w);
    }
    if (done < indeg.size()) {
        for (const auto& [v, d] : indeg)
            if (d > 0) throw InputError(pre + "the required directions form a cycle through " + name(v));
    }
}

void Knowledge::add_to(Digest& h) const {
    if (empty()) return;
    h.add_string("knowledge-1");
    const auto pairs = [&h](const char* what, const std::set<Pair>& s) {
        h.add_string(what);
        h.add_value(s.size());
        for (const auto& [a, b] : s) {
            h.add_value(a);
            h.add_value(b);
        }
    };
    pairs("forbid-dir", forbid_dir_);
    pairs("forbid-adj", forbid_adj_);
    pairs("require-dir", require_dir_);
    pairs("require-adj", require_adj_);
    h.add_string("tiers");
    for (int t : tier_) h.add_value(t);
}

std::string Knowledge::summary() const {
    if (empty()) return "none";
    int tiers = 0;
    for (int t : tier_) tiers = std::max(tiers, t + 1);
    std::ostringstream os;
    os << forbidden_pairs().size() << " forbidden pairs, " << forbid_dir_.size() << " forbidden directions, "
       << required_pairs().size() << " required pairs (" << require_dir_.size() << " directed), " << tiers << " tiers";
    return os.str();
}

namespace {

/// The lines of a knowledge file or the entries of values, comments and blank lines
/// dropped: where each is (for messages), how a repeat names it ("line 3") and its tokens.
struct Line {
    std::string where, label;
    std::vector<std::string> tokens;
};

std::vector<Line> read_lines(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError("cannot open knowledge file '" + path + "'");
    std::vector<Line> lines;
    std::string text;
    for (int number = 1; std::getline(in, text); ++number) {
        if (!text.empty() && text.back() == '\r') text.pop_back();
        // A UTF-8 byte-order mark (Windows editors write one) is no part of the first name.
        if (number == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
        Line l{path + ":" + std::to_string(number), "line " + std::to_string(number), knowledge_tokens(text)};
        if (!l.tokens.empty()) lines.push_back(std::move(l));
    }
    if (in.bad()) throw InputError("cannot read knowledge file '" + path + "'");
    return lines;
}

/// The lines of `path` (none for "") followed by `values`.
std::vector<Line> all_lines(const std::string& path, const std::vector<KnowledgeLine>& values) {
    std::vector<Line> lines = path.empty() ? std::vector<Line>{} : read_lines(path);
    for (const KnowledgeLine& v : values)
        if (!v.tokens.empty()) lines.push_back({v.where, v.where, v.tokens});
    return lines;
}

class Resolver {
public:
    explicit Resolver(const std::vector<std::string>& names) : n_(static_cast<std::int64_t>(names.size())) {
        for (std::size_t k = 0; k < names.size(); ++k) index_.emplace(names[k], static_cast<std::int32_t>(k));
    }
    std::int32_t operator()(const std::string& tok, const std::string& where) const {
        const auto it = index_.find(tok);
        if (it != index_.end()) return it->second;
        std::int64_t v = -1;
        const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
        if (ec == std::errc() && p == tok.data() + tok.size() && v >= 0 && v < n_) return static_cast<std::int32_t>(v);
        throw InputError(where + ": unknown variable '" + tok +
                         "' (not a name in the data header, nor a column index 0.." + std::to_string(n_ - 1) + ")");
    }

private:
    std::int64_t n_;
    std::unordered_map<std::string, std::int32_t> index_;
};

/// `a -> b`, `a -- b` or `a b` per line: fn(a, b, directed).
template <class Fn>
void read_pairs(const std::vector<Line>& lines, const Resolver& resolve, Fn fn) {
    for (const Line& l : lines) {
        const std::string& where = l.where;
        const auto& t = l.tokens;
        bool directed = false;
        std::string a, b;
        if (t.size() == 3 && (t[1] == "->" || t[1] == "--")) {
            directed = t[1] == "->";
            a = t[0];
            b = t[2];
        } else if (t.size() == 2) {
            a = t[0];
            b = t[1];
        } else {
            throw InputError(where + ": expected 'a -> b', 'a -- b' or 'a b', got '" + [&] {
                std::string s;
                for (const auto& x : t) s += (s.empty() ? "" : " ") + x;
                return s;
            }() + "'");
        }
        const std::int32_t ia = resolve(a, where), ib = resolve(b, where);
        if (ia == ib) throw InputError(where + ": a pair needs two different variables, got '" + a + "' twice");
        fn(ia, ib, directed);
    }
}

}  // namespace

std::vector<std::string> knowledge_tokens(const std::string& text) {
    std::vector<std::string> tokens;
    std::string tok;
    for (char c : text) {
        const bool blank = c == ' ' || c == '\t';
        if (c == '#' && tok.empty()) break;  // at a line's start or after a blank
        if (blank) {
            if (!tok.empty()) tokens.push_back(std::move(tok));
            tok.clear();
        } else {
            tok.push_back(c);
        }
    }
    if (!tok.empty()) tokens.push_back(std::move(tok));
    return tokens;
}

Knowledge read_knowledge(const KnowledgeFiles& files, const std::vector<std::string>& names) {
    return read_knowledge(files, KnowledgeValues{}, names);
}

Knowledge read_knowledge(const KnowledgeFiles& files, const KnowledgeValues& values,
                         const std::vector<std::string>& names) {
    Knowledge k(static_cast<std::int64_t>(names.size()));
    const Resolver resolve(names);
    for (const bool forbid : {true, false}) {
        const std::vector<Line> lines =
            all_lines(forbid ? files.forbid : files.require, forbid ? values.forbid : values.require);
        read_pairs(lines, resolve, [&](std::int32_t a, std::int32_t b, bool directed) {
            if (forbid && directed) k.forbid_direction(a, b);
            if (forbid && !directed) k.forbid_pair(a, b);
            if (!forbid && directed) k.require_direction(a, b);
            if (!forbid && !directed) k.require_pair(a, b);
        });
    }
    std::vector<int> seen(names.size(), -1);
    std::vector<std::string> label_of(names.size());
    int t = 0;
    for (const Line& l : all_lines(files.tiers, values.tiers)) {
        for (const std::string& tok : l.tokens) {
            const std::int32_t v = resolve(tok, l.where);
            if (seen[static_cast<std::size_t>(v)] >= 0)
                throw InputError(l.where + ": '" + tok + "' is already in the tier of " +
                                 label_of[static_cast<std::size_t>(v)]);
            seen[static_cast<std::size_t>(v)] = t;
            label_of[static_cast<std::size_t>(v)] = l.label;
            k.set_tier(v, t);
        }
        ++t;
    }
    k.check(names);
    return k;
}

}  // namespace cudag
