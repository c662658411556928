// SPDX-License-Identifier: Apache-2.0
// Parallel HDF5 (issue 25): `mpiexec -n K cudag pc` with the collective path (MPI-IO input
// read by column blocks, every rank writing its rows' separating sets and pMax into one
// result and checkpoint file) against the gathered path (CUDAG_HDF5_IO=gathered: rank 0
// reads, broadcasts and writes alone), K = 1..4: every dataset and attribute the same but
// timings and provenance; resume from a collectively written checkpoint; chunked input;
// the one-line errors; what -v and `cudag info` say.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "io/dataset_io.hpp"
#include "io/hdf5_file.hpp"
#include "io/hdf5_mpio.hpp"
#include "support/paths.hpp"
#include "support/result_files.hpp"

namespace fs = std::filesystem;
using cudag::test::run_command;
using cudag::test::same_file_contents;

namespace {

/// What differs between two runs of the same result: timings, provenance, and the
/// names of the run's own resources (ranks, communicator, threads).
const std::set<std::string> kRunSpecific = {"levels/seconds",   "levels/merge_seconds",
                                            "levels/imbalance", "levels/tests_imbalance",
                                            "seconds_total",    "created",
                                            "command_line",     "host",
                                            "input_mtime",      "ranks",
                                            "communicator",     "threads"};

class MpiHdf5Io : public ::testing::Test {
protected:
    static void SetUpTestSuite() { cudag::test::prepare_mpiexec_environment(); }
    void SetUp() override { dir_ = cudag::test::fresh_test_dir("cudag_h5io"); }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    /// `cudag args` on `ranks` ranks (0: without mpiexec), on the gathered path when
    /// `gathered`, bounded by a timeout.
    cudag::test::CommandResult cudag(int ranks, const std::string& args, bool gathered = false,
                                     const std::string& env = "") {
        std::string cmd = env + (gathered ? " CUDAG_HDF5_IO=gathered" : "") + " timeout 120 ";
        if (ranks > 0)
            cmd += std::string(CUDAG_MPIEXEC) + " " + std::to_string(ranks) + " " + CUDAG_MPIEXEC_FLAGS + " ";
        cmd += cudag::test::cudag_binary() + " " + args;
        // The CPU engine: these tests are about I/O, and a GPU engine's per-level test
        // counts (stored in the result) depend on how the rows are cut over ranks.
        if (args.rfind("pc ", 0) == 0) cmd += " --backend cpu";
        return run_command(cmd, dir_);
    }

    void simulate(const std::string& name, int vars, int samples = 400) {
        const auto r = cudag(0, "simulate gaussian --vars " + std::to_string(vars) + " --samples " +
                                    std::to_string(samples) + " --density 0.08 --seed 11 --out " + path(name));
        ASSERT_EQ(r.code, 0) << r.err;
    }

    /// Results of `opts` on 1..4 ranks, collective and gathered, against one run without
    /// mpiexec: every dataset and attribute but timings and provenance.
    void expect_paths_agree(const std::string& data, const std::string& opts) {
        const std::string base = "pc --data " + data + " " + opts + " -q --out ";
        auto r = cudag(0, base + path("serial.h5"));
        ASSERT_EQ(r.code, 0) << r.err;
        for (int k = 1; k <= 4; ++k)
            for (const bool gathered : {false, true}) {
                const std::string out = path("np" + std::to_string(k) + (gathered ? "g" : "c") + ".h5");
                r = cudag(k, base + out, gathered);
                ASSERT_EQ(r.code, 0) << k << " ranks: " << r.err;
                EXPECT_TRUE(same_file_contents(out, path("serial.h5"), kRunSpecific))
                    << k << " ranks, " << (gathered ? "gathered" : "collective");
            }
    }

    fs::path dir_;
};

/// Copy the 2-D dataset /data of `from` into `to` as a chunked dataset of 32-bit floats
/// (chunks 7 x 5: ranks' column blocks cut through them) with the same names.
void write_chunked_copy(const std::string& from, const std::string& to) {
    const cudag::Dataset d = cudag::io::read_hdf5(from, "");
    namespace h5 = cudag::io::h5;
    h5::Handle f = h5::create_file(to);
    const hsize_t dims[2] = {static_cast<hsize_t>(d.n_samples), static_cast<hsize_t>(d.n_vars)};
    h5::Handle space(H5Screate_simple(2, dims, nullptr));
    h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
    const hsize_t chunk[2] = {7, 5};
    H5Pset_chunk(dcpl.get(), 2, chunk);
    h5::Handle grp = h5::create_group(f.get(), "expr", to);
    h5::Handle ds(H5Dcreate2(grp.get(), "matrix", H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
    std::vector<float> rows(static_cast<std::size_t>(d.n_samples * d.n_vars));
    for (std::int64_t s = 0; s < d.n_samples; ++s)
        for (std::int64_t v = 0; v < d.n_vars; ++v)
            rows[static_cast<std::size_t>(s * d.n_vars + v)] = static_cast<float>(d.values[v * d.n_samples + s]);
    ASSERT_GE(H5Dwrite(ds.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()), 0);
    h5::write_string_array_attr(ds.get(), "names", d.names, to);
}

}  // namespace

TEST_F(MpiHdf5Io, CollectiveAndGatheredResultsAreIdenticalOnOneToFourRanks) {
    // 70 variables: the dense pMax matrix and amat are written too (n <= 4096).
    simulate("sim.h5", 70);
    expect_paths_agree(path("sim.h5"), "--alpha 0.05");
}

TEST_F(MpiHdf5Io, DiscreteAndCausalLearnResultsAreIdentical) {
    // Discrete data (level labels in the file), and causal-learn's exhaustive mode, whose
    // separating sets of one pair may come from two ranks' rows and are united.
    auto r = cudag(0, "simulate discrete --vars 24 --samples 600 --seed 3 --out " + path("disc.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    expect_paths_agree(path("disc.h5"), "--discrete --test g-square");
    simulate("cl.h5", 30);
    expect_paths_agree(path("cl.h5"), "--compat causal-learn --alpha 0.05");
}

TEST_F(MpiHdf5Io, ChunkedFloatInputReadsCollectivelyAsContiguous) {
    simulate("sim.h5", 41, 203);
    write_chunked_copy(path("sim.h5"), path("chunked.h5"));
    auto r = cudag(0, "pc --data " + path("chunked.h5") + " -q --out " + path("serial.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    for (int k : {2, 3}) {
        const std::string out = path("np" + std::to_string(k) + ".h5");
        r = cudag(k, "pc --data " + path("chunked.h5") + " --dataset /expr/matrix -q --out " + out);
        ASSERT_EQ(r.code, 0) << r.err;
        // Only the dataset path differs (named here, found alone above).
        EXPECT_TRUE(same_file_contents(out, path("serial.h5"), [] {
            auto skip = kRunSpecific;
            skip.insert({"input_dataset", "input"});
            return skip;
        }()));
    }
}

TEST_F(MpiHdf5Io, ResumeFromACollectivelyWrittenCheckpoint) {
    simulate("sim.h5", 60);
    const std::string base = "pc --data " + path("sim.h5") + " --alpha 0.05 -q";
    auto r = cudag(0, base + " --out " + path("serial.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    // The level-1 checkpoint written collectively by 3 ranks holds what rank 0 writes alone.
    for (const bool gathered : {false, true}) {
        r = cudag(3,
                  base + " --checkpoint " + path(gathered ? "ckg.h5" : "ckc.h5") + " --stop-after-level 1 --out " +
                      path("x.h5"),
                  gathered);
        ASSERT_NE(r.code, 0);
        ASSERT_TRUE(fs::exists(path(gathered ? "ckg.h5" : "ckc.h5"))) << r.err;
    }
    EXPECT_FALSE(fs::exists(path("x.h5")));
    EXPECT_TRUE(same_file_contents(path("ckc.h5"), path("ckg.h5"), kRunSpecific));
    // Resumed collectively on 2 ranks (checkpointing collectively again) and on 4.
    fs::copy_file(path("ckc.h5"), path("ckc4.h5"));
    r = cudag(2, base + " --checkpoint " + path("ckc.h5") + " --resume --keep-checkpoint --out " + path("r2.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(same_file_contents(path("r2.h5"), path("serial.h5"), kRunSpecific));
    r = cudag(4, base + " --checkpoint " + path("ckc4.h5") + " --resume --out " + path("r4.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(same_file_contents(path("r4.h5"), path("serial.h5"), kRunSpecific));
    EXPECT_FALSE(fs::exists(path("ckc4.h5")));  // served: removed
}

TEST_F(MpiHdf5Io, NonFiniteValueIsTheSameOneLineErrorOnEveryPath) {
    simulate("sim.h5", 12, 50);
    {
        // Row 31, column 9 (counted from 1) becomes -inf; row 40 column 2 NaN (later).
        namespace h5 = cudag::io::h5;
        h5::Handle f(H5Fopen(path("sim.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
        h5::Handle ds(H5Dopen2(f.get(), "data", H5P_DEFAULT));
        for (const auto& [row, col, x] : {std::tuple<hsize_t, hsize_t, double>{30, 8, -INFINITY},
                                          {39, 1, std::numeric_limits<double>::quiet_NaN()}}) {
            h5::Handle space(H5Dget_space(ds.get()));
            const hsize_t start[2] = {row, col}, count[2] = {1, 1};
            H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
            h5::Handle mem(H5Screate_simple(2, count, nullptr));
            ASSERT_GE(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, mem.get(), space.get(), H5P_DEFAULT, &x), 0);
        }
    }
    const std::string want = "non-finite value -inf at row 31, column 9 'X9' (counted from 1)";
    for (const int k : {0, 3})
        for (const bool gathered : {false, true}) {
            const auto r = cudag(k, "pc --data " + path("sim.h5") + " --out " + path("out.h5"), gathered);
            EXPECT_NE(r.code, 0);
            EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
            // Reported once (by rank 0), whatever mpiexec adds.
            EXPECT_EQ(r.err.find("cudag: error:"), r.err.rfind("cudag: error:")) << r.err;
            EXPECT_FALSE(fs::exists(path("out.h5")));
        }
}

TEST_F(MpiHdf5Io, VerboseStartUpAndInfoSayWhichPathRuns) {
    simulate("sim.h5", 10, 60);
    const bool parallel = cudag::io::h5::parallel_compiled();
    const std::string base = "pc --data " + path("sim.h5") + " -v --out " + path("o.h5");
    auto r = cudag(2, base);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(
        r.err.find(parallel ? "HDF5 I/O: collective (MPI-IO, 2 ranks)" : "HDF5 I/O: gathered on rank 0 (serial HDF5)"),
        std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("peak memory per rank: 0 "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(", 1 "), std::string::npos) << r.err;
    r = cudag(2, base, true);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find(parallel ? "HDF5 I/O: gathered on rank 0 (CUDAG_HDF5_IO=gathered)"
                                  : "HDF5 I/O: gathered on rank 0 (serial HDF5)"),
              std::string::npos)
        << r.err;
    r = cudag(0, base);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(
        r.err.find(parallel ? "HDF5 I/O: gathered on rank 0 (one rank)" : "HDF5 I/O: gathered on rank 0 (serial HDF5)"),
        std::string::npos)
        << r.err;
    // A bad value of the hidden switch: one line, no output.
    fs::remove(path("o.h5"));
    r = cudag(2, base, false, "CUDAG_HDF5_IO=fast");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("CUDAG_HDF5_IO must be 'gathered' or 'collective', got 'fast'"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("o.h5")));
    r = run_command(cudag::test::cudag_binary() + " info", dir_, path("info.txt"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string info = cudag::test::read_text(path("info.txt"));
    EXPECT_NE(info.find(parallel ? "HDF5 I/O: collective (MPI-IO) under mpirun"
                                 : "HDF5 I/O: gathered on rank 0 (serial HDF5"),
              std::string::npos)
        << info;
}

TEST_F(MpiHdf5Io, McmcCheckpointWrittenByEveryRankResumes) {
    auto r =
        cudag(0, "simulate discrete --vars 10 --samples 300 --density 0.2 --states 3 --max-parents 2 --seed 6 --out " +
                     path("d.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    // 5 chains on 4 ranks: one rank runs two, the others one each.
    const std::string opts =
        "mcmc --data " + path("d.csv") + " --score bdeu --max-parents 2 --chains 5 --iterations 600 --thin 2 -q";
    r = cudag(0, opts + " --out " + path("serial.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    for (const bool gathered : {false, true}) {
        const std::string ck = path(gathered ? "ckg.h5" : "ckc.h5");
        r = cudag(4, opts + " --checkpoint " + ck + " --checkpoint-every 200 --stop-after 400 --out " + path("x.h5"),
                  gathered);
        ASSERT_EQ(r.code, 3) << r.err;
        ASSERT_TRUE(fs::exists(ck)) << r.err;
    }
    // The same state; the same trace logs but for the run id (bytes 16 to 23).
    std::set<std::string> skip = kRunSpecific;
    skip.insert("chains/trace_log");
    EXPECT_TRUE(same_file_contents(path("ckc.h5"), path("ckg.h5"), skip));
    const std::string logc = cudag::test::read_text(path("ckc.h5.traces")),
                      logg = cudag::test::read_text(path("ckg.h5.traces"));
    ASSERT_GT(logc.size(), 32u);
    EXPECT_EQ(logc.substr(24), logg.substr(24));
    r = cudag(2, opts + " --checkpoint " + path("ckc.h5") + " --resume --out " + path("resumed.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_mcmc_results(path("resumed.h5"), path("serial.h5")));
}
