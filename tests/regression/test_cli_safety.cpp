// SPDX-License-Identifier: Apache-2.0
// The user's files are never lost: outputs never replace inputs or each other, links are
// written through, FIFOs and devices refused, a full disk and signals leave the old files
// and no temporaries, memory is checked before it is spent, and odd options are refused.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "support/cli_fixture.hpp"
#include "support/paths.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;
using cudag::test::slurp;

// n columns x m rows of deterministic pseudo-random numbers (a chain through the columns).
std::string table(int n, int m, unsigned seed = 7) {
    std::ostringstream os;
    for (int v = 0; v < n; ++v) os << (v ? "," : "") << "v" << v;
    os << '\n';
    unsigned x = seed;
    auto u = [&x]() {
        x = x * 1103515245u + 12345u;
        return ((x >> 8) & 0xffff) / 65536.0 - 0.5;
    };
    for (int s = 0; s < m; ++s) {
        double prev = 0;
        for (int v = 0; v < n; ++v) {
            const double val = 0.7 * prev + u();
            os << (v ? "," : "") << val;
            prev = val;
        }
        os << '\n';
    }
    return os.str();
}

class Safety : public Cli {
protected:
    std::string path(const std::string& name) { return (dir_ / name).string(); }
    // Names in the scratch folder that look like cudag temporaries.
    std::vector<std::string> temporaries() {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(dir_)) {
            const std::string n = e.path().filename().string();
            if (n.find(".tmp") != std::string::npos) out.push_back(n);
        }
        return out;
    }
};

// ---- 1. an output never replaces an input ---------------------------------------------

TEST_F(Safety, OutputNamingTheInputIsRefusedAndTheInputKept) {
    const std::string data = table(4, 60);
    const fs::path in = write("same.csv", data);
    expect_error("pc --data " + in.string() + " --out " + in.string(), "is the input --data");
    EXPECT_EQ(slurp(in), data);
    // The same file under another spelling.
    expect_error("pc --data " + in.string() + " --out " + (dir_ / "." / "same.csv").string(), "refusing to overwrite");
    EXPECT_EQ(slurp(in), data);
    expect_error("pc --data " + in.string() + " --checkpoint " + in.string(), "--checkpoint");
    EXPECT_EQ(slurp(in), data);
    // --format edges of x.h5 is x.edges.tsv: the input here.
    const fs::path edges_in = write("x.edges.tsv", data);
    expect_error("pc --data " + edges_in.string() + " --out " + path("x.h5") + " --format edges", "--format edges");
    EXPECT_EQ(slurp(edges_in), data);
    EXPECT_FALSE(fs::exists(dir_ / "x.h5"));
    // Two outputs that are one file.
    expect_error("pc --data " + in.string() + " --out " + path("r.h5") + " --checkpoint " + path("r.h5"),
                 "are the same file");
    expect_no_outputs({"same.csv", "x.edges.tsv"});
}

TEST_F(Safety, SimulateAndCompareNeverOverwriteTheirInputs) {
    expect_error("simulate gaussian --vars 5 --samples 20 --out " + path("st.csv") + " --truth " + path("st.csv"),
                 "are the same file");
    EXPECT_FALSE(fs::exists(dir_ / "st.csv"));
    const std::string truth = "source\ttarget\tmark\na\tb\t-->\n";
    const fs::path t = write("t.tsv", truth);
    expect_error("compare --truth " + t.string() + " --estimate " + t.string() + " --json " + t.string(),
                 "is the input --truth");
    EXPECT_EQ(slurp(t), truth);
}

// ---- 2. links written through; FIFOs, devices and folders refused ---------------------

TEST_F(Safety, SymlinkOutputIsWrittenThroughToItsTarget) {
    const fs::path in = write("d.csv", table(4, 60));
    fs::create_directories(dir_ / "store");
    write("store/r.h5", "old");
    fs::create_symlink("store/r.h5", dir_ / "link.h5");
    const CliRun r = run("pc --data " + in.string() + " --out " + path("link.h5") + " -q");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(dir_ / "link.h5"));
    EXPECT_NE(slurp(dir_ / "store" / "r.h5"), "old");
    EXPECT_GT(fs::file_size(dir_ / "store" / "r.h5"), 1000u);
    EXPECT_TRUE(temporaries().empty());
    // A dangling link: its target is created.
    fs::create_symlink("store/new.h5", dir_ / "dangling.h5");
    ASSERT_EQ(run("pc --data " + in.string() + " --out " + path("dangling.h5") + " -q").code, 0);
    EXPECT_TRUE(fs::is_symlink(dir_ / "dangling.h5"));
    EXPECT_TRUE(fs::is_regular_file(dir_ / "store" / "new.h5"));
}

TEST_F(Safety, FifoDeviceAndDirectoryOutputsAreRefused) {
    const fs::path in = write("d.csv", table(4, 60));
    ASSERT_EQ(::mkfifo(path("fifo.h5").c_str(), 0600), 0);
    expect_error("pc --data " + in.string() + " --out " + path("fifo.h5"), "it is a FIFO");
    EXPECT_EQ(fs::status(dir_ / "fifo.h5").type(), fs::file_type::fifo);
    expect_error("pc --data " + in.string() + " --out /dev/null", "character device");
    EXPECT_EQ(fs::status("/dev/null").type(), fs::file_type::character);
    fs::create_directories(dir_ / "folder.h5");
    expect_error("pc --data " + in.string() + " --out " + path("folder.h5"), "directory");
    // '-' is standard output for the text outputs.
    const CliRun r = run("pc --data " + in.string() + " --out - -q");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("source\ttarget\tmark\n", 0), 0u) << r.out;
    const CliRun s = run("simulate gaussian --vars 3 --samples 4 --out - --seed 2");
    EXPECT_EQ(s.code, 0) << s.err;
    EXPECT_EQ(s.out.rfind("X1,X2,X3\n", 0), 0u) << s.out;
    EXPECT_EQ(std::count(s.out.begin(), s.out.end(), '\n'), 5);
}

// ---- 3. a full disk: one line, exit 1, the old file kept --------------------------------

/// `script` run by sh with cudag's stderr captured: the one-line error of a cudag that
/// exits 1 (not killed by a signal), containing `what`.
void expect_one_line_exit_1(const fs::path& dir, const std::string& script, const std::string& what) {
    const fs::path e = dir / "err.txt";
    const int status = std::system(("sh -c \"" + script + "\" 2>" + e.string()).c_str());
    ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal: " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 1);
    std::ifstream in(e);
    const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove(e);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find(what), std::string::npos) << err;
}

TEST_F(Safety, FullDiskWhileWritingTheResultKeepsTheOldFile) {
    const fs::path in = write("d.csv", table(60, 200));
    write("r.h5", "old result");
    // The file-size limit makes every write past 16 KiB fail with EFBIG, as a full disk
    // fails with ENOSPC (SIGXFSZ ignored, so the write returns the error).
    expect_one_line_exit_1(dir_,
                           "trap '' XFSZ; ulimit -f 16; exec " + cudag::test::cudag_binary() + " pc --data " +
                               in.string() + " --out " + path("r.h5") + " --format edges,json -q",
                           "cannot write");
    EXPECT_EQ(slurp(dir_ / "r.h5"), "old result");
    EXPECT_TRUE(temporaries().empty());
    expect_no_outputs({"d.csv", "r.h5"});
}

TEST_F(Safety, FileSizeLimitIsAOneLineErrorNotASignal) {
    // Issue 33 item 15: under `ulimit -f` (SIGXFSZ at its default, as a shell leaves it)
    // cudag died of the signal (exit 153), silently, its temporaries left behind.
    expect_one_line_exit_1(dir_,
                           "ulimit -f 8; exec " + cudag::test::cudag_binary() +
                               " simulate gaussian --vars 100 --samples 1000 --out " + path("x.csv"),
                           "File too large");
    EXPECT_TRUE(temporaries().empty());
    expect_no_outputs({});
}

TEST_F(Safety, FileSizeLimitNamesTheOutputNotItsTemporary) {
    // Issue 33 item 15: the error named the temporary being written ('.x.csv.tmp.PID').
    const std::string limit = "trap '' XFSZ; ulimit -f 8; exec " + cudag::test::cudag_binary();
    for (const char* out : {"x.csv", "x.h5"})
        expect_one_line_exit_1(dir_, limit + " simulate gaussian --vars 100 --samples 1000 --out " + path(out),
                               "cannot write '" + path(out) + "': ");
    ASSERT_EQ(run("simulate discrete --vars 8 --samples 300 --seed 2 --out " + path("m.csv")).code, 0);
    // A result whose first dataset fits and a later one (the traces) does not.
    expect_one_line_exit_1(
        dir_, limit + " mcmc -q --data " + path("m.csv") + " --score bdeu --iterations 20000 --out " + path("r.h5"),
        "cannot write '" + path("r.h5") + "': ");
    EXPECT_TRUE(temporaries().empty());
    expect_no_outputs({"m.csv"});
}

TEST_F(Safety, SmallerInputMistakesOfIssue33) {
    // Issue 33 item 16: a negative --seed wrapped to a huge one, `--checkpoint ""` was
    // silently no checkpoint, an empty BIF file simulated 0 variables with exit 0, and
    // `--format edges,edges` was refused instead of written once.
    const fs::path in = write("d.csv", table(6, 50));
    expect_error("simulate gaussian --vars 5 --samples 10 --seed -1 --out " + path("s.csv"),
                 "--seed: must be 0 or more (an unsigned 64-bit key), got -1");
    expect_error("pc --data " + in.string() + " --test cmiknn --seed -2", "--seed: must be 0 or more");
    expect_error("pc --data " + in.string() + " --checkpoint \"\" --out " + path("r.h5"),
                 "--checkpoint: needs a file name, got an empty string");
    write("empty.bif", "");
    expect_error("simulate bif --bif " + path("empty.bif") + " --samples 10 --out " + path("e.csv"),
                 "no variable in the BIF file");
    expect_no_outputs({"d.csv", "empty.bif"});
    const CliRun r = run("pc -q --data " + in.string() + " --format edges,edges --out " + path("r.h5"));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir_ / "r.edges.tsv"));
    expect_no_outputs({"d.csv", "empty.bif", "r.h5", "r.edges.tsv"});
}

// ---- 4. memory estimated before it is spent ---------------------------------------------

TEST_F(Safety, MatrixFormatsAreRefusedAtGenomeScaleBeforeTheSearch) {
    // 20,001 variables: amat and cl would be n x n text; refused after the data are read,
    // before level 0 runs, naming the edge-list formats to use instead. Edges are written.
    ASSERT_EQ(
        run("simulate gaussian -q --vars 20001 --samples 12 --graph er --degree 1 --seed 3 --out " + path("wide.h5"))
            .code,
        0);
    for (const char* f : {"amat", "cl"}) {
        const CliRun r = run("pc -q --data " + path("wide.h5") + " --format edges," + f + " --out " + path("r.h5"));
        EXPECT_NE(r.code, 0) << f;
        EXPECT_NE(r.err.find(std::string("--format ") + f +
                             ": an n x n matrix of 20001 variables is refused above "
                             "20000"),
                  std::string::npos)
            << r.err;
        EXPECT_NE(r.err.find("--format edges or json"), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(dir_ / "r.h5"));
        EXPECT_FALSE(fs::exists(dir_ / "r.edges.tsv"));
    }
    EXPECT_TRUE(fs::exists(dir_ / "wide.h5"));
}

TEST_F(Safety, PairsLevel0KeepsThatCannotFitAreRefusedNamingAlpha) {
    // 5,000 variables (above the dense pMax table), 20 samples, alpha 0.9: level 0 keeps
    // most of the 12.5 M pairs (~0.7 GB of lists); with 300 MB "available" (hidden test
    // variable) the run passes the check before level 0 (the known part: ~0.2 GB) and is
    // refused after it, in one line naming --alpha, with no result file.
    ASSERT_EQ(
        run("simulate gaussian -q --vars 5000 --samples 20 --graph er --degree 1 --seed 5 --out " + path("d.h5")).code,
        0);
    ::setenv("CUDAG_TEST_AVAILABLE_BYTES", "300000000", 1);
    const CliRun r = run("pc -q --data " + path("d.h5") + " --alpha 0.9 --backend cpu --out " + path("r.h5"));
    const CliRun capped =
        run("pc -q --data " + path("d.h5") + " --alpha 0.9 --backend cpu --max-level 0 --out " + path("r0.h5"));
    ::unsetenv("CUDAG_TEST_AVAILABLE_BYTES");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("level 0 kept "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("a smaller --alpha keeps fewer pairs"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "r.h5"));
    EXPECT_EQ(capped.code, 0) << capped.err;  // --max-level 0 stops before the lists grow
    EXPECT_TRUE(fs::exists(dir_ / "r0.h5"));
}

TEST_F(Safety, SimulationThatCannotFitIsRefusedAtOnce) {
    const auto t0 = std::chrono::steady_clock::now();
    expect_error("simulate gaussian --vars 10000000 --samples 10 --out " + path("big.csv"), "needs about");
    // 800 GB: more than any host here (the 4-GPU machines have 512 GiB).
    expect_error("simulate gaussian --vars 1000000 --samples 100000 --out " + path("big.csv"), "available");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 20.0);  // a refusal, not an allocation that fails late (generous for CI)
    expect_no_outputs({});
}

TEST_F(Safety, CpuRunWhoseCorrelationMatrixCannotFitIsRefused) {
    const fs::path in = write("wide.csv", table(20000, 6));
    // 20,000^2 doubles = 3.2 GB, over a 2 GB address-space limit.
    const std::string cmd = "sh -c \"ulimit -v 2000000; exec " + cudag::test::cudag_binary() +
                            " pc --backend cpu --data " + in.string() + " --out " + path("r.h5") + "\"";
    const fs::path e = dir_ / "err.txt";
    const int status = std::system((cmd + " 2>" + e.string()).c_str());
    const std::string err = slurp(e);
    fs::remove(e);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 1) << err;
    EXPECT_NE(err.find("correlation matrix"), std::string::npos) << err;
    EXPECT_NE(err.find("needs about"), std::string::npos) << err;
    expect_no_outputs({"wide.csv"});
}

// ---- 5. signals: temporaries removed, children stopped, one line, 130/143 ---------------

using cudag::test::spawn_cudag;

TEST_F(Safety, SignalDuringTheWritePhaseRemovesTemporariesAndStopsGraphviz) {
    const fs::path in = write("d.csv", table(6, 80));
    // A 'dot' that records its start and then hangs, so the signal lands while it runs.
    fs::create_directories(dir_ / "bin");
    const fs::path marker = dir_ / "dot.started";
    const fs::path fake = write("bin/dot", "#!/bin/sh\necho $$ > " + marker.string() + "\nexec sleep 60\n");
    fs::permissions(fake, fs::perms::owner_all);
    for (int sig : {SIGTERM, SIGINT}) {
        fs::remove(marker);
        fs::remove(dir_ / "ck.h5");  // the first signal's (an existing checkpoint needs --resume)
        const pid_t pid = spawn_cudag("pc --data " + in.string() + " --out " + path("r.h5") + " --checkpoint " +
                                          path("ck.h5") + " --format edges,png -q",
                                      dir_ / "o.txt", dir_ / "e.txt", (dir_ / "bin").string());
        for (int k = 0; k < 600 && !fs::exists(marker); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ASSERT_TRUE(fs::exists(marker)) << "the fake dot never started";
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        ::kill(pid, sig);
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status);
        EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
        const std::string err = slurp(dir_ / "e.txt");
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
        EXPECT_NE(err.find("cudag: interrupted; the last checkpoint is level"), std::string::npos) << err;
        EXPECT_TRUE(temporaries().empty()) << temporaries().front();
        EXPECT_FALSE(fs::exists(dir_ / "r.h5"));
        EXPECT_FALSE(fs::exists(dir_ / "r.edges.tsv"));
        EXPECT_TRUE(fs::exists(dir_ / "ck.h5"));  // the checkpoint a resume needs
        // The hanging dot was stopped.
        const std::string dot_pid = slurp(marker);
        bool gone = false;
        for (int k = 0; k < 100 && !gone; ++k) {
            gone = ::kill(std::atoi(dot_pid.c_str()), 0) != 0;
            if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        EXPECT_TRUE(gone) << "dot (pid " << dot_pid << ") still runs";
    }
}

TEST_F(Safety, InterruptInsideACmiknnLevelStopsWithinASecond) {
    // Issue 33 item 14: a CMIknn level runs minutes to hours; Ctrl-C must not wait for it.
    ASSERT_EQ(run("simulate nonlinear --vars 12 --samples 600 --density 0.3 --seed 1 --out " + path("n.csv")).code, 0);
    // One CPU thread, so that level 0 lasts seconds on any machine (a GPU or many cores
    // finish it before the signal).
    const pid_t pid = spawn_cudag("pc -v --test cmiknn --permutations 200 --backend cpu --threads 1 --data " +
                                      path("n.csv") + " --out " + path("r.h5"),
                                  dir_ / "o.txt", dir_ / "e.txt", "/nonexistent");
    // Inside level 0: its announcement is printed, then its tests run.
    for (int k = 0; k < 600 && slurp(dir_ / "e.txt").find("level 0: up to") == std::string::npos; ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_NE(slurp(dir_ / "e.txt").find("level 0: up to"), std::string::npos) << slurp(dir_ / "e.txt");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_EQ(slurp(dir_ / "e.txt").find("level 0: 66 tests"), std::string::npos) << "level 0 ended too soon";
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(pid, SIGINT);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(seconds, 1.0);
    ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 130);
    const std::string err = slurp(dir_ / "e.txt");
    EXPECT_NE(err.find("cudag: interrupted\n"), std::string::npos) << err;
    EXPECT_TRUE(temporaries().empty());
    EXPECT_FALSE(fs::exists(dir_ / "r.h5"));
}

TEST_F(Safety, StaleTemporariesOfAKilledRunAreRemoved) {
    const fs::path in = write("d.csv", table(4, 60));
    // pid_max is at most 2^22: this pid cannot be alive.
    write(".r.h5.tmp.4194305", "partial");
    write(".r.png.tmp.4194305.dot.tmp", "partial");
    write(".other.h5.tmp.4194305", "not ours");
    write(".r.h5.tmp." + std::to_string(::getpid()), "a live process's");
    ASSERT_EQ(run("pc --data " + in.string() + " --out " + path("r.h5") + " -q").code, 0);
    EXPECT_FALSE(fs::exists(dir_ / ".r.h5.tmp.4194305"));
    EXPECT_TRUE(fs::exists(dir_ / ".other.h5.tmp.4194305"));
    EXPECT_TRUE(fs::exists(dir_ / (".r.h5.tmp." + std::to_string(::getpid()))));
}

// ---- 7. output locations checked before the data are read -------------------------------

TEST_F(Safety, UnwritableOutputIsFoundBeforeTheDataAreRead) {
    // /proc refuses new files even to root; the data file does not exist either, and the
    // output must be what is reported.
    expect_error("pc --data " + path("missing.csv") + " --out /proc/cudag_result.h5",
                 "cannot write '/proc/cudag_result.h5'");
    const fs::path in = write("d.csv", table(4, 60));
    expect_error("pc --data " + in.string() + " --out " + path("r.h5") + " --format edges --checkpoint /proc/ck.h5",
                 "cannot write '/proc/ck.h5'");
    expect_no_outputs({"d.csv"});
}

// ---- 9. thread counts and contradictory flags -------------------------------------------

TEST_F(Safety, ThreadCountsAreCheckedAndQuietExcludesVerbose) {
    const fs::path in = write("d.csv", table(4, 60));
    expect_error("pc --data " + in.string() + " --threads -1", "--threads must be >= 0");
    expect_error("simulate gaussian --vars 3 --samples 5 --out " + path("s.csv") + " --threads -2",
                 "--threads must be >= 0");
    expect_error("pc --data " + in.string() + " -q -v", "excludes");
    const CliRun r = run("pc --data " + in.string() + " --threads 100000");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("--threads 100000 is more than the"), std::string::npos) << r.err;
}

// ---- 11. drawing a large graph needs --force ---------------------------------------------

TEST_F(Safety, DrawingMoreThanFiveHundredNodesAsksForForce) {
    const fs::path in = write("wide.csv", table(501, 12));
    expect_error("pc --data " + in.string() + " --max-level 0 --out " + path("r.h5") + " --format png", "add --force");
    expect_no_outputs({"wide.csv"});
}

// ---- 13. resume says where it resumed; the checkpoint removed after success -------------

TEST_F(Safety, ResumeNamesItsLevelAndSuccessRemovesTheCheckpoint) {
    const fs::path in = write("d.csv", table(8, 200));
    const std::string base = "pc --data " + in.string() + " --alpha 0.2 --checkpoint " + path("ck.h5");
    EXPECT_EQ(run(base + " --stop-after-level 0 -q").code, 3);
    ASSERT_TRUE(fs::exists(dir_ / "ck.h5"));
    const CliRun r = run(base + " --resume --out " + path("r.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("resuming from checkpoint '" + path("ck.h5") + "' at level 1"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "ck.h5"));
    EXPECT_EQ(run(base + " --keep-checkpoint -q").code, 0);
    EXPECT_TRUE(fs::exists(dir_ / "ck.h5"));
}

// ---- 14. the README's run command builds the cudag target only ----------------------------

TEST(Readme, RunCommandBuildsOnlyTheCudagTarget) {
    std::ifstream f(std::string(CUDAG_SOURCE_DIR) + "/README.md");
    std::string line, run_cmd;
    while (std::getline(f, line))
        if (line.find("./build/cudag pc") != std::string::npos) {
            run_cmd = line;
            break;
        }
    ASSERT_FALSE(run_cmd.empty()) << "README has no run command";
    EXPECT_NE(run_cmd.find("--target cudag"), std::string::npos) << run_cmd;
}

}  // namespace
