// SPDX-License-Identifier: Apache-2.0
// `mpiexec -n K cudag pc ...` end to end: results byte-identical for K = 1..4 (and to a
// run without mpiexec), stop/resume across rank counts, and a failure on one rank ending
// the whole job quickly with that rank's message.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <utility>

#include "io/checkpoint_lock.hpp"
#include "io/hdf5_file.hpp"
#include "support/paths.hpp"
#include "support/result_files.hpp"

namespace fs = std::filesystem;
using cudag::test::run_command;
using cudag::test::same_results;

namespace {

std::string read_text(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class MpiCli : public ::testing::Test {
protected:
    static void SetUpTestSuite() { cudag::test::prepare_mpiexec_environment(); }
    void SetUp() override { dir_ = cudag::test::fresh_test_dir("cudag_mpi"); }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    /// `cudag args` on `ranks` ranks (0: without mpiexec), bounded by a timeout so that
    /// a hang fails the test instead of the CI job. `binary`: another build of the command
    /// line (cudag_failing).
    cudag::test::CommandResult cudag(int ranks, const std::string& args, const std::string& env = "",
                                     const std::string& binary = cudag::test::cudag_binary()) {
        std::string cmd = "timeout 120 ";
        if (ranks > 0)
            cmd += std::string(CUDAG_MPIEXEC) + " " + std::to_string(ranks) + " " + CUDAG_MPIEXEC_FLAGS + " ";
        cmd += binary + " " + args;
        return run_command((env.empty() ? "" : env + " ") + cmd, dir_);
    }

    void simulate(const std::string& name, int vars) {
        const auto r = cudag(0, "simulate gaussian --vars " + std::to_string(vars) +
                                    " --samples 500 --density 0.08 --seed 5 --out " + path(name));
        ASSERT_EQ(r.code, 0) << r.err;
    }

    /// Results for 1..max_ranks ranks equal the run without mpiexec.
    void expect_rank_invariant(const std::string& data, const std::string& opts, int max_ranks = 4) {
        const std::string formats = " --format edges,cl -q";
        auto r = cudag(0, "pc --data " + data + " " + opts + " --out " + path("serial.h5") + formats);
        ASSERT_EQ(r.code, 0) << r.err;
        for (int k = 1; k <= max_ranks; ++k) {
            const std::string out = path("np" + std::to_string(k) + ".h5");
            r = cudag(k, "pc --data " + data + " " + opts + " --out " + out + formats);
            ASSERT_EQ(r.code, 0) << k << " ranks: " << r.err;
            EXPECT_TRUE(same_results(out, path("serial.h5"), {".edges.tsv", ".cl.txt"})) << k << " ranks";
        }
    }

    /// How many error lines `err` holds (one per job: rank 0's, or the failing rank's).
    static std::size_t errors(const std::string& err) {
        std::size_t lines = 0;
        for (std::size_t p = err.find("error:"); p != std::string::npos; p = err.find("error:", p + 1)) ++lines;
        return lines;
    }

    fs::path dir_;
};

}  // namespace

TEST_F(MpiCli, RankCountInvarianceOnSimulatedData) {
    simulate("sim.csv", 90);
    expect_rank_invariant(path("sim.csv"), "--alpha 0.05");
}

TEST_F(MpiCli, RankCountInvarianceInCausalLearnMode) {
    simulate("sim.csv", 60);
    expect_rank_invariant(path("sim.csv"), "--compat causal-learn --uc-rule 1");
}

TEST_F(MpiCli, RankCountInvarianceOnBundledData) {
    expect_rank_invariant(std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.csv", "--alpha 0.01");
}

TEST_F(MpiCli, RankCountInvarianceOnDiscreteData) {
    const auto r = cudag(0,
                         "simulate discrete --vars 70 --samples 3000 --states 4 --density 0.05 "
                         "--seed 3 --out " +
                             path("disc.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    expect_rank_invariant(path("disc.csv"), "--test g-square --alpha 0.05");
}

TEST_F(MpiCli, RankCountInvarianceWithCmiKnn) {
    // Every permutation is keyed by (seed, test, surrogate): any rank count, the same
    // p-values (early-stopped ones included), graph and separating sets.
    const auto r =
        cudag(0, "simulate nonlinear --vars 8 --samples 150 --density 0.35 --seed 2 --out " + path("nl.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    expect_rank_invariant(path("nl.csv"), "--test cmiknn --permutations 39 --knn 0.1 --alpha 0.05", 3);
}

TEST_F(MpiCli, PcmciDoesNotDependOnTheRankCount) {
    // Issue 56: every batch of PCMCI's tests cut over the ranks (pcmci::RankSplitBatch) and
    // gathered: on 1..4 ranks the links table of one process, byte for byte (ParCorr, and
    // CMIknn with its permutations keyed by the test; the pc_alpha selection, its chosen
    // values and scores as the JSON result holds them; tigramite's missing values and several
    // series: test-wise rows, ParCorr's dof per test).
    const std::string dir = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmci/";
    // The JSON's pc_alpha selection (empty without one): the values, the choices, the scores.
    const auto selection = [](const std::string& json) {
        const std::size_t at = json.find("\"pc_alpha_selection\"");
        return at == std::string::npos ? std::string() : json.substr(at, json.find("\"settings\"", at) - at);
    };
    const std::pair<std::string, std::string> runs[] = {
        {"c09.csv", "--tau-max 2 --pc-alpha 0.1"},
        {"c09.csv", "--tau-max 1 --test cmiknn --permutations 19 --knn 0.1"},
        {"c09.csv", "--tau-max 2 --pc-alpha auto"},
        {"c09.csv", "--method pcmciplus --tau-max 1 --pc-alpha 0.01,0.05"},
        {"g01.csv", "--series-column series --time-column t --missing-flag 999 --tau-max 2 --pc-alpha 0.1"},
        {"m02.csv", "--missing-flag 999 --tau-max 1 --test cmiknn --permutations 19 --knn 0.1"},
    };
    for (const auto& [file, opts] : runs) {
        const std::string data = dir + file;
        auto r =
            cudag(0, "pcmci --data " + data + " " + opts + " -q --out " + path("serial.h5") + " --format links,json");
        ASSERT_EQ(r.code, 0) << r.err;
        const std::string serial = read_text(path("serial.links.tsv"));
        const std::string chosen = selection(read_text(path("serial.json")));
        ASSERT_GT(serial.size(), 100u);
        EXPECT_EQ(chosen.empty(), opts.find(',') == std::string::npos && opts.find("auto") == std::string::npos);
        for (int k = 1; k <= 4; ++k) {
            const std::string stem = "np" + std::to_string(k);
            r = cudag(k,
                      "pcmci --data " + data + " " + opts + " -q --out " + path(stem + ".h5") + " --format links,json");
            ASSERT_EQ(r.code, 0) << k << " ranks: " << r.err;
            EXPECT_EQ(read_text(path(stem + ".links.tsv")), serial) << opts << " on " << k << " ranks";
            EXPECT_EQ(selection(read_text(path(stem + ".json"))), chosen) << opts << " on " << k << " ranks";
        }
    }
}

TEST_F(MpiCli, PcmciResumesOnAnotherRankCount) {
    // Issue 56: a PCMCI+ run stopped on 2 ranks after some tests (rank 0 writes the checkpoint)
    // resumes on 3 ranks (rank 0 reads it and every rank replays it) to one process's links.
    const std::string base = "pcmci --data " + std::string(CUDAG_SOURCE_DIR) +
                             "/tests/data/pcmci/c03.csv --tau-max 2 --method pcmciplus -q --format links --out ";
    auto r = cudag(0, base + path("serial.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    r = cudag(2, base + path("np.h5") + " --checkpoint " + path("ck.h5") + " --stop-after-tests 40");
    EXPECT_NE(r.code, 0);
    ASSERT_TRUE(fs::exists(path("ck.h5"))) << r.err;
    r = cudag(3, base + path("np.h5") + " --checkpoint " + path("ck.h5") + " --resume");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(path("np.links.tsv")), read_text(path("serial.links.tsv")));
    EXPECT_FALSE(fs::exists(path("ck.h5")));
}

TEST_F(MpiCli, BootstrapFrequenciesDoNotDependOnTheRankCount) {
    // Replicate r on rank r mod K: on 1..3 ranks the frequency table and the consensus
    // graph of one process, byte for byte (7 replicates: uneven over 2 and 3 ranks).
    simulate("sim.csv", 40);
    const std::string base = "pc --data " + path("sim.csv") + " --alpha 0.05 --bootstrap 7 --seed 5 -q --out ";
    auto r = cudag(0, base + path("serial.h5") + " --format freq,edges");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string freq = cudag::test::read_text(path("serial.freq.tsv"));
    EXPECT_GT(std::count(freq.begin(), freq.end(), '\n'), 10);
    for (int k = 1; k <= 3; ++k) {
        const std::string stem = "np" + std::to_string(k);
        r = cudag(k, base + path(stem + ".h5") + " --format freq,edges");
        ASSERT_EQ(r.code, 0) << k << " ranks: " << r.err;
        EXPECT_EQ(cudag::test::read_text(path(stem + ".freq.tsv")), freq) << k << " ranks";
        EXPECT_EQ(cudag::test::read_text(path(stem + ".edges.tsv")), cudag::test::read_text(path("serial.edges.tsv")))
            << k << " ranks";
    }
    // Stopped on 2 ranks after a round, resumed on 3: the same table.
    r = cudag(2, base + path("part.h5") + " --checkpoint " + path("ck.h5") + " --stop-after-level 2");
    EXPECT_EQ(r.code, 3) << r.err;
    r = cudag(3, base + path("part.h5") + " --format freq --checkpoint " + path("ck.h5") + " --resume");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(cudag::test::read_text(path("part.freq.tsv")), freq);
    // cudag mcmc --bootstrap: the best DAGs of 5 replicates over 1..3 ranks.
    r = cudag(0, "simulate discrete --vars 8 --samples 400 --density 0.3 --states 3 --seed 8 --out " + path("d.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string mcmc = "mcmc --data " + path("d.csv") +
                             " --score bdeu --iterations 1000 --bootstrap 5 --seed 3 -q --format freq --out ";
    r = cudag(0, mcmc + path("m0.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string mfreq = cudag::test::read_text(path("m0.freq.tsv"));
    EXPECT_GT(std::count(mfreq.begin(), mfreq.end(), '\n'), 3);
    for (int k = 2; k <= 3; ++k) {
        r = cudag(k, mcmc + path("m" + std::to_string(k) + ".h5"));
        ASSERT_EQ(r.code, 0) << k << " ranks: " << r.err;
        EXPECT_EQ(cudag::test::read_text(path("m" + std::to_string(k) + ".freq.tsv")), mfreq) << k << " ranks";
    }
    // Stopped on 2 ranks after 2 replicates, resumed on 3: the same table.
    r = cudag(2, mcmc + path("mp.h5") + " --checkpoint " + path("mck.h5") + " --stop-after 2");
    EXPECT_EQ(r.code, 3) << r.err;
    r = cudag(3, mcmc + path("mp.h5") + " --checkpoint " + path("mck.h5") + " --resume");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(cudag::test::read_text(path("mp.freq.tsv")), mfreq);
}

TEST_F(MpiCli, StopAfterLevelOneThenResumeOnAnotherRankCount) {
    simulate("sim.csv", 80);
    const std::string base = "pc --data " + path("sim.csv") + " --alpha 0.05 -q ";
    auto r = cudag(0, base + "--out " + path("full.h5") + " --format edges");
    ASSERT_EQ(r.code, 0) << r.err;

    r = cudag(2, base + "--out " + path("part.h5") + " --checkpoint " + path("ck.h5") + " --stop-after-level 1");
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_TRUE(fs::exists(path("ck.h5")));
    EXPECT_FALSE(fs::exists(path("part.h5"))) << "a stopped run writes no result";

    r = cudag(3, base + "--out " + path("part.h5") + " --format edges --checkpoint " + path("ck.h5") +
                     " --resume --keep-checkpoint");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(same_results(path("part.h5"), path("full.h5"), {".edges.tsv"}));

    // Other options that change results: refused, naming the checkpoint.
    r = cudag(2, "pc --data " + path("sim.csv") + " --alpha 0.01 -q --out " + path("x.h5") + " --checkpoint " +
                     path("ck.h5") + " --resume");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("was written for other options: --alpha was"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("x.h5")));
}

TEST_F(MpiCli, McmcTableSplitOverRanksGivesByteIdenticalResults) {
    // The local-score table is scored a block of nodes per rank and gathered: on 1..4 ranks
    // the same edge probabilities, traces and result datasets as one process, in both order
    // scores, over every parent set, over the PC space (uneven parent-set counts) and over
    // the iterative space grown from it (its MAP DAGs broadcast from rank 0).
    auto r = cudag(0,
                   "simulate discrete --vars 13 --samples 500 --density 0.2 --states 3 --max-parents 2 --seed 8 "
                   "--out " +
                       path("d.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto text = [&](const std::string& stem, const char* suffix) {
        return cudag::test::read_text(path(stem + suffix));
    };
    for (const std::string space : {"all", "pc", "iterative"}) {
        for (const std::string mode : {"sum", "max"}) {
            SCOPED_TRACE(space + " space, " + mode);
            const std::string opts = "mcmc --data " + path("d.csv") + " --score bdeu --max-parents 3 --space " + space +
                                     " --chains 5 --iterations 600 --thin 3 --order-score " + mode +
                                     " --format edgeprob,traces -q --out ";
            r = cudag(0, opts + path("serial.h5"));
            ASSERT_EQ(r.code, 0) << r.err;
            const std::string edgeprob = text("serial", ".edgeprob.tsv"), traces = text("serial", ".traces.tsv");
            ASSERT_GT(std::count(edgeprob.begin(), edgeprob.end(), '\n'), 5) << edgeprob;
            ASSERT_GT(std::count(traces.begin(), traces.end(), '\n'), 150) << traces;
            for (int k = 1; k <= 4; ++k) {
                const std::string stem = "np" + std::to_string(k);
                r = cudag(k, opts + path(stem + ".h5"));
                ASSERT_EQ(r.code, 0) << k << " ranks: " << r.err;
                EXPECT_TRUE(cudag::test::same_mcmc_results(path(stem + ".h5"), path("serial.h5"))) << k << " ranks";
                EXPECT_EQ(text(stem, ".edgeprob.tsv"), edgeprob) << k << " ranks";
                EXPECT_EQ(text(stem, ".traces.tsv"), traces) << k << " ranks";
            }
        }
    }
    // -v names rank 0's share of the entries and the split in the summary's timings.
    r = cudag(3, "mcmc --data " + path("d.csv") +
                     " --score bdeu --max-parents 3 --chains 3 --iterations 200 -v --out " + path("v.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, std::regex("local-score table: (\\d+) entries"))) << r.err;
    const long long total = std::stoll(m[1]);
    EXPECT_EQ(total, 13LL * (1 + 12 + 66 + 220));  // every set of <= 3 of the 12 others, per node
    ASSERT_TRUE(std::regex_search(r.err, m,
                                  std::regex("split over 3 ranks by node: this rank scored (\\d+) of (\\d+) "
                                             "entries \\(nodes 0 to (\\d+)\\)")))
        << r.err;
    EXPECT_EQ(std::stoll(m[2]), total);
    // Equal nodes: rank 0 takes 4 or 5 of the 13 (a third of the entries, to the nearest node).
    EXPECT_EQ(std::stoll(m[1]), (std::stoll(m[3]) + 1) * (1 + 12 + 66 + 220));
    EXPECT_GE(std::stoll(m[3]) + 1, 4);
    EXPECT_LE(std::stoll(m[3]) + 1, 5);
    EXPECT_TRUE(
        std::regex_search(r.err, std::regex("; table [0-9.]+ s \\(split over 3 ranks, rank 0's share [0-9.]+ s\\), "
                                            "sort [0-9.]+ s, chains [0-9.]+ s")))
        << r.err;
}

TEST_F(MpiCli, FailureOnOneRankEndsTheJob) {
    simulate("sim.csv", 60);
    // cudag_failing fails rank RANK at its CHECK-th collective error check (support/
    // failing_communicator.hpp). On this run, check 11 is level 0's engine check, 13 level
    // 1's, 15 level 2's: rank 1 fails inside level 1 (agreed), rank 2 inside level 0
    // (agreed), and rank 1 right after level 2's check, alone, while the other ranks wait
    // in the level's merge (the job must be ended by MPI_Abort). The check numbers are
    // those of the CPU engine's run (a GPU engine's set-up agrees on more), hence
    // --backend cpu.
    for (const std::string spec : {"1:13", "2:11", "1:15:unguarded"}) {
        const auto r = cudag(3, "pc --data " + path("sim.csv") + " --backend cpu --alpha 0.05 -q --out " + path("f.h5"),
                             "CUDAG_TEST_FAIL=" + spec, CUDAG_FAILING_BINARY);
        EXPECT_NE(r.code, 0) << spec;
        EXPECT_NE(r.code, 124) << spec << ": timed out (hang)";
        EXPECT_LT(r.seconds, 30.0) << spec;
        const std::string rank = "rank " + spec.substr(0, 1);
        EXPECT_NE(r.err.find("cudag: error: " + rank), std::string::npos) << spec << ": " << r.err;
        EXPECT_NE(r.err.find("injected failure on " + rank), std::string::npos) << spec << ": " << r.err;
        EXPECT_FALSE(fs::exists(path("f.h5"))) << spec;
    }
}

TEST_F(MpiCli, BadInputOnEveryRankIsReportedOnce) {
    std::ofstream(path("bad.csv")) << "a,b,c\n1,2,3\n4,x,6\n7,8,9\n1,2,2\n3,1,0\n";
    const auto r = cudag(3, "pc --data " + path("bad.csv") + " -q");
    EXPECT_NE(r.code, 0);
    std::size_t lines = 0;
    for (std::size_t p = r.err.find("cudag: error:"); p != std::string::npos; p = r.err.find("cudag: error:", p + 1))
        ++lines;
    EXPECT_EQ(lines, 1u) << r.err;
}

TEST_F(MpiCli, KeptPairsThatCannotFitAreRefusedOnceOnEveryRankCount) {
    // Issue 35's refusal after level 0 (the ranks agree on the least memory any has): one
    // line from rank 0, a non-zero exit, no result, on 2 and 3 ranks (300 MB "available").
    auto r =
        cudag(0, "simulate gaussian -q --vars 5000 --samples 20 --graph er --degree 1 --seed 5 --out " + path("d.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    for (const int ranks : {2, 3}) {
        r = cudag(ranks, "pc -q --backend cpu --alpha 0.9 --data " + path("d.h5") + " --out " + path("r.h5"),
                  "CUDAG_TEST_AVAILABLE_BYTES=300000000");
        EXPECT_NE(r.code, 0) << ranks;
        std::size_t lines = 0;
        for (std::size_t p = r.err.find("cudag: error:"); p != std::string::npos;
             p = r.err.find("cudag: error:", p + 1))
            ++lines;
        EXPECT_EQ(lines, 1u) << r.err;
        EXPECT_NE(r.err.find("a smaller --alpha keeps fewer pairs"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path("r.h5"))) << ranks;
    }
}

TEST_F(MpiCli, McmcMemoryPlanCountsEachRanksOwnChainsBeforeTheTable) {
    // Issue 53 items 3 and 7: the chains' n x n edge sums were checked apart from the table
    // (each fitted, together they did not) and their refusal advised fewer iterations,
    // which do not change them. One plan per rank, before the table: three chains on one
    // rank do not fit in 90 MB "available" (each chain's sums 16 MB, rank 0's combination
    // 16 MB more, the table 12 MB), and the refusal names more ranks; one chain per rank on
    // three ranks does.
    auto r = cudag(0, "simulate gaussian -q --vars 1000 --samples 200 --density 0.003 --seed 5 --out " + path("d.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string args =
        "mcmc --score bge --space all --max-parents 1 --chains 3 --iterations 20 --data " + path("d.h5");
    const std::string avail = "CUDAG_TEST_AVAILABLE_BYTES=94371840";
    r = cudag(1, args + " -v --out " + path("r1.h5"), avail);
    EXPECT_NE(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("cudag mcmc: local-score table"), std::string::npos) << "refused after the table: " << r.err;
    EXPECT_NE(r.err.find("1000 x 1000 edge sums (3 chains here, and their combination)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("or spread them over more ranks"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--iterations does not change them"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("r1.h5")));
    r = cudag(3, args + " -q --out " + path("r3.h5"), avail);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(path("r3.h5")));
}

TEST_F(MpiCli, OnlyRankZeroPrintsTheEdgeList) {
    const std::string data = std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.csv";
    ASSERT_EQ(run_command(std::string(CUDAG_MPIEXEC) + " 3 " + CUDAG_MPIEXEC_FLAGS + " " + cudag::test::cudag_binary() +
                              " pc -q --data " + data,
                          dir_, path("out.txt"))
                  .code,
              0);
    ASSERT_EQ(run_command(cudag::test::cudag_binary() + " pc -q --data " + data, dir_, path("ref.txt")).code, 0);
    EXPECT_EQ(cudag::test::read_text(path("out.txt")), cudag::test::read_text(path("ref.txt")));
}

TEST_F(MpiCli, McmcChainsAreRankCountInvariantAndResumeAcrossRankCounts) {
    auto r =
        cudag(0, "simulate discrete --vars 12 --samples 400 --density 0.2 --states 3 --max-parents 2 --seed 4 --out " +
                     path("d.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string opts = "mcmc --data " + path("d.csv") +
                             " --score bdeu --max-parents 2 --chains 5 --iterations 900 --thin 2 --order-score sum -q";
    r = cudag(0, opts + " --out " + path("serial.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    for (int k = 1; k <= 3; ++k) {
        const std::string out = path("np" + std::to_string(k) + ".h5");
        r = cudag(k, opts + " --out " + out);
        ASSERT_EQ(r.code, 0) << k << " ranks: " << r.err;
        EXPECT_TRUE(cudag::test::same_mcmc_results(out, path("serial.h5"))) << k << " ranks";
    }
    // Stopped on 2 ranks after a checkpoint, resumed on 3: the same chains.
    const std::string ck = " --checkpoint " + path("ck.h5") + " --checkpoint-every 300";
    r = cudag(2, opts + ck + " --stop-after 600 --out " + path("resumed.h5"));
    ASSERT_EQ(r.code, 3) << r.err;
    ASSERT_TRUE(fs::exists(path("ck.h5")));
    EXPECT_FALSE(fs::exists(path("resumed.h5")));
    r = cudag(3, opts + ck + " --resume --out " + path("resumed.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_mcmc_results(path("resumed.h5"), path("serial.h5")));
    EXPECT_FALSE(fs::exists(path("ck.h5")));  // served, removed
}

// Issue 33: an existing checkpoint without --resume, and a corrupt one with it, end every
// rank with one line, the checkpoint untouched and no result written (pc and mcmc).
TEST_F(MpiCli, ExistingOrCorruptCheckpointsAreRefusedOnEveryRankInOneLine) {
    auto r =
        cudag(0, "simulate discrete --vars 6 --samples 300 --density 0.3 --states 3 --max-parents 2 --seed 4 --out " +
                     path("d.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string mcmc =
        "mcmc --data " + path("d.csv") + " --score bdeu --max-parents 2 --chains 3 --iterations 300 -q";
    const std::string pc = "pc --data " + std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.csv --alpha 0.05 -q";
    r = cudag(2, mcmc + " --checkpoint " + path("m.h5") + " --checkpoint-every 100 --stop-after 200");
    ASSERT_EQ(r.code, 3) << r.err;
    r = cudag(2, pc + " --checkpoint " + path("p.h5") + " --stop-after-level 1");
    ASSERT_EQ(r.code, 3) << r.err;
    for (const auto& [cmd, ck] : {std::pair{mcmc, std::string("m.h5")}, std::pair{pc, std::string("p.h5")}}) {
        const std::string before = cudag::test::read_text(path(ck));
        r = cudag(3, cmd + " --checkpoint " + path(ck) + " --out " + path("r.h5"));
        EXPECT_NE(r.code, 0) << ck;
        EXPECT_NE(r.err.find("checkpoint '" + path(ck) + "' exists: add --resume"), std::string::npos) << r.err;
        EXPECT_EQ(errors(r.err), 1u) << r.err;
        EXPECT_FALSE(fs::exists(path("r.h5")));
        EXPECT_EQ(cudag::test::read_text(path(ck)), before) << ck;
    }
    // An order entry of -1 (through HDF5, checksum and all): refused on every rank in one line.
    {
        namespace h5 = cudag::io::h5;
        h5::Handle f = h5::check_id(H5Fopen(path("m.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "edit");
        std::vector<std::int32_t> order = h5::read_array<std::int32_t>(f.get(), "chains/order", "edit");
        order.back() = -1;  // the last chain's: rank 1 or 2 reads it
        h5::Handle ds = h5::check_id(H5Dopen2(f.get(), "chains/order", H5P_DEFAULT), "edit");
        h5::check(H5Dwrite(ds.get(), H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, order.data()), "edit");
    }
    const std::string before = cudag::test::read_text(path("m.h5"));
    r = cudag(3, mcmc + " --checkpoint " + path("m.h5") + " --checkpoint-every 100 --resume --out " + path("r.h5"));
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("checkpoint '" + path("m.h5") + "' is corrupt: chain 2: /chains/order is not a permutation"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(errors(r.err), 1u) << r.err;
    EXPECT_FALSE(fs::exists(path("r.h5")));
    EXPECT_EQ(cudag::test::read_text(path("m.h5")), before);
}

// Issue 53 on 1-3 ranks: a second run on a checkpoint refused at once (rank 0 holds the
// lock), a bootstrap checkpoint's done beyond B and a chain's best score that is not its
// best order's refused on every rank in one line, --keep-checkpoint with --bootstrap
// keeping the finished run's counts whatever the rank counts.
TEST_F(MpiCli, CheckpointClaimsAndValuesHoldOnEveryRankCount) {
    auto r =
        cudag(0, "simulate discrete --vars 6 --samples 300 --density 0.3 --states 3 --max-parents 2 --seed 4 --out " +
                     path("d.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string mcmc =
        "mcmc --data " + path("d.csv") + " --score bdeu --max-parents 2 --chains 3 --iterations 300 -q";
    const std::string pc = "pc --data " + std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.csv --alpha 0.05 -q";
    r = cudag(2, mcmc + " --checkpoint " + path("m.h5") + " --checkpoint-every 100 --stop-after 200");
    ASSERT_EQ(r.code, 3) << r.err;
    {
        cudag::io::CheckpointLock held = cudag::io::CheckpointLock::acquire(path("m.h5"));
        for (int k = 1; k <= 3; ++k) {
            r = cudag(
                k, mcmc + " --checkpoint " + path("m.h5") + " --checkpoint-every 100 --resume --out " + path("r.h5"));
            EXPECT_NE(r.code, 0) << k;
            EXPECT_NE(r.err.find("checkpoint '" + path("m.h5") + "' is in use by another cudag run (process " +
                                 std::to_string(::getpid())),
                      std::string::npos)
                << r.err;
            EXPECT_EQ(errors(r.err), 1u) << r.err;
            EXPECT_FALSE(fs::exists(path("r.h5")));
        }
    }
    // The last chain's best score (rank 2 of 3 reads it), through HDF5.
    fs::copy_file(path("m.h5"), path("bad.h5"));
    fs::copy_file(path("m.h5.traces"), path("bad.h5.traces"));
    {
        namespace h5 = cudag::io::h5;
        h5::Handle f = h5::check_id(H5Fopen(path("bad.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "edit");
        std::vector<double> best = h5::read_array<double>(f.get(), "chains/best_score", "edit");
        best.back() += 50.0;
        h5::Handle ds = h5::check_id(H5Dopen2(f.get(), "chains/best_score", H5P_DEFAULT), "edit");
        h5::check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, best.data()), "edit");
    }
    r = cudag(3, mcmc + " --checkpoint " + path("bad.h5") + " --checkpoint-every 100 --resume --out " + path("r.h5"));
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("checkpoint '" + path("bad.h5") + "' is corrupt: chain 2: its best score"), std::string::npos)
        << r.err;
    EXPECT_EQ(errors(r.err), 1u) << r.err;
    // A bootstrap kept on 3 ranks holds B replicates; resumed on 2 it gives the same table.
    const std::string boot = pc + " --bootstrap 5 --seed 2 --format freq --out ";
    r = cudag(0, boot + path("b0.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    r = cudag(3, boot + path("b3.h5") + " --checkpoint " + path("bk.h5") + " --keep-checkpoint");
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(fs::exists(path("bk.h5")));
    {
        const cudag::io::h5::Handle f = cudag::io::h5::open_file(path("bk.h5"));
        EXPECT_EQ(cudag::io::h5::read_array<std::int64_t>(f.get(), "bootstrap/done", "read"),
                  (std::vector<std::int64_t>{5}));
    }
    r = cudag(2, boot + path("b2.h5") + " --checkpoint " + path("bk.h5") + " --resume");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(cudag::test::read_text(path("b2.freq.tsv")), cudag::test::read_text(path("b0.freq.tsv")));
    EXPECT_EQ(cudag::test::read_text(path("b3.freq.tsv")), cudag::test::read_text(path("b0.freq.tsv")));
    // done beyond B: refused on 3 ranks in one line.
    r = cudag(2, boot + path("bp.h5") + " --checkpoint " + path("bc.h5") + " --stop-after-level 2");
    ASSERT_EQ(r.code, 3) << r.err;
    {
        namespace h5 = cudag::io::h5;
        h5::Handle f = h5::check_id(H5Fopen(path("bc.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "edit");
        const std::vector<std::int64_t> done{9};
        h5::Handle ds = h5::check_id(H5Dopen2(f.get(), "bootstrap/done", H5P_DEFAULT), "edit");
        h5::check(H5Dwrite(ds.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, done.data()), "edit");
    }
    r = cudag(3, boot + path("bp.h5") + " --checkpoint " + path("bc.h5") + " --resume");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("/bootstrap/done = 9 is not within [0, --bootstrap 5]"), std::string::npos) << r.err;
    EXPECT_EQ(errors(r.err), 1u) << r.err;
}

// Issue 54's d-separation oracle (cudag pc --oracle) on 1-3 ranks: the CPDAG, separating sets
// and edge list of one process, byte for byte, with a latent node too.
TEST_F(MpiCli, OracleRunsAreRankCountInvariant) {
    auto r = cudag(0, "simulate gaussian --vars 40 --samples 10 --density 0.12 --seed 6 --out " + path("d.csv") +
                          " --truth " + path("truth.tsv"));
    ASSERT_EQ(r.code, 0) << r.err;
    for (const std::string latent : {"", " --latent X5,X17"}) {
        const std::string base = "pc --oracle " + path("truth.tsv") + latent + " -q --format edges,cl --out ";
        r = cudag(0, base + path("serial.h5"));
        ASSERT_EQ(r.code, 0) << r.err;
        for (int k = 1; k <= 3; ++k) {
            const std::string out = path("np" + std::to_string(k) + ".h5");
            r = cudag(k, base + out);
            ASSERT_EQ(r.code, 0) << k << " ranks: " << r.err;
            EXPECT_TRUE(same_results(out, path("serial.h5"), {".edges.tsv", ".cl.txt"})) << k << " ranks" << latent;
        }
    }
}

// Issue 54's cudag fci (FCI and RFCI) on 1-4 ranks: the PAG, separating sets, pMax and every
// format of one process, byte for byte, on data (the skeleton split over the ranks, then
// Possible-D-SEP's edges, the triple checks and RFCI's tests dealt out over them) and on the
// oracle with latent nodes.
TEST_F(MpiCli, FciRunsAreRankCountInvariant) {
    auto r = cudag(0, "simulate gaussian --vars 30 --samples 500 --density 0.12 --seed 7 --out " + path("d.csv") +
                          " --truth " + path("truth.tsv"));
    ASSERT_EQ(r.code, 0) << r.err;
    // Reference data sets where Possible-D-SEP removes edges (19 in d06, 4 in g05), so that
    // later nodes of pcalg's pass rerun against their reduced adjacency.
    const std::string ref = std::string(CUDAG_SOURCE_DIR) + "/tests/data/fci/datasets/";
    for (const auto& job :
         {"--data " + path("d.csv") + " --alpha 0.05", "--data " + path("d.csv") + " --alpha 0.05 --variant rfci",
          "--data " + path("d.csv") + " --alpha 0.05 --conservative",
          "--data " + ref + "d06.csv --test g-square --alpha 0.05 --majority-rule --threads 2",
          "--data " + ref + "g05.csv --alpha 0.05", "--data " + ref + "g08.csv --alpha 0.05 --compat causal-learn", "--oracle " + path("truth.tsv") + " --latent X3,X11,X20"}) {
        const std::string base = "fci " + job + " -q --format edges,amat,cl --out ";
        r = cudag(0, base + path("serial.h5"));
        ASSERT_EQ(r.code, 0) << r.err;
        for (int k = 1; k <= 4; ++k) {
            const std::string out = path("np" + std::to_string(k) + ".h5");
            r = cudag(k, base + out);
            ASSERT_EQ(r.code, 0) << k << " ranks: " << r.err;
            EXPECT_TRUE(same_results(out, path("serial.h5"), {".edges.tsv", ".pag.amat.csv", ".cl.txt"}))
                << k << " ranks: " << job;
        }
    }
}

TEST_F(MpiCli, FciBootstrapIsRankCountInvariant) {
    // cudag fci --bootstrap: replicate r on rank r mod K; on 1..3 ranks the frequency table
    // and the consensus PAG's files of one process, byte for byte (5: uneven over 2 and 3),
    // and so after a stop on 2 ranks resumed on 3.
    const std::string data = std::string(CUDAG_SOURCE_DIR) + "/tests/data/fci/datasets/g05.csv";
    for (const std::string variant : {"fci", "rfci"}) {
        const std::string base = "fci --data " + data + " --variant " + variant +
                                 " --alpha 0.05 --bootstrap 5 --seed 4 -q --format freq,edges,amat,cl --out ";
        auto r = cudag(0, base + path("serial.h5"));
        ASSERT_EQ(r.code, 0) << r.err;
        for (int k = 1; k <= 3; ++k) {
            const std::string out = path("np" + std::to_string(k) + ".h5");
            r = cudag(k, base + out);
            ASSERT_EQ(r.code, 0) << k << " ranks: " << r.err;
            EXPECT_TRUE(same_results(out, path("serial.h5"), {".freq.tsv", ".edges.tsv", ".pag.amat.csv", ".cl.txt"}))
                << k << " ranks: " << variant;
        }
        // Stopped on 2 ranks after a round, resumed on 3: the same files.
        const std::string part = path(variant + "_part.h5"), ck = path(variant + "_ck.h5");
        r = cudag(2, base + part + " --checkpoint " + ck + " --stop-after-level 2");
        EXPECT_EQ(r.code, 3) << r.err;
        r = cudag(3, base + part + " --checkpoint " + ck + " --resume");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(same_results(part, path("serial.h5"), {".freq.tsv", ".edges.tsv", ".pag.amat.csv", ".cl.txt"}))
            << "resumed on 3 ranks: " << variant;
    }
}
