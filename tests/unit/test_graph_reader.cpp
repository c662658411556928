// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "io/graph_reader.hpp"
#include "support/paths.hpp"

namespace cudag::io {
namespace {

namespace fs = std::filesystem;

/// A scratch folder removed at the end of each test.
class GraphReader : public testing::Test {
protected:
    void SetUp() override {
        // Built with += : GCC 12 gives a false -Wrestrict on "literal" + std::string.
        std::string name = "cudag_graph_reader_";
        name += std::to_string(::getpid());
        name += '_';
        name += testing::UnitTest::GetInstance()->current_test_info()->name();
        dir_ = fs::temp_directory_path() / name;
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string write(const std::string& name, const std::string& text) const {
        const std::string path = (dir_ / name).string();
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    /// The message of the InputError that reading `path` throws ("" when none).
    static std::string error_of(const std::string& path, std::vector<std::string> names = {}) {
        try {
            read_graph(path, names);
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    }

    fs::path dir_;
};

std::string shared_causal_learn() {
    const std::string dir = test::shared_data_dir();
    return dir.empty() ? "" : dir + "/causal-learn/";
}

TEST_F(GraphReader, ReadsCausalLearnGraphFile) {
    const std::string cl = shared_causal_learn();
    if (cl.empty()) GTEST_SKIP() << "shared data (../shared/data/causal-learn) not found";
    std::vector<std::string> names;
    const Pdag g = read_graph(cl + "graph.10.txt", names);
    ASSERT_EQ(names.size(), 20u);
    EXPECT_EQ(names[0], "X1");
    EXPECT_EQ(names[19], "X20");
    EXPECT_EQ(g.n(), 20);
    EXPECT_EQ(g.n_edges(), 30);
    EXPECT_TRUE(g.is_directed(0, 12));  // 1. X1 --> X13
    EXPECT_TRUE(g.is_directed(9, 11));  // 5. X10 --> X12
    EXPECT_TRUE(g.is_directed(7, 8));   // 30. X8 --> X9
    EXPECT_FALSE(g.adjacent(0, 1));
}

TEST_F(GraphReader, MapsOntoGivenNames) {
    const std::string cl = shared_causal_learn();
    if (cl.empty()) GTEST_SKIP() << "shared data (../shared/data/causal-learn) not found";
    std::vector<std::string> names;  // X22..X1: reversed, two nodes the file lacks
    for (int i = 22; i >= 1; --i) names.push_back(std::string("X").append(std::to_string(i)));
    const Pdag g = read_graph(cl + "graph.10.txt", names);
    ASSERT_EQ(names.size(), 22u);
    EXPECT_EQ(g.n(), 22);
    EXPECT_EQ(g.n_edges(), 30);
    EXPECT_TRUE(g.is_directed(22 - 1, 22 - 13));  // X1 --> X13
    const std::string msg = error_of(cl + "graph.10.txt", {"X1", "X2"});
    EXPECT_NE(msg.find("node 'X3'"), std::string::npos) << msg;
}

TEST_F(GraphReader, ReadsCausalLearnMatrix) {
    const std::string cl = shared_causal_learn();
    if (cl.empty()) GTEST_SKIP() << "shared data (../shared/data/causal-learn) not found";
    std::vector<std::string> names;
    const Pdag g = read_graph(
        cl + "benchmark_returned_results/linear_10_pc_fisherz_0.05_stable_0_0.txt", names);
    ASSERT_EQ(names.size(), 20u);
    EXPECT_EQ(names[3], "X4");
    EXPECT_EQ(g.n_edges(), 27);
    EXPECT_TRUE(g.is_directed(0, 3));  // G[1,4] = -1, G[4,1] = 1
    EXPECT_TRUE(g.is_directed(1, 2));  // G[2,3] = -1, G[3,2] = 1
    EXPECT_EQ(g.end(0, 3), Mark::Tail);
    EXPECT_EQ(g.end(3, 0), Mark::Arrow);
}

TEST_F(GraphReader, ReadsEveryBnlearnTruth) {
    const std::string cl = shared_causal_learn();
    if (cl.empty()) GTEST_SKIP() << "shared data (../shared/data/causal-learn) not found";
    int files = 0;
    for (const auto& e : fs::directory_iterator(cl + "bnlearn_discrete_10000/truth_dag_graph")) {
        std::vector<std::string> names;
        const Pdag g = read_graph(e.path().string(), names);
        std::ifstream in(e.path());
        std::string line;
        std::int64_t arrows = 0;
        while (std::getline(in, line)) arrows += line.find(" --> ") != std::string::npos;
        EXPECT_EQ(g.n_edges(), arrows) << e.path();
        EXPECT_EQ(g.n(), static_cast<std::int64_t>(names.size()));
        ++files;
    }
    EXPECT_EQ(files, 14);
}

TEST_F(GraphReader, TetradVariants) {
    // Names after the colon, comma separators, CRLF, a trailing attributes section.
    const std::string p = write("t.txt",
                                "Graph Nodes: A,B,C,D\r\n\r\nGraph Edges:\r\n1. A --> B\r\n"
                                "2. C <-> B\r\n3. C --- D\r\n4. D <-- A\r\n\r\n"
                                "Graph Attributes:\r\nScore: 1.0\r\n");
    std::vector<std::string> names;
    const Pdag g = read_graph(p, names);
    EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "C", "D"}));
    EXPECT_EQ(g.n_edges(), 4);
    EXPECT_TRUE(g.is_directed(0, 1));
    EXPECT_TRUE(g.is_bidirected(1, 2));
    EXPECT_TRUE(g.is_undirected(2, 3));
    EXPECT_TRUE(g.is_directed(0, 3));
}

TEST_F(GraphReader, TsvRoundTrip) {
    const std::vector<std::string> names{"gene_a", "gene_b", "gene_c", "gene_d"};
    const std::vector<std::tuple<std::int32_t, std::int32_t, double>> edges{
        {0, 1, 0.1}, {0, 3, 0.5306122448979592}, {2, 3, 1.0}};
    const std::string p = (dir_ / "truth.tsv").string();
    write_truth_tsv(names, edges, p);
    EXPECT_FALSE(fs::exists(p + ".tmp"));
    std::ifstream in(p);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text,
              "source\ttarget\tmark\tweight\n"
              "gene_a\tgene_b\t-->\t0.1\n"
              "gene_a\tgene_d\t-->\t0.5306122448979592\n"
              "gene_c\tgene_d\t-->\t1\n");
    std::vector<std::string> got_names;
    const Pdag g = read_graph(p, got_names);
    // Nodes come in order of first appearance: gene_c before gene_d.
    EXPECT_EQ(got_names, (std::vector<std::string>{"gene_a", "gene_b", "gene_d", "gene_c"}));
    std::vector<std::string> given = names;
    const Pdag h = read_graph(p, given);
    EXPECT_EQ(given, names);
    Pdag want{Graph(4)};
    want.orient(0, 1);
    want.orient(0, 3);
    want.orient(2, 3);
    EXPECT_EQ(h, want);
    EXPECT_EQ(g.n_edges(), 3);
    EXPECT_TRUE(g.is_directed(3, 2));  // gene_c --> gene_d
}

TEST_F(GraphReader, TsvMarksAndColumnOrder) {
    const std::string p = write("e.tsv",
                                "mark\ttarget\tsource\tp\n-->\tY\tX\t0.01\n---\tZ\tY\t0.2\n"
                                "<->\tW\tZ\t0.3\n");
    std::vector<std::string> names{"W", "X", "Y", "Z"};
    const Pdag g = read_graph(p, names);
    EXPECT_TRUE(g.is_directed(1, 2));
    EXPECT_TRUE(g.is_undirected(2, 3));
    EXPECT_TRUE(g.is_bidirected(0, 3));
    EXPECT_EQ(g.n_edges(), 3);
}

TEST_F(GraphReader, RejectsBadInput) {
    auto has = [](const std::string& msg, const std::string& part) {
        return msg.find(part) != std::string::npos;
    };
    std::string m = error_of((dir_ / "missing.txt").string());
    EXPECT_TRUE(has(m, "cannot open")) << m;
    m = error_of(write("c.tsv", "source\ttarget\tmark\nA\tB\to->\n"));
    EXPECT_TRUE(has(m, "c.tsv:2:") && has(m, "circle")) << m;
    m = error_of(write("k.tsv", "source\ttarget\tmark\nA\tB\t==>\n"));
    EXPECT_TRUE(has(m, "unknown edge mark")) << m;
    m = error_of(write("s.tsv", "source\ttarget\tmark\nA\tA\t-->\n"));
    EXPECT_TRUE(has(m, "self loop")) << m;
    m = error_of(write("d.tsv", "source\ttarget\tmark\nA\tB\t-->\nB\tA\t-->\n"));
    EXPECT_TRUE(has(m, "d.tsv:3:") && has(m, "different marks")) << m;
    m = error_of(write("h.tsv", "source\ttarget\nA\tB\n"));
    EXPECT_TRUE(has(m, "'mark'")) << m;
    m = error_of(write("u.tsv", "source\ttarget\tmark\nA\tQ\t-->\n"), {"A", "B"});
    EXPECT_TRUE(has(m, "node 'Q'")) << m;
    m = error_of(write("a.mat", "0 -1\n0 0\n"));
    EXPECT_TRUE(has(m, "a.mat:1:")) << m;
    m = error_of(write("r.mat", "0 -1 0\n1 0\n"));
    EXPECT_TRUE(has(m, "r.mat:1:")) << m;
    m = error_of(write("two.mat", "0 2\n2 0\n"));
    EXPECT_TRUE(has(m, "circle")) << m;
    m = error_of(write("n.mat", "0 -1\n1 0\n"), {"A", "B", "C"});
    EXPECT_TRUE(has(m, "3 variables")) << m;
    m = error_of(write("t.txt", "Graph Nodes:\nA;B\n\nGraph Edges:\n1. A --> C\n"));
    EXPECT_TRUE(has(m, "t.txt:5:") && has(m, "'C'")) << m;
    m = error_of(write("x.h5", std::string("\x89HDF\r\n\x1a\n", 8) + std::string(8, '\0')));
    EXPECT_TRUE(has(m, "HDF5")) << m;
    m = error_of(write("junk.txt", "hello world\n"));
    EXPECT_TRUE(has(m, "unknown graph format")) << m;
    m = error_of(write("empty.txt", "\n\n"));
    EXPECT_TRUE(has(m, "empty")) << m;
}

TEST_F(GraphReader, MatrixWithGivenNames) {
    const std::string p = write("g.txt", "0 -1 0\n1 0 -1\n0 -1 0\n");
    std::vector<std::string> names{"a", "b", "c"};
    const Pdag g = read_graph(p, names);
    EXPECT_TRUE(g.is_directed(0, 1));
    EXPECT_TRUE(g.is_undirected(1, 2));
    std::vector<std::string> none;
    read_graph(p, none);
    EXPECT_EQ(none, (std::vector<std::string>{"X1", "X2", "X3"}));
}

TEST_F(GraphReader, WriteTruthRejectsBadEdges) {
    EXPECT_THROW(write_truth_tsv({"A"}, {{0, 1, 0.5}}, (dir_ / "x.tsv").string()), InputError);
    EXPECT_THROW(write_truth_tsv({"A", "B"}, {{0, 1, 0.5}}, (dir_ / "no/such/x.tsv").string()),
                 InputError);
}

}  // namespace
}  // namespace cudag::io
