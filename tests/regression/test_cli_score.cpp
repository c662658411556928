// SPDX-License-Identifier: Apache-2.0
// `cudag score` end to end: BDeu/K2 of a DAG from cudag's edge TSV, total and per node in
// text and JSON, and one-line errors for what cannot be scored.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>

#include "support/cli_fixture.hpp"

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;

class Score : public Cli {
protected:
    /// The file `name` in the scratch folder, quoted for the shell.
    std::string f(const std::string& name) const { return "'" + (dir_ / name).string() + "'"; }
    void SetUp() override {
        Cli::SetUp();
        // A, B binary, C ternary; (A, B) = (1, 1) never occurs.
        write("d.csv", "A,B,C\n0,0,0\n0,0,1\n0,1,2\n0,1,1\n1,0,0\n1,0,0\n0,0,2\n1,0,1\n");
        write("dag.tsv", "source\ttarget\tmark\nA\tC\t-->\nB\tC\t-->\n");
    }
};

/// "name": number pairs of a flat JSON text (the keys of "nodes" and "total").
std::map<std::string, double> json_numbers(const std::string& js) {
    std::map<std::string, double> out;
    const std::regex pair("\"([^\"]+)\": (-?[0-9.eE+-]+)");
    for (auto it = std::sregex_iterator(js.begin(), js.end(), pair); it != std::sregex_iterator(); ++it)
        out[(*it)[1]] = std::strtod((*it)[2].str().c_str(), nullptr);
    return out;
}

TEST_F(Score, BdeuJsonGivesTotalAndNodes) {
    const CliRun r = run("score --data " + f("d.csv") + " --dag " + f("dag.tsv") + " --score bdeu --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("{\"total\": ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("\"nodes\": {\"A\": "), std::string::npos) << r.out;
    const auto v = json_numbers(r.out);
    // The formula by hand (see tests/unit/bn/test_bn_score.cpp).
    EXPECT_NEAR(v.at("A"), -6.59054521862886, 1e-12);
    EXPECT_NEAR(v.at("B"), -5.802087858264591, 1e-12);
    EXPECT_NEAR(v.at("C"), -15.446711843858077, 1e-12);
    EXPECT_NEAR(v.at("total"), -27.83934492075153, 1e-12);
    EXPECT_NEAR(v.at("total"), v.at("A") + v.at("B") + v.at("C"), 1e-12);
}

TEST_F(Score, K2AndIssAndText) {
    CliRun r = run("score --data " + f("d.csv") + " --dag " + f("dag.tsv") + " --score k2 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NEAR(json_numbers(r.out).at("C"), -9.980448593672257, 1e-12);
    r = run("score --data " + f("d.csv") + " --dag " + f("dag.tsv") + " --score bdeu --iss 2.5 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NEAR(json_numbers(r.out).at("C"), -12.767743777453457, 1e-12);
    r = run("score --data " + f("d.csv") + " --dag " + f("dag.tsv") + " --score bdeu");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("total\t-27.83934492075"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nC\t-15.44671184385"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\tA,B\n"), std::string::npos) << r.out;
}

TEST_F(Score, LabelsAndIsolatedVariables) {
    // Labels score as their codes; a variable absent from the edge list has no parents.
    write("l.csv", "A,B,C\nno,x,0\nno,x,1\nno,y,2\nno,y,1\nyes,x,0\nyes,x,0\nno,x,2\nyes,x,1\n");
    write("one.tsv", "source\ttarget\tmark\nA\tB\t-->\n");
    const CliRun r = run("score --data " + f("l.csv") + " --dag " + f("one.tsv") + " --score k2 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NEAR(json_numbers(r.out).at("A"), -6.222576268071365, 1e-12);
    EXPECT_EQ(json_numbers(r.out).size(), 4u) << r.out;
}

TEST_F(Score, BadInputGetsOneLine) {
    write("cycle.tsv", "source\ttarget\tmark\nA\tB\t-->\nB\tC\t-->\nC\tA\t-->\n");
    expect_error("score --data " + f("d.csv") + " --dag " + f("cycle.tsv") + " --score bdeu",
                 "directed cycle through 'A'");
    write("unknown.tsv", "source\ttarget\tmark\nA\tZ\t-->\n");
    expect_error("score --data " + f("d.csv") + " --dag " + f("unknown.tsv") + " --score bdeu", "Z");
    write("undirected.tsv", "source\ttarget\tmark\nA\tB\t---\n");
    expect_error("score --data " + f("d.csv") + " --dag " + f("undirected.tsv") + " --score k2",
                 "A --- B is not directed");
    write("cont.csv", "A,B,C\n0,0,0.5\n0,1,1\n1,0,2\n");
    expect_error("score --data " + f("cont.csv") + " --dag " + f("dag.tsv") + " --score bdeu",
                 "column 'C' holds the non-integer value 0.5 (data row 1)");
    write("single.csv", "A,B,C\n0,0,1\n1,0,2\n0,0,1\n");
    expect_error("score --data " + f("single.csv") + " --dag " + f("dag.tsv") + " --score k2",
                 "variable 'B' (column 2) has a single level");
    expect_error("score --data " + f("missing.csv") + " --dag " + f("dag.tsv") + " --score bdeu", "missing.csv");
    expect_error("score --data " + f("d.csv") + " --dag " + f("missing.tsv") + " --score bdeu", "missing.tsv");
    expect_error("score --data " + f("d.csv") + " --dag " + f("dag.tsv") + " --score bic", "unknown --score 'bic'");
    expect_error("score --data " + f("d.csv") + " --dag " + f("dag.tsv") + " --score bdeu --iss 0",
                 "--iss must lie in [1e-6, 1e6] (got 0)");
    expect_error("score --data " + f("d.csv") + " --dag " + f("dag.tsv") + " --score k2 --iss 2",
                 "--iss applies to --score bdeu only");
}

TEST_F(Score, BgeOnContinuousData) {
    write("g.csv", "A,B,C\n0.5,1.0,-0.3\n1.2,0.7,0.9\n-0.8,-1.1,0.1\n0.3,0.2,-1.4\n2.0,1.7,0.6\n-0.4,0.1,0.2\n");
    write("g.tsv", "source\ttarget\tmark\nA\tB\t-->\nA\tC\t-->\nB\tC\t-->\n");
    CliRun r = run("score --data " + f("g.csv") + " --dag " + f("g.tsv") + " --score bge --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto v = json_numbers(r.out);
    // BiDAG's parameterisation (am = 1, aw = n + am + 1), values from the family formula.
    EXPECT_NEAR(v.at("A"), -10.905163859285748, 1e-10);
    EXPECT_NEAR(v.at("B"), -6.278801801903915, 1e-10);
    EXPECT_NEAR(v.at("C"), -10.953295120290573, 1e-10);
    EXPECT_NEAR(v.at("total"), v.at("A") + v.at("B") + v.at("C"), 1e-10);
    r = run("score --data " + f("g.csv") + " --dag " + f("g.tsv") + " --score bge");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("am\t1\naw\t5\n"), std::string::npos) << r.out;
    write("lab.csv", "A,B,C\nx,1,2\ny,2,3\n");
    expect_error("score --data " + f("lab.csv") + " --dag " + f("g.tsv") + " --score bge",
                 "--score bge scores continuous data");
    expect_error("score --data " + f("g.csv") + " --dag " + f("g.tsv") + " --score bge --aw 3",
                 "--aw must lie in (n + 1, n + 1 + 1e6] = (4, 1000004]");
    expect_error("score --data " + f("g.csv") + " --dag " + f("g.tsv") + " --score bdeu --am 2",
                 "--am and --aw apply to --score bge only");
}

}  // namespace

// Issue 33 item 12: one graph per file. An MCMC result's r.h5 is its best DAG (/best_dag),
// the graph of its edge list: `score --dag r.h5` scores it; a PC result's CPDAG with an
// undirected edge is refused in one line.
TEST_F(Score, DagOfAResultFile) {
    CliRun r = run("simulate discrete --vars 7 --samples 400 --density 0.4 --states 3 --max-parents 2 --seed 5 --out " +
                   f("s.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    r = run("mcmc -q --data " + f("s.csv") + " --score bdeu --max-parents 2 --iterations 300 --out " + f("m.h5") +
            " --format edges");
    ASSERT_EQ(r.code, 0) << r.err;
    const CliRun from_h5 = run("score --data " + f("s.csv") + " --score bdeu --dag " + f("m.h5") + " --json");
    ASSERT_EQ(from_h5.code, 0) << from_h5.err;
    const CliRun from_tsv = run("score --data " + f("s.csv") + " --score bdeu --dag " + f("m.edges.tsv") + " --json");
    ASSERT_EQ(from_tsv.code, 0) << from_tsv.err;
    EXPECT_EQ(from_h5.out, from_tsv.out);
    EXPECT_EQ(json_numbers(from_h5.out).size(), 8u) << from_h5.out;  // 7 nodes and the total
    // A PC result holds a CPDAG: its undirected edges are not a DAG to score.
    const std::string g = std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.csv";
    r = run("pc -q --data " + g + " --out " + f("p.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    expect_error("score --data " + g + " --score bge --dag " + f("p.h5"),
                 "is not directed; a DAG to score has only --> edges");
}

// Issue 33 item 16: bdeu and k2 read every cell as a label, as pc does for a discrete test:
// a column of integer codes holding one label is a column of labels, not refused;
// --discrete says so explicitly and contradicts bge.
TEST_F(Score, LabelAmongIntegerCodesIsALevel) {
    write("m.csv", "A,B,C\n0,0,0\n0,0,1\n0,1,2\n0,1,1\n1,0,0\n1,0,0\n0,0,x\n1,0,1\n");
    for (const std::string extra : {"", " --discrete"}) {
        const CliRun r = run("score --data " + f("m.csv") + " --dag " + f("dag.tsv") + " --score bdeu --json" + extra);
        ASSERT_EQ(r.code, 0) << r.err;
        // C has levels 0, 1, 2, x: four states, so its local score differs from d.csv's.
        EXPECT_NEAR(json_numbers(r.out).at("A"), -6.59054521862886, 1e-12) << extra;
        EXPECT_NE(json_numbers(r.out).at("C"), -15.446711843858077) << extra;
    }
    expect_error("score --data " + f("d.csv") + " --dag " + f("dag.tsv") + " --score bge --discrete",
                 "--discrete contradicts --score bge");
    const CliRun r = run("mcmc -q --data " + f("m.csv") + " --score bdeu --iterations 50 --discrete");
    EXPECT_EQ(r.code, 0) << r.err;
}
