// SPDX-License-Identifier: Apache-2.0
// `cudag mcmc` end to end: the files it writes and their agreement with each other and with
// `cudag score`, chains that do not depend on threads or on a stop and resume, the search
// spaces and the prior, and one-line errors (with nothing written) for bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "io/hdf5_file.hpp"
#include "support/cli_fixture.hpp"
#include "support/result_files.hpp"

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;
namespace h5 = cudag::io::h5;

class Mcmc : public Cli {
protected:
    std::string f(const std::string& name) const {
        std::string quoted = "'";
        quoted += (dir_ / name).string();
        quoted += '\'';
        return quoted;
    }
    std::string p(const std::string& name) const { return (dir_ / name).string(); }
    void SetUp() override {
        Cli::SetUp();
        const CliRun r =
            run("simulate discrete --vars 8 --samples 600 --density 0.3 --states 3 --max-parents 2 "
                "--seed 7 --out " +
                f("d.csv") + " --truth " + f("truth.tsv"));
        ASSERT_EQ(r.code, 0) << r.err;
        base = "mcmc --data " + f("d.csv") + " --score bdeu --max-parents 2 ";
    }
    /// Lines of a text file.
    std::vector<std::string> lines(const std::string& name) const {
        std::ifstream in(dir_ / name);
        std::vector<std::string> out;
        for (std::string l; std::getline(in, l);) out.push_back(l);
        return out;
    }
    double root_double(const std::string& file, const char* attr) const {
        h5::Handle h = h5::open_file(p(file));
        double v = 0.0;
        h5::Handle a(H5Aopen(h.get(), attr, H5P_DEFAULT));
        H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v);
        return v;
    }
    std::string base;  ///< the command on d.csv, set in SetUp
};

TEST_F(Mcmc, WritesConsistentOutputsForBothOrderScores) {
    for (const std::string mode : {"max", "sum"}) {
        SCOPED_TRACE(mode);
        const CliRun r = run(base + "--chains 3 --iterations 1200 --burn-in 200 --thin 4 --order-score " + mode +
                             " --out " + f(mode + ".h5") + " --format edgeprob,traces,edges,dot");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.err.find("best DAG score"), std::string::npos) << r.err;
        // Traces: a header and (1200 - 200) / 4 rows, iterations 204, 208, ...
        const auto tr = lines(mode + ".traces.tsv");
        ASSERT_EQ(tr.size(), 251u);
        EXPECT_EQ(tr[0], "iteration\tchain_0\tchain_1\tchain_2");
        EXPECT_EQ(tr[1].rfind("204\t", 0), 0u) << tr[1];
        EXPECT_EQ(tr.back().rfind("1200\t", 0), 0u) << tr.back();
        // Edge probabilities in (0, 1], no self loops, both directions at most 1 together.
        const auto ep = lines(mode + ".edgeprob.tsv");
        ASSERT_GT(ep.size(), 3u);
        EXPECT_EQ(ep[0], "source\ttarget\tprobability");
        for (std::size_t k = 1; k < ep.size(); ++k) {
            std::istringstream ls(ep[k]);
            std::string a, b;
            double x = 0.0;
            ls >> a >> b >> x;
            EXPECT_NE(a, b);
            EXPECT_GT(x, 0.0);
            EXPECT_LE(x, 1.0 + 1e-12);
        }
        // The best DAG's score equals what `cudag score` gives for its edge list.
        const CliRun s =
            run("score --data " + f("d.csv") + " --dag " + f(mode + ".edges.tsv") + " --score bdeu --json");
        ASSERT_EQ(s.code, 0) << s.err;
        const std::regex total("\"total\": (-?[0-9.eE+-]+)");
        std::smatch m;
        ASSERT_TRUE(std::regex_search(s.out, m, total)) << s.out;
        const double by_score = std::strtod(m[1].str().c_str(), nullptr);
        EXPECT_NEAR(root_double(mode + ".h5", "best_score"), by_score, 1e-9 * std::abs(by_score));
        // It learns the truth well on this easy network.
        const CliRun c = run("compare --truth " + f("truth.tsv") + " --estimate " + f(mode + ".edges.tsv"));
        ASSERT_EQ(c.code, 0) << c.err;
        std::smatch fm;
        ASSERT_TRUE(std::regex_search(c.out, fm, std::regex("F1\\s+([0-9.]+)"))) << c.out;
        EXPECT_GE(std::strtod(fm[1].str().c_str(), nullptr), 0.7) << c.out;
    }
}

TEST_F(Mcmc, TracePngThroughGnuplotOrAOneLineWarning) {
    const CliRun r = run(base + "--chains 2 --iterations 200 -q --out " + f("t.h5") + " --format trace-png");
    ASSERT_EQ(r.code, 0) << r.err;
    if (r.err.find("gnuplot not found on PATH") != std::string::npos) {
        EXPECT_EQ(r.err, "warning: gnuplot not found on PATH: skipped " + p("t.png").substr(0, p("t.png").size() - 4) +
                             ".traces.png\n");
        EXPECT_FALSE(std::filesystem::exists(dir_ / "t.traces.png"));
        GTEST_SKIP() << "gnuplot is not installed (optional): " << r.err;
    }
    const std::string png = cudag::test::slurp(dir_ / "t.traces.png");
    ASSERT_GE(png.size(), 8u) << r.err;
    EXPECT_EQ(png.substr(1, 3), "PNG");
}

TEST_F(Mcmc, SameChainsOnAnyThreadCountAndAfterAStopAndResume) {
    const std::string opts = base + "--chains 4 --iterations 800 --order-score sum -q ";
    CliRun r = run(opts + "--threads 1 --out " + f("one.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(opts + "--threads 2 --out " + f("two.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_mcmc_results(p("two.h5"), p("one.h5")));
    r = run(opts + "--checkpoint " + f("ck.h5") + " --checkpoint-every 250 --stop-after 500 --out " + f("res.h5"));
    ASSERT_EQ(r.code, 3) << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir_ / "ck.h5"));
    EXPECT_FALSE(std::filesystem::exists(dir_ / "res.h5"));
    // Another seed is another configuration: refused, checkpoint kept.
    expect_error(opts + "--seed 2 --checkpoint " + f("ck.h5") + " --resume --out " + f("res.h5"),
                 "was written for other options: --seed was 1 in the checkpoint, 2 now");
    // So is enumerating the sets instead of the subset rows (other last bits of the sums).
    expect_error(opts + "--tune sum-rows=0 --checkpoint " + f("ck.h5") + " --resume --out " + f("res.h5"),
                 "--tune sum-rows");
    r = run(opts + "--checkpoint " + f("ck.h5") + " --checkpoint-every 250 --resume --keep-checkpoint --out " +
            f("res.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_mcmc_results(p("res.h5"), p("one.h5")));
    EXPECT_TRUE(std::filesystem::exists(dir_ / "ck.h5"));
    // Other seeds give other chains.
    r = run(opts + "--seed 9 --out " + f("other.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(cudag::test::same_mcmc_results(p("other.h5"), p("one.h5")));
}

TEST_F(Mcmc, OldCheckpointWithoutARecordedSpaceResumesWithTheOldDefault) {
    // 25 variables at --max-parents 4: the default (auto) picks pc; before it, the default
    // was all, and a checkpoint recorded no space.
    ASSERT_EQ(run("simulate gaussian --vars 25 --samples 200 --seed 4 --out " + f("g.csv")).code, 0);
    const std::string opts = "mcmc --data " + f("g.csv") + " --score bge --chains 2 --iterations 400 -q ";
    CliRun r = run(opts + "--space all --out " + f("all.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(opts + "--space all --checkpoint " + f("ck.h5") + " --checkpoint-every 100 --stop-after 200");
    ASSERT_EQ(r.code, 3) << r.err;
    {
        // The checkpoint as an earlier cudag wrote it: its settings without "--space".
        h5::Handle file(H5Fopen(p("ck.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
        ASSERT_GE(file.get(), 0);
        std::vector<std::string> names = h5::read_string_attr(file.get(), "setting_names", "ck");
        std::vector<std::string> values = h5::read_string_attr(file.get(), "setting_values", "ck");
        const auto at = std::find(names.begin(), names.end(), "--space");
        ASSERT_NE(at, names.end());
        EXPECT_EQ(values[static_cast<std::size_t>(at - names.begin())], "all");
        values.erase(values.begin() + (at - names.begin()));
        names.erase(at);
        ASSERT_GE(H5Adelete(file.get(), "setting_names"), 0);
        ASSERT_GE(H5Adelete(file.get(), "setting_values"), 0);
        h5::write_string_array_attr(file.get(), "setting_names", names, "ck");
        h5::write_string_array_attr(file.get(), "setting_values", values, "ck");
    }
    // No --space: the checkpoint's day's default (all), the chains of an uninterrupted run.
    r = run(opts + "--checkpoint " + f("ck.h5") + " --checkpoint-every 100 --resume --keep-checkpoint --out " +
            f("res.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_mcmc_results(p("res.h5"), p("all.h5")));
    // The default on a fresh run is pc here; given with --resume, it is refused (another space).
    expect_error(opts + "--space auto --checkpoint " + f("ck.h5") + " --resume --out " + f("x.h5"), "the search space");
}

TEST_F(Mcmc, SlurmTemplateRequeuesAndResumesToTheSameChains) {
    // slurm/mcmc_resume.sbatch run by bash with a stand-in srun (runs its command here):
    // the first attempt stops after a checkpoint, the second resumes from it.
    write("srun", "#!/bin/sh\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n");
    std::filesystem::permissions(dir_ / "srun", std::filesystem::perms::owner_all);
    const std::string opts = "--score bdeu --max-parents 2 --chains 3 --iterations 600";
    CliRun r = run(base + "--chains 3 --iterations 600 -q --out " + f("plain.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string env =
        "PATH=" + dir_.string() + ":$PATH CUDAG=" + cudag::test::cudag_binary() + " CKPT_EVERY=200 ";
    const std::string job = "bash " + std::string(CUDAG_SOURCE_DIR) + "/slurm/mcmc_resume.sbatch " + f("d.csv") + " " +
                            f("job.h5") + " " + opts;
    auto shell = [&](const std::string& extra) {
        return std::system(("cd " + f("") + " && " + env + job + extra + " >/dev/null 2>&1").c_str());
    };
    const int first = shell(" --stop-after 400");
    EXPECT_EQ(WEXITSTATUS(first), 3);
    EXPECT_TRUE(std::filesystem::exists(dir_ / "job.h5.ckpt.h5"));
    EXPECT_FALSE(std::filesystem::exists(dir_ / "job.h5"));
    EXPECT_EQ(WEXITSTATUS(shell("")), 0);
    EXPECT_TRUE(cudag::test::same_mcmc_results(p("job.h5"), p("plain.h5")));
    EXPECT_FALSE(std::filesystem::exists(dir_ / "job.h5.ckpt.h5"));
}

TEST_F(Mcmc, RecoversBnlearnsSachsAndChildNetworks) {
    // bnlearn's networks as causal-learn's test data sample them (10,000 samples); read from
    // the shared folder, never copied into the project.
    const std::string base_dir = std::string(CUDAG_SHARED_DATA) + "/causal-learn/bnlearn_discrete_10000/";
    if (!std::filesystem::exists(base_dir + "data/sachs.txt"))
        GTEST_SKIP() << "reference data not found under " << base_dir;
    for (const std::string net : {"sachs", "child"}) {
        const CliRun r =
            run("mcmc --data '" + base_dir + "data/" + net + ".txt' --score bdeu --chains 2 --iterations 3000 " +
                "--out " + f(net + ".h5") + " --format cpdag -q");
        ASSERT_EQ(r.code, 0) << r.err;
        const CliRun c = run("compare --truth '" + base_dir + "truth_dag_graph/" + net + ".graph.txt' --estimate " +
                             f(net + ".cpdag.tsv"));
        ASSERT_EQ(c.code, 0) << c.err;
        std::smatch m;
        ASSERT_TRUE(std::regex_search(c.out, m, std::regex("SHD\\s+(\\d+)"))) << c.out;
        EXPECT_EQ(m[1].str(), "0") << net << ": " << c.out;  // the true CPDAG exactly
    }
}

TEST_F(Mcmc, SpaceFileAndPcSpaceRestrictParents) {
    // Only X1 --> X2 and X3 --- X4 allowed: the best DAG can use nothing else.
    write("space.tsv", "source\ttarget\tmark\nX1\tX2\t-->\nX3\tX4\t---\n");
    CliRun r = run(base + "--space " + f("space.tsv") + " --chains 2 --iterations 300 --out " + f("s.h5") +
                   " --format edges -q");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto e = lines("s.edges.tsv");
    for (std::size_t k = 1; k < e.size(); ++k)
        EXPECT_TRUE(e[k] == "X1\tX2\t-->" || e[k] == "X3\tX4\t-->" || e[k] == "X4\tX3\t-->") << e[k];
    r = run(base + "--space pc --alpha 0.01 --chains 2 --iterations 500 --out " + f("pc.h5") + " --format edges -v");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("search space: pc (alpha 0.01"), std::string::npos) << r.err;
    EXPECT_GE(lines("pc.edges.tsv").size(), 4u);
    // --space iterative (issue 37): the space grown from pc's, and said which was sampled.
    r = run(base + "--space iterative --alpha 0.01 --hard-limit 3 --chains 2 --iterations 500 --out " + f("it.h5") +
            " -v");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("search space sampled: pc (alpha 0.01"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(hard limit 3)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("; space search "), std::string::npos) << r.err;
    h5::Handle h = h5::open_file(p("it.h5"));
    h5::Handle g(H5Gopen2(h.get(), "config", H5P_DEFAULT));
    const std::vector<std::string> space = h5::read_string_attr(g.get(), "space", "it.h5");
    ASSERT_EQ(space.size(), 1u);
    EXPECT_NE(space[0].find(", iterative: "), std::string::npos) << space[0];
}

TEST_F(Mcmc, PriorAndEdgePenaltyMoveTheBestDag) {
    // A strong belief against every edge and an edge penalty of 690 per parent: the empty graph wins.
    std::string prior = "X1,X2,X3,X4,X5,X6,X7,X8\n";
    for (int i = 0; i < 8; ++i) prior += "0,0,0,0,0,0,0,0\n";
    write("no.csv", prior);
    CliRun r = run(base + "--prior " + f("no.csv") + " --edge-penalty 1e300 --chains 2 --iterations 300 --out " +
                   f("empty.h5") + " --format edges -q");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(lines("empty.edges.tsv").size(), 1u);  // the header only
}

// Issue 37: max mode's pruned table (the default) and the full one give the same chains;
// the result says what each node scored and kept.
TEST_F(Mcmc, PrunedAndFullTablesGiveTheSameChains) {
    const std::string opts =
        "mcmc --data " + f("d.csv") + " --score k2 --max-parents 3 --chains 3 --iterations 600 -q ";
    CliRun r = run(opts + "--out " + f("pruned.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(opts + "--tune table-prune=off --out " + f("full.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_mcmc_results(p("pruned.h5"), p("full.h5")));
    const auto config = [&](const std::string& file, const char* key) {
        h5::Handle h = h5::open_file(p(file));
        h5::Handle g(H5Gopen2(h.get(), "config", H5P_DEFAULT));
        const std::vector<std::string> v = h5::read_string_attr(g.get(), key, file);
        return v.empty() ? std::string() : v.front();
    };
    const std::string scored = config("pruned.h5", "table_scored_by_node");
    const std::string kept = config("pruned.h5", "table_kept_by_node");
    EXPECT_EQ(std::count(scored.begin(), scored.end(), ','), 7) << scored;  // 8 nodes
    EXPECT_EQ(std::count(kept.begin(), kept.end(), ','), 7) << kept;
    EXPECT_EQ(config("pruned.h5", "table_pruning"), "on");
    EXPECT_EQ(config("full.h5", "table_pruning"), "off");
    // Every node scored all C(7, <= 3) = 64 of its sets without pruning.
    EXPECT_EQ(config("full.h5", "table_scored_by_node"), "64,64,64,64,64,64,64,64");
}

TEST_F(Mcmc, BadInputGetsOneLineAndNoFiles) {
    write("g.csv", "A,B\n0.5,1.25\n-1,2\n0.25,0.5\n");
    write("lab.csv", "A,B\nx,y\nz,y\nx,w\n");
    write("one.csv", "A,B\n1,0\n1,1\n1,0\n");
    write("small.csv", "X1,X2\n0.5,0.5\n0.5,0.5\n");
    std::string wide = "X1,X2,X3,X4,X5,X6,X7,X8\n";
    for (int i = 0; i < 8; ++i)
        wide += i == 3 ? "0.5,0.5,0.5,0.5,1.5,0.5,0.5,0.5\n" : "0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5\n";
    write("range.csv", wide);
    write("unknown.tsv", "source\ttarget\tmark\nX1\tQ\t-->\n");
    const std::set<std::string> inputs = {"d.csv",   "truth.tsv", "g.csv",     "lab.csv",
                                          "one.csv", "small.csv", "range.csv", "unknown.tsv"};
    const std::string out = " --out " + f("r.h5") + " --format edgeprob";
    expect_error("mcmc --data " + f("g.csv") + " --score bdeu" + out, "BDeu and K2 score discrete data");
    expect_error("mcmc --data " + f("lab.csv") + " --score bge" + out, "--score bge scores continuous data");
    expect_error("mcmc --data " + f("one.csv") + " --score k2" + out, "'A'");
    expect_error(base + "--prior " + f("small.csv") + out, "8 x 8 matrix is needed");
    expect_error(base + "--prior " + f("range.csv") + out, "outside [0, 1]");
    expect_error(base + "--space " + f("unknown.tsv") + out, "Q");
    expect_error(base + "--format edgeprob,bogus --out " + f("r.h5"), "unknown output format 'bogus'");
    expect_error(base + "--order-score mean" + out, "unknown --order-score 'mean'");
    expect_error(base + "--moves jump" + out, "unknown --moves 'jump'");
    expect_error(base + "--burn-in 50 --iterations 10" + out, "--burn-in must lie in [0, --iterations - 1 = 9]");
    expect_error(base + "--resume" + out, "--resume needs --checkpoint");
    expect_error(base + "--space all --alpha 0.1" + out, "apply to --space pc and iterative only");
    expect_error(base + "--checkpoint " + f("c.h5") + " --checkpoint-every 5x" + out, "--checkpoint-every takes");
    expect_error(base + "--checkpoint " + f("missing.h5") + " --resume" + out, "missing.h5");
    expect_error(base + "--edge-penalty 0" + out, "--edge-penalty must be a positive number");
    expect_error(base + "--chains 0" + out, "--chains must be at least 1");
    expect_error(base + "--iterations -5" + out, "--iterations must be at least 1");
    expect_error(base + "--thin 0" + out, "--thin must lie in [1, --iterations - --burn-in = 8000]");
    expect_error("mcmc --data " + f("d.csv") + " --score bdeu --max-parents=-1" + out, "--max-parents must be >= 0");
    expect_error(base + "--space pc --alpha 1.5" + out, "--alpha must lie in (0, 1)");
    expect_error(base + "--space pc --hard-limit 0" + out, "--hard-limit must be at least 1");
    expect_error(base + "--checkpoint -" + out, "--checkpoint needs a file name");
    expect_error(base + "--checkpoint-every 100" + out, "--checkpoint-every needs --checkpoint");
    expect_error(base + "--iss 0" + out, "--iss must lie in [1e-6, 1e6]");
    expect_error(base + "--am 2" + out, "--am and --aw apply to --score bge only");
    expect_error(base + "--backend gpu" + out, "gpu");
    expect_error(base + "--tune table-prune=maybe" + out, "--tune table-prune must be on or off, got 'maybe'");
    expect_error(base + "--tune tile=3" + out, "unknown --tune key 'tile' of cudag mcmc");
    expect_error(base + "--tune sum-prune=5" + out, "--tune sum-prune applies to --order-score sum only");
    expect_error(base + "--order-score sum --tune sum-prune=-1" + out,
                 "--tune sum-prune must be a finite number >= 0, got '-1'");
    expect_error(base + "--order-score sum --tune sum-prune=5x" + out,
                 "--tune sum-prune must be a finite number >= 0, got '5x'");
    expect_error(base + "--tune sum-rows=1" + out, "--tune sum-rows applies to --order-score sum only");
    expect_error(base + "--order-score sum --tune sum-rows=-2" + out,
                 "--tune sum-rows must be a finite number of GiB >= 0, got '-2'");
    expect_error(base + "--order-score sum --tune sum-rows=inf" + out,
                 "--tune sum-rows must be a finite number of GiB >= 0, got 'inf'");
    expect_no_outputs(inputs);
}

TEST_F(Mcmc, RunsThatKeepNoIterationIsRefusedInOneLine) {
    // Issue 33 item 9: each of these kept nothing yet exited 0 with empty outputs, and a
    // negative --burn-in was silently the default.
    const std::string out = " --out " + f("r.h5") + " --format edgeprob,traces";
    const std::set<std::string> inputs = {"d.csv", "truth.tsv"};
    const std::string burn_in_range = "--burn-in must lie in [0, --iterations - 1 = 99]";
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"--iterations 0", "--iterations must be at least 1"},
        {"--iterations 100 --burn-in 100", burn_in_range},
        {"--iterations 100 --burn-in=-1", burn_in_range},
        {"--iterations 100 --burn-in=-30", burn_in_range + " so that an iteration is kept, got -30"},
        {"--iterations 100 --burn-in 40 --thin 61",
         "--thin must lie in [1, --iterations - --burn-in = 60] so that an iteration is kept, got 61"},
    };
    for (const auto& [args, message] : refused) expect_error(base + args + out, message);
    expect_no_outputs(inputs);
    // The edges of the ranges still run and keep what they say.
    CliRun r = run(base + "--chains 2 --iterations 100 --burn-in 40 --thin 60 -q --out " + f("edge.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(base + "--chains 1 --iterations 1 --burn-in 0 -q --out " + f("one.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
}

TEST_F(Mcmc, PriorsThatMakeTheScoreNotFiniteAreRefused) {
    // Issue 33 item 7: these printed "best DAG score -nan" and exited 0.
    CliRun r = run("simulate gaussian --vars 4 --samples 200 --density 0.5 --seed 3 --out " + f("g.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::set<std::string> inputs = {"d.csv", "truth.tsv", "g.csv"};
    const std::string out = " --iterations 200 --chains 1 --out " + f("r.h5");
    const std::string bge = "mcmc --data " + f("g.csv") + " --score bge --max-parents 2";
    const std::string aw_range = "--aw must lie in (n + 1, n + 1 + 1e6] = (5, 1000005]";
    const std::vector<std::pair<std::string, std::string>> refused = {
        {base + "--iss 1e308", "--iss must lie in [1e-6, 1e6] (got 1e+308)"},
        {base + "--iss 1e-300", "--iss must lie in [1e-6, 1e6]"},
        {bge + " --am 1e308", "--am must lie in [1e-6, 1e6]"},
        {bge + " --aw 1e308", aw_range},
        {bge + " --aw 5", aw_range},
    };
    for (const auto& [args, message] : refused) expect_error(args + out, message);
    expect_no_outputs(inputs);
    // The bounds themselves give finite scores.
    for (const std::string& opts : {base + "--iss 1e6", base + "--iss 1e-6", bge + " --am 1e6", bge + " --am 1e-6",
                                    bge + " --aw 1000005", bge + " --am 1e6 --aw 1000005"}) {
        r = run(opts + " --iterations 200 --chains 1");
        ASSERT_EQ(r.code, 0) << opts << ": " << r.err;
        EXPECT_NE(r.err.find("best DAG score"), std::string::npos) << opts << ": " << r.err;
        EXPECT_EQ(r.err.find("nan"), std::string::npos) << opts << ": " << r.err;
        EXPECT_EQ(r.err.find("inf"), std::string::npos) << opts << ": " << r.err;
    }
}

TEST_F(Mcmc, ChainsThatCannotFitAreRefusedBeforeTheTable) {
    // Issue 33 item 13: huge --iterations or --chains ended in std::bad_alloc after the
    // table, or started and would have filled the memory in minutes.
    expect_error(base + "--iterations 1000000000000 --chains 64 --out " + f("r.h5"),
                 "the chains' kept traces (64 chains here x 800000000000 kept iterations)");
    // The traces are what grows here: the advice is about iterations (issue 53 item 7).
    expect_error(base + "--iterations 1000000000000 --chains 64 --out " + f("r.h5"),
                 "keep fewer iterations: lower --iterations, or raise --thin or --burn-in");
    expect_error(base + "--iterations 100000 --chains 100000000 --out " + f("r.h5"),
                 "100000000 chains here x 80000 kept iterations");
    expect_no_outputs({"d.csv", "truth.tsv"});
    // Thinning keeps fewer: a thinned run fits.
    const CliRun r = run(base + "--iterations 2000 --chains 2 --thin 100 -q");
    EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(Mcmc, BgeOnTooFewSamplesIsRefusedAsPcRefusesThem) {
    // Issue 33 item 10: BGe on 1-2 samples returned a DAG (its score the prior's alone).
    for (const int m : {1, 2}) {
        std::string csv = "a,b,c\n";
        for (int s = 0; s < m; ++s) csv += std::to_string(s + 1) + ".5,2.25," + std::to_string(3 * s) + ".75\n";
        std::ofstream(p("few.csv")) << csv;
        expect_error("mcmc --data " + f("few.csv") + " --score bge --iterations 100 --out " + f("r.h5"),
                     std::to_string(m) + (m == 1 ? " sample;" : " samples;") + " BGe needs at least 3");
        expect_no_outputs({"d.csv", "truth.tsv", "few.csv"});
    }
    std::ofstream(p("few.csv")) << "a,b,c\n1.5,2.25,0.75\n2.5,1.25,3.75\n0.5,4.25,1.75\n";
    const CliRun r = run("mcmc --data " + f("few.csv") + " --score bge --iterations 100 --chains 1");
    EXPECT_EQ(r.code, 0) << "3 samples are scored: " << r.err;
}

TEST_F(Mcmc, FinishedChainsAreCheckpointedBeforeTheDiagnostics) {
    // Issue 33 item 1: the last checkpoint was the last periodic one (none in a short run),
    // so a stop during the diagnostics lost the finished chains.
    const std::string opts = base + "--chains 2 --iterations 300 --order-score sum -q ";
    CliRun r = run(opts + "--out " + f("plain.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(opts + "--checkpoint " + f("ck.h5") + " --keep-checkpoint --out " + f("first.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(std::filesystem::exists(dir_ / "ck.h5"));
    // The checkpoint holds the finished chains: resuming it runs no iteration and gives
    // the same result.
    r = run(base + "--chains 2 --iterations 300 --order-score sum -v --checkpoint " + f("ck.h5") + " --resume --out " +
            f("again.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("at iteration 300"), std::string::npos) << r.err;
    EXPECT_TRUE(cudag::test::same_mcmc_results(p("first.h5"), p("plain.h5")));
    EXPECT_TRUE(cudag::test::same_mcmc_results(p("again.h5"), p("plain.h5")));
}

}  // namespace
