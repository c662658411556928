// SPDX-License-Identifier: Apache-2.0
// `cudag compare` with PAGs: every format cudag fci writes reads back as the same PAG,
// hand-counted mark scores and SHD, a CPDAG or DAG against a PAG, and bad marks refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_run.hpp"
#include "support/cli_fixture.hpp"
#include "support/paths.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::CliRun;
using cudag::test::slurp;

class CliComparePag : public cudag::test::Cli {
protected:
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    static std::string compare(const std::string& truth, const std::string& estimate) {
        std::string s = "compare --truth '";
        s += truth;
        s += "' --estimate '";
        s += estimate;
        s += "'";
        return s;
    }
    /// The JSON of a successful compare (--json -).
    std::string json(const std::string& args) {
        const CliRun r = run(args + " --json -");
        EXPECT_EQ(r.code, 0) << args << ": " << r.err;
        return r.out;
    }
};

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Truth A o-> B, B <-> C, C --> D; estimate A o-o B, B <-> C, B o-> D (hand-counted in
// tests/unit/pc/test_pag_metrics.cpp: shd 3, arrowheads 2 of 2 right, 2 of 3 found).
const char* kTruth = "source\ttarget\tmark\nA\tB\to->\nB\tC\t<->\nC\tD\t-->\n";
const char* kEstimate = "source\ttarget\tmark\nA\tB\to-o\nC\tB\t<->\nD\tB\t<-o\n";

}  // namespace

TEST_F(CliComparePag, EdgeListsOfPags) {
    const std::string t = write("t.tsv", kTruth);
    const std::string e = write("e.tsv", kEstimate);
    const CliRun r = run(compare(t, e));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "t.tsv (edge list), a PAG\n")) << r.out;
    EXPECT_TRUE(has(r.out, "SHD              3\n")) << r.out;
    EXPECT_TRUE(has(r.out, "marks on the 2 edges in both graphs (4 endpoints):")) << r.out;
    const std::string js = json(compare(t, e));
    for (const char* want :
         {"\"tp\": 2,", "\"fp\": 1,", "\"fn\": 1,", "\"shd\": 3,", "\"arrow_truth\": 3,", "\"arrow_estimate\": 2,",
          "\"arrow_precision\": 1,", "\"arrow_recall\": 0.6666666666666666,", "\"circle_precision\": 0.5,",
          "\"circle_recall\": 1}", "\"tail_truth\": 0,"})
        EXPECT_TRUE(has(js, want)) << want << " in " << js;
}

TEST_F(CliComparePag, EveryFormatFciWritesReadsAsThePag) {
    // L is a hidden common cause of X1 and X2: the true PAG is X3 o-> X1 <-> X2 <-o X4.
    const std::string dag =
        write("dag.tsv", "source\ttarget\tmark\nL\tX1\t-->\nL\tX2\t-->\nX3\tX1\t-->\nX4\tX2\t-->\n");
    const std::string res = path("r.h5");
    const CliRun f =
        run("fci --oracle '" + dag + "' --latent L --out '" + res + "' --format edges,amat,cl,json,dot -q");
    ASSERT_EQ(f.code, 0) << f.err;
    const std::string edges = path("r.edges.tsv");
    EXPECT_TRUE(has(slurp(edges), "<->")) << slurp(edges);
    const std::string base = json(compare(edges, res));
    EXPECT_TRUE(has(base, "\"shd\": 0,") && has(base, "\"tp\": 3,") && has(base, "\"circle_truth\": 2,")) << base;
    for (const char* g : {"r.h5", "r.edges.tsv", "r.pag.amat.csv", "r.cl.txt", "r.json", "r.dot"}) {
        for (const char* h : {"r.h5", "r.pag.amat.csv", "r.json"}) {
            const std::string js = json(compare(path(g), path(h)));
            EXPECT_EQ(js, base) << g << " vs " << h;
        }
    }
    const CliRun r = run(compare(res, edges));
    EXPECT_TRUE(has(r.out, "(cudag result: /pag, the FCI run's PAG), a PAG\n")) << r.out;
}

TEST_F(CliComparePag, CpdagEstimateAgainstAPagTruth) {
    // PC's A --- B (not decided) is o-o against the PAG: its circles are right. B --> C
    // against B <-> C: a tail where the truth has an arrowhead.
    const std::string t = write("t.tsv", "source\ttarget\tmark\nA\tB\to-o\nB\tC\t<->\n");
    const std::string e = write("e.tsv", "source\ttarget\tmark\nA\tB\t---\nB\tC\t-->\n");
    const CliRun r = run(compare(t, e));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "e.tsv (edge list), a CPDAG: --- compared as o-o\n")) << r.out;
    const std::string js = json(compare(t, e));
    for (const char* want :
         {"\"shd\": 1,", "\"circle_correct\": 2,", "\"circle_precision\": 1,", "\"arrow_truth\": 2,",
          "\"arrow_estimate\": 1,", "\"arrow_recall\": 0.5,", "\"tail_estimate\": 1,", "\"tail_precision\": 0,"})
        EXPECT_TRUE(has(js, want)) << want << " in " << js;
}

TEST_F(CliComparePag, DagTruthIsItsCpdagAgainstAPagEstimate) {
    // The DAG A --> B <-- C, C --> D: CPDAG A --> B <-- C, C --- D, as PAG marks C o-o D.
    const std::string t = write("t.tsv", "source\ttarget\tmark\nA\tB\t-->\nC\tB\t-->\nC\tD\t-->\n");
    const std::string e = write("e.tsv", "source\ttarget\tmark\nA\tB\to->\nC\tB\to->\nC\tD\to-o\n");
    const CliRun r = run(compare(t, e));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "a DAG: compared as its CPDAG, its --- as o-o\n")) << r.out;
    const std::string js = json(compare(t, e));
    // Only the tails at A and C (on C --> B) are missed: circles there.
    for (const char* want :
         {"\"shd\": 2,", "\"arrow_correct\": 2,", "\"arrow_precision\": 1,", "\"tail_truth\": 2,",
          "\"tail_correct\": 0,", "\"circle_truth\": 2,", "\"circle_estimate\": 4,", "\"circle_precision\": 0.5,"})
        EXPECT_TRUE(has(js, want)) << want << " in " << js;
}

TEST_F(CliComparePag, PagFlagReadsAnEdgeListWithoutCirclesAsAPag) {
    // A --- B in a PAG is tail/tail (selection), not PC's "not decided".
    const std::string t = write("t.tsv", "source\ttarget\tmark\nA\tB\t---\n");
    const std::string e = write("e.tsv", "source\ttarget\tmark\nA\tB\to-o\n");
    EXPECT_TRUE(has(json(compare(t, e)), "\"shd\": 0,"));
    const std::string js = json(compare(t, e) + " --truth-pag");
    EXPECT_TRUE(has(js, "\"shd\": 1,") && has(js, "\"tail_truth\": 2,") && has(js, "\"tail_correct\": 0,")) << js;
    // An amat of 1/1 codes is a CPDAG's A --- B, or with --estimate-pag pcalg's A o-o B.
    const std::string amat = write("e.csv", "\"\",\"A\",\"B\"\n\"A\",0,1\n\"B\",1,0\n");
    EXPECT_TRUE(has(json(compare(t, amat) + " --truth-pag"), "\"shd\": 1,"));
    EXPECT_TRUE(has(json(compare(e, amat) + " --estimate-pag"), "\"shd\": 0,"));
    const std::string tails = write("t.csv", "\"\",\"A\",\"B\"\n\"A\",0,3\n\"B\",3,0\n");
    EXPECT_TRUE(has(json(compare(t, tails) + " --truth-pag"), "\"shd\": 0,"));
}

TEST_F(CliComparePag, UnknownMarkIsOneLineNamingFileAndLine) {
    const std::string t = write("t.tsv", kTruth);
    const std::string e = write("e.tsv", "source\ttarget\tmark\nA\tB\to->\nB\tC\to=>\n");
    const std::string out = path("m.json");
    const CliRun r = run(compare(t, e) + " --json '" + out + "'");
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(has(r.err, "e.tsv:3:") && has(r.err, "unknown edge mark 'o=>'")) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(out));
    // The same in a PAG amat: a code 4.
    const std::string amat = write("e.csv", "\"\",\"A\",\"B\"\n\"A\",0,4\n\"B\",1,0\n");
    const CliRun m = run(compare(t, amat) + " --json '" + out + "'");
    EXPECT_EQ(m.code, 1);
    EXPECT_TRUE(has(m.err, "e.csv:2:") && has(m.err, "code '4'")) << m.err;
    EXPECT_FALSE(fs::exists(out));
}

TEST_F(CliComparePag, DagAndCpdagOutputHasNoMarkRows) {
    const std::string t = write("t.tsv", "source\ttarget\tmark\nA\tB\t-->\nC\tB\t-->\n");
    const std::string e = write("e.tsv", "source\ttarget\tmark\nA\tB\t---\n");
    const CliRun r = run(compare(t, e));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, std::string("truth:    ") + t + " (edge list), a DAG: compared as its CPDAG\nestimate: " + e +
                         " (edge list)\n"
                         "true edges       2\nestimated edges  1\nTP               1\nFP               0\n"
                         "FN               1\nprecision        1.0000\nrecall           0.5000\nF1               "
                         "0.6667\nSHD              2\n");
}
