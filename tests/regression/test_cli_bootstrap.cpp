// SPDX-License-Identifier: Apache-2.0
// `cudag pc --bootstrap` end to end (issue 38): a replicate's written resample run directly
// gives the replicate's graph, the HDF5 result holds the frequency table (B per pair), the
// freq table goes beside it or to stdout, and bad options are one-line errors that leave
// nothing behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "io/hdf5_file.hpp"
#include "support/cli_fixture.hpp"

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;
using cudag::test::slurp;
namespace h5 = cudag::io::h5;
namespace fs = std::filesystem;

class Bootstrap : public Cli {
protected:
    std::string f(const std::string& name) const { return (dir_ / name).string(); }
    /// `cudag simulate discrete` (3 levels, density 0.3, at most 2 parents) into `name`.
    CliRun discrete(const std::string& name, int vars, int samples, int seed) {
        return run("simulate discrete --vars " + std::to_string(vars) + " --samples " + std::to_string(samples) +
                   " --density 0.3 --states 3 --max-parents 2 --seed " + std::to_string(seed) + " --out " + f(name) +
                   " -q");
    }
    static std::string data() { return std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.csv"; }
    /// The lines of a text.
    static std::vector<std::string> lines(const std::string& text) {
        std::vector<std::string> out;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) out.push_back(line);
        return out;
    }
};

TEST_F(Bootstrap, AReplicateIsADirectRunOnItsWrittenResample) {
    for (const std::string resample : {"bootstrap", "half"}) {
        const std::string opts = " --resample " + resample + " --seed 11 --alpha 0.05";
        // B = 1: the consensus graph is replicate 0's graph.
        CliRun r = run("pc --data " + data() + opts + " --bootstrap 1 --out " + f("boot.h5") + " --format edges -q");
        ASSERT_EQ(r.code, 0) << r.err;
        r = run("pc --data " + data() + opts + " --overwrite --write-resample " + f("rep0.csv"));
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.err.find("wrote replicate 0"), std::string::npos) << r.err;
        r = run("pc --data " + f("rep0.csv") + " --alpha 0.05 --out " + f("direct.h5") + " --format edges -q");
        ASSERT_EQ(r.code, 0) << r.err;
        const std::string direct = slurp(dir_ / "direct.edges.tsv");
        EXPECT_GT(lines(direct).size(), 5u) << resample;
        EXPECT_EQ(slurp(dir_ / "boot.edges.tsv"), direct) << resample;
        // Half-sampling writes floor(m/2) rows, the bootstrap m.
        const std::size_t rows = lines(slurp(dir_ / "rep0.csv")).size() - 1;
        const std::size_t m = lines(slurp(data())).size() - 1;
        EXPECT_EQ(rows, resample == "half" ? m / 2 : m) << resample;
    }
}

TEST_F(Bootstrap, TheResultHoldsTheFrequencyTable) {
    const CliRun r = run("pc --data " + data() + " --bootstrap 6 --consensus 0.5 --seed 4 --out " + f("b.h5") +
                         " --format freq,edges -q");
    ASSERT_EQ(r.code, 0) << r.err;
    h5::Handle file = h5::open_file(f("b.h5"));
    const auto counts = h5::read_array<std::int32_t>(file.get(), "bootstrap/counts", "test");
    const auto pairs = h5::read_array<std::int32_t>(file.get(), "bootstrap/pairs", "test");
    const auto freq = h5::read_array<double>(file.get(), "bootstrap/frequency", "test");
    const auto adjacency = h5::read_array<double>(file.get(), "bootstrap/adjacency", "test");
    ASSERT_GT(pairs.size(), 0u);
    ASSERT_EQ(counts.size(), pairs.size() / 2 * 5);
    ASSERT_EQ(freq.size(), counts.size());
    std::size_t consensus = 0;
    for (std::size_t e = 0; e < pairs.size() / 2; ++e) {
        EXPECT_EQ(std::accumulate(counts.begin() + 5 * e, counts.begin() + 5 * e + 5, 0), 6) << "pair " << e;
        EXPECT_LT(counts[5 * e], 6);
        EXPECT_DOUBLE_EQ(adjacency[e], (6 - counts[5 * e]) / 6.0);
        for (int k = 0; k < 5; ++k) EXPECT_DOUBLE_EQ(freq[5 * e + k], counts[5 * e + k] / 6.0);
        consensus += adjacency[e] >= 0.5;
    }
    // The consensus graph is the main graph: its edges are the pairs at or above 0.5.
    const auto cpdag = h5::read_array<std::int32_t>(file.get(), "cpdag/edges", "test");
    EXPECT_EQ(cpdag.size() / 3, consensus);
    EXPECT_EQ(lines(slurp(dir_ / "b.edges.tsv")).size(), consensus + 1);
    // The freq table: a header, then one line per listed pair.
    const auto freq_lines = lines(slurp(dir_ / "b.freq.tsv"));
    ASSERT_EQ(freq_lines.size(), pairs.size() / 2 + 1);
    EXPECT_EQ(freq_lines[0], "source\ttarget\tadjacency\tnone\t-->\t<--\t---\t<->\tconsensus");
    // cudag compare reads the consensus graph, and says so.
    const CliRun c =
        run("compare --truth " + std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.truth.tsv --estimate " + f("b.h5"));
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.out.find("/cpdag, the bootstrap's consensus graph"), std::string::npos) << c.out;
}

TEST_F(Bootstrap, WithoutOutTheFrequenciesGoToStdout) {
    const CliRun r = run("pc --data " + data() + " --bootstrap 3 --resample half -q");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto out = lines(r.out);
    ASSERT_GT(out.size(), 2u);
    EXPECT_EQ(out[0].rfind("source\ttarget\tadjacency", 0), 0u) << out[0];
    EXPECT_TRUE(r.err.empty()) << r.err;
    // The same run again: the same table (the resamples are keyed by --seed).
    EXPECT_EQ(run("pc --data " + data() + " --bootstrap 3 --resample half -q").out, r.out);
    EXPECT_NE(run("pc --data " + data() + " --bootstrap 3 --resample half --seed 1 -q").out, r.out);
}

TEST_F(Bootstrap, StoppedAtAReplicateBoundaryAndResumedGivesTheSameTable) {
    const std::string base = "pc --data " + data() + " --bootstrap 7 --seed 2 -q --out ";
    CliRun r = run(base + f("full.h5") + " --format freq");
    ASSERT_EQ(r.code, 0) << r.err;
    // A kill after 3 replicates or more (--stop-after-level, hidden: a testing aid).
    r = run(base + f("part.h5") + " --checkpoint " + f("ck.h5") + " --stop-after-level 3");
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_TRUE(fs::exists(dir_ / "ck.h5"));
    EXPECT_FALSE(fs::exists(dir_ / "part.h5")) << "a stopped run writes no result";
    // Other options that change the counts are refused, naming the option.
    r = run("pc --data " + data() + " --bootstrap 7 --seed 3 -q --out " + f("x.h5") + " --checkpoint " + f("ck.h5") +
            " --resume");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("--seed was 2 in the checkpoint, 3 now"), std::string::npos) << r.err;
    r = run(base + f("part.h5") + " --format freq --checkpoint " + f("ck.h5") + " --resume");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(dir_ / "part.freq.tsv"), slurp(dir_ / "full.freq.tsv"));
    EXPECT_FALSE(fs::exists(dir_ / "ck.h5")) << "a finished run removes its checkpoint";
}

TEST_F(Bootstrap, McmcReplicateIsADirectRunOnItsWrittenResample) {
    // cudag mcmc --bootstrap: replicate r's best DAG is `cudag mcmc` on the rows that
    // `cudag pc --write-resample` writes for the same --seed (B = 1: the consensus graph).
    CliRun r = discrete("d.csv", 8, 400, 8);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string mcmc = " --score bdeu --iterations 1500 --seed 5 -q";
    r = run("mcmc --data " + f("d.csv") + mcmc + " --bootstrap 1 --out " + f("boot.h5") + " --format edges,freq");
    ASSERT_EQ(r.code, 0) << r.err;
    r = run("pc --data " + f("d.csv") + " --discrete --seed 5 --write-resample " + f("rep0.csv") + " -q");
    ASSERT_EQ(r.code, 0) << r.err;
    r = run("mcmc --data " + f("rep0.csv") + mcmc + " --out " + f("direct.h5") + " --format edges");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string direct = slurp(dir_ / "direct.edges.tsv");
    EXPECT_GT(lines(direct).size(), 3u);
    EXPECT_EQ(slurp(dir_ / "boot.edges.tsv"), direct);
    // B = 4: every listed pair counted over the four replicates, directed kinds only.
    r = run("mcmc --data " + f("d.csv") + mcmc + " --bootstrap 4 --out " + f("b4.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    h5::Handle file = h5::open_file(f("b4.h5"));
    const auto counts = h5::read_array<std::int32_t>(file.get(), "bootstrap/counts", "test");
    ASSERT_GT(counts.size(), 0u);
    for (std::size_t e = 0; e < counts.size() / 5; ++e) {
        EXPECT_EQ(std::accumulate(counts.begin() + 5 * e, counts.begin() + 5 * e + 5, 0), 4) << "pair " << e;
        EXPECT_EQ(counts[5 * e + 3] + counts[5 * e + 4], 0) << "a DAG has no undirected or bidirected edge";
    }
    expect_error("mcmc --data " + f("d.csv") + mcmc + " --bootstrap 0", "--bootstrap must be at least 1, got 0");
    expect_error("mcmc --data " + f("d.csv") + mcmc + " --consensus 0.3", "--consensus needs --bootstrap B");
    expect_error("mcmc --data " + f("d.csv") + mcmc + " --resample half", "--resample needs --bootstrap B");
    expect_error("mcmc --data " + f("d.csv") + mcmc + " --bootstrap 3 --resume", "--resume needs --checkpoint FILE");
    expect_error(
        "mcmc --data " + f("d.csv") + mcmc + " --bootstrap 3 --checkpoint " + f("c.h5") + " --checkpoint-every 10",
        "--checkpoint-every does not apply to mcmc --bootstrap: it checkpoints between replicates");
}

TEST_F(Bootstrap, McmcTakesPriorSpaceAndKnowledgeOverTheColumnsAReplicateKeeps) {
    // cudag mcmc --bootstrap with --prior, --space FILE, --require and --forbid (issue 38):
    // a replicate's best DAG is a direct run on its resample with the same inputs; where the
    // resample leaves a column out (X9: one row of level b, constant in a resample that
    // misses it), the direct run takes the inputs without X9.
    CliRun r = discrete("d.csv", 8, 400, 8);
    ASSERT_EQ(r.code, 0) << r.err;
    {
        const std::vector<std::string> rows = lines(slurp(dir_ / "d.csv"));
        std::string text;
        for (std::size_t k = 0; k < rows.size(); ++k)
            text += rows[k] + (k == 0 ? ",X9" : (k == 7 ? ",b" : ",a")) + "\n";
        write("d9.csv", text);
    }
    // Inputs over X1..X9, and the same without X9.
    const auto inputs = [&](const std::string& tag, int n) {
        std::string names, prior;
        for (int v = 1; v <= n; ++v) names += (v > 1 ? "," : "") + std::string("X") + std::to_string(v);
        prior = names + "\n";
        for (int p = 1; p <= n; ++p) {
            for (int v = 1; v <= n; ++v)
                prior += std::string(v > 1 ? "," : "") + (p == 3 && v == 4 ? "0.9" : (p == 5 ? "0.2" : "0.5"));
            prior += "\n";
        }
        write("prior" + tag + ".csv", prior);
        std::string space = "source\ttarget\tmark\n";
        for (int a = 1; a <= n; ++a)
            for (int b = a + 1; b <= n; ++b)
                if ((a + b) % 5 != 0) {
                    space += 'X';
                    space += std::to_string(a);
                    space += "\tX";
                    space += std::to_string(b);
                    space += "\t---\n";
                }
        write("space" + tag + ".tsv", space);
        write("require" + tag + ".txt", std::string("X1 -> X2\n") + (n == 9 ? "X9 -> X6\n" : ""));
        write("forbid" + tag + ".txt", std::string("X3 -> X7\n") + (n == 9 ? "X8 -- X9\n" : ""));
        return " --prior " + f("prior" + tag + ".csv") + " --space " + f("space" + tag + ".tsv") + " --require " +
               f("require" + tag + ".txt") + " --forbid " + f("forbid" + tag + ".txt");
    };
    const std::string all9 = inputs("9", 9), all8 = inputs("8", 8);
    const std::string mcmc = " --score bdeu --iterations 1500 -q";
    bool saw_dropped = false, saw_kept = false;
    for (int seed = 1; seed <= 12 && !(saw_dropped && saw_kept); ++seed) {
        const std::string s = " --seed " + std::to_string(seed);
        r = run("pc --data " + f("d9.csv") + " --discrete" + s + " --overwrite --write-resample " + f("rep0.csv") +
                " -q");
        ASSERT_EQ(r.code, 0) << r.err;
        const bool dropped = lines(slurp(dir_ / "rep0.csv"))[0].find("X9") == std::string::npos;
        if ((dropped && saw_dropped) || (!dropped && saw_kept)) continue;
        (dropped ? saw_dropped : saw_kept) = true;
        r = run("mcmc --data " + f("d9.csv") + mcmc + s + all9 + " --bootstrap 1 --out " + f("boot.h5") +
                " --format edges");
        ASSERT_EQ(r.code, 0) << r.err;
        r = run("mcmc --data " + f("rep0.csv") + mcmc + s + (dropped ? all8 : all9) + " --out " + f("direct.h5") +
                " --format edges");
        ASSERT_EQ(r.code, 0) << r.err;
        const std::string direct = slurp(dir_ / "direct.edges.tsv");
        EXPECT_NE(direct.find("X1\tX2"), std::string::npos) << "the required edge: " << direct;
        EXPECT_EQ(slurp(dir_ / "boot.edges.tsv"), direct) << "seed " << seed << (dropped ? ", X9 left out" : "");
        fs::remove(dir_ / "boot.h5");
        fs::remove(dir_ / "boot.edges.tsv");
        fs::remove(dir_ / "direct.h5");
        fs::remove(dir_ / "direct.edges.tsv");
    }
    EXPECT_TRUE(saw_dropped && saw_kept) << "seeds 1-12 should give both kinds of resample";
    // The inputs' contents (not their names) are part of a checkpoint's settings.
    r = run("mcmc --data " + f("d9.csv") + mcmc + all9 + " --bootstrap 3 --out " + f("b.h5") + " --checkpoint " +
            f("ck.h5") + " --stop-after 1");
    EXPECT_EQ(r.code, 3) << r.err;
    {
        std::string p = slurp(dir_ / "prior9.csv");
        p.replace(p.find("0.9"), 3, "0.8");
        write("prior9.csv", p);
    }
    r = run("mcmc --data " + f("d9.csv") + mcmc + all9 + " --bootstrap 3 --out " + f("b.h5") + " --checkpoint " +
            f("ck.h5") + " --resume");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("--prior (its beliefs)"), std::string::npos) << r.err;
    // A bad input is refused once, on the whole data, naming it.
    write("bad.txt", "X1 -> X10\n");
    r = run("mcmc --data " + f("d9.csv") + mcmc + " --bootstrap 2 --require " + f("bad.txt") + " --out " + f("x.h5"));
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("X10"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "x.h5"));
}

TEST_F(Bootstrap, McmcResumesFromItsCheckpointWithTheSameCounts) {
    // cudag mcmc --bootstrap --checkpoint (issue 38): stopped after a checkpoint of 2 of 5
    // replicates (a simulated kill), resumed, the frequency table equals an uninterrupted
    // run's; the finished run removes its checkpoint; other options are refused by name.
    CliRun r = discrete("d.csv", 7, 300, 4);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string base =
        "mcmc --data " + f("d.csv") + " --score bdeu --iterations 800 --seed 3 --bootstrap 5 --out ";
    r = run(base + f("full.h5") + " --format freq -q");
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(base + f("part.h5") + " --format freq --checkpoint " + f("ck.h5") + " --stop-after 2");
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("stopped after 2 replicates"), std::string::npos) << r.err;
    ASSERT_TRUE(fs::exists(dir_ / "ck.h5"));
    EXPECT_FALSE(fs::exists(dir_ / "part.freq.tsv")) << "a stopped run writes no result";
    // Another iteration count: the checkpoint's counts do not apply.
    const std::string other = "mcmc --data " + f("d.csv") + " --score bdeu --iterations 900 --seed 3 --bootstrap 5";
    expect_error(other + " --out " + f("x.h5") + " --checkpoint " + f("ck.h5") + " --resume",
                 "--iterations was 800 in the checkpoint, 900 now");
    // Without --resume an existing checkpoint is not overwritten.
    expect_error(base + f("y.h5") + " --checkpoint " + f("ck.h5"), "ck.h5");
    r = run(base + f("part.h5") + " --format freq --checkpoint " + f("ck.h5") + " --resume");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("resuming from checkpoint"), std::string::npos) << r.err;
    EXPECT_GT(lines(slurp(dir_ / "full.freq.tsv")).size(), 2u);
    EXPECT_EQ(slurp(dir_ / "part.freq.tsv"), slurp(dir_ / "full.freq.tsv"));
    EXPECT_FALSE(fs::exists(dir_ / "ck.h5")) << "a finished run removes its checkpoint";
}

TEST_F(Bootstrap, BadOptionsAreOneLineErrors) {
    const std::string d = " --data " + data();
    const std::string out = " --out " + f("o.h5");
    expect_error("pc" + d + " --bootstrap 0" + out, "--bootstrap must be at least 1, got 0");
    expect_error("pc" + d + " --bootstrap -2" + out, "--bootstrap must be at least 1");
    expect_error("pc" + d + " --bootstrap 5 --consensus 0" + out, "--consensus must be in (0, 1], got 0");
    expect_error("pc" + d + " --bootstrap 5 --consensus 1.5" + out, "--consensus must be in (0, 1], got 1.5");
    expect_error("pc" + d + " --bootstrap 5 --resample jackknife" + out,
                 "unknown --resample 'jackknife' (available: bootstrap, half)");
    expect_error("pc" + d + out + " --format freq", "--format freq (the edge frequencies) needs --bootstrap B");
    expect_error("pc" + d + " --replicate 2" + out, "--replicate needs --write-resample FILE");
    // Options a run without --bootstrap would ignore.
    expect_error("pc" + d + " --replicate 0" + out, "--replicate needs --write-resample FILE");
    expect_error("pc" + d + " --consensus 0.3" + out, "--consensus needs --bootstrap B");
    expect_error("pc" + d + " --resample half" + out, "--resample needs --bootstrap B or --write-resample FILE");
    expect_error("pc" + d + " --write-resample " + f("r.csv") + out, "--write-resample writes the resample");
    expect_error("pc" + d + " --bootstrap 3 --replicate 3 --write-resample " + f("r.csv"),
                 "--replicate 3 is not below --bootstrap 3");
    expect_error("pc" + d + " --seed 3" + out, "--seed applies to --test cmiknn only");
    expect_error("pc" + d + " --bootstrap 3 --resume" + out, "--resume needs --checkpoint FILE");
    expect_no_outputs({});
}

}  // namespace
