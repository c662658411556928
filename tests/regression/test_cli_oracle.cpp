// SPDX-License-Identifier: Apache-2.0
// `cudag pc --oracle DAG [--latent ...]` (issue 54): the d-separation oracle end to end, and
// a one-line error for every bad use of it.
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

TEST_F(Cli, OracleGivesTheColliderOfAVStructure) {
    const auto dag = write("collider.tsv", edges("a\tc\t-->\nb\tc\t-->\n"));
    const CliRun r = run("pc --oracle " + dag.string() + " -q");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "source\ttarget\tmark\na\tc\t-->\nb\tc\t-->\n");
}

TEST_F(Cli, OracleGivesAnUndirectedChain) {
    const auto dag = write("chain.tsv", edges("a\tb\t-->\nb\tc\t-->\n"));
    const CliRun r = run("pc --oracle " + dag.string() + " -q");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "source\ttarget\tmark\na\tb\t---\nb\tc\t---\n");
}

TEST_F(Cli, OracleWithALatentCommonCauseKeepsItsChildrenAdjacent) {
    // L -> A, L -> B, A -> C: observed A, B, C in the file's order; A - B stays, and B - C
    // is separated by A (no v-structure: A is in the separating set).
    const auto dag = write("latent.tsv", edges("L\tA\t-->\nL\tB\t-->\nA\tC\t-->\n"));
    const CliRun r =
        run("pc --oracle " + dag.string() + " --latent L --out " + (dir_ / "res.h5").string() + " --format edges");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("3 variables, no data (--oracle"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("d-separation"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(dir_ / "res.edges.tsv"), "source\ttarget\tmark\nA\tB\t---\nA\tC\t---\n");
    // Without the latent, L separates A and B.
    const CliRun all = run("pc --oracle " + dag.string() + " -q");
    ASSERT_EQ(all.code, 0) << all.err;
    EXPECT_EQ(all.out.find("A\tB"), std::string::npos) << all.out;
}

TEST_F(Cli, OracleRefusesBadInputInOneLine) {
    const auto dag = write("dag.tsv", edges("a\tb\t-->\nb\tc\t-->\n"));
    const auto data = write("d.csv", "a,b,c\n1,2,3\n2,3,4\n3,4,6\n4,5,5\n5,7,9\n");
    const std::string o = "pc --oracle " + dag.string();
    expect_error(o + " --latent z", "--latent: 'z' is not a node of");
    expect_error(o + " --data " + data.string(), "drop --data");
    expect_error(o + " --bootstrap 10", "drop --bootstrap");
    expect_error(o + " --test fisher-z", "drop --test fisher-z");
    expect_error(o + " --backend cuda", "--oracle runs on the CPU only");
    expect_error(o + " --discrete", "drop --discrete");
    expect_error("pc --data " + data.string() + " --latent a", "--latent names hidden nodes of --oracle");
    expect_error("pc", "--data is required (or --oracle");
    const auto cycle = write("cycle.tsv", edges("a\tb\t-->\nb\tc\t-->\nc\ta\t-->\n"));
    expect_error("pc --oracle " + cycle.string(), "directed cycle");
    const auto undirected = write("und.tsv", edges("a\tb\t-->\nb\tc\t---\n"));
    expect_error("pc --oracle " + undirected.string(), "the edge b --- c is not directed");
    expect_error("pc --oracle " + (dir_ / "missing.tsv").string(), "missing.tsv");
    expect_no_outputs({"dag.tsv", "d.csv", "cycle.tsv", "und.tsv"});
}

}  // namespace
