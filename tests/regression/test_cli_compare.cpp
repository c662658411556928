// SPDX-License-Identifier: Apache-2.0
// `cudag compare` end to end: it reads every graph format `cudag pc` writes, keeps stdout
// pure JSON under --json -, and refuses graphs over different variable sets in one line.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_run.hpp"
#include "support/paths.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::CliRun;
using cudag::test::slurp;

class CliCompare : public ::testing::Test {
protected:
    void SetUp() override {
        std::string name = "cudag_cli_compare_";
        name += ::testing::UnitTest::GetInstance()->current_test_info()->name();
        name += '_';
        name += std::to_string(::getpid());
        dir_ = fs::temp_directory_path() / name;
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    CliRun run(const std::string& args) const { return cudag::test::run_cudag(args, dir_); }
    std::string write(const std::string& name, const std::string& text) const {
        const fs::path p = dir_ / name;
        std::ofstream(p, std::ios::binary) << text;
        return p.string();
    }
    std::string compare(const std::string& truth, const std::string& estimate) const {
        return "compare --truth '" + truth + "' --estimate '" + estimate + "'";
    }
    /// A failing run: exit 1, exactly one line on stderr holding every part of `what`.
    void expect_error(const std::string& args, const std::vector<std::string>& what) const {
        const CliRun r = run(args);
        EXPECT_EQ(r.code, 1) << args;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr: " << r.err;
        for (const std::string& w : what)
            EXPECT_NE(r.err.find(w), std::string::npos) << "stderr: " << r.err << " (wanted '" << w << "')";
    }

    fs::path dir_;
};

std::string source_file(const std::string& rel) { return std::string(CUDAG_SOURCE_DIR) + "/" + rel; }

/// Whether `s` is one JSON object of "key": number members and nothing else around it.
bool is_flat_json_object(const std::string& s) {
    std::size_t i = 0;
    auto ws = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
    };
    ws();
    if (i >= s.size() || s[i++] != '{') return false;
    for (bool first = true;; first = false) {
        ws();
        if (i < s.size() && s[i] == '}' && first) break;
        if (i >= s.size() || s[i++] != '"') return false;
        while (i < s.size() && s[i] != '"') ++i;
        if (i++ >= s.size()) return false;
        ws();
        if (i >= s.size() || s[i++] != ':') return false;
        ws();
        const std::size_t start = i;
        while (i < s.size() && std::string_view("+-.0123456789eE").find(s[i]) != std::string::npos) ++i;
        if (i == start) return false;
        ws();
        if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
        }
        if (i < s.size() && s[i] == '}') break;
        return false;
    }
    ++i;
    ws();
    return i == s.size();
}

/// 60 samples of a chain a -> b -> c plus an independent d, with the given header line.
std::string chain_csv(const std::string& header) {
    std::ostringstream os;
    os << header << '\n';
    unsigned x = 12345;
    auto u = [&x]() {
        x = x * 1103515245u + 12345u;
        return ((x >> 8) & 0xffff) / 65536.0 - 0.5;
    };
    for (int s = 0; s < 60; ++s) {
        const double a = u();
        const double b = 0.9 * a + 0.3 * u();
        const double c = 0.9 * b + 0.3 * u();
        const double d = u();
        os << a << ',' << b << ',' << c << ',' << d << '\n';
    }
    return os.str();
}

}  // namespace

TEST_F(CliCompare, JsonToStdoutIsOnlyJson) {
    const std::string truth = source_file("data/gaussian_20.truth.tsv");
    const CliRun r = run(compare(truth, truth) + " --json -");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(is_flat_json_object(r.out)) << "stdout: " << r.out;
    EXPECT_NE(r.out.find("\"f1\": 1"), std::string::npos) << r.out;
    // The table goes to stderr instead.
    EXPECT_NE(r.err.find("F1"), std::string::npos) << "stderr: " << r.err;
}

TEST_F(CliCompare, TableOnStdoutWithoutJsonOrWithAJsonFile) {
    const std::string truth = source_file("data/gaussian_20.truth.tsv");
    const std::string json = (dir_ / "m.json").string();
    const CliRun r = run(compare(truth, truth) + " --json '" + json + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("F1"), std::string::npos) << r.out;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_TRUE(is_flat_json_object(slurp(json))) << slurp(json);
}

TEST_F(CliCompare, ReadsEveryFormatPcWrites) {
    const std::string res = (dir_ / "r.h5").string();
    const CliRun pc = run("pc --data '" + source_file("data/gaussian_20.csv") + "' --out '" + res +
                          "' --format edges,dot,json,amat,cl -q");
    ASSERT_EQ(pc.code, 0) << pc.err;
    const std::string truth = source_file("data/gaussian_20.truth.tsv");
    const CliRun base = run(compare(truth, (dir_ / "r.edges.tsv").string()) + " --json -");
    ASSERT_EQ(base.code, 0) << base.err;
    ASSERT_TRUE(is_flat_json_object(base.out)) << base.out;
    EXPECT_EQ(base.out.find("\"tp\": 0,"), std::string::npos) << "learned nothing? " << base.out;
    for (const char* f : {"r.dot", "r.json", "r.amat.csv", "r.cl.txt", "r.h5"}) {
        const CliRun c = run(compare(truth, (dir_ / f).string()) + " --json -");
        EXPECT_EQ(c.code, 0) << f << ": " << c.err;
        EXPECT_EQ(c.out, base.out) << f;
    }
    // Each output is also a truth: the estimate compared with itself, in any other format.
    for (const char* f : {"r.dot", "r.json", "r.amat.csv", "r.cl.txt", "r.h5"}) {
        const CliRun c = run(compare((dir_ / f).string(), res) + " --json -");
        EXPECT_EQ(c.code, 0) << f << ": " << c.err;
        EXPECT_NE(c.out.find("\"shd\": 0"), std::string::npos) << f << ": " << c.out;
        EXPECT_NE(c.out.find("\"fp\": 0,"), std::string::npos) << f << ": " << c.out;
    }
}

TEST_F(CliCompare, NamesWithTabsBackslashesAndQuotesRoundTrip) {
    // Quoted CSV header names holding a tab, backslashes (one before an n), a quote and a
    // comma. (The data reader takes no line break inside a name; the unit tests cover it.)
    const std::string data = write("odd.csv", chain_csv("\"a\tx\",\"b\\n\",\"c\\d\",\"d \"\"q\"\", e\""));
    const std::string res = (dir_ / "r.h5").string();
    const CliRun pc = run("pc --data '" + data + "' --out '" + res + "' --format edges,dot,json,amat -q");
    ASSERT_EQ(pc.code, 0) << pc.err;
    const std::string edges = slurp(dir_ / "r.edges.tsv");
    EXPECT_NE(edges.find("a\\tx\tb\\\\n\t---\n"), std::string::npos) << edges;
    for (const char* f : {"r.edges.tsv", "r.dot", "r.json", "r.amat.csv", "r.h5"}) {
        for (const char* g : {"r.edges.tsv", "r.dot", "r.json", "r.amat.csv", "r.h5"}) {
            const CliRun c = run(compare((dir_ / f).string(), (dir_ / g).string()) + " --json -");
            EXPECT_EQ(c.code, 0) << f << " vs " << g << ": " << c.err;
            EXPECT_NE(c.out.find("\"shd\": 0"), std::string::npos) << f << " vs " << g << c.out;
            EXPECT_NE(c.out.find("\"tp\": 2,"), std::string::npos) << f << " vs " << g << c.out;
        }
    }
}

TEST_F(CliCompare, EstimateNamingAVariableTheTruthLacksIsRefused) {
    const std::string truth = write("t.tsv", "source\ttarget\tmark\nA\tB\t-->\nB\tC\t-->\n");
    const std::string est = write("e.tsv", "source\ttarget\tmark\nA\tB\t---\nQ\tR\t---\n");
    expect_error(compare(truth, est), {"e.tsv", "'Q'", "2 of the estimate's 4 variables"});
    // The truth lists every variable: a full-list estimate with an extra one is refused too.
    const std::string full = write("t.txt", "Graph Nodes:\nA;B;C\n\nGraph Edges:\n1. A --> B\n");
    const std::string mat = write("e.json",
                                  "{\"directed\": true, \"nodes\": [{\"id\": \"A\"}, {\"id\": "
                                  "\"B\"}, {\"id\": \"C\"}, {\"id\": \"D\"}], \"links\": []}");
    expect_error(compare(full, mat), {"e.json", "'D'", "1 of the estimate's 4 variables"});
}

TEST_F(CliCompare, EdgeListEstimateMayOmitIsolatedVariables) {
    const std::string truth = write("t.txt", "Graph Nodes:\nA;B;C;D\n\nGraph Edges:\n1. A --> B\n");
    // The truth is a DAG, compared as its CPDAG A --- B.
    const std::string est = write("e.tsv", "source\ttarget\tmark\nA\tB\t---\n");
    const CliRun r = run(compare(truth, est) + " --json -");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"shd\": 0"), std::string::npos) << r.out;
}

TEST_F(CliCompare, FullListEstimateOverOtherVariablesIsRefused) {
    const std::string truth = write("t.txt", "Graph Nodes:\nA;B;C;D\n\nGraph Edges:\n1. A --> B\n");
    const std::string amat = write("e.amat.csv", "\"\",\"A\",\"B\",\"C\"\n\"A\",0,0,0\n\"B\",1,0,0\n\"C\",0,0,0\n");
    expect_error(compare(truth, amat), {"e.amat.csv", "'D'", "1 of the truth's 4 variables"});
    const std::string dot = write("e.dot", "digraph { A; B; C; A -> B; }\n");
    expect_error(compare(truth, dot), {"e.dot", "'D'", "1 of the truth's 4 variables"});
    // A DOT file without node statements is an edge list: absent variables are isolated.
    const std::string edges_only = write("f.dot", "digraph { A -> B [dir=none]; }\n");
    const CliRun r = run(compare(truth, edges_only) + " --json -");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"shd\": 0"), std::string::npos) << r.out;
}

TEST_F(CliCompare, EdgeListTruthOmitsIsolatedVariablesOfAFullEstimate) {
    // The truth edge list cannot name D (no edges); the estimate lists it: D is isolated in
    // the truth, and the estimate's false edge on it counts.
    const std::string truth = write("t.tsv", "source\ttarget\tmark\nA\tB\t-->\n");
    const std::string est = write("e.dot", "digraph { A; B; D; A -> B [dir=none]; B -> D [dir=none]; }\n");
    const CliRun r = run(compare(truth, est) + " --json -");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"fp\": 1,"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"shd\": 1"), std::string::npos) << r.out;
    // But a variable the truth names must be in a full-list estimate.
    const std::string bad = write("b.dot", "digraph { B; D; B -> D; }\n");
    expect_error(compare(truth, bad), {"b.dot", "'A'", "1 of the truth's 2 variables"});
}

TEST_F(CliCompare, UnreadableGraphIsOneLineNamingTheFile) {
    const std::string truth = source_file("data/gaussian_20.truth.tsv");
    expect_error(compare(truth, write("bad.json", "{\"nodes\": [}")), {"bad.json:1"});
    expect_error(compare(truth, write("bad.dot", "digraph { A -> ; }")), {"bad.dot:1"});
    // (Code 3 is a tail in pcalg's amat.pag, which compare reads since it reads PAGs: 4 is no code.)
    expect_error(compare(truth, write("bad.amat.csv", "\"\",\"A\",\"B\"\n\"A\",0,4\n\"B\",1,0\n")),
                 {"bad.amat.csv:2", "column 3"});
}

// Issue 33 item 12: an MCMC run's files give one answer. r.h5 is read as its best DAG
// (/best_dag), the graph of r.edges.tsv, .dot, .json, .amat.csv and .cl.txt; a DAG is
// compared as its CPDAG (truth and estimate alike), so that r.cpdag.tsv agrees too; the
// table names the graph each file gave.
TEST_F(CliCompare, McmcResultFilesGiveOneAnswer) {
    const std::string d = (dir_ / "d.csv").string(), truth = (dir_ / "t.tsv").string();
    CliRun r =
        run("simulate discrete --vars 9 --samples 500 --density 0.35 --states 3 --max-parents 2 --seed 8 --out '" + d +
            "' --truth '" + truth + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    r = run("mcmc -q --data '" + d + "' --score bdeu --max-parents 2 --iterations 400 --out '" +
            (dir_ / "r.h5").string() + "' --format edges,dot,json,amat,cl,cpdag");
    ASSERT_EQ(r.code, 0) << r.err;
    const CliRun base = run(compare(truth, (dir_ / "r.h5").string()) + " --json -");
    ASSERT_EQ(base.code, 0) << base.err;
    ASSERT_TRUE(is_flat_json_object(base.out)) << base.out;
    EXPECT_NE(base.err.find("estimate: " + (dir_ / "r.h5").string() +
                            " (cudag result: /best_dag, the MCMC run's best DAG), a DAG: compared as its CPDAG"),
              std::string::npos)
        << base.err;
    EXPECT_NE(base.err.find("truth:    " + truth + " (edge list), a DAG: compared as its CPDAG"), std::string::npos)
        << base.err;
    for (const char* f : {"r.edges.tsv", "r.dot", "r.json", "r.amat.csv", "r.cl.txt", "r.cpdag.tsv"}) {
        const CliRun c = run(compare(truth, (dir_ / f).string()) + " --json -");
        EXPECT_EQ(c.code, 0) << f << ": " << c.err;
        EXPECT_EQ(c.out, base.out) << f;
    }
    // Without --json the names head the table on stdout.
    const CliRun t = run(compare(truth, (dir_ / "r.h5").string()));
    ASSERT_EQ(t.code, 0) << t.err;
    EXPECT_EQ(t.out.rfind("truth:    " + truth, 0), 0u) << t.out;
    EXPECT_TRUE(t.err.empty()) << t.err;
}

// A graph from a pipe (bash's <(...)): it is read twice (format, then graph), so it is
// refused in one line; it crashed (the second read found no lines).
TEST_F(CliCompare, GraphFromAPipeIsOneLine) {
    const std::string truth = write("t.tsv", "source\ttarget\tmark\nA\tB\t-->\n");
    const std::string fifo = (dir_ / "g.fifo").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expect_error(compare(truth, fifo), {fifo + ": a graph file must be a regular file"});
}
