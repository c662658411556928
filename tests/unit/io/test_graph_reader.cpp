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
#include "io/hdf5_file.hpp"
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

/// Whether the message `msg` contains `part`.
bool has(const std::string& msg, const std::string& part) { return msg.find(part) != std::string::npos; }

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
    const Pdag g = read_graph(cl + "benchmark_returned_results/linear_10_pc_fisherz_0.05_stable_0_0.txt", names);
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

TEST_F(GraphReader, TsvNamesAreUnescapedAndHashIsANameAfterTheHeader) {
    const std::string p = write("e.tsv",
                                "# a comment before the header\n"
                                "source\ttarget\tmark\n"
                                "a\\tb\tc\\\\d\t-->\n"
                                "#e\tline\\nbreak\t---\n"
                                "C:\\data\tc\\\\d\t<->\n");
    std::vector<std::string> names;
    const Pdag g = read_graph(p, names);
    EXPECT_EQ(names, (std::vector<std::string>{"a\tb", "c\\d", "#e", "line\nbreak", "C:\\data"}));
    EXPECT_TRUE(g.is_directed(0, 1));
    EXPECT_TRUE(g.is_undirected(2, 3));
    EXPECT_TRUE(g.is_bidirected(4, 1));
}

TEST_F(GraphReader, WriteTruthEscapesNames) {
    const std::vector<std::string> names{"x\ty", "back\\slash", "n\nl"};
    const std::string p = (dir_ / "truth.tsv").string();
    write_truth_tsv(names, {{0, 1, 0.5}, {1, 2, 1.0}}, p);
    std::ifstream in(p);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text,
              "source\ttarget\tmark\tweight\n"
              "x\\ty\tback\\\\slash\t-->\t0.5\n"
              "back\\\\slash\tn\\nl\t-->\t1\n");
    std::vector<std::string> got;
    read_graph(p, got);
    EXPECT_EQ(got, names);
}

TEST_F(GraphReader, PcalgAmatCsvAsRAndPandasWriteIt) {
    // R's write.csv: quoted names after an empty quoted corner; a name with a comma, a
    // doubled quote and a line break.
    const std::string r = write("r.csv",
                                "\"\",\"A\",\"B, \"\"b\"\"\",\"C\nc\"\n"
                                "\"A\",0,0,2\n"
                                "\"B, \"\"b\"\"\",1,0,1\n"
                                "\"C\nc\",2,1,0\n");
    const GraphFile f = read_graph_file(r);
    EXPECT_EQ(f.format, "pcalg amat");
    EXPECT_TRUE(f.lists_every_variable);
    EXPECT_EQ(f.names, (std::vector<std::string>{"A", "B, \"b\"", "C\nc"}));
    EXPECT_TRUE(f.graph.is_directed(0, 1));    // amat[A,B] = 0, amat[B,A] = 1
    EXPECT_TRUE(f.graph.is_bidirected(0, 2));  // 2/2
    EXPECT_TRUE(f.graph.is_undirected(1, 2));  // 1/1
    // pandas' to_csv: unquoted names after an empty corner, CRLF line ends.
    const std::string pd = write("p.csv", ",x,y\r\nx,0,1\r\ny,0,0\r\n");
    const GraphFile h = read_graph_file(pd);
    EXPECT_EQ(h.names, (std::vector<std::string>{"x", "y"}));
    EXPECT_TRUE(h.graph.is_directed(1, 0));  // amat[x,y] = 1, amat[y,x] = 0: y --> x
}

TEST_F(GraphReader, PcalgAmatErrorsNameLineAndColumn) {
    std::string m = error_of(write("a.csv", ",A,B\nA,0,3\nB,1,0\n"));
    EXPECT_TRUE(has(m, "a.csv:2: column 3") && has(m, "'3'")) << m;
    m = error_of(write("b.csv", ",A,B\nB,0,1\nA,0,0\n"));
    EXPECT_TRUE(has(m, "b.csv:2:") && has(m, "'B'") && has(m, "'A'")) << m;
    m = error_of(write("c.csv", ",A,B\nA,0,1\nB,1,0\n"));  // 1/1 is fine: undirected
    EXPECT_EQ(m, "");
    m = error_of(write("d.csv", ",A,B\nA,0,2\nB,1,0\n"));
    EXPECT_TRUE(has(m, "d.csv:2: column 3") && has(m, "cpdag coding")) << m;
    m = error_of(write("e.csv", ",A,B\nA,0,0\n"));
    EXPECT_TRUE(has(m, "1 rows") && has(m, "2 variables")) << m;
    m = error_of(write("f.csv", "\"\",\"A\nB\n"));
    EXPECT_TRUE(has(m, "f.csv:1: column 2") && has(m, "not closed")) << m;
    m = error_of(write("g.csv", ",A,B\nA,0\nB,0,0\n"));
    EXPECT_TRUE(has(m, "g.csv:2:") && has(m, "2 fields")) << m;
    m = error_of(write("h.csv", ",A,A\nA,0,0\nA,0,0\n"));
    EXPECT_TRUE(has(m, "'A' is listed twice")) << m;
}

TEST_F(GraphReader, NodeLinkJsonFromCudagAndNetworkx) {
    // cudag's own: marks on every link, undirected and bidirected ones in both directions.
    const std::string c = write("c.json",
                                "{\"directed\": true, \"multigraph\": false, \"graph\": {},\n"
                                " \"nodes\": [{\"id\": \"A\"}, {\"id\": \"B\\tb\"}, {\"id\": "
                                "\"C\"}, {\"id\": \"\\u00e9\\ud83d\\ude00\"}],\n"
                                " \"links\": [{\"source\": \"A\", \"target\": \"B\\tb\", "
                                "\"mark\": \"-->\"},\n"
                                "  {\"source\": \"B\\tb\", \"target\": \"C\", \"mark\": \"---\"},\n"
                                "  {\"source\": \"C\", \"target\": \"B\\tb\", \"mark\": \"---\"},\n"
                                "  {\"source\": \"C\", \"target\": \"A\", \"mark\": \"<->\"}]}\n");
    const GraphFile f = read_graph_file(c);
    EXPECT_EQ(f.format, "node-link JSON");
    EXPECT_EQ(f.names, (std::vector<std::string>{"A", "B\tb", "C", "\xC3\xA9\xF0\x9F\x98\x80"}));
    EXPECT_TRUE(f.graph.is_directed(0, 1));
    EXPECT_TRUE(f.graph.is_undirected(1, 2));
    EXPECT_TRUE(f.graph.is_bidirected(0, 2));
    EXPECT_EQ(f.graph.n_edges(), 3);
    // nx.node_link_data of a DiGraph (networkx >= 3.4 names the list "edges"): integer ids,
    // no marks, an undirected CPDAG edge as two arcs.
    const std::string nx = write("nx.json",
                                 "{\"directed\": true, \"multigraph\": false, \"graph\": {}, "
                                 "\"nodes\": [{\"id\": 0}, {\"id\": 1}, {\"id\": 2}], "
                                 "\"edges\": [{\"source\": 0, \"target\": 1}, {\"source\": 1, "
                                 "\"target\": 2}, {\"source\": 2, \"target\": 1}]}");
    const GraphFile g = read_graph_file(nx);
    EXPECT_EQ(g.names, (std::vector<std::string>{"0", "1", "2"}));
    EXPECT_TRUE(g.graph.is_directed(0, 1));
    EXPECT_TRUE(g.graph.is_undirected(1, 2));
    // An undirected networkx Graph.
    const std::string u = write("u.json",
                                "{\"directed\": false, \"nodes\": [{\"id\": \"a\"}, {\"id\": "
                                "\"b\"}], \"links\": [{\"source\": \"a\", \"target\": \"b\"}]}");
    EXPECT_TRUE(read_graph_file(u).graph.is_undirected(0, 1));
}

TEST_F(GraphReader, NodeLinkJsonErrorsNameTheLine) {
    std::string m = error_of(write("a.json", "{\"nodes\": [\n{\"id\": \"A\"},\n]}"));
    EXPECT_TRUE(has(m, "a.json:3:")) << m;
    m = error_of(write("b.json",
                       "{\"nodes\": [{\"id\": \"A\"}],\n\"links\": [{\"source\": \"A\", "
                       "\"target\": \"Z\"}]}"));
    EXPECT_TRUE(has(m, "b.json:2:") && has(m, "'Z'") && has(m, "not in \"nodes\"")) << m;
    m = error_of(write("c.json", "{\"links\": []}"));
    EXPECT_TRUE(has(m, "no \"nodes\"")) << m;
    m = error_of(write("d.json",
                       "{\"nodes\": [{\"id\": \"A\"}, {\"id\": \"B\"}], \"links\": [{\"source\": "
                       "\"A\", \"target\": \"B\", \"mark\": \"o->\"}]}"));
    EXPECT_TRUE(has(m, "circle")) << m;
    m = error_of(write("e.json", "{\"nodes\": [{\"id\": \"A\"}, {\"id\": \"A\"}], \"links\": []}"));
    EXPECT_TRUE(has(m, "'A' is listed twice")) << m;
}

TEST_F(GraphReader, DotFromCudagCausalLearnAndByHand) {
    const std::string c = write("c.dot",
                                "digraph cudag {\n    \"A\";\n    \"B\\\"q\\\\\";\n    \"C\\nc\";\n"
                                "    \"D\";\n"
                                "    \"A\" -> \"B\\\"q\\\\\";\n"
                                "    \"A\" -> \"C\\nc\" [dir=both];\n"
                                "    \"B\\\"q\\\\\" -> \"C\\nc\" [dir=none];\n}\n");
    const GraphFile f = read_graph_file(c);
    EXPECT_EQ(f.format, "DOT");
    EXPECT_TRUE(f.lists_every_variable);
    EXPECT_EQ(f.names, (std::vector<std::string>{"A", "B\"q\\", "C\nc", "D"}));
    EXPECT_TRUE(f.graph.is_directed(0, 1));
    EXPECT_TRUE(f.graph.is_bidirected(0, 2));
    EXPECT_TRUE(f.graph.is_undirected(1, 2));
    // causal-learn's GraphUtils.to_pydot: dir=both with arrowtail/arrowhead per end mark.
    const std::string cl = write("cl.dot",
                                 "digraph {\nX1 [label=X1];\nX2 [label=X2];\nX3 [label=X3];\n"
                                 "X1 -> X2 [arrowhead=normal, arrowtail=none, dir=both];\n"
                                 "X2 -> X3 [arrowhead=none, arrowtail=none, dir=both];\n}\n");
    const GraphFile g = read_graph_file(cl);
    EXPECT_TRUE(g.graph.is_directed(0, 1));
    EXPECT_TRUE(g.graph.is_undirected(1, 2));
    // By hand: comments, chains, an undirected graph, ports, attribute statements, numerals.
    const std::string h = write("h.gv",
                                "// comment\n/* block\n comment */\nstrict graph G {\n"
                                "  graph [rankdir=LR]; node [shape=box]; label = \"x\"\n"
                                "  a -- b -- c:n  # not a comment mid-line? no: '#' only at "
                                "line start\n}\n");
    EXPECT_NE(error_of(h), "");  // '#' mid-line is not a comment in DOT
    const std::string h2 = write("h2.gv",
                                 "// comment\n/* block\n comment */\nstrict graph G {\n"
                                 "  graph [rankdir=LR]; node [shape=box]; label = \"x\"\n"
                                 "# preprocessor line\n"
                                 "  a -- b -- c:n:ne; 1.5 -- a\n}\n");
    const GraphFile k = read_graph_file(h2);
    EXPECT_FALSE(k.lists_every_variable);  // no node statement: an edge list
    EXPECT_EQ(k.names, (std::vector<std::string>{"a", "b", "c", "1.5"}));
    EXPECT_TRUE(k.graph.is_undirected(0, 1));
    EXPECT_TRUE(k.graph.is_undirected(1, 2));
    EXPECT_TRUE(k.graph.is_undirected(3, 0));
    // Edge defaults and dir=back; two opposite arcs make an undirected edge.
    const std::string d = write("d.dot",
                                "digraph { edge [dir=back]; p -> q; edge [dir=forward]; "
                                "r -> s; s -> r }");
    const GraphFile e = read_graph_file(d);
    EXPECT_TRUE(e.graph.is_directed(1, 0));  // q --> p
    EXPECT_TRUE(e.graph.is_undirected(2, 3));
}

TEST_F(GraphReader, DotErrorsNameTheLine) {
    std::string m = error_of(write("a.dot", "digraph {\n a -> ;\n}"));
    EXPECT_TRUE(has(m, "a.dot:2:") && has(m, "node name")) << m;
    m = error_of(write("b.dot", "digraph {\n subgraph s { a }\n}"));
    EXPECT_TRUE(has(m, "b.dot:2:") && has(m, "subgraph")) << m;
    m = error_of(write("c.dot", "digraph {\n a -- b\n}"));
    EXPECT_TRUE(has(m, "c.dot:2:") && has(m, "'--' in a digraph")) << m;
    m = error_of(write("d.dot", "digraph {\n a -> b\n"));
    EXPECT_TRUE(has(m, "not closed")) << m;
    m = error_of(write("e.dot", "digraph {\n a -> b [arrowhead=odot]\n}"));
    EXPECT_TRUE(has(m, "e.dot:2:") && has(m, "circle")) << m;
    m = error_of(write("f.dot", "digraph {\n a -> b [dir=sideways]\n}"));
    EXPECT_TRUE(has(m, "unknown dir 'sideways'")) << m;
    m = error_of(write("g.dot", "digraph {\n \"a\n}"));
    EXPECT_TRUE(has(m, "g.dot:2:") && has(m, "not closed")) << m;
}

TEST_F(GraphReader, HdfFileThatIsNoResultIsRefused) {
    const std::string p = (dir_ / "data.h5").string();
    {
        h5::Handle f = h5::create_file(p);
        h5::write_string_attr(f.get(), "format", "cudag-pc-checkpoint-1", "test");
    }
    const std::string m = error_of(p);
    EXPECT_NE(m.find("not a cudag PC or MCMC result"), std::string::npos) << m;
    EXPECT_NE(m.find("cudag-pc-checkpoint-1"), std::string::npos) << m;
}

/// A GraphFile made by hand for align_graphs.
GraphFile graph_file(const std::string& path, std::vector<std::string> names, bool full,
                     std::vector<std::pair<int, int>> arcs) {
    GraphFile f;
    f.path = path;
    f.names = std::move(names);
    f.lists_every_variable = full;
    f.graph = Pdag{Graph(static_cast<std::int64_t>(f.names.size()))};
    for (auto [a, b] : arcs) f.graph.orient(a, b);
    return f;
}

std::string align_error(const GraphFile& t, const GraphFile& e) {
    try {
        align_graphs(t, e);
    } catch (const InputError& x) {
        return x.what();
    }
    return "";
}

TEST_F(GraphReader, AlignRefusesAnEstimateVariableTheTruthLacks) {
    const GraphFile full = graph_file("t.txt", {"A", "B", "C"}, true, {{0, 1}});
    const GraphFile edges = graph_file("t.tsv", {"A", "B"}, false, {{0, 1}});
    const GraphFile est = graph_file("e.tsv", {"B", "Q", "A", "R"}, false, {{0, 1}, {2, 3}});
    std::string m = align_error(full, est);
    EXPECT_EQ(m,
              "e.tsv: variable 'Q' of the estimate is not in the truth t.txt (absent: 2 of "
              "the estimate's 4 variables)");
    m = align_error(edges, est);
    EXPECT_NE(m.find("e.tsv: variable 'Q'"), std::string::npos) << m;
    EXPECT_NE(m.find("edge-list truth"), std::string::npos) << m;
    // A full-list estimate over more variables than a full-list truth.
    const GraphFile more = graph_file("e.json", {"A", "B", "C", "D"}, true, {});
    m = align_error(full, more);
    EXPECT_NE(m.find("'D'"), std::string::npos) << m;
}

TEST_F(GraphReader, AlignRefusesAFullEstimateLackingATruthVariable) {
    const GraphFile full = graph_file("t.txt", {"A", "B", "C"}, true, {{0, 1}});
    const GraphFile est = graph_file("e.amat.csv", {"B", "A"}, true, {{0, 1}});
    EXPECT_EQ(align_error(full, est),
              "e.amat.csv: the truth's variable 'C' is not in the estimate, which lists every "
              "variable (absent: 1 of the truth's 3 variables)");
    // The same variables as an edge list: C has no edge in the estimate.
    const GraphFile edges = graph_file("e.tsv", {"B", "A"}, false, {{0, 1}});
    const AlignedGraphs g = align_graphs(full, edges);
    EXPECT_EQ(g.names, full.names);
    EXPECT_TRUE(g.estimate.is_directed(1, 0));  // B --> A on the truth's order
    EXPECT_TRUE(g.truth.is_directed(0, 1));
}

TEST_F(GraphReader, AlignTakesExtraVariablesOfAFullEstimateAsIsolatedInAnEdgeListTruth) {
    const GraphFile truth = graph_file("t.tsv", {"A", "B"}, false, {{0, 1}});
    const GraphFile est = graph_file("e.h5", {"D", "A", "B"}, true, {{1, 2}, {0, 2}});
    const AlignedGraphs g = align_graphs(truth, est);
    EXPECT_EQ(g.names, (std::vector<std::string>{"A", "B", "D"}));
    EXPECT_EQ(g.truth.n_edges(), 1);
    EXPECT_TRUE(g.estimate.is_directed(2, 1));  // D --> B
    // But the truth's own variables must all be in it.
    const GraphFile lacking = graph_file("f.h5", {"D", "B"}, true, {});
    EXPECT_NE(align_error(truth, lacking).find("'A'"), std::string::npos);
}

TEST_F(GraphReader, AlignMatchesANamelessMatrixByNameThenByPosition) {
    GraphFile cl = graph_file("g.cl.txt", {"X1", "X2", "X3"}, true, {{0, 1}});
    cl.names_by_position = true;
    // The truth uses X1..Xn in another order: by name.
    const GraphFile xs = graph_file("t.txt", {"X3", "X1", "X2"}, true, {{1, 2}});
    AlignedGraphs g = align_graphs(xs, cl);
    EXPECT_TRUE(g.estimate.is_directed(1, 2));
    EXPECT_TRUE(g.truth == g.estimate);
    // Other names, every variable listed, as many: by position.
    const GraphFile abc = graph_file("t.json", {"a", "b", "c"}, true, {{0, 1}});
    g = align_graphs(abc, cl);
    EXPECT_TRUE(g.truth == g.estimate);
    // An edge-list truth over other names cannot be matched by position.
    const GraphFile ab = graph_file("t.tsv", {"a", "b"}, false, {{0, 1}});
    const std::string m = align_error(ab, cl);
    EXPECT_NE(m.find("the truth's variable 'a'"), std::string::npos) << m;
    EXPECT_NE(m.find("X1..Xn"), std::string::npos) << m;
}

TEST_F(GraphReader, WriteTruthRejectsBadEdges) {
    EXPECT_THROW(write_truth_tsv({"A"}, {{0, 1, 0.5}}, (dir_ / "x.tsv").string()), InputError);
    EXPECT_THROW(write_truth_tsv({"A", "B"}, {{0, 1, 0.5}}, (dir_ / "no/such/x.tsv").string()), InputError);
}

}  // namespace
}  // namespace cudag::io
