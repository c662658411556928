// SPDX-License-Identifier: Apache-2.0
// The cudag binary end to end: outputs, and one-line errors with a non-zero exit
// and nothing left behind for every kind of bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h>
#include <algorithm>
#include <sstream>
#include <string>
#include <utility>

#include "support/cli_fixture.hpp"
#include "support/paths.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;
using cudag::test::slurp;

// 30 samples of a chain a -> b -> c plus independent d.
std::string chain_csv() {
    std::ostringstream os;
    os << "a,b,c,d\n";
    unsigned x = 12345;
    auto u = [&x]() {
        x = x * 1103515245u + 12345u;
        return ((x >> 8) & 0xffff) / 65536.0 - 0.5;
    };
    for (int s = 0; s < 60; ++s) {
        const double a = u(), b = 0.9 * a + 0.3 * u(), c = 0.9 * b + 0.3 * u(), d = u();
        os << a << ',' << b << ',' << c << ',' << d << '\n';
    }
    return os.str();
}

}  // namespace

TEST_F(Cli, PcWritesResultAndRequestedFormats) {
    const auto data = write("chain.csv", chain_csv());
    const CliRun r = run("pc --data " + data.string() + " --alpha 0.01 --out " + (dir_ / "res.h5").string() +
                         " --format edges,json,amat,cl,dot -q");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    for (const char* f : {"res.h5", "res.edges.tsv", "res.json", "res.amat.csv", "res.cl.txt", "res.dot"})
        EXPECT_TRUE(fs::exists(dir_ / f)) << f;
    const std::string edges = slurp(dir_ / "res.edges.tsv");
    EXPECT_EQ(edges.rfind("source\ttarget\tmark\n", 0), 0u);
    EXPECT_NE(edges.find("a\tb\t---"), std::string::npos) << edges;
    EXPECT_NE(edges.find("b\tc\t---"), std::string::npos) << edges;
    EXPECT_EQ(edges.find("\td\t"), std::string::npos) << "d is independent: " << edges;
    EXPECT_EQ(edges.find("a\tc"), std::string::npos) << "a-c is separated by b: " << edges;
}

TEST_F(Cli, PcWithoutOutPrintsTheGraph) {
    const auto data = write("chain.csv", chain_csv());
    const CliRun r = run("pc --data " + data.string() + " -q");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("source\ttarget\tmark\n", 0), 0u);
    EXPECT_NE(r.out.find("b\tc\t---"), std::string::npos) << r.out;
}

TEST_F(Cli, SimulatePcCompareRecoversTheGraph) {
    const auto csv = dir_ / "sim.csv", truth = dir_ / "truth.tsv", res = dir_ / "res.h5";
    ASSERT_EQ(run("simulate gaussian --vars 20 --samples 3000 --density 0.1 --seed 3 --out " + csv.string() +
                  " --truth " + truth.string())
                  .code,
              0);
    ASSERT_EQ(run("pc --data " + csv.string() + " --out " + res.string() + " --format edges -q").code, 0);
    const CliRun c =
        run("compare --truth " + truth.string() + " --estimate " + (dir_ / "res.edges.tsv").string() + " --json -");
    ASSERT_EQ(c.code, 0) << c.err;
    const auto pos = c.out.find("\"f1\"");
    ASSERT_NE(pos, std::string::npos) << c.out;
    const double f1 = std::stod(c.out.substr(c.out.find(':', pos) + 1));
    EXPECT_GT(f1, 0.8) << c.out;
}

TEST_F(Cli, InfoNamesVersionAndBuild) {
    const CliRun r = run("info");
    ASSERT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("cudag 0."), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("MPI"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("threads"), std::string::npos) << r.out;
}

TEST_F(Cli, MissingFile) {
    expect_error("pc --data " + (dir_ / "nope.csv").string() + " --out " + (dir_ / "r.h5").string(), "nope.csv");
    expect_no_outputs({});
}

TEST_F(Cli, EmptyFile) {
    const auto p = write("empty.csv", "");
    expect_error("pc --data " + p.string() + " --out " + (dir_ / "r.h5").string(), "empty.csv");
    expect_no_outputs({"empty.csv"});
}

TEST_F(Cli, NanAndInfAndMissingCells) {
    for (const std::string cell : {"NaN", "inf", "", "NA"}) {
        const auto p = write("bad.csv", "a,b,c\n1,2,3\n4," + cell + ",6\n7,8,9\n1,5,2\n");
        expect_error("pc --data " + p.string() + " --out " + (dir_ / "r.h5").string(), "bad.csv:3");
        expect_no_outputs({"bad.csv"});
    }
}

TEST_F(Cli, NonNumericCell) {
    const auto p = write("text.csv", "a,b,c\n1,2,3\n4,abc,6\n7,8,9\n1,5,2\n");
    expect_error("pc --data " + p.string() + " --out " + (dir_ / "r.h5").string(), "abc");
    expect_no_outputs({"text.csv"});
}

TEST_F(Cli, RaggedRow) {
    const auto p = write("ragged.csv", "a,b,c\n1,2,3\n4,5\n7,8,9\n1,5,2\n");
    expect_error("pc --data " + p.string() + " --out " + (dir_ / "r.h5").string(), "ragged.csv:3");
    expect_no_outputs({"ragged.csv"});
}

TEST_F(Cli, ConstantColumn) {
    const auto p = write("const.csv", "a,b,c\n1,2,3\n4,2,6\n7,2,9\n1,2,2\n5,2,1\n");
    expect_error("pc --data " + p.string() + " --out " + (dir_ / "r.h5").string(), "'b' is constant");
    expect_no_outputs({"const.csv"});
}

TEST_F(Cli, TooFewSamples) {
    const auto p = write("few.csv", "a,b,c\n1,2,3\n4,5,7\n");
    expect_error("pc --data " + p.string() + " --out " + (dir_ / "r.h5").string(), "2 samples");
    const auto q = write("some.csv", chain_csv());
    expect_error("pc --data " + q.string() + " --max-level 58 --out " + (dir_ / "r.h5").string(),
                 "too few for --max-level 58");
    expect_no_outputs({"few.csv", "some.csv"});
    // n = l + 3 samples: the statistic is 0 and p = 1 (pcalg's, causal-learn's), not an error
    const auto t = write("three.csv", "a,b,c\n1,2,3\n4,5,7\n7,9,0\n");
    const CliRun r = run("citest --data " + t.string() + " --test fisher-z --x a --y b --json");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"p_value\": 1"), std::string::npos) << r.out;
}

// Kernel tuning sits behind one hidden --tune key=value: not in --help, checked, and
// without effect on the answer.
TEST_F(Cli, KernelTuningIsHiddenBehindTune) {
    const auto p = write("ok.csv", chain_csv());
    const CliRun help = run("pc --help");
    EXPECT_EQ(help.code, 0);
    for (const char* flag : {"--tune", "--variant", "--beta", "--gamma", "--theta", "--delta", "--scan-levels",
                             "--scan-round-levels", "--corr-limit"})
        EXPECT_EQ(help.out.find(flag), std::string::npos) << flag << " is in pc --help";
    // Each bad --tune value: one line naming the key and what it takes.
    const std::pair<const char*, const char*> bad_tunes[] = {
        {"--tune warp=3", "unknown --tune key 'warp'"},
        {"--tune variant=x", "--tune variant must be s"},
        {"--tune corr-limit", "--tune takes key=value"},
        {"--tune discrete-gamma=0", "--tune discrete-gamma must be an integer in [1, 64]"},
        {"--tune deep-span=0", "--tune deep-span must be an integer in [1, 1073741824]"},
        {"--tune deep-span=x", "--tune deep-span must be an integer"},
        {"--tune level0-bits=0", "--tune level0-bits must be a number of GiB >= 1/1024"},
        {"--tune level0-bits=x", "--tune level0-bits must be a number of GiB"},
        {"--tune corr-limit=-1", "--tune corr-limit must be a number of GiB >= 0"},
        {"--tune row-blocks=2", "--tune row-blocks must be an integer in [0, 1]"},
        {"--tune row-blocks=on", "--tune row-blocks must be an integer"},
        {"--tune corr-tile=96", "--tune corr-tile must be 64, 128 or 128x64"},
        {"--tune level0-fused=2", "--tune level0-fused must be an integer in [0, 1]"},
        {"--tune replicates-at-once=0", "--tune replicates-at-once must be an integer in [1, 64]"},
        {"--tune resident-entries=-1", "--tune resident-entries must be an integer in [0, 1073741824]"},
        {"--tune resident-entries=x", "--tune resident-entries must be an integer"},
    };
    for (const auto& [tune, message] : bad_tunes) expect_error("pc --data " + p.string() + " " + tune, message);
    expect_error("pc --data " + p.string() + " --variant e", "--variant");
    const CliRun plain = run("pc -q --data " + p.string());
    const CliRun tuned = run("pc -q --data " + p.string() +
                             " --tune variant=e,beta=4 --tune scan-levels=0 --tune corr-limit=0.5 --tune deep-span=1"
                             " --tune level0-bits=0.001 --tune row-blocks=0 --tune corr-tile=128x64"
                             " --tune level0-fused=0 --tune replicates-at-once=3 --tune resident-entries=0");
    ASSERT_EQ(plain.code, 0) << plain.err;
    ASSERT_EQ(tuned.code, 0) << tuned.err;
    EXPECT_EQ(plain.out, tuned.out);
}

TEST_F(Cli, UnknownOption) {
    const auto p = write("ok.csv", chain_csv());
    expect_error("pc --data " + p.string() + " --bogus 3", "--bogus");
    expect_error("pc --data " + p.string() + " --test kci", "unknown --test 'kci'");
    expect_error("pc --data " + p.string() + " --out " + (dir_ / "r.h5").string() + " --format edges,xml", "xml");
    expect_error("pc --data " + p.string() + " --out " + (dir_ / "r.h5").string() + " --tune scan-levels=-1",
                 "--tune scan-levels must be an integer in [0, 1000000]");
    expect_no_outputs({"ok.csv"});
}

TEST_F(Cli, AlphaOutsideUnitInterval) {
    const auto p = write("ok.csv", chain_csv());
    for (const char* a : {"0", "1", "1.5", "-0.1"})
        expect_error("pc --data " + p.string() + " --alpha " + a + " --out " + (dir_ / "r.h5").string(),
                     "--alpha must be in (0, 1)");
    expect_no_outputs({"ok.csv"});
}

TEST_F(Cli, UnwritableOutput) {
    const auto p = write("ok.csv", chain_csv());
    expect_error("pc --data " + p.string() + " --out " + (dir_ / "no/such/dir/r.h5").string(), "no/such/dir");
}

// ---- discrete data ---------------------------------------------------------------------

TEST_F(Cli, LabelColumnsAreReadAsDiscrete) {
    std::string text = "x,y,z\n";
    for (int k = 0; k < 200; ++k)
        text += std::string(k % 2 ? "yes" : "no") + "," + (k % 2 ? "hi" : "lo") + "," + std::to_string(k % 3) + "\n";
    const auto p = write("labels.csv", text);
    const CliRun r = run("pc --data " + p.string() + " --out " + (dir_ / "r.h5").string());
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("discrete"), std::string::npos) << r.err;
    // Integer codes need --discrete or a discrete test; --test fisher-z keeps the cell error.
    expect_error("pc --data " + p.string() + " --test fisher-z", "non-numeric value 'no'");
}

TEST_F(Cli, DiscreteSingleLevelAndBadDof) {
    const auto p = write("one.csv", "a,b,c\n0,1,5\n1,1,6\n0,1,5\n1,1,6\n");
    expect_error("pc --data " + p.string() + " --test g-square", "variable 'b' (column 2) has a single level");
    expect_error("pc --data " + p.string() + " --discrete --dof nope", "unknown --dof 'nope'");
    expect_error("pc --data " + p.string() + " --discrete --test fisher-z", "contradicts");
}

TEST_F(Cli, SimulateDiscreteIsDeterministic) {
    const std::string a = (dir_ / "a.csv").string(), b = (dir_ / "b.csv").string();
    const std::string args = " --vars 30 --samples 500 --density 0.1 --states 4 --seed 5 --threads ";
    EXPECT_EQ(run("simulate discrete" + args + "1 --out " + a).code, 0);
    EXPECT_EQ(run("simulate discrete" + args + "3 --out " + b + " --truth " + (dir_ / "t.tsv").string()).code, 0);
    EXPECT_EQ(slurp(a), slurp(b));
    const CliRun r = run("pc --data " + a + " --test chi-square --dof gpupc --out " + (dir_ / "r.h5").string() +
                         " --format edges,json,cl");
    EXPECT_EQ(r.code, 0) << r.err;
}

// Issue 33 item 16: simulate takes -q (--quiet) as the other commands do, before or after
// its subcommand: the same file, nothing on stderr.
TEST_F(Cli, SimulateQuiet) {
    const std::string a = (dir_ / "a.csv").string(), b = (dir_ / "b.csv").string(), c = (dir_ / "c.csv").string();
    const std::string args = " --vars 6 --samples 50 --seed 5 --out ";
    const CliRun loud = run("simulate discrete" + args + a);
    ASSERT_EQ(loud.code, 0) << loud.err;
    EXPECT_NE(loud.err.find("cudag simulate: 6 discrete variables x 50 samples"), std::string::npos) << loud.err;
    // c written three times: --overwrite replaces it (issue 53: never without).
    for (const std::string& cmd :
         {"simulate discrete -q" + args + b, "simulate -q discrete" + args + c,
          "simulate gaussian --quiet --overwrite" + args + c, "simulate nonlinear -q --overwrite" + args + c}) {
        const CliRun r = run(cmd);
        EXPECT_EQ(r.code, 0) << cmd << ": " << r.err;
        EXPECT_TRUE(r.err.empty()) << cmd << ": " << r.err;
    }
    EXPECT_EQ(slurp(a), slurp(b));
}

// simulate gaussian --graph er|scale-free: a truth file with the asked number of edges,
// and one-line errors for a bad graph kind or an option of another kind.
TEST_F(Cli, SimulateScaleFreeNetwork) {
    const auto csv = dir_ / "sf.csv";
    const auto truth = dir_ / "sf.tsv";
    const CliRun ok = run("simulate gaussian --graph scale-free --vars 50 --samples 40 --degree 4 --seed 2 --out " +
                          csv.string() + " --truth " + truth.string());
    ASSERT_EQ(ok.code, 0) << ok.err;
    EXPECT_NE(ok.err.find("97 true edges"), std::string::npos) << ok.err;  // 2 per node, 1 for the second
    expect_error("simulate gaussian --graph small-world --vars 5 --samples 5 --out " + (dir_ / "x.csv").string(),
                 "unknown --graph 'small-world'");
    expect_error(
        "simulate gaussian --graph er --hub-exponent 2 --vars 5 --samples 5 --out " + (dir_ / "x.csv").string(),
        "--hub-exponent applies to --graph scale-free only");
    const std::string five = " --vars 5 --samples 5 --out " + (dir_ / "x.csv").string();
    expect_error("simulate gaussian --graph scale-free --hub-exponent 9" + five, "--hub-exponent must lie in [0, 4]");
    expect_error("simulate gaussian --graph er --degree -2" + five, "--degree must lie in [0, n_vars - 1 = 4]");
    expect_error("simulate gaussian --graph er --degree 5" + five, "--degree must lie in [0, n_vars - 1 = 4]");
    expect_error("simulate gaussian --degree 5" + five, "--degree must lie in [0, n_vars - 1 = 4]");  // cupc too
    expect_error("simulate gaussian --graph er --density 0.2" + five, "--density applies to --graph cupc");
    expect_error("simulate gaussian --degree 2 --density 0.2" + five, "--density excludes --degree");
    EXPECT_FALSE(std::filesystem::exists(dir_ / "x.csv"));
}
