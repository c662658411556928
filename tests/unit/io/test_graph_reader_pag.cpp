// SPDX-License-Identifier: Apache-2.0
// read_graph_file with PAG marks (io::PagMarks): circles in every text format, pcalg's
// amat.pag coding told from amat.cpdag's, and PAGs declared without a circle.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "io/graph_reader.hpp"

namespace cudag::io {
namespace {

namespace fs = std::filesystem;

class GraphReaderPag : public testing::Test {
protected:
    void SetUp() override {
        std::string name = "cudag_graph_reader_pag_";
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
    static std::string error_of(const std::string& path, PagMarks mode) {
        try {
            read_graph_file(path, mode);
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    }

    fs::path dir_;
};

bool has(const std::string& msg, const std::string& part) { return msg.find(part) != std::string::npos; }

/// The marks (at a, at b) of the edge between the nodes named `a` and `b`.
std::pair<Mark, Mark> marks(const GraphFile& f, const std::string& a, const std::string& b) {
    const auto at = [&](const std::string& s) {
        return static_cast<std::int32_t>(std::find(f.names.begin(), f.names.end(), s) - f.names.begin());
    };
    return {f.graph.end(at(a), at(b)), f.graph.end(at(b), at(a))};
}

using P = std::pair<Mark, Mark>;
constexpr Mark o = Mark::Circle;
constexpr Mark a = Mark::Arrow;
constexpr Mark t = Mark::Tail;

TEST_F(GraphReaderPag, CirclesInEveryTextFormat) {
    const std::string tsv = write("e.tsv", "source\ttarget\tmark\nA\tB\to->\nB\tC\t--o\nC\tD\to-o\n");
    GraphFile f = read_graph_file(tsv, PagMarks::Accept);
    EXPECT_TRUE(f.pag);
    EXPECT_EQ(marks(f, "A", "B"), P(o, a));
    EXPECT_EQ(marks(f, "B", "C"), P(t, o));
    EXPECT_EQ(marks(f, "C", "D"), P(o, o));
    // Refused as before without PAG marks.
    EXPECT_TRUE(has(error_of(tsv, PagMarks::Refuse), "circle"));

    f = read_graph_file(write("g.txt", "Graph Nodes:\nA;B;C\n\nGraph Edges:\n1. A o-> B\n2. C <-o B\n"),
                        PagMarks::Accept);
    EXPECT_TRUE(f.pag);
    EXPECT_EQ(marks(f, "B", "C"), P(o, a));

    f = read_graph_file(write("m.txt", "0 2 0\n1 0 1\n0 2 0\n"), PagMarks::Accept);  // X1 o-> X2 <-o X3
    EXPECT_TRUE(f.pag);
    EXPECT_EQ(marks(f, "X1", "X2"), P(o, a));
    EXPECT_EQ(marks(f, "X3", "X2"), P(o, a));

    f = read_graph_file(write("g.dot", "digraph {\n A -> B [dir=both, arrowtail=odot, arrowhead=normal];\n}\n"),
                        PagMarks::Accept);
    EXPECT_TRUE(f.pag);
    EXPECT_EQ(marks(f, "A", "B"), P(o, a));
}

TEST_F(GraphReaderPag, WithoutCirclesAGraphIsAPagOnlyWhenItSaysSo) {
    const std::string tsv = write("e.tsv", "source\ttarget\tmark\nA\tB\t-->\nB\tC\t<->\n");
    EXPECT_FALSE(read_graph_file(tsv, PagMarks::Accept).pag);
    EXPECT_TRUE(read_graph_file(tsv, PagMarks::Assume).pag);
    const std::string nodes = "\"nodes\": [{\"id\": \"A\"}, {\"id\": \"B\"}], ";
    const std::string link = "\"links\": [{\"source\": \"A\", \"target\": \"B\", \"mark\": \"-->\"}]}";
    EXPECT_TRUE(
        read_graph_file(write("p.json", "{\"graph\": {\"kind\": \"pag\"}, " + nodes + link), PagMarks::Accept).pag);
    EXPECT_FALSE(read_graph_file(write("c.json", "{" + nodes + link), PagMarks::Accept).pag);
}

TEST_F(GraphReaderPag, AmatCodingIsToldFromTheCodes) {
    // amat.pag: amat[a, b] = the mark at b. A --> B is (A, B) = 2, (B, A) = 3.
    GraphFile f = read_graph_file(write("p.csv", "\"\",\"A\",\"B\",\"C\"\n\"A\",0,2,0\n\"B\",3,0,2\n\"C\",0,1,0\n"),
                                  PagMarks::Accept);
    EXPECT_TRUE(f.pag);
    EXPECT_EQ(marks(f, "A", "B"), P(t, a));
    EXPECT_EQ(marks(f, "B", "C"), P(o, a));
    // amat.cpdag: A --> B is (A, B) = 0, (B, A) = 1; never a PAG.
    f = read_graph_file(write("c.csv", "\"\",\"A\",\"B\"\n\"A\",0,0\n\"B\",1,0\n"), PagMarks::Accept);
    EXPECT_FALSE(f.pag);
    EXPECT_EQ(marks(f, "A", "B"), P(t, a));
    // Only 1/1 pairs: a CPDAG's A --- B unless the caller says PAG (then A o-o B).
    const std::string sym = write("s.csv", "\"\",\"A\",\"B\"\n\"A\",0,1\n\"B\",1,0\n");
    EXPECT_EQ(marks(read_graph_file(sym, PagMarks::Accept), "A", "B"), P(t, t));
    EXPECT_EQ(marks(read_graph_file(sym, PagMarks::Assume), "A", "B"), P(o, o));
    // Both codings in one file: the line of the edge with one code 0.
    const std::string both = write("b.csv", "\"\",\"A\",\"B\",\"C\"\n\"A\",0,3,0\n\"B\",2,0,1\n\"C\",0,0,0\n");
    const std::string m = error_of(both, PagMarks::Accept);
    EXPECT_TRUE(has(m, "b.csv:3:") && has(m, "pag coding")) << m;
    EXPECT_TRUE(has(error_of(both, PagMarks::Refuse), "cpdag coding"));
}

}  // namespace
}  // namespace cudag::io
