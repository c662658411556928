// SPDX-License-Identifier: Apache-2.0
#include "io/pag_writers.hpp"

#include <set>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"

namespace cudag::io {

using namespace marks;

std::string pag_format(const std::string& format) { return format == "amat" ? "pag-amat" : format; }

namespace {

void check(const PagView& r) { CUDAG_ASSERT(static_cast<std::int64_t>(r.names.size()) == r.pag.n()); }

template <class Fn>
void each_edge(const Pag& g, Fn&& fn) {
    for (std::int32_t a = 0; a < g.n(); ++a)
        for (const std::int32_t b : g.neighbours(a))
            if (a < b) fn(a, b);
}

const char* dot_arrow(std::uint8_t m) { return m == kArrow ? "normal" : m == kCircle ? "odot" : "none"; }

std::string pag_dot_text(const PagView& r) {
    std::string out = "digraph cudag {\n";
    for (const std::string& name : r.names) out += "    " + dot_quote(name) + ";\n";
    each_edge(r.pag, [&](std::int32_t a, std::int32_t b) {
        out += "    " + dot_quote(r.names[static_cast<std::size_t>(a)]) + " -> " +
               dot_quote(r.names[static_cast<std::size_t>(b)]) + " [dir=both, arrowtail=" + dot_arrow(r.pag(b, a)) +
               ", arrowhead=" + dot_arrow(r.pag(a, b)) + "];\n";
    });
    return out + "}\n";
}

}  // namespace

void write_pag_edges(const PagView& r, const std::string& path) {
    check(r);
    std::string out = "source\ttarget\tmark\n";
    each_edge(r.pag, [&](std::int32_t a, std::int32_t b) {
        out += tsv_escape(r.names[static_cast<std::size_t>(a)]) + "\t" +
               tsv_escape(r.names[static_cast<std::size_t>(b)]) + "\t" + edge_string(r.pag, a, b) + "\n";
    });
    TextFile f(path);
    f.write(out);
    f.close();
}

void write_pag_amat(const PagView& r, const std::string& path) {
    check(r);
    const auto n = r.pag.n();
    TextFile f(path);
    std::string line = "\"\"";
    for (const std::string& name : r.names) {
        line.push_back(',');
        line += csv_quote(name);
    }
    line.push_back('\n');
    f.write(line);
    std::vector<char> codes(static_cast<std::size_t>(n));
    for (std::int32_t a = 0; a < n; ++a) {
        std::fill(codes.begin(), codes.end(), '0');
        const auto nb = r.pag.neighbours(a);
        const auto mk = r.pag.marks(a);
        for (std::size_t k = 0; k < nb.size(); ++k)
            codes[static_cast<std::size_t>(nb[k])] = static_cast<char>('0' + mk[k]);
        line = csv_quote(r.names[static_cast<std::size_t>(a)]);
        for (const char c : codes) {
            line.push_back(',');
            line.push_back(c);
        }
        f.write(line + "\n");
    }
    f.close();
}

void write_pag_cl(const PagView& r, const std::string& path) {
    check(r);
    const auto n = r.pag.n();
    TextFile f(path);
    std::vector<const char*> row(static_cast<std::size_t>(n));
    std::string line;
    for (std::int32_t i = 0; i < n; ++i) {
        std::fill(row.begin(), row.end(), "0");
        for (const std::int32_t j : r.pag.neighbours(i)) {
            const std::uint8_t at_i = r.pag(j, i);
            row[static_cast<std::size_t>(j)] = at_i == kTail ? "-1" : at_i == kArrow ? "1" : "2";
        }
        line.clear();
        for (std::int32_t j = 0; j < n; ++j) {
            if (j) line.push_back(' ');
            line += row[static_cast<std::size_t>(j)];
        }
        f.write(line + "\n");
    }
    f.close();
}

void write_pag_dot(const PagView& r, const std::string& path) {
    check(r);
    TextFile f(path);
    f.write(pag_dot_text(r));
    f.close();
}

void write_pag_json(const PagView& r, const std::string& path) {
    check(r);
    std::string out = "{\n  \"directed\": true,\n  \"multigraph\": false,\n  \"graph\": {\"kind\": \"pag\"},\n";
    out += "  \"nodes\": [";
    for (std::size_t v = 0; v < r.names.size(); ++v)
        out += std::string(v ? "," : "") + "\n    {\"id\": " + json_quote(r.names[v]) + "}";
    out += r.names.empty() ? "],\n" : "\n  ],\n";
    out += "  \"links\": [";
    bool first = true;
    each_edge(r.pag, [&](std::int32_t a, std::int32_t b) {
        out += std::string(first ? "" : ",") +
               "\n    {\"source\": " + json_quote(r.names[static_cast<std::size_t>(a)]) +
               ", \"target\": " + json_quote(r.names[static_cast<std::size_t>(b)]) + ", \"mark\": \"" +
               edge_string(r.pag, a, b) + "\"}";
        first = false;
    });
    out += first ? "]\n}\n" : "\n  ]\n}\n";
    TextFile f(path);
    f.write(out);
    f.close();
}

void write_pag_formats(const PagView& r, const std::string& out_h5, const std::vector<std::string>& formats,
                       OutputSet& outputs, std::ostream& warnings) {
    std::vector<std::string> names;
    for (const std::string& f : formats)
        if (f != "pag-amat") names.push_back(f);
    validate_formats(names);
    check(r);
    check_formats_scale(names, r.pag.n());
    std::set<std::string> done;
    for (const std::string& given : formats) {
        const std::string f = pag_format(given);
        if (!done.insert(f).second) continue;
        const std::string final_path = format_path(out_h5, f);
        const std::string temp = outputs.temp_for(final_path);
        if (f == "edges") {
            write_pag_edges(r, temp);
        } else if (f == "dot") {
            write_pag_dot(r, temp);
        } else if (f == "json") {
            write_pag_json(r, temp);
        } else if (f == "pag-amat") {
            write_pag_amat(r, temp);
        } else if (f == "cl") {
            write_pag_cl(r, temp);
        } else {
            std::string message;
            const std::string dot_file = temp + ".dot.tmp";
            interrupt::add_temporary(dot_file);
            write_pag_dot(r, dot_file);
            const bool ok = run_helper("dot", {"-T" + f, "-o", temp, dot_file}, temp, message);
            std::remove(dot_file.c_str());
            if (!ok) {
                outputs.discard(final_path);
                const std::size_t at = message.rfind(temp);
                if (at != std::string::npos) message.replace(at, temp.size(), final_path);
                if (message.rfind("dot ", 0) == 0) message = "graphviz 'dot'" + message.substr(3);
                warnings << "warning: " << message << '\n';
            }
        }
    }
}

}  // namespace cudag::io
