// SPDX-License-Identifier: Apache-2.0
// Level checkpoints in one process: a run stopped after a level and resumed equals an
// uninterrupted one; checkpoints that do not belong to the run are refused.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/paths.hpp"
#include "support/result_files.hpp"

namespace fs = std::filesystem;
using cudag::test::run_command;

namespace {

class Checkpoint : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = cudag::test::fresh_test_dir("cudag_ckpt");
        data_ = std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.csv";
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    cudag::test::CommandResult pc(const std::string& args) {
        return run_command(cudag::test::cudag_binary() + " pc -q --data " + data_ + " " + args, dir_);
    }
    fs::path dir_;
    std::string data_;
};

}  // namespace

TEST_F(Checkpoint, StopAndResumeEqualsUninterruptedRun) {
    ASSERT_EQ(pc("--alpha 0.05 --out " + path("full.h5") + " --format cl").code, 0);
    for (int stop : {0, 1, 2}) {
        const std::string ck = path("ck" + std::to_string(stop) + ".h5");
        auto r = pc("--alpha 0.05 --out " + path("r.h5") + " --checkpoint " + ck + " --stop-after-level " +
                    std::to_string(stop));
        EXPECT_EQ(r.code, 3) << r.err;
        ASSERT_TRUE(fs::exists(ck));
        r = pc("--alpha 0.05 --out " + path("r.h5") + " --format cl --checkpoint " + ck + " --resume");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(cudag::test::same_results(path("r.h5"), path("full.h5"), {".cl.txt"}))
            << "stopped after level " << stop;
    }
    // Only the checkpoints and results remain: no temporaries.
    for (const auto& e : fs::directory_iterator(dir_))
        EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST_F(Checkpoint, ForeignFilesAndOptionsAreRefused) {
    auto r = pc("--out " + path("r.h5") + " --checkpoint " + path("ck.h5") + " --stop-after-level 1");
    ASSERT_EQ(r.code, 3) << r.err;
    r = pc("--compat causal-learn --out " + path("r.h5") + " --checkpoint " + path("ck.h5") + " --resume");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("was written for other options: --compat was pcalg in the checkpoint, causal-learn now"),
              std::string::npos)
        << r.err;

    // A result file is not a checkpoint.
    ASSERT_EQ(pc("--out " + path("res.h5")).code, 0);
    r = pc("--out " + path("r2.h5") + " --checkpoint " + path("res.h5") + " --resume");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("is not a cudag PC checkpoint"), std::string::npos) << r.err;

    r = pc("--out " + path("r3.h5") + " --resume");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("--resume needs --checkpoint"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("r2.h5")));
    EXPECT_FALSE(fs::exists(path("r3.h5")));
}

// The hash is built from the resolved test specification: --dof changes the discrete
// tests' results, so a checkpoint of one rule is refused by another; a default spelled
// out (--test chi-square on discrete data) is the same test and resumes.
TEST_F(Checkpoint, HashCoversTheResolvedTestAndDofRule) {
    const std::string disc = path("disc.csv");
    const auto sim = run_command(cudag::test::cudag_binary() +
                                     " simulate discrete --vars 12 --samples 400 --density 0.3"
                                     " --states 3 --seed 5 --out " +
                                     disc,
                                 dir_);
    ASSERT_EQ(sim.code, 0) << sim.err;
    auto pcd = [&](const std::string& args) {
        return run_command(cudag::test::cudag_binary() + " pc -q --discrete --data " + disc + " --alpha 0.05 " + args,
                           dir_);
    };
    auto r = pcd("--dof gpupc --checkpoint " + path("g.h5") + " --stop-after-level 0");
    ASSERT_EQ(r.code, 3) << r.err;
    r = pcd("--dof pcalg --checkpoint " + path("g.h5") + " --resume --out " + path("x.h5"));
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("was written for other options: --dof was gpupc in the checkpoint, pcalg now"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(path("x.h5")));

    // Written without --test (chi-square is the discrete default), resumed with it spelled
    // out, and with the default --dof spelled out: the same test, the same result.
    ASSERT_EQ(pcd("--out " + path("full.h5") + " --format cl").code, 0);
    r = pcd("--checkpoint " + path("d.h5") + " --stop-after-level 0");
    ASSERT_EQ(r.code, 3) << r.err;
    r = pcd("--test chi-square --dof pcalg --checkpoint " + path("d.h5") + " --resume --out " + path("r.h5") +
            " --format cl");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_results(path("r.h5"), path("full.h5"), {".cl.txt"}));
}
