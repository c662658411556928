// SPDX-License-Identifier: Apache-2.0
// Issue 55 from the command line: mixed data and missing values, and their bad input (one
// line naming what and where, exit 1, no output file).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "core/backend.hpp"
#include "support/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::CliRun;

class CliMixed : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("cudag_cli_mixed_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                "_" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    CliRun run(const std::string& args) { return cudag::test::run_cudag(args, dir_, {}); }
    std::string write(const std::string& name, const std::string& text) {
        const fs::path p = dir_ / name;
        std::ofstream(p) << text;
        return p.string();
    }
    /// Exit 1, one line on stderr holding `what`, and no result file.
    void expect_error(const std::string& args, const std::string& what) {
        const fs::path out = dir_ / "r.h5";
        const bool writes = args.rfind("citest", 0) != 0;  // citest writes to stdout only
        const CliRun r = run(args + (writes ? " --out " + out.string() : std::string()));
        EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(what), std::string::npos) << r.err << " (wanted '" << what << "')";
        EXPECT_FALSE(fs::exists(out)) << args;
    }
    /// n rows: g (labels a/b/c), x = g's effect + noise, y = x + noise, z noise; every
    /// `hole`-th cell of y empty (0: none).
    std::string mixed(int n, int hole = 0) {
        std::mt19937_64 rng(5);
        std::normal_distribution<double> e(0.0, 1.0);
        std::string t = "g,x,y,z\n";
        for (int k = 0; k < n; ++k) {
            const int g = k % 3;
            const double x = g + e(rng), y = x + e(rng), z = e(rng);
            t += std::string(1, static_cast<char>('a' + g)) + "," + std::to_string(x) + "," +
                 (hole && k % hole == 0 ? std::string() : std::to_string(y)) + "," + std::to_string(z) + "\n";
        }
        return t;
    }
    fs::path dir_;
};

TEST_F(CliMixed, PcOnMixedDataAndMissingCells) {
    const std::string d = write("m.csv", mixed(300));
    for (const char* test : {"cg-lrt", "regression"}) {
        const CliRun r = run("pc -q --data " + d + " --test " + test);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find("g\tx\t---"), std::string::npos) << test << "\n" << r.out;
        EXPECT_NE(r.out.find("x\ty\t---"), std::string::npos) << test << "\n" << r.out;
        EXPECT_EQ(r.out.find("z"), std::string::npos) << test << "\n" << r.out;
    }
    const std::string h = write("h.csv", mixed(300, 7));
    expect_error("pc --data " + h, h + ":2:3: missing value (empty field) in column 'y'");
    for (const char* missing : {"testwise", "listwise"}) {
        const CliRun r = run("pc -q --data " + h + " --missing " + missing);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find("x\ty\t---"), std::string::npos) << missing << "\n" << r.out;
    }
    // citest --json: the rows a test-wise test used.
    const CliRun c = run("citest --data " + h + " --test cg-lrt --x x --y y --given g --missing testwise --json");
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.out.find("\"n_samples\": 257"), std::string::npos) << c.out;  // 300 - 43 holes
}

// On a GPU, --test regression answers a citest batch and a pc search as the CPU does (the
// same numbers printed, the same graph), with and without missing cells.
TEST_F(CliMixed, RegressionOnTheGpuIsTheCpus) {
    if (cudag::visible_gpus() == 0) GTEST_SKIP() << "no GPU visible (or no CUDA in this build)";
    for (const int hole : {0, 7}) {
        const std::string d = write("m.csv", mixed(400, hole));
        const std::string missing = hole ? " --missing testwise" : "";
        const std::string q = write("q.tsv", "x\ty\tgiven\nx\ty\tz\ng\ty\tx\nz\tg\t\ny\tz\tg,x\n");
        const std::string citest = "citest --data " + d + " --test regression --queries " + q + missing;
        const CliRun cpu = run(citest + " --backend cpu"), gpu = run(citest + " --backend cuda");
        ASSERT_EQ(cpu.code, 0) << cpu.err;
        ASSERT_EQ(gpu.code, 0) << gpu.err;
        EXPECT_EQ(gpu.out, cpu.out);
        const std::string pc = "pc -q --data " + d + " --test regression" + missing;
        const CliRun a = run(pc + " --backend cpu"), b = run(pc + " --backend cuda");
        ASSERT_EQ(a.code, 0) << a.err;
        ASSERT_EQ(b.code, 0) << b.err;
        EXPECT_EQ(b.out, a.out);
    }
}

TEST_F(CliMixed, BadInputIsOneLineNamingWhatAndWhere) {
    // A column forced discrete with 10,000 levels.
    std::string many = "a,b\n";
    for (int k = 0; k < 10000; ++k) many += std::to_string(k) + "," + std::to_string(k % 7) + ".5\n";
    const std::string m = write("many.csv", many);
    expect_error("pc --data " + m + " --discrete-columns a",
                 "column 1 'a' has 10000 distinct values; a discrete variable may have at most 256 levels");
    expect_error("pc --data " + m + " --discrete-columns nope", "--discrete-columns: no column 'nope' in");
    // A label column named continuous.
    const std::string d = write("m.csv", mixed(60));
    expect_error("pc --data " + d + " --continuous-columns g",
                 "column 'g' holds the label 'a' (data row 1): --continuous-columns reads numbers only");
    // A column missing in every row.
    std::string empty = "a,b,c\n";
    for (int k = 0; k < 50; ++k) empty += std::to_string(k * 0.5) + ",," + std::to_string(k % 5) + ".25\n";
    const std::string e = write("e.csv", empty);
    expect_error("pc --data " + e + " --missing testwise", "column 'b' is missing in every row; drop it");
    // --missing testwise leaving fewer rows than a test needs.
    std::string few = "a,b,c\n1.5,2.5,\n2.5,,1\n,3.5,2\n4.5,5.5,3.5\n5.5,6.25,4.5\n6.5,7.75,5\n";
    const std::string f = write("f.csv", few);
    expect_error("citest --data " + f + " --test fisher-z --x a --y b --given c --missing testwise",
                 "--missing testwise leaves 3 complete rows for the test of 'a' and 'b' given {'c'}: fisher-z needs "
                 "more than 3");
    // Unknown choices and what the scores refuse.
    expect_error("pc --data " + d + " --missing pairwise", "--missing must be error, testwise or listwise");
    expect_error("mcmc --data " + d + " --score bge --missing testwise",
                 "a score sums over one table's rows, so mcmc and score take --missing listwise");
    // regression runs on the GPU as well (kernels/regression_batch.cu): --backend cuda is no
    // longer refused as CPU-only; without a visible GPU (or CUDA in this build) it is the
    // one-line error of every GPU test, naming cuda.
    if (cudag::visible_gpus() == 0)
        for (const std::string& args : {"citest --data " + d + " --test regression --queries " +
                                            write("q.tsv", "x\ty\tgiven\nx\ty\tz\n") + " --backend cuda",
                                        "pc --data " + d + " --test regression --backend cuda"}) {
            expect_error(args, "cuda");
            EXPECT_EQ(run(args).err.find("runs on the CPU only"), std::string::npos) << args;
        }
    // A continuous test names a label cell, or a column named discrete.
    expect_error("pc --data " + d + " --test cmiknn", d + ":2:1: non-numeric value 'a' in column 'g'");
    expect_error("pc --data " + f + " --test fisher-z --missing testwise --discrete-columns c",
                 "column 'c' is discrete (labels or --discrete-columns): fisher-z needs continuous data");
}

TEST_F(CliMixed, MiCgRunsOnTheCpuAndRefusesWhatItCannotDo) {
    const std::string d = write("m.csv", mixed(300));
    const CliRun r = run("pc -q --data " + d + " --test mi-cg");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("x\ty\t"), std::string::npos) << r.out;  // y depends on x
    const CliRun one = run("pc -q --data " + d + " --test mi-cg --threads 1");
    EXPECT_EQ(one.out, r.out);
    expect_error("pc --data " + d + " --test mi-cg --backend cuda",
                 "--test mi-cg runs on the CPU only (use --backend cpu or auto)");
    expect_error("pc --data " + d + " --test mi-cg --checkpoint " + (dir_ / "ck.h5").string(),
                 "--checkpoint: a search in bnlearn's order (mi-cg) cannot be resumed");
    EXPECT_FALSE(fs::exists(dir_ / "ck.h5"));
}

TEST_F(CliMixed, ASingularStratumIsAnErrorNamingTheTest) {
    // x constant among the rows where g = a: its covariance there is singular.
    std::string t = "g,x,y\n";
    for (int k = 0; k < 60; ++k)
        t += std::string(k % 2 ? "a" : "b") + "," + (k % 2 ? "1" : std::to_string(k * 0.37)) + "," +
             std::to_string(k * 0.11 + (k % 3)) + "\n";
    const std::string d = write("s.csv", t);
    const CliRun r = run("citest --data " + d + " --test cg-lrt --x x --y y --given g");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("is singular"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'g' = a"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// A bootstrap resample repeats rows: a small configuration of copies of one row has no
// covariance (cg-lrt's error, with the way out); half-samples draw without repeats.
TEST_F(CliMixed, BootstrapOnMixedData) {
    const std::string d = std::string(CUDAG_SOURCE_DIR) + "/tests/data/cg_lrt/data.csv";
    expect_error("pc --data " + d + " --bootstrap 4 --seed 1",
                 "is singular (a constant or collinear continuous variable given the discrete ones): the "
                 "conditional-Gaussian likelihood is unbounded (a bootstrap resample repeats rows: --resample half "
                 "draws without repeats)");
    const CliRun r = run("pc -q --data " + d + " --bootstrap 4 --seed 1 --resample half");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("c0\td0\t1\t"), std::string::npos) << r.out;
}

}  // namespace
