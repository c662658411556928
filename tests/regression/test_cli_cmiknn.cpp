// SPDX-License-Identifier: Apache-2.0
// The nonlinear PC from the command line: `cudag citest` (output, JSON, one-line errors,
// constant columns), `cudag simulate nonlinear` (same seed, same bytes) and `cudag pc
// --test cmiknn` (config attributes, resume after a stop, the checkpoint hash, --backend
// cuda). Data are small (T = 120 to 150, B = 29 to 49) so that each test takes seconds.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "io/hdf5_file.hpp"
#include "support/cli_fixture.hpp"
#include "support/result_files.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::CliRun;

class CmiknnCli : public cudag::test::Cli {
protected:
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    /// simulate nonlinear into `name` (and its truth beside it).
    void simulate(const std::string& name, int vars, int samples, int seed, const std::string& extra = "") {
        const CliRun r = run("simulate nonlinear --vars " + std::to_string(vars) + " --samples " +
                             std::to_string(samples) + " --density 0.4 --seed " + std::to_string(seed) + " --out " +
                             path(name) + " --truth " + path(name + ".truth.tsv") + " " + extra);
        ASSERT_EQ(r.code, 0) << r.err;
    }
    /// The value after "key\t" in citest's text output.
    static double field(const std::string& out, const std::string& key) {
        const std::size_t at = out.find("\n" + key + "\t");
        if (at == std::string::npos) return -1.0;
        return std::stod(out.substr(at + key.size() + 2));
    }
};

TEST_F(CmiknnCli, SimulateNonlinearSameSeedSameBytes) {
    simulate("a.csv", 12, 300, 3);
    simulate("b.csv", 12, 300, 3, "--threads 2");
    simulate("c.csv", 12, 300, 4);
    EXPECT_EQ(cudag::test::slurp(dir_ / "a.csv"), cudag::test::slurp(dir_ / "b.csv"));
    EXPECT_EQ(cudag::test::slurp(dir_ / "a.csv.truth.tsv"), cudag::test::slurp(dir_ / "b.csv.truth.tsv"));
    EXPECT_NE(cudag::test::slurp(dir_ / "a.csv"), cudag::test::slurp(dir_ / "c.csv"));
    const std::string truth = cudag::test::slurp(dir_ / "a.csv.truth.tsv");
    EXPECT_EQ(truth.rfind("source\ttarget\tmark\tweight\tfunction\n", 0), 0u) << truth;
    // compare reads the truth with its function column.
    const CliRun c = run("compare --truth " + path("a.csv.truth.tsv") + " --estimate " + path("a.csv.truth.tsv"));
    EXPECT_EQ(c.code, 0) << c.err;
    // Its own earlier output is replaced with --overwrite only (issue 53 item 9).
    expect_error("simulate nonlinear --vars 3 --samples 10 --out " + path("a.csv"), "exists: add --overwrite");
    const CliRun r = run("simulate nonlinear --vars 3 --samples 10 --overwrite --out " + path("a.csv"));
    EXPECT_EQ(r.code, 0) << r.err;
    expect_error("simulate nonlinear --vars 3 --samples 10 --density 2 --out " + path("d.csv"), "density");
}

TEST_F(CmiknnCli, CitestPrintsStatisticAndPValue) {
    simulate("d.csv", 5, 150, 1);
    const std::string base = "citest --data " + path("d.csv") + " --x X1 --y X2 --given X3 ";
    CliRun r = run(base + "--test cmiknn --permutations 49");  // citest: any B (no alpha)
    ASSERT_EQ(r.code, 0) << r.err;
    const double p = field(r.out, "p_value");
    EXPECT_GE(p, 1.0 / 50);
    EXPECT_LE(p, 1.0);
    EXPECT_GT(field(r.out, "statistic"), -1.0);
    EXPECT_EQ(field(r.out, "k"), 30.0);  // 0.2 * 150
    // The same test again: the same numbers (counter-based random numbers).
    EXPECT_EQ(run(base + "--test cmiknn --permutations 49").out, r.out);

    r = run(base + "--test cmiknn --permutations 49 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.front(), '{');
    EXPECT_EQ(r.out.substr(r.out.size() - 2), "}\n");
    for (const char* key : {"\"statistic\": ", "\"p_value\": ", "\"given\": [\"X3\"]", "\"k\": 30"})
        EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;

    r = run(base + "--test fisher-z --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"p_value\": "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"z\": "), std::string::npos) << r.out;

    write("disc.csv", "a,b,c\nx,u,1\ny,v,2\nx,v,1\ny,u,2\nx,u,2\ny,v,1\nx,v,1\ny,u,1\n");
    r = run("citest --data " + path("disc.csv") + " --test g-square --x a --y b --given c --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"dof\": "), std::string::npos) << r.out;
}

TEST_F(CmiknnCli, CitestRepeatsPcsTestExactly) {
    simulate("d.csv", 4, 120, 2);
    ASSERT_EQ(run("pc -q --data " + path("d.csv") +
                  " --test cmiknn --permutations 29 --no-early-stop "
                  "--alpha 0.05 --max-level 0 --out " +
                  path("r.h5"))
                  .code,
              0);
    cudag::io::h5::Handle f = cudag::io::h5::open_file(path("r.h5"));
    const auto pmax = cudag::io::h5::read_array<double>(f.get(), "pmax/matrix", "r.h5");
    ASSERT_EQ(pmax.size(), 16u);
    // X2 before X4 in the file: pc tests the pair as (X2, X4), permuting X4.
    const CliRun r = run("citest --data " + path("d.csv") +
                         " --test cmiknn --permutations 29 "
                         "--x X2 --y X4");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(field(r.out, "p_value"), pmax[1 * 4 + 3]) << r.out;
}

TEST_F(CmiknnCli, CitestErrorsAreOneLine) {
    simulate("d.csv", 4, 40, 1);
    const std::string d = "citest --data " + path("d.csv") + " ";
    expect_error(d + "--test cmiknn --x X1 --y nope", "unknown variable 'nope' in --y");
    expect_error(d + "--test cmiknn --x X1 --y X2 --given X3,X1", "'X1' is given twice (as --x and in --given)");
    expect_error(d + "--test cmiknn --x X1 --y X1", "'X1' is given twice (as --x and --y)");
    expect_error(d + "--test cmiknn --x X1 --y X2 --given X3,X3", "'X3' is given twice");
    expect_error(d + "--test cmiknn --x X1 --y X2 --knn 40", "needs more than 40 samples");
    expect_error(d + "--test cmiknn --x X1 --y X2 --given X3 --shuffle-neighbors 40",
                 "--shuffle-neighbors 40 needs more samples");
    expect_error(d + "--test cmiknn --x X1 --y X2 --given X3 --shuffle-neighbors 1",
                 "--shuffle-neighbors must be in 2..");
    expect_error(d + "--test cmiknn --x X1 --y X2 --transform rank", "unknown transform 'rank'");
    expect_error(d + "--test cmiknn --x X1 --y X2 --permute z", "expected x or y");
    expect_error(d + "--test fisher-z --x X1 --y X2 --knn 5", "--knn applies to --test cmiknn only");
    expect_error(d + "--test kci --x X1 --y X2", "unknown --test 'kci'");
    write("few.csv", "a,b\n1,2\n3,1\n");
    expect_error("citest --data " + path("few.csv") + " --test cmiknn --x a --y b", "too few samples");
    expect_error("citest --data " + path("few.csv") + " --test fisher-z --x a --y b", "too few for fisher-z");
    write("bad.csv", "a,b,c\n1,2,3\n4,x,6\n7,8,9\n1,2,2\n");
    expect_error("citest --data " + path("bad.csv") + " --test cmiknn --x a --y b", "'x'");
}

TEST_F(CmiknnCli, CitestConstantColumnAsTigramite) {
    write("c.csv", "a,b,k\n1,2,5\n2,1,5\n3,4,5\n4,3,5\n5,6,5\n6,5,5\n7,8,5\n8,7,5\n9,9,5\n10,11,5\n");
    CliRun r = run("citest --data " + path("c.csv") + " --test cmiknn --x k --y a --knn 2");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(field(r.out, "statistic"), 0.0) << r.out;
    EXPECT_EQ(field(r.out, "p_value"), 1.0) << r.out;
    EXPECT_EQ(r.err, "");
    r = run("citest -v --data " + path("c.csv") + " --test cmiknn --x k --y a --knn 2");
    EXPECT_NE(r.err.find("'k' is constant"), std::string::npos) << r.err;
    r = run("citest -v --data " + path("c.csv") +
            " --test cmiknn --x a --y b --given k --knn 2 "
            "--shuffle-neighbors 3");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("dropped from the conditioning set"), std::string::npos) << r.err;
}

TEST_F(CmiknnCli, PcRecordsTheTestAndResumesIdentically) {
    simulate("d.csv", 6, 140, 5);
    const std::string base =
        "pc -q --data " + path("d.csv") + " --test cmiknn --permutations 39 --knn 0.1 --alpha 0.05 ";
    CliRun r = run(base + "--out " + path("full.h5") + " --format edges,cl");
    ASSERT_EQ(r.code, 0) << r.err;
    {
        cudag::io::h5::Handle f = cudag::io::h5::open_file(path("full.h5"));
        EXPECT_EQ(cudag::test::config_attr(f.get(), "test"), "cmiknn");
        EXPECT_EQ(cudag::test::config_attr(f.get(), "cmiknn_k"), "14");
        EXPECT_EQ(cudag::test::config_attr(f.get(), "cmiknn_permutations"), "39");
        EXPECT_NE(cudag::test::config_attr(f.get(), "cmiknn_early_stop")
                      .find("p-values of early-stopped tests are lower bounds"),
                  std::string::npos);
    }
    for (int stop : {0, 1}) {
        const std::string ck = path("ck" + std::to_string(stop) + ".h5");
        r = run(base + "--out " + path("r.h5") + " --checkpoint " + ck + " --stop-after-level " + std::to_string(stop));
        ASSERT_EQ(r.code, 3) << r.err;
        // k given as a count equal to 0.1 * 140 is the same test: the checkpoint resumes.
        r = run("pc -q --data " + path("d.csv") +
                " --test cmiknn --permutations 39 --knn 14 "
                "--alpha 0.05 --out " +
                path("r.h5") + " --format edges,cl --checkpoint " + ck + " --resume --keep-checkpoint --threads 1");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(cudag::test::same_results(path("r.h5"), path("full.h5"), {".edges.tsv", ".cl.txt"}))
            << "stopped after level " << stop;
    }
    // Options that change results are refused at resume.
    for (const std::string other : {"--permutations 49", "--seed 1", "--no-early-stop", "--permute x",
                                    "--shuffle-neighbors 6", "--transform standardize"}) {
        r = run("pc -q --data " + path("d.csv") + " --test cmiknn --knn 0.1 --alpha 0.05 " +
                (other.rfind("--permutations", 0) == 0 ? "" : "--permutations 39 ") + other + " --out " + path("x.h5") +
                " --checkpoint " + path("ck0.h5") + " --resume");
        EXPECT_NE(r.code, 0) << other;
        // The refusal names the option (--no-early-stop as --early-stop's setting).
        const std::string flag = other == "--no-early-stop" ? "--early-stop" : other.substr(0, other.find(' '));
        EXPECT_NE(r.err.find("was written for other options: " + flag + " "), std::string::npos)
            << other << ": " << r.err;
    }
    EXPECT_FALSE(fs::exists(path("x.h5")));
}

TEST_F(CmiknnCli, CudaAndCpuBackendsGiveTheSameResults) {
    if (cudag::visible_gpus() == 0) GTEST_SKIP() << "no GPU visible (or no CUDA in this build)";
    simulate("d.csv", 8, 200, 3);
    const std::string base = "pc -q --data " + path("d.csv") +
                             " --test cmiknn --permutations 99 --knn 7 --shuffle-neighbors 15 --alpha 0.05 ";
    for (const std::string backend : {"cpu", "cuda"}) {
        const CliRun r = run(base + "--backend " + backend + " --out " + path(backend + ".h5") + " --format edges,cl");
        ASSERT_EQ(r.code, 0) << r.err;
    }
    EXPECT_TRUE(cudag::test::same_results(path("cuda.h5"), path("cpu.h5"), {".edges.tsv", ".cl.txt"}));
    // A checkpoint written by one backend resumes on the other with the same result.
    CliRun r =
        run(base + "--backend cpu --out " + path("x.h5") + " --checkpoint " + path("ck.h5") + " --stop-after-level 1");
    ASSERT_EQ(r.code, 3) << r.err;
    r = run(base + "--backend cuda --out " + path("x.h5") + " --format edges,cl --checkpoint " + path("ck.h5") +
            " --resume");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_results(path("x.h5"), path("cpu.h5"), {".edges.tsv", ".cl.txt"}));
}

TEST_F(CmiknnCli, PcOptionErrors) {
    simulate("d.csv", 3, 30, 1);
    const std::string d = "pc --data " + path("d.csv") + " ";
    // Without a GPU (or a CUDA build) --backend cuda is a one-line error naming cuda.
    if (cudag::visible_gpus() == 0) expect_error(d + "--test cmiknn --backend cuda", "cuda");
    expect_error(d + "--permutations 10", "--permutations applies to --test cmiknn only");
    expect_error(d + "--test cmiknn --knn 30", "needs more than 30 samples");
    expect_error(d + "--test cmiknn --shuffle-neighbors 30", "--shuffle-neighbors 30 needs more samples");
    // The sample alone: no surrogate could differ from the data (issue 33: every edge removed).
    expect_error(d + "--test cmiknn --shuffle-neighbors 1", "--shuffle-neighbors must be in 2..");
    expect_error(d + "--test cmiknn --shuffle-neighbors 0", "--shuffle-neighbors must be in 2..");
    expect_error(d + "--test cmiknn --permutations 0", "--permutations must be in 1..");
    expect_error(d + "--test cmiknn --permutations 99", "use --permutations 100 or more");
    expect_error(d + "--test cmiknn --permutations 19 --alpha 0.05", "use --permutations 20 or more");
    // causal-learn's rule is independent iff p > alpha: B = 19 can reach p = 0.05, dependent.
    expect_error(d + "--test cmiknn --permutations 18 --alpha 0.05 --compat causal-learn",
                 "use --permutations 19 or more");
    expect_error(d + "--test cmiknn --discrete", "cmiknn needs continuous data");
}

}  // namespace

// Issue 33 item 14: every CMIknn test draws its permutations, so a level of a few thousand
// tests can take an hour: -v announces level 0 (its tests, and a time from the first few
// timed) and every later level (however few its tests), not only levels of 1e10 tests.
TEST_F(CmiknnCli, EveryLevelIsAnnouncedWithAnEstimate) {
    simulate("d.csv", 6, 150, 2);
    const CliRun r = run("pc -v --test cmiknn --permutations 100 --max-level 1 --data " + path("d.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("cudag pc: level 0: up to 15 CMIknn tests (100 permutations each); the first 4 took "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(" s each on one thread: up to about "), std::string::npos) << r.err;
    if (r.err.find("level 0: 15 tests, 15 removed") == std::string::npos) {  // edges left for level 1
        EXPECT_NE(r.err.find("cudag pc: starting level 1 with up to "), std::string::npos) << r.err;
    }
    // Before level 0 starts, and not under -q.
    EXPECT_LT(r.err.find("level 0: up to"), r.err.find("level 0: 15 tests"));
    const CliRun q = run("pc -q --test cmiknn --permutations 100 --max-level 1 --data " + path("d.csv"));
    ASSERT_EQ(q.code, 0) << q.err;
    EXPECT_TRUE(q.err.empty()) << q.err;
    EXPECT_EQ(q.out, r.out);
}
