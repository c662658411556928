// SPDX-License-Identifier: Apache-2.0
// Result writers (text formats, HDF5 layout) and OutputSet commit/rollback.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/graph_reader.hpp"
#include "io/hdf5_file.hpp"
#include "io/output_set.hpp"
#include "io/result_formats.hpp"
#include "io/writers.hpp"
#include "pc/result.hpp"
#include "pc/result_file.hpp"

namespace fs = std::filesystem;
using cudag::Mark;

namespace {

class TempDir {
public:
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ = fs::temp_directory_path() / ("cudag_io_writers_" + std::to_string(::getpid()) + "_" + info->name());
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    std::vector<std::string> listing() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename());
        std::sort(out.begin(), out.end());
        return out;
    }

private:
    fs::path path_;
};

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

/// Four variables A B C D with A --> C, D --> B, B --- C, A <-> D; A–B and C–D separated.
cudag::pc::PcResult four_node_result() {
    cudag::pc::PcResult r;
    r.names = {"A", "B", "C", "D"};
    r.skeleton = cudag::Graph(4);
    for (auto [i, j] : {std::pair{0, 2}, {1, 3}, {1, 2}, {0, 3}}) r.skeleton.add(i, j);
    r.cpdag = cudag::Pdag(r.skeleton);
    r.cpdag.orient(0, 2);                         // A --> C
    r.cpdag.orient(3, 1);                         // D --> B
    r.cpdag.set(0, 3, Mark::Arrow, Mark::Arrow);  // A <-> D
    r.sepsets.set(1, 0, {3, 2});                  // A ⊥ B | {C, D}
    r.sepsets.set(2, 3, {});                      // C ⊥ D
    r.pmax = {{0, 1, 0.25}, {2, 3, 0.5}};
    r.levels = {{0, 6, 1, 5, 0.5}, {1, 8, 1, 4, 0.25}};
    r.n_samples = 500;
    r.config = {{"alpha", "0.01"}, {"input path", "/x/y.csv"}, {"input/path", "z"}};
    r.seconds_total = 1.5;
    return r;
}

/// Minimal JSON syntax check (RFC 8259 values), enough to catch escaping mistakes.
class JsonChecker {
public:
    explicit JsonChecker(const std::string& s) : s_(s) {}
    bool valid() {
        ws();
        if (!value()) return false;
        ws();
        return i_ == s_.size();
    }

private:
    void ws() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    bool lit(const char* w) {
        const std::string t(w);
        if (s_.compare(i_, t.size(), t) != 0) return false;
        i_ += t.size();
        return true;
    }
    bool string() {
        if (i_ >= s_.size() || s_[i_] != '"') return false;
        for (++i_; i_ < s_.size(); ++i_) {
            const unsigned char c = s_[i_];
            if (c == '"') {
                ++i_;
                return true;
            }
            if (c < 0x20) return false;
            if (c == '\\') {
                ++i_;
                if (i_ >= s_.size()) return false;
                if (s_[i_] == 'u') {
                    for (int k = 0; k < 4; ++k)
                        if (++i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_]))) return false;
                } else if (std::string("\"\\/bfnrt").find(s_[i_]) == std::string::npos) {
                    return false;
                }
            }
        }
        return false;
    }
    bool number() {
        const std::size_t start = i_;
        while (i_ < s_.size() && std::string("+-0123456789.eE").find(s_[i_]) != std::string::npos) ++i_;
        return i_ > start;
    }
    template <class F>
    bool list(char close, F item) {
        ++i_;
        ws();
        if (i_ < s_.size() && s_[i_] == close) return ++i_, true;
        while (true) {
            ws();
            if (!item()) return false;
            ws();
            if (i_ < s_.size() && s_[i_] == ',') {
                ++i_;
                continue;
            }
            if (i_ < s_.size() && s_[i_] == close) return ++i_, true;
            return false;
        }
    }
    bool value() {
        if (i_ >= s_.size()) return false;
        switch (s_[i_]) {
            case '{':
                return list('}', [this] {
                    if (!string()) return false;
                    ws();
                    if (i_ >= s_.size() || s_[i_] != ':') return false;
                    ++i_;
                    ws();
                    return value();
                });
            case '[':
                return list(']', [this] { return value(); });
            case '"':
                return string();
            case 't':
                return lit("true");
            case 'f':
                return lit("false");
            case 'n':
                return lit("null");
            default:
                return number();
        }
    }
    const std::string& s_;
    std::size_t i_ = 0;
};

/// Read a whole dataset of the given native type.
template <class T>
std::vector<T> h5_read(hid_t file, const char* path, hid_t mem_type, std::vector<hsize_t>* dims) {
    const hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
    EXPECT_GE(ds, 0) << path;
    if (ds < 0) return {};
    const hid_t space = H5Dget_space(ds);
    const int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> d(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space, d.data(), nullptr);
    hsize_t n = 1;
    for (hsize_t x : d) n *= x;
    std::vector<T> out(n);
    if (n > 0) {
        EXPECT_GE(H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0);
    }
    H5Sclose(space);
    H5Dclose(ds);
    if (dims) *dims = d;
    return out;
}

std::string h5_string_attr(hid_t obj, const char* name) {
    const hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
    EXPECT_GE(attr, 0) << name;
    if (attr < 0) return "";
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    char* p = nullptr;
    EXPECT_GE(H5Aread(attr, type, &p), 0);
    std::string out = p ? p : "";
    std::free(p);
    H5Tclose(type);
    H5Aclose(attr);
    return out;
}

}  // namespace

// ---- edge extraction ----------------------------------------------------------------

TEST(IoCpdagEdges, WrittenOrientationSortedByFirstThenSecond) {
    const auto r = four_node_result();
    using cudag::io::CpdagEdge;
    using cudag::io::EdgeKind;
    const std::vector<CpdagEdge> expect = {{0, 2, EdgeKind::Directed},
                                           {0, 3, EdgeKind::Bidirected},
                                           {1, 2, EdgeKind::Undirected},
                                           {3, 1, EdgeKind::Directed}};
    EXPECT_EQ(cudag::io::cpdag_edges(r.cpdag), expect);
}

// ---- text formats ----------------------------------------------------------------------

TEST(IoWriters, EdgesTsvIsExact) {
    TempDir dir;
    cudag::io::write_edges(four_node_result(), dir.file("e.tsv"));
    EXPECT_EQ(read_file(dir.file("e.tsv")),
              "source\ttarget\tmark\n"
              "A\tC\t-->\n"
              "A\tD\t<->\n"
              "B\tC\t---\n"
              "D\tB\t-->\n");
}

TEST(IoWriters, CausalLearnMatrixIsExact) {
    TempDir dir;
    cudag::io::write_cl(four_node_result(), dir.file("g.txt"));
    // G[i,j] is the mark at i: A-->C gives G[A,C] = -1, G[C,A] = 1.
    EXPECT_EQ(read_file(dir.file("g.txt")),
              "0 0 -1 1\n"
              "0 0 -1 1\n"
              "1 -1 0 0\n"
              "1 -1 0 0\n");
}

TEST(IoWriters, CausalLearnMatrixMatchesReferenceFileFormat) {
    // Same layout as causal-learn's benchmark files (np.savetxt fmt='%d').
    cudag::pc::PcResult r;
    r.names = {"X1", "X2", "X3"};
    r.skeleton = cudag::Graph(3);
    r.skeleton.add(0, 1);
    r.skeleton.add(1, 2);
    r.cpdag = cudag::Pdag(r.skeleton);
    r.cpdag.orient(0, 1);
    TempDir dir;
    cudag::io::write_cl(r, dir.file("g.txt"));
    EXPECT_EQ(read_file(dir.file("g.txt")), "0 -1 0\n1 0 -1\n0 -1 0\n");
}

TEST(IoWriters, PcalgAmatIsExact) {
    TempDir dir;
    cudag::io::write_amat(four_node_result(), dir.file("a.csv"));
    // amat[a,b] = 0, amat[b,a] = 1 <=> a --> b; undirected 1/1; bidirected 2/2.
    EXPECT_EQ(read_file(dir.file("a.csv")),
              "\"\",\"A\",\"B\",\"C\",\"D\"\n"
              "\"A\",0,0,0,2\n"
              "\"B\",0,0,1,1\n"
              "\"C\",1,1,0,0\n"
              "\"D\",2,0,0,0\n");
}

TEST(IoWriters, DotIsExact) {
    TempDir dir;
    cudag::io::write_dot(four_node_result(), dir.file("g.dot"));
    EXPECT_EQ(read_file(dir.file("g.dot")),
              "digraph cudag {\n"
              "    \"A\";\n    \"B\";\n    \"C\";\n    \"D\";\n"
              "    \"A\" -> \"C\";\n"
              "    \"A\" -> \"D\" [dir=both];\n"
              "    \"B\" -> \"C\" [dir=none];\n"
              "    \"D\" -> \"B\";\n"
              "}\n");
}

TEST(IoWriters, JsonIsNodeLinkWithSymmetricUndirectedPairs) {
    TempDir dir;
    cudag::io::write_json(four_node_result(), dir.file("g.json"));
    const std::string text = read_file(dir.file("g.json"));
    EXPECT_TRUE(JsonChecker(text).valid()) << text;
    for (const char* part : {"\"directed\": true", "\"multigraph\": false", "\"graph\": {}", "{\"id\": \"A\"}",
                             "{\"id\": \"D\"}", "{\"source\": \"A\", \"target\": \"C\", \"mark\": \"-->\"}",
                             "{\"source\": \"B\", \"target\": \"C\", \"mark\": \"---\"}",
                             "{\"source\": \"C\", \"target\": \"B\", \"mark\": \"---\"}",
                             "{\"source\": \"A\", \"target\": \"D\", \"mark\": \"<->\"}",
                             "{\"source\": \"D\", \"target\": \"A\", \"mark\": \"<->\"}",
                             "{\"source\": \"D\", \"target\": \"B\", \"mark\": \"-->\"}"})
        EXPECT_NE(text.find(part), std::string::npos) << part << " in\n" << text;
    // Directed edges appear once: no C -> A link.
    EXPECT_EQ(text.find("\"source\": \"C\", \"target\": \"A\""), std::string::npos);
    std::size_t links = 0;
    for (std::size_t p = text.find("\"source\""); p != std::string::npos; p = text.find("\"source\"", p + 1)) ++links;
    EXPECT_EQ(links, 6u);
}

TEST(IoWriters, NamesAreEscapedInJsonDotAndCsv) {
    cudag::pc::PcResult r;
    r.names = {"a\"q", "b\\s", "tab\there"};
    r.skeleton = cudag::Graph(3);
    r.skeleton.add(0, 1);
    r.skeleton.add(1, 2);
    r.cpdag = cudag::Pdag(r.skeleton);
    TempDir dir;
    cudag::io::write_json(r, dir.file("g.json"));
    const std::string json = read_file(dir.file("g.json"));
    EXPECT_TRUE(JsonChecker(json).valid()) << json;
    EXPECT_NE(json.find("\"a\\\"q\""), std::string::npos);
    EXPECT_NE(json.find("\"b\\\\s\""), std::string::npos);
    EXPECT_NE(json.find("\"tab\\there\""), std::string::npos);
    cudag::io::write_dot(r, dir.file("g.dot"));
    const std::string dot = read_file(dir.file("g.dot"));
    EXPECT_NE(dot.find("\"a\\\"q\" -> \"b\\\\s\" [dir=none];"), std::string::npos) << dot;
    cudag::io::write_amat(r, dir.file("a.csv"));
    const std::string amat = read_file(dir.file("a.csv"));
    EXPECT_EQ(amat.substr(0, amat.find('\n')), "\"\",\"a\"\"q\",\"b\\s\",\"tab\there\"");
}

TEST(IoWriters, EmptyGraphWritesHeadersOnly) {
    cudag::pc::PcResult r;
    r.names = {"u", "v"};
    r.skeleton = cudag::Graph(2);
    r.cpdag = cudag::Pdag(r.skeleton);
    TempDir dir;
    cudag::io::write_edges(r, dir.file("e.tsv"));
    cudag::io::write_json(r, dir.file("g.json"));
    cudag::io::write_cl(r, dir.file("g.txt"));
    EXPECT_EQ(read_file(dir.file("e.tsv")), "source\ttarget\tmark\n");
    EXPECT_EQ(read_file(dir.file("g.txt")), "0 0\n0 0\n");
    const std::string json = read_file(dir.file("g.json"));
    EXPECT_TRUE(JsonChecker(json).valid()) << json;
    EXPECT_NE(json.find("\"links\": []"), std::string::npos) << json;
}

/// Eight variables whose names hold every delimiter of the text formats (tab, line breaks,
/// backslashes, quotes, commas, '#', '->', blanks), with edges of all three kinds and an
/// isolated variable.
cudag::pc::PcResult awkward_names_result() {
    cudag::pc::PcResult r;
    r.names = {"tab\there", "two\nlines", "back\\slash\\", "say \"hi\", ok",
               "cr\rlf",    "#hash",      "a -> b; c",     " spaced "};
    r.skeleton = cudag::Graph(8);
    for (auto [i, j] : {std::pair{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {0, 6}}) r.skeleton.add(i, j);
    r.cpdag = cudag::Pdag(r.skeleton);
    r.cpdag.orient(0, 1);                         // tab --> two lines
    r.cpdag.orient(3, 2);                         // say --> back slash
    r.cpdag.set(3, 4, Mark::Arrow, Mark::Arrow);  // say <-> cr
    r.cpdag.orient(5, 4);                         // #hash --> cr   (0-6 and 1-2 undirected)
    return r;
}

/// Whether `g` over `names` has exactly the edges and marks of `want` over `want_names`
/// (names of `g` must be among `want_names`; variables `g` lacks must be isolated in want).
testing::AssertionResult same_graph_by_name(const cudag::Pdag& g, const std::vector<std::string>& names,
                                            const cudag::Pdag& want, const std::vector<std::string>& want_names) {
    std::vector<std::int32_t> to(names.size(), -1);
    for (std::size_t k = 0; k < names.size(); ++k) {
        const auto it = std::find(want_names.begin(), want_names.end(), names[k]);
        if (it == want_names.end()) return testing::AssertionFailure() << "unexpected name '" << names[k] << "'";
        to[k] = static_cast<std::int32_t>(it - want_names.begin());
    }
    if (g.n_edges() != want.n_edges())
        return testing::AssertionFailure() << g.n_edges() << " edges read, " << want.n_edges() << " written";
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (std::int32_t j : g.neighbours(i))
            if (g.end(i, j) != want.end(to[i], to[j]))
                return testing::AssertionFailure()
                       << "mark at '" << names[i] << "' of edge to '" << names[j] << "' differs";
    return testing::AssertionSuccess();
}

// ---- reading the written formats back ---------------------------------------------------

TEST(IoWritersReadBack, EveryFormatListingAllVariablesGivesTheWrittenGraph) {
    TempDir dir;
    for (const auto& r : {four_node_result(), awkward_names_result()}) {
        const std::vector<std::pair<std::string, std::function<void(const std::string&)>>> writers = {
            {"g.dot", [&](const std::string& p) { cudag::io::write_dot(r, p); }},
            {"g.json", [&](const std::string& p) { cudag::io::write_json(r, p); }},
            {"g.amat.csv", [&](const std::string& p) { cudag::io::write_amat(r, p); }},
            {"g.h5", [&](const std::string& p) { cudag::pc::write_result_hdf5(r, p); }}};
        for (const auto& [name, write] : writers) {
            write(dir.file(name));
            const cudag::io::GraphFile f = cudag::io::read_graph_file(dir.file(name));
            EXPECT_EQ(f.names, r.names) << name;
            EXPECT_TRUE(f.graph == r.cpdag) << name;
            EXPECT_TRUE(f.lists_every_variable) << name;
            EXPECT_FALSE(f.names_by_position) << name;
        }
    }
}

TEST(IoWritersReadBack, CausalLearnMatrixGivesTheGraphOnX1ToXn) {
    TempDir dir;
    const auto r = awkward_names_result();
    cudag::io::write_cl(r, dir.file("g.cl.txt"));
    const cudag::io::GraphFile f = cudag::io::read_graph_file(dir.file("g.cl.txt"));
    EXPECT_TRUE(f.graph == r.cpdag);
    EXPECT_TRUE(f.names_by_position);
    EXPECT_EQ(f.names.front(), "X1");
    EXPECT_EQ(f.names.back(), "X8");
}

TEST(IoWritersReadBack, EdgeListGivesTheGraphWithEscapedNames) {
    TempDir dir;
    const auto r = awkward_names_result();
    cudag::io::write_edges(r, dir.file("g.edges.tsv"));
    const std::string text = read_file(dir.file("g.edges.tsv"));
    // One line per edge: no raw tab or line break inside a name.
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + r.cpdag.n_edges()) << text;
    EXPECT_NE(text.find("tab\\there\ttwo\\nlines\t-->\n"), std::string::npos) << text;
    EXPECT_NE(text.find("say \"hi\", ok\tback\\\\slash\\\\\t-->\n"), std::string::npos) << text;
    EXPECT_NE(text.find("#hash\tcr\\rlf\t-->\n"), std::string::npos) << text;
    const cudag::io::GraphFile f = cudag::io::read_graph_file(dir.file("g.edges.tsv"));
    EXPECT_FALSE(f.lists_every_variable);
    // The isolated " spaced " cannot appear; every other name comes back exactly.
    EXPECT_EQ(f.names.size(), 7u);
    EXPECT_TRUE(same_graph_by_name(f.graph, f.names, r.cpdag, r.names));
}

TEST(IoWritersReadBack, EscapeAndUnescapeAreInverse) {
    using cudag::io::tsv_escape;
    using cudag::io::tsv_unescape;
    EXPECT_EQ(tsv_escape("a\tb\nc\rd\\e"), "a\\tb\\nc\\rd\\\\e");
    for (const std::string s : {"", "plain", "\\", "\\t", "x\\\\n", "\t\n\r", "end\\"})
        EXPECT_EQ(tsv_unescape(tsv_escape(s)), s) << s;
    // Hand-written names keep a backslash before any other character.
    EXPECT_EQ(tsv_unescape("C:\\data\\x"), "C:\\data\\x");
    EXPECT_EQ(tsv_unescape("trailing\\"), "trailing\\");
}

// ---- HDF5 result --------------------------------------------------------------------

TEST(IoResultFile, LayoutReadsBackWithTheCApi) {
    TempDir dir;
    const std::string path = dir.file("res.h5");
    cudag::pc::write_result_hdf5(four_node_result(), path);
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    EXPECT_EQ(h5_string_attr(f, "format"), "cudag-pc-result-1");
    EXPECT_FALSE(h5_string_attr(f, "cudag_version").empty());

    std::vector<hsize_t> dims;
    const auto skel = h5_read<std::int32_t>(f, "/skeleton/edges", H5T_NATIVE_INT32, &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{4, 2}));
    EXPECT_EQ(skel, (std::vector<std::int32_t>{0, 2, 0, 3, 1, 2, 1, 3}));

    const auto cp = h5_read<std::int32_t>(f, "/cpdag/edges", H5T_NATIVE_INT32, &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{4, 3}));
    EXPECT_EQ(cp, (std::vector<std::int32_t>{0, 2, 1, 0, 3, 2, 1, 2, 0, 3, 1, 1}));

    const auto amat = h5_read<std::int8_t>(f, "/cpdag/amat", H5T_NATIVE_INT8, &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{4, 4}));
    EXPECT_EQ(amat, (std::vector<std::int8_t>{0, 0, 0, 2, 0, 0, 1, 1, 1, 1, 0, 0, 2, 0, 0, 0}));

    EXPECT_EQ(h5_read<std::int32_t>(f, "/sepsets/pairs", H5T_NATIVE_INT32, &dims),
              (std::vector<std::int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(dims, (std::vector<hsize_t>{2, 2}));
    EXPECT_EQ(h5_read<std::int64_t>(f, "/sepsets/offsets", H5T_NATIVE_INT64, nullptr),
              (std::vector<std::int64_t>{0, 2, 2}));
    EXPECT_EQ(h5_read<std::int32_t>(f, "/sepsets/nodes", H5T_NATIVE_INT32, nullptr), (std::vector<std::int32_t>{2, 3}));

    EXPECT_EQ(h5_read<double>(f, "/pmax/values", H5T_NATIVE_DOUBLE, nullptr), (std::vector<double>{0.25, 0.5}));
    const auto pm = h5_read<double>(f, "/pmax/matrix", H5T_NATIVE_DOUBLE, &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{4, 4}));
    EXPECT_EQ(pm[0 * 4 + 0], -1.0);
    EXPECT_EQ(pm[0 * 4 + 1], 0.25);
    EXPECT_EQ(pm[1 * 4 + 0], 0.25);
    EXPECT_EQ(pm[3 * 4 + 2], 0.5);
    EXPECT_TRUE(std::isnan(pm[0 * 4 + 2]));

    EXPECT_EQ(h5_read<std::int32_t>(f, "/levels/level", H5T_NATIVE_INT32, nullptr), (std::vector<std::int32_t>{0, 1}));
    EXPECT_EQ(h5_read<std::int64_t>(f, "/levels/tests", H5T_NATIVE_INT64, nullptr), (std::vector<std::int64_t>{6, 8}));
    EXPECT_EQ(h5_read<std::int64_t>(f, "/levels/edges_after", H5T_NATIVE_INT64, nullptr),
              (std::vector<std::int64_t>{5, 4}));
    EXPECT_EQ(h5_read<double>(f, "/levels/seconds", H5T_NATIVE_DOUBLE, nullptr), (std::vector<double>{0.5, 0.25}));

    const hid_t cfg = H5Gopen2(f, "/config", H5P_DEFAULT);
    ASSERT_GE(cfg, 0);
    EXPECT_EQ(h5_string_attr(cfg, "alpha"), "0.01");
    EXPECT_EQ(h5_string_attr(cfg, "input_path"), "/x/y.csv");
    EXPECT_EQ(h5_string_attr(cfg, "input_path_2"), "z");
    H5Gclose(cfg);

    std::int64_t n_samples = 0;
    const hid_t a = H5Aopen(f, "n_samples", H5P_DEFAULT);
    ASSERT_GE(a, 0);
    H5Aread(a, H5T_NATIVE_INT64, &n_samples);
    H5Aclose(a);
    EXPECT_EQ(n_samples, 500);
    H5Fclose(f);
}

TEST(IoResultFile, EmptyPartsAreZeroSizeDatasets) {
    cudag::pc::PcResult r;
    r.names = {"x", "y", "z"};
    r.skeleton = cudag::Graph(3);
    r.cpdag = cudag::Pdag(r.skeleton);
    TempDir dir;
    const std::string path = dir.file("empty.h5");
    cudag::pc::write_result_hdf5(r, path);
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    std::vector<hsize_t> dims;
    EXPECT_TRUE(h5_read<std::int32_t>(f, "/skeleton/edges", H5T_NATIVE_INT32, &dims).empty());
    EXPECT_EQ(dims, (std::vector<hsize_t>{0, 2}));
    EXPECT_TRUE(h5_read<std::int32_t>(f, "/cpdag/edges", H5T_NATIVE_INT32, &dims).empty());
    EXPECT_EQ(dims, (std::vector<hsize_t>{0, 3}));
    EXPECT_TRUE(h5_read<std::int32_t>(f, "/sepsets/nodes", H5T_NATIVE_INT32, &dims).empty());
    EXPECT_EQ(h5_read<std::int64_t>(f, "/sepsets/offsets", H5T_NATIVE_INT64, nullptr), (std::vector<std::int64_t>{0}));
    EXPECT_TRUE(h5_read<double>(f, "/levels/seconds", H5T_NATIVE_DOUBLE, &dims).empty());
    const auto pm = h5_read<double>(f, "/pmax/matrix", H5T_NATIVE_DOUBLE, &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{3, 3}));
    EXPECT_EQ(pm[4], -1.0);
    EXPECT_TRUE(std::isnan(pm[1]));
    H5Fclose(f);
}

TEST(IoResultFile, SanitizesConfigKeys) {
    EXPECT_EQ(cudag::io::h5::sanitize_attr_name("input path/x-y"), "input_path_x_y");
    EXPECT_EQ(cudag::io::h5::sanitize_attr_name(""), "_");
    EXPECT_EQ(cudag::io::h5::sanitize_attr_name("alpha_2"), "alpha_2");
}

// ---- format sets --------------------------------------------------------------------

TEST(IoWriteFormats, WritesEachFormatBesideTheResultAfterCommit) {
    TempDir dir;
    const std::string out = dir.file("run.H5");
    std::ostringstream warnings;
    {
        cudag::io::OutputSet outputs;
        cudag::io::write_formats(four_node_result(), out, {"edges", "cl", "amat", "json", "dot", "edges"}, outputs,
                                 warnings);
        // Before commit only hidden temporaries exist.
        for (const std::string& name : dir.listing()) EXPECT_EQ(name[0], '.') << name;
        outputs.commit();
    }
    EXPECT_EQ(dir.listing(),
              (std::vector<std::string>{"run.amat.csv", "run.cl.txt", "run.dot", "run.edges.tsv", "run.json"}));
    EXPECT_EQ(read_file(dir.file("run.cl.txt")), "0 0 -1 1\n0 0 -1 1\n1 -1 0 0\n1 -1 0 0\n");
    EXPECT_TRUE(warnings.str().empty());
    EXPECT_EQ(cudag::io::format_path("/a/b.hdf5", "edges"), "/a/b.edges.tsv");
    EXPECT_EQ(cudag::io::format_path("/a/b.out", "png"), "/a/b.out.png");
}

TEST(IoWriteFormats, UnknownFormatIsRejectedBeforeWritingAnything) {
    TempDir dir;
    std::ostringstream warnings;
    cudag::io::OutputSet outputs;
    try {
        cudag::io::write_formats(four_node_result(), dir.file("r.h5"), {"edges", "graphml"}, outputs, warnings);
        FAIL() << "no exception";
    } catch (const cudag::InputError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("'graphml'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("edges, dot, json, amat, cl, png, svg"), std::string::npos) << msg;
    }
    EXPECT_TRUE(dir.listing().empty());
    EXPECT_THROW(cudag::io::validate_formats({"svg", "PNG"}), cudag::InputError);
    EXPECT_NO_THROW(cudag::io::validate_formats({"svg", "png", "cl"}));
}

TEST(IoWriteFormats, MissingGraphvizIsAWarningAndLeavesNoFile) {
    TempDir dir;
    const char* old = std::getenv("PATH");
    const std::string saved = old ? old : "";
    fs::create_directories(dir.file("emptybin"));
    setenv("PATH", dir.file("emptybin").c_str(), 1);
    std::ostringstream warnings;
    {
        cudag::io::OutputSet outputs;
        cudag::io::write_formats(four_node_result(), dir.file("r.h5"), {"png", "edges"}, outputs, warnings);
        outputs.commit();
    }
    setenv("PATH", saved.c_str(), 1);
    EXPECT_EQ(warnings.str(), "warning: graphviz 'dot' not found on PATH: skipped " + dir.file("r.png") + "\n");
    EXPECT_EQ(dir.listing(), (std::vector<std::string>{"emptybin", "r.edges.tsv"}));
}

TEST(IoWriteFormats, RendersSvgWhenGraphvizIsInstalled) {
    TempDir dir;
    std::string message;
    const std::string path = dir.file("g.svg");
    if (!cudag::io::write_graphviz_image(four_node_result(), path, "svg", message)) {
        if (message.find("not found on PATH") != std::string::npos) GTEST_SKIP() << message;
        FAIL() << message;
    }
    const std::string svg = read_file(path);
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_EQ(dir.listing(), (std::vector<std::string>{"g.svg"}));  // temporary DOT removed
    EXPECT_THROW(cudag::io::write_graphviz_image(four_node_result(), path, "gif", message), cudag::InputError);
}

// ---- OutputSet ----------------------------------------------------------------------

TEST(IoOutputSet, CommitRenamesTemporariesOntoFinals) {
    TempDir dir;
    const std::string final_path = dir.file("out.txt");
    write_file(final_path, "old");
    cudag::io::OutputSet outputs;
    const std::string temp = outputs.temp_for(final_path);
    EXPECT_EQ(fs::path(temp).parent_path(), fs::path(final_path).parent_path());
    EXPECT_EQ(fs::path(temp).filename().string().rfind(".out.txt.tmp.", 0), 0u) << temp;
    EXPECT_EQ(outputs.temp_for(final_path), temp);
    write_file(temp, "new");
    EXPECT_EQ(read_file(final_path), "old");
    outputs.commit();
    EXPECT_TRUE(outputs.committed());
    EXPECT_EQ(read_file(final_path), "new");
    EXPECT_FALSE(fs::exists(temp));
}

TEST(IoOutputSet, ExceptionBeforeCommitRemovesTemporariesAndKeepsOldFiles) {
    TempDir dir;
    const std::string kept = dir.file("kept.txt");
    const std::string fresh = dir.file("fresh.txt");
    write_file(kept, "old");
    std::string t1, t2;
    try {
        cudag::io::OutputSet outputs;
        t1 = outputs.temp_for(kept);
        t2 = outputs.temp_for(fresh);
        write_file(t1, "partial");
        write_file(t2, "partial");
        throw std::runtime_error("run failed");
    } catch (const std::runtime_error&) {
    }
    EXPECT_FALSE(fs::exists(t1));
    EXPECT_FALSE(fs::exists(t2));
    EXPECT_FALSE(fs::exists(fresh));
    EXPECT_EQ(read_file(kept), "old");
    EXPECT_EQ(dir.listing(), (std::vector<std::string>{"kept.txt"}));
}

TEST(IoOutputSet, DiscardAndUnwrittenTemporaries) {
    TempDir dir;
    cudag::io::OutputSet outputs;
    const std::string a = outputs.temp_for(dir.file("a"));
    const std::string b = outputs.temp_for(dir.file("b"));
    write_file(a, "x");
    outputs.discard(dir.file("a"));
    EXPECT_FALSE(fs::exists(a));
    EXPECT_EQ(outputs.final_paths(), (std::vector<std::string>{dir.file("b")}));
    // b's temporary was never written: commit says so.
    EXPECT_THROW(outputs.commit(), cudag::InputError);
    write_file(b, "y");
    outputs.commit();
    EXPECT_EQ(dir.listing(), (std::vector<std::string>{"b"}));
}

TEST(IoOutputSet, MissingDirectoryIsAnInputError) {
    TempDir dir;
    cudag::io::OutputSet outputs;
    try {
        outputs.temp_for(dir.file("no/such/out.h5"));
        FAIL() << "no exception";
    } catch (const cudag::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
    }
}

TEST(IoOutputSet, ResultWrittenThroughTemporaryIsReadable) {
    TempDir dir;
    const std::string final_path = dir.file("res.h5");
    {
        cudag::io::OutputSet outputs;
        cudag::pc::write_result_hdf5(four_node_result(), outputs.temp_for(final_path));
        outputs.commit();
    }
    const hid_t f = H5Fopen(final_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    EXPECT_EQ(h5_string_attr(f, "format"), cudag::io::pc_result_format);
    H5Fclose(f);
    EXPECT_EQ(dir.listing(), (std::vector<std::string>{"res.h5"}));
}
