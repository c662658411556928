// SPDX-License-Identifier: Apache-2.0
#include "sim/discrete.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "sim/gaussian.hpp"

namespace cudag::sim {

namespace {

constexpr std::int64_t kMaxCpt = std::int64_t{1} << 26;

/// Number of parent configurations of v, or -1 when the CPT would exceed kMaxCpt entries.
std::int64_t cpt_rows(const BayesNet& net, std::int64_t v) {
    std::int64_t rows = 1;
    const auto card = static_cast<std::int64_t>(net.states[v].size());
    for (std::int32_t p : net.parents[v]) {
        rows *= static_cast<std::int64_t>(net.states[p].size());
        if (rows * card > kMaxCpt) return -1;
    }
    return rows;
}

// ---- BIF tokens ---------------------------------------------------------------------
struct Token {
    std::string text;
    int line = 0;
};

std::vector<Token> tokenize(std::string_view s, const std::string& path) {
    std::vector<Token> out;
    int line = 1;
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (c == '\n') {
            ++line;
            ++i;
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            while (i < s.size() && s[i] != '\n') ++i;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            const std::size_t e = s.find("*/", i + 2);
            if (e == std::string_view::npos)
                throw InputError(path + ":" + std::to_string(line) + ": unterminated comment");
            line += static_cast<int>(std::count(s.begin() + i, s.begin() + e, '\n'));
            i = e + 2;
        } else if (std::string_view("{}()[],;|").find(c) != std::string_view::npos) {
            out.push_back({std::string(1, c), line});
            ++i;
        } else if (c == '"') {
            const std::size_t e = s.find('"', i + 1);
            if (e == std::string_view::npos)
                throw InputError(path + ":" + std::to_string(line) + ": unterminated string");
            out.push_back({std::string(s.substr(i + 1, e - i - 1)), line});
            i = e + 1;
        } else {
            std::size_t e = i;
            while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e])) &&
                   std::string_view("{}()[],;|\"").find(s[e]) == std::string_view::npos)
                ++e;
            out.push_back({std::string(s.substr(i, e - i)), line});
            i = e;
        }
    }
    return out;
}

class BifParser {
public:
    BifParser(std::vector<Token> t, const std::string& path) : t_(std::move(t)), path_(path) {}

    BayesNet parse() {
        while (!done()) {
            const Token& k = next();
            if (k.text == "network") {
                skip_block();
            } else if (k.text == "variable") {
                variable();
            } else if (k.text == "probability") {
                probability();
            } else {
                fail(k, "expected 'network', 'variable' or 'probability', found '" + k.text + "'");
            }
        }
        for (std::int64_t v = 0; v < net_.size(); ++v)
            if (!have_cpt_[v]) fail(last(), "variable '" + net_.names[v] + "' has no probability block");
        return std::move(net_);
    }

private:
    bool done() const { return pos_ >= t_.size(); }
    const Token& last() const { return t_.empty() ? empty_ : t_[std::min(pos_, t_.size()) - 1]; }
    const Token& next() {
        if (done()) fail(last(), "unexpected end of file");
        return t_[pos_++];
    }
    const Token& peek() {
        if (done()) fail(last(), "unexpected end of file");
        return t_[pos_];
    }
    void expect(const std::string& s) {
        const Token& k = next();
        if (k.text != s) fail(k, "expected '" + s + "', found '" + k.text + "'");
    }
    [[noreturn]] void fail(const Token& at, const std::string& what) const {
        throw InputError(path_ + ":" + std::to_string(at.line) + ": " + what);
    }
    void skip_block() {
        while (next().text != "{") {
        }
        for (int depth = 1; depth > 0;) {
            const std::string& s = next().text;
            depth += s == "{" ? 1 : (s == "}" ? -1 : 0);
        }
    }
    std::int32_t var_index(const Token& k) const {
        const auto it = index_.find(k.text);
        if (it == index_.end()) fail(k, "unknown variable '" + k.text + "'");
        return it->second;
    }
    double number(const Token& k) const {
        double x = 0;
        const auto r = std::from_chars(k.text.data(), k.text.data() + k.text.size(), x);
        if (r.ec != std::errc() || r.ptr != k.text.data() + k.text.size() || !(x >= 0 && x <= 1))
            fail(k, "expected a probability in [0, 1], found '" + k.text + "'");
        return x;
    }
    // variable NAME { type discrete [ k ] { s1, s2, ... }; property ...; }
    void variable() {
        const Token& name = next();
        if (index_.count(name.text)) fail(name, "variable '" + name.text + "' declared twice");
        expect("{");
        std::vector<std::string> states;
        while (peek().text != "}") {
            const Token& k = next();
            if (k.text == "type") {
                expect("discrete");
                expect("[");
                const Token& count = next();
                expect("]");
                expect("{");
                while (true) {
                    states.push_back(next().text);
                    const Token& sep = next();
                    if (sep.text == "}") break;
                    if (sep.text != ",") fail(sep, "expected ',' or '}' in the state list");
                }
                expect(";");
                if (std::to_string(states.size()) != count.text)
                    fail(count, "variable '" + name.text + "' declares " + count.text + " states and lists " +
                                    std::to_string(states.size()));
            } else {  // property ... ;
                while (next().text != ";") {
                }
            }
        }
        expect("}");
        if (states.size() < 2 || states.size() > 256)
            fail(name, "variable '" + name.text + "' must have 2..256 states");
        index_[name.text] = static_cast<std::int32_t>(net_.names.size());
        net_.names.push_back(name.text);
        net_.states.push_back(std::move(states));
        net_.parents.emplace_back();
        net_.cpt.emplace_back();
        have_cpt_.push_back(false);
    }
    // k probabilities ending in ';'
    std::vector<double> row(std::size_t k) {
        std::vector<double> p;
        while (true) {
            p.push_back(number(next()));
            const Token& sep = next();
            if (sep.text == ";") break;
            if (sep.text != ",") fail(sep, "expected ',' or ';' after a probability");
        }
        if (p.size() != k)
            fail(last(), "expected " + std::to_string(k) + " probabilities, found " + std::to_string(p.size()));
        return p;
    }
    void probability() {
        const Token& open = next();
        if (open.text != "(") fail(open, "expected '(' after 'probability'");
        const Token& child = next();
        const std::int32_t v = var_index(child);
        if (have_cpt_[v]) fail(child, "second probability block for '" + child.text + "'");
        std::vector<std::int32_t> parents;
        if (peek().text == "|") {
            next();
            while (true) {
                parents.push_back(var_index(next()));
                const Token& sep = next();
                if (sep.text == ")") break;
                if (sep.text != ",") fail(sep, "expected ',' or ')' in the parent list");
            }
        } else {
            expect(")");
        }
        net_.parents[v] = parents;
        const std::int64_t rows = cpt_rows(net_, v);
        if (rows < 0) fail(child, "the CPT of '" + child.text + "' is too large");
        const std::size_t card = net_.states[v].size();
        std::vector<double>& cpt = net_.cpt[v];
        cpt.assign(static_cast<std::size_t>(rows) * card, -1.0);
        std::vector<double> fallback;
        expect("{");
        while (peek().text != "}") {
            const Token& k = next();
            if (k.text == "table") {
                const std::vector<double> all = row(static_cast<std::size_t>(rows) * card);
                std::copy(all.begin(), all.end(), cpt.begin());
            } else if (k.text == "default") {
                fallback = row(card);
            } else if (k.text == "(") {
                std::int64_t r = 0;
                for (std::size_t q = 0; q < parents.size(); ++q) {
                    const Token& st = next();
                    const auto& states = net_.states[parents[q]];
                    const auto it = std::find(states.begin(), states.end(), st.text);
                    if (it == states.end())
                        fail(st, "'" + st.text + "' is not a state of '" + net_.names[parents[q]] + "'");
                    r = r * static_cast<std::int64_t>(states.size()) + (it - states.begin());
                    const Token& sep = next();
                    if (sep.text != (q + 1 == parents.size() ? ")" : ",")) fail(sep, "malformed parent configuration");
                }
                const std::vector<double> p = row(card);
                std::copy(p.begin(), p.end(), cpt.begin() + r * static_cast<std::int64_t>(card));
            } else if (k.text == "property") {
                while (next().text != ";") {
                }
            } else {
                fail(k, "unexpected '" + k.text + "' in the probability block of '" + child.text + "'");
            }
        }
        expect("}");
        for (std::int64_t r = 0; r < rows; ++r) {
            double* p = cpt.data() + r * static_cast<std::int64_t>(card);
            if (p[0] < 0) {
                if (fallback.empty())
                    fail(child, "'" + child.text + "': parent configuration " + std::to_string(r + 1) +
                                    " has no probabilities");
                std::copy(fallback.begin(), fallback.end(), p);
            }
            double sum = 0;
            for (std::size_t k = 0; k < card; ++k) sum += p[k];
            if (std::fabs(sum - 1.0) > 1e-3)
                fail(child, "'" + child.text + "': probabilities of configuration " + std::to_string(r + 1) +
                                " sum to " + std::to_string(sum));
            for (std::size_t k = 0; k < card; ++k) p[k] /= sum;
        }
        have_cpt_[v] = true;
    }

    std::vector<Token> t_;
    std::string path_;
    std::size_t pos_ = 0;
    Token empty_;
    BayesNet net_;
    std::map<std::string, std::int32_t> index_;
    std::vector<bool> have_cpt_;
};

/// Variables in an order where every parent comes before its children; InputError on a cycle.
std::vector<std::int32_t> topological_order(const BayesNet& net, const std::string& where) {
    const std::int64_t n = net.size();
    std::vector<int> missing(static_cast<std::size_t>(n));
    std::vector<std::vector<std::int32_t>> children(static_cast<std::size_t>(n));
    for (std::int32_t v = 0; v < n; ++v) {
        missing[v] = static_cast<int>(net.parents[v].size());
        for (std::int32_t p : net.parents[v]) children[p].push_back(v);
    }
    std::vector<std::int32_t> order;
    for (std::int32_t v = 0; v < n; ++v)
        if (missing[v] == 0) order.push_back(v);
    for (std::size_t k = 0; k < order.size(); ++k)
        for (std::int32_t c : children[order[k]])
            if (--missing[c] == 0) order.push_back(c);
    if (static_cast<std::int64_t>(order.size()) != n) throw InputError(where + ": the network has a directed cycle");
    return order;
}

}  // namespace

std::vector<std::tuple<std::int32_t, std::int32_t, double>> BayesNet::arcs() const {
    std::vector<std::tuple<std::int32_t, std::int32_t, double>> out;
    for (std::int32_t v = 0; v < size(); ++v)
        for (std::int32_t p : parents[v]) out.emplace_back(p, v, 1.0);
    std::sort(out.begin(), out.end());
    return out;
}

BayesNet random_network(const DiscreteSimSpec& spec) {
    CUDAG_EXPECTS(spec.n_vars >= 1 && spec.n_vars < (std::int64_t{1} << 31), "simulate: --vars must be in 1..2^31-1");
    CUDAG_EXPECTS(spec.density >= 0.0 && spec.density <= 1.0, "simulate: --density must lie in [0, 1]");
    CUDAG_EXPECTS(spec.max_states >= 2 && spec.max_states <= 256,
                  "simulate: --states must be in 2..256, got " + std::to_string(spec.max_states));
    BayesNet net;
    const std::int64_t n = spec.n_vars;
    for (std::int64_t i = 0; i < n; ++i) {
        net.names.push_back(std::string("X").append(std::to_string(i + 1)));
        CounterRng rng(spec.seed, states_stream(i));
        const int card = 2 + static_cast<int>(rng.uniform() * (spec.max_states - 1));
        std::vector<std::string> st;
        for (int k = 0; k < card; ++k) st.push_back(std::to_string(k));
        net.states.push_back(std::move(st));
        std::vector<std::int32_t> parents = draw_parents(spec.seed, i, spec.density).nodes;
        if (spec.max_parents > 0 && parents.size() > static_cast<std::size_t>(spec.max_parents)) {
            std::sort(parents.begin(), parents.end());
            parents.erase(parents.begin(), parents.end() - spec.max_parents);
        }
        net.parents.push_back(std::move(parents));
    }
    net.cpt.resize(static_cast<std::size_t>(n));
    parallel_for(0, n, resolve_threads(0), 16, [&](std::int64_t i, int) {
        const std::int64_t rows = cpt_rows(net, i);
        if (rows < 0)
            throw InputError(
                "simulate: variable " + net.names[i] + " has " + std::to_string(net.parents[i].size()) +
                " parents: its CPT exceeds 2^26 entries (lower --density or --states, or set --max-parents)");
        const auto card = static_cast<std::int64_t>(net.states[i].size());
        CounterRng rng(spec.seed, cpt_stream(i));
        std::vector<double>& cpt = net.cpt[i];
        cpt.resize(static_cast<std::size_t>(rows * card));
        for (std::int64_t r = 0; r < rows; ++r) {
            double sum = 0;
            for (std::int64_t k = 0; k < card; ++k) sum += cpt[r * card + k] = -std::log1p(-rng.uniform());
            for (std::int64_t k = 0; k < card; ++k) cpt[r * card + k] /= sum;
        }
    });
    return net;
}

BayesNet parse_bif(std::string_view text, const std::string& path) {
    BayesNet net = BifParser(tokenize(text, path), path).parse();
    if (net.size() == 0) throw InputError(path + ": no variable in the BIF file (is it empty?)");
    topological_order(net, path);
    return net;
}

BayesNet read_bif(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot open '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_bif(ss.str(), path);
}

Dataset forward_sample(const BayesNet& net, std::int64_t n_samples, std::uint64_t seed, int threads) {
    CUDAG_EXPECTS(n_samples >= 1 && n_samples < (std::int64_t{1} << 31), "simulate: --samples must be in 1..2^31-1");
    const std::int64_t n = net.size();
    const std::vector<std::int32_t> order = topological_order(net, "network");
    Dataset d;
    d.n_vars = n;
    d.n_samples = n_samples;
    d.names = net.names;
    d.levels = net.states;
    d.values.resize(static_cast<std::size_t>(n * n_samples));
    parallel_for(0, n_samples, resolve_threads(threads), 256, [&](std::int64_t s, int) {
        for (std::int32_t v : order) {
            std::int64_t row = 0;
            for (std::int32_t p : net.parents[v])
                row = row * static_cast<std::int64_t>(net.states[p].size()) +
                      static_cast<std::int64_t>(d.values[p * n_samples + s]);
            const auto card = static_cast<std::int64_t>(net.states[v].size());
            const double* pr = net.cpt[v].data() + row * card;
            const Philox4x32Block b = philox_block(seed, sample_stream(s), static_cast<std::uint64_t>(v));
            const double u = uniform_from_bits(b.v[0], b.v[1]);
            std::int64_t k = 0;
            for (double acc = pr[0]; k + 1 < card && u >= acc; acc += pr[++k]) {
            }
            d.values[v * n_samples + s] = static_cast<double>(k);
        }
    });
    return d;
}

}  // namespace cudag::sim
