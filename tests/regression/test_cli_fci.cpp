// SPDX-License-Identifier: Apache-2.0
// `cudag fci` end to end (issue 54): the PAG on stdout and in every format, and a one-line
// error with nothing written for every bad use.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/cli_fixture.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;
using cudag::test::slurp;

std::string edges(const std::string& rows) { return "source\ttarget\tmark\n" + rows; }

// C -> A <- L -> B <- D with L hidden: C o-> A <-> B <-o D.
const char* kConfounded = "C\tA\t-->\nL\tA\t-->\nL\tB\t-->\nD\tB\t-->\n";

TEST_F(Cli, FciOnTheOracleGivesTheBidirectedEdgeOfAHiddenCause) {
    const auto dag = write("dag.tsv", edges(kConfounded));
    const CliRun r = run("fci --oracle " + dag.string() + " --latent L -q");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "source\ttarget\tmark\nC\tA\to->\nA\tB\t<->\nB\tD\t<-o\n");
    const CliRun rfci = run("fci --variant rfci --oracle " + dag.string() + " --latent L -q");
    ASSERT_EQ(rfci.code, 0) << rfci.err;
    EXPECT_EQ(rfci.out, r.out);
    const CliRun cl = run("fci --compat causal-learn --oracle " + dag.string() + " --latent L -q");
    ASSERT_EQ(cl.code, 0) << cl.err;
    EXPECT_EQ(cl.out, r.out);
}

TEST_F(Cli, FciWritesEveryFormatWithPagMarks) {
    const auto dag = write("dag.tsv", edges(kConfounded));
    const fs::path out = dir_ / "r.h5";
    const CliRun r =
        run("fci --oracle " + dag.string() + " --latent L --out " + out.string() + " --format edges,amat,cl,json,dot");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("cudag fci: 4 variables"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("3 edges in the PAG"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(dir_ / "r.edges.tsv"), "source\ttarget\tmark\nC\tA\to->\nA\tB\t<->\nB\tD\t<-o\n");
    // pcalg's amat.pag: amat[a, b] = the mark at b (1 circle, 2 arrowhead, 3 tail).
    EXPECT_EQ(slurp(dir_ / "r.pag.amat.csv"),
              "\"\",\"C\",\"A\",\"B\",\"D\"\n\"C\",0,2,0,0\n\"A\",1,0,2,0\n\"B\",0,2,0,1\n\"D\",0,0,2,0\n");
    EXPECT_FALSE(fs::exists(dir_ / "r.amat.csv"));  // never PC's CPDAG convention
    // causal-learn: G[i, j] = the mark at i (-1 tail, 1 arrowhead, 2 circle).
    EXPECT_EQ(slurp(dir_ / "r.cl.txt"), "0 2 0 0\n1 0 1 0\n0 1 0 1\n0 0 2 0\n");
    const std::string json = slurp(dir_ / "r.json");
    EXPECT_NE(json.find("\"source\": \"A\", \"target\": \"B\", \"mark\": \"<->\""), std::string::npos) << json;
    const std::string dot = slurp(dir_ / "r.dot");
    EXPECT_NE(dot.find("\"C\" -> \"A\" [dir=both, arrowtail=odot, arrowhead=normal]"), std::string::npos) << dot;
}

TEST_F(Cli, FciOnDataRunsEveryVariantAndOption) {
    const fs::path data = dir_ / "d.csv";
    ASSERT_EQ(run("simulate -q gaussian --vars 10 --samples 400 --density 0.3 --seed 5 --out " + data.string()).code,
              0);
    for (const std::string opt :
         {"", "--variant rfci", "--conservative", "--majority-rule", "--no-pdsep", "--pdsep-max 2",
          "--no-selection-bias", "--type anytime --max-level 2", "--type adaptive", "--variant rfci --conservative",
          "--compat causal-learn", "--compat causal-learn --max-path-length 0 --max-level 1 --threads 2"}) {
        const CliRun r = run("fci --data " + data.string() + " --alpha 0.05 " + opt);
        EXPECT_EQ(r.code, 0) << opt << ": " << r.err;
        EXPECT_EQ(r.out.rfind("source\ttarget\tmark\n", 0), 0u) << opt;
    }
}

TEST_F(Cli, FciRefusesBadOptionsInOneLineAndWritesNothing) {
    const auto dag = write("dag.tsv", edges(kConfounded));
    const auto cyc = write("cycle.tsv", edges("a\tb\t-->\nb\tc\t-->\nc\ta\t-->\n"));
    const std::string o = "fci --oracle " + dag.string() + " --out " + (dir_ / "r.h5").string() + " ";
    expect_error(o + "--pdsep-max -2", "--pdsep-max must be >= 0");
    expect_error(o + "--conservative --majority-rule", "--conservative and --majority-rule exclude each other");
    expect_error(o + "--variant fcx", "unknown --variant 'fcx'");
    expect_error(o + "--type anytime", "--type anytime needs --max-level");
    expect_error(o + "--type adaptive --max-level 2", "--type adaptive takes no --max-level");
    expect_error(o + "--type sometimes", "unknown --type 'sometimes'");
    expect_error(o + "--variant rfci --no-pdsep", "--no-pdsep is fci's");
    expect_error(o + "--variant rfci --pdsep-max 3", "--pdsep-max is fci's");
    expect_error(o + "--uc-rule 1", "");  // PC's option: not one of fci's
    expect_error(o + "--latent Q", "--latent: 'Q' is not a node of");
    expect_error(o + "--bootstrap 5", "--bootstrap");
    expect_error(o + "--max-path-length 3", "--max-path-length is causal-learn's (--compat causal-learn)");
    expect_error(o + "--python-hash-seed 0", "--python-hash-seed is for --compat causal-learn");
    const std::string c = o + "--compat causal-learn ";
    expect_error(c + "--python-hash-seed 4294967296", "--python-hash-seed must be in 0 .. 4294967295");
    expect_error(c + "--max-path-length -2", "--max-path-length must be >= 0");
    expect_error(c + "--variant rfci", "--variant rfci: causal-learn has no rfci");
    expect_error(c + "--pdsep-max 2", "--pdsep-max is pcalg's; causal-learn's fci has no such option");
    expect_error(c + "--no-pdsep", "--no-pdsep is pcalg's; causal-learn's fci has no such option");
    expect_error(c + "--conservative", "--conservative is pcalg's; causal-learn's fci has no such option");
    expect_error(c + "--majority-rule", "--majority-rule is pcalg's; causal-learn's fci has no such option");
    expect_error(c + "--type anytime --max-level 2", "--type anytime is pcalg's; causal-learn's fci has no such");
    expect_error(c + "--type adaptive", "--type adaptive is pcalg's; causal-learn's fci has no such option");
    expect_error(c + "--no-selection-bias", "--no-selection-bias is pcalg's; causal-learn's fci has no such");
    const auto forbid_dir = write("forbid_dir.txt", "A -> B\n");
    expect_error(o + "--forbid " + forbid_dir.string(),
                 "background knowledge with directions: cudag fci --compat pcalg");
    const auto require = write("require.txt", "A -> B\n");
    expect_error(o + "--require " + require.string(), "background knowledge with directions: cudag fci --compat pcalg");
    expect_error("fci --oracle " + cyc.string(), "cycle");
    const auto tiers = write("tiers.txt", "1 C\n2 A\n");
    expect_error(o + "--tiers " + tiers.string(), "--tiers orients edges; cudag fci --compat pcalg");
    expect_error("fci -q", "--data is required");
    expect_no_outputs({"dag.tsv", "cycle.tsv", "tiers.txt", "require.txt", "forbid_dir.txt"});
}

TEST_F(Cli, FciKeepsRequiredAndForbiddenPairs) {
    const auto dag = write("dag.tsv", edges(kConfounded));
    const auto forbid = write("forbid.txt", "A B\n");
    const CliRun r = run("fci --oracle " + dag.string() + " --latent L -q --forbid " + forbid.string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find("A\tB"), std::string::npos) << r.out;
}

}  // namespace
