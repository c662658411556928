// SPDX-License-Identifier: Apache-2.0
#include "io/writers.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/interrupt.hpp"
#include "io/output_set.hpp"

extern char** environ;

namespace cudag::io {

// ---- TextFile ------------------------------------------------------------------------

TextFile::TextFile(const std::string& path) : path_(path) {
    if (path == "-") {
        // Standard output through a duplicate, so that close() leaves fd 1 open.
        const int fd = ::dup(STDOUT_FILENO);
        file_ = fd >= 0 ? ::fdopen(fd, "wb") : nullptr;
        path_ = "<stdout>";
        std::fflush(stdout);
    } else {
        file_ = std::fopen(path.c_str(), "wb");
    }
    if (!file_) throw InputError("cannot write '" + path + "': " + std::strerror(errno));
    std::setvbuf(file_, nullptr, _IOFBF, std::size_t{1} << 20);
}

TextFile::~TextFile() {
    if (file_) std::fclose(file_);
}

void TextFile::write(std::string_view s) {
    if (!file_ || s.empty()) return;
    if (std::fwrite(s.data(), 1, s.size(), file_) != s.size()) failed_ = true;
}

void TextFile::close() {
    if (!file_) return;
    const int saved = (failed_ || std::ferror(file_)) ? (errno ? errno : EIO) : 0;
    const bool bad = std::fclose(file_) != 0 || saved != 0;
    const int err = saved ? saved : errno;
    file_ = nullptr;
    if (bad) throw InputError("cannot write '" + path_ + "': " + std::strerror(err));
}

// ---- edges -----------------------------------------------------------------------------

std::vector<CpdagEdge> cpdag_edges(const Pdag& g) {
    std::vector<CpdagEdge> edges;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(g.n()); ++i) {
        for (std::int32_t j : g.neighbours(i)) {
            if (j < i) continue;
            const Mark at_i = g.end(i, j);
            const Mark at_j = g.end(j, i);
            if (at_i == Mark::Tail && at_j == Mark::Tail)
                edges.push_back({i, j, EdgeKind::Undirected});
            else if (at_i == Mark::Tail && at_j == Mark::Arrow)
                edges.push_back({i, j, EdgeKind::Directed});
            else if (at_i == Mark::Arrow && at_j == Mark::Tail)
                edges.push_back({j, i, EdgeKind::Directed});
            else if (at_i == Mark::Arrow && at_j == Mark::Arrow)
                edges.push_back({i, j, EdgeKind::Bidirected});
            else
                throw LogicError("internal error: edge " + std::to_string(i) + "-" + std::to_string(j) +
                                 " has an end with no mark");
        }
    }
    std::sort(edges.begin(), edges.end(),
              [](const CpdagEdge& x, const CpdagEdge& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
    return edges;
}

const char* edge_mark(EdgeKind kind) {
    switch (kind) {
        case EdgeKind::Directed:
            return "-->";
        case EdgeKind::Bidirected:
            return "<->";
        default:
            return "---";
    }
}

int amat_code(const Pdag& g, std::int32_t a, std::int32_t b) {
    const Mark at_a = g.end(a, b);
    if (at_a == Mark::None) return 0;
    const Mark at_b = g.end(b, a);
    if (at_a == Mark::Arrow && at_b == Mark::Arrow) return 2;
    // amat.cpdag: the code at [a,b] is the mark at a's end (1 arrowhead, 0 tail), except
    // that an undirected edge is 1/1. So a --> b gives amat[a,b] = 0, amat[b,a] = 1.
    return at_a == Mark::Arrow ? 1 : (at_b == Mark::Tail ? 1 : 0);
}

std::string dot_quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else {
            out.push_back(c);
        }
    }
    return out + "\"";
}

namespace {

void check_result(const GraphView& r) { CUDAG_ASSERT(static_cast<std::int64_t>(r.names.size()) == r.graph.n()); }

/// Appends the C-style escape of a backslash, tab, newline or carriage return (`\\`, `\t`,
/// `\n`, `\r`) to `out`; false, appending nothing, for any other character.
bool append_c_escape(std::string& out, char c) {
    const char* e = c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : nullptr;
    if (e) out += e;
    return e != nullptr;
}

}  // namespace

std::string json_quote(const std::string& s) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (static_cast<unsigned char>(c) >= 0x80) {
            // Valid UTF-8 as it is; a byte that is not (a Latin-1 file's name) as the
            // character it stands for in Latin-1, so that the JSON is always valid.
            const std::size_t n = utf8_sequence(s, i);  // core/format.hpp
            if (n > 0) {
                out.append(s, i, n);
                i += n - 1;
            } else {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
                out += buf;
            }
            continue;
        }
        if (append_c_escape(out, c)) continue;
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
                    out += buf;
                } else {
                    out.push_back(c);
                }
        }
    }
    return out + "\"";
}

std::string csv_quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        out.push_back(c);
        if (c == '"') out.push_back('"');
    }
    return out + "\"";
}

namespace {

std::string dot_text(const GraphView& r) {
    std::string out = "digraph cudag {\n";
    for (const std::string& name : r.names) out += "    " + dot_quote(name) + ";\n";
    for (const CpdagEdge& e : cpdag_edges(r.graph)) {
        out += "    " + dot_quote(r.names[e.a]) + " -> " + dot_quote(r.names[e.b]);
        if (e.kind == EdgeKind::Undirected) out += " [dir=none]";
        if (e.kind == EdgeKind::Bidirected) out += " [dir=both]";
        out += ";\n";
    }
    return out + "}\n";
}

/// Absolute path of an executable `name` on $PATH, or "".
std::string find_on_path(const std::string& name) {
    const char* env = std::getenv("PATH");
    const std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t end = std::min(path.find(':', start), path.size());
        const std::string dir = end > start ? path.substr(start, end - start) : ".";
        const std::string candidate = dir + "/" + name;
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = end + 1;
    }
    return "";
}

/// Removes a file when it goes out of scope.
class RemoveOnExit {
public:
    explicit RemoveOnExit(std::string path) : path_(std::move(path)) {}
    ~RemoveOnExit() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
        interrupt::forget_temporary(path_);
    }
    RemoveOnExit(const RemoveOnExit&) = delete;
    RemoveOnExit& operator=(const RemoveOnExit&) = delete;

private:
    std::string path_;
};

}  // namespace

std::string tsv_escape(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    for (char c : name)
        if (!append_c_escape(out, c)) out.push_back(c);
    return out;
}

std::string tsv_unescape(std::string_view field) {
    std::string out;
    out.reserve(field.size());
    for (std::size_t k = 0; k < field.size(); ++k) {
        const char next = k + 1 < field.size() ? field[k + 1] : '\0';
        if (field[k] != '\\' || std::string_view("\\tnr").find(next) == std::string_view::npos) {
            out.push_back(field[k]);
            continue;
        }
        out.push_back(next == 't' ? '\t' : next == 'n' ? '\n' : next == 'r' ? '\r' : '\\');
        ++k;
    }
    return out;
}

void write_edges(const GraphView& r, const std::string& path) {
    check_result(r);
    std::string out = "source\ttarget\tmark\n";
    for (const CpdagEdge& e : cpdag_edges(r.graph))
        out += tsv_escape(r.names[e.a]) + "\t" + tsv_escape(r.names[e.b]) + "\t" + edge_mark(e.kind) + "\n";
    TextFile f(path);
    f.write(out);
    f.close();
}

void write_dot(const GraphView& r, const std::string& path) {
    check_result(r);
    TextFile f(path);
    f.write(dot_text(r));
    f.close();
}

void write_json(const GraphView& r, const std::string& path) {
    check_result(r);
    std::string out = "{\n  \"directed\": true,\n  \"multigraph\": false,\n  \"graph\": {},\n";
    out += "  \"nodes\": [";
    for (std::size_t v = 0; v < r.names.size(); ++v)
        out += std::string(v ? "," : "") + "\n    {\"id\": " + json_quote(r.names[v]) + "}";
    out += r.names.empty() ? "],\n" : "\n  ],\n";
    out += "  \"links\": [";
    bool first = true;
    auto link = [&](std::int32_t s, std::int32_t t, EdgeKind kind) {
        out += std::string(first ? "" : ",") + "\n    {\"source\": " + json_quote(r.names[s]) +
               ", \"target\": " + json_quote(r.names[t]) + ", \"mark\": \"" + edge_mark(kind) + "\"}";
        first = false;
    };
    for (const CpdagEdge& e : cpdag_edges(r.graph)) {
        link(e.a, e.b, e.kind);
        if (e.kind != EdgeKind::Directed) link(e.b, e.a, e.kind);
    }
    out += first ? "]\n}\n" : "\n  ]\n}\n";
    TextFile f(path);
    f.write(out);
    f.close();
}

void write_amat(const GraphView& r, const std::string& path) {
    check_result(r);
    const auto n = static_cast<std::int32_t>(r.names.size());
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
        for (std::int32_t b : r.graph.neighbours(a)) codes[b] = static_cast<char>('0' + amat_code(r.graph, a, b));
        line = csv_quote(r.names[a]);
        line.reserve(line.size() + 2 * static_cast<std::size_t>(n) + 1);
        for (char c : codes) {
            line.push_back(',');
            line.push_back(c);
        }
        line.push_back('\n');
        f.write(line);
    }
    f.close();
}

void write_cl(const GraphView& r, const std::string& path) {
    check_result(r);
    const auto n = static_cast<std::int32_t>(r.graph.n());
    TextFile f(path);
    std::vector<int> row(static_cast<std::size_t>(n));
    std::string line;
    for (std::int32_t i = 0; i < n; ++i) {
        std::fill(row.begin(), row.end(), 0);
        for (std::int32_t j : r.graph.neighbours(i)) row[j] = static_cast<int>(r.graph.end(i, j));
        line.clear();
        for (std::int32_t j = 0; j < n; ++j) {
            if (j) line.push_back(' ');
            line += row[j] == 0 ? "0" : (row[j] < 0 ? "-1" : "1");
        }
        line.push_back('\n');
        f.write(line);
    }
    f.close();
}

bool run_helper(const std::string& program, std::vector<std::string> args, const std::string& output,
                std::string& message) {
    const std::string exe = find_on_path(program);
    if (exe.empty()) {
        message = program + " not found on PATH: skipped " + output;
        return false;
    }
    args.insert(args.begin(), program);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    // The child starts with SIGINT/SIGTERM unblocked and default (the interrupt watcher
    // blocks them in this process), so that the watcher's SIGTERM stops it.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, both;
    sigemptyset(&none);
    sigemptyset(&both);
    sigaddset(&both, SIGINT);
    sigaddset(&both, SIGTERM);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &both);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    const int rc = ::posix_spawn(&pid, exe.c_str(), nullptr, &attr, argv.data(), environ);
    posix_spawnattr_destroy(&attr);
    if (rc == 0) interrupt::add_child(pid);
    if (rc != 0) {
        message = "cannot run " + program + " '" + exe + "': " + std::strerror(rc) + ": skipped " + output;
        return false;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            interrupt::forget_child(pid);
            message = "cannot wait for " + program + ": " + std::string(std::strerror(errno));
            return false;
        }
    }
    interrupt::forget_child(pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
    std::error_code ec;
    std::filesystem::remove(output, ec);
    message = program + " failed (" +
              (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                 : "signal " + std::to_string(WTERMSIG(status))) +
              "): skipped " + output;
    return false;
}

bool write_graphviz_image(const GraphView& r, const std::string& path, const std::string& format,
                          std::string& message) {
    if (format != "png" && format != "svg") throw InputError("unknown image format '" + format + "' (valid: png, svg)");
    check_result(r);
    return render_dot(dot_text(r), path, format, message);
}

bool render_dot(const std::string& dot, const std::string& path, const std::string& format, std::string& message) {
    if (format != "png" && format != "svg") throw InputError("unknown image format '" + format + "' (valid: png, svg)");
    if (find_on_path("dot").empty()) {
        message = "graphviz 'dot' not found on PATH: skipped " + path;
        return false;
    }
    const std::string dot_file = path + ".dot.tmp";
    RemoveOnExit cleanup(dot_file);
    interrupt::add_temporary(dot_file);
    {
        TextFile f(dot_file);
        f.write(dot);
        f.close();
    }
    if (run_helper("dot", {"-T" + format, "-o", path, dot_file}, path, message)) return true;
    // Keep the messages the users know: "graphviz 'dot' ...".
    if (message.rfind("dot ", 0) == 0) message = "graphviz 'dot'" + message.substr(3);
    return false;
}

// ---- format sets ---------------------------------------------------------------------

const std::vector<std::string>& format_names() {
    static const std::vector<std::string> names = {"edges", "dot", "json", "amat", "cl", "png", "svg"};
    return names;
}

std::string format_suffix(const std::string& format) {
    if (format == "edges") return ".edges.tsv";
    if (format == "dot") return ".dot";
    if (format == "json") return ".json";
    if (format == "amat") return ".amat.csv";
    if (format == "pag-amat") return ".pag.amat.csv";  // cudag fci's amat
    if (format == "cl") return ".cl.txt";
    if (format == "png") return ".png";
    if (format == "svg") return ".svg";
    if (format == "freq") return ".freq.tsv";          // cudag pc --bootstrap's
    if (format == "edgeprob") return ".edgeprob.tsv";  // cudag mcmc's
    if (format == "traces") return ".traces.tsv";      // cudag mcmc's
    if (format == "cpdag") return ".cpdag.tsv";        // cudag mcmc's
    if (format == "trace-png") return ".traces.png";   // cudag mcmc's
    validate_formats({format});
    return "";
}

void validate_formats(const std::vector<std::string>& formats) {
    const auto& valid = format_names();
    for (const std::string& f : formats) {
        if (std::find(valid.begin(), valid.end(), f) != valid.end()) continue;
        std::string list;
        for (const std::string& v : valid) list += (list.empty() ? "" : ", ") + v;
        throw InputError("unknown output format '" + f + "' (valid: " + list + ")");
    }
}

void check_formats_scale(const std::vector<std::string>& formats, std::int64_t n_vars) {
    if (n_vars <= kMaxMatrixFormatVars) return;
    for (const std::string& f : formats)
        if (f == "amat" || f == "cl")
            throw InputError("--format " + f + ": an n x n matrix of " + std::to_string(n_vars) +
                             " variables is refused above " + std::to_string(kMaxMatrixFormatVars) +
                             " (it would hold " + std::to_string(n_vars) +
                             "^2 cells); write edge lists instead: "
                             "--format edges or json, or the HDF5 result of --out");
}

std::string format_path(const std::string& out_h5, const std::string& format) {
    std::string stem = out_h5;
    auto ends_with_ci = [&stem](std::string_view ext) {
        if (stem.size() < ext.size()) return false;
        for (std::size_t k = 0; k < ext.size(); ++k)
            if (std::tolower(static_cast<unsigned char>(stem[stem.size() - ext.size() + k])) != ext[k]) return false;
        return true;
    };
    if (ends_with_ci(".hdf5"))
        stem.resize(stem.size() - 5);
    else if (ends_with_ci(".h5"))
        stem.resize(stem.size() - 3);
    return stem + format_suffix(format);
}

void write_formats(const GraphView& r, const std::string& out_h5, const std::vector<std::string>& formats,
                   OutputSet& outputs, std::ostream& warnings) {
    validate_formats(formats);
    check_result(r);
    check_formats_scale(formats, static_cast<std::int64_t>(r.names.size()));
    std::set<std::string> done;
    for (const std::string& f : formats) {
        if (!done.insert(f).second) continue;
        const std::string final_path = format_path(out_h5, f);
        const std::string temp = outputs.temp_for(final_path);
        if (f == "edges") {
            write_edges(r, temp);
        } else if (f == "dot") {
            write_dot(r, temp);
        } else if (f == "json") {
            write_json(r, temp);
        } else if (f == "amat") {
            write_amat(r, temp);
        } else if (f == "cl") {
            write_cl(r, temp);
        } else {
            std::string message;
            if (!write_graphviz_image(r, temp, f, message)) {
                outputs.discard(final_path);
                // Name the final file, not the temporary, in the user's warning.
                const std::size_t at = message.rfind(temp);
                if (at != std::string::npos) message.replace(at, temp.size(), final_path);
                warnings << "warning: " << message << '\n';
            }
        }
    }
}

}  // namespace cudag::io
