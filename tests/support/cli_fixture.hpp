// SPDX-License-Identifier: Apache-2.0
// A gtest fixture that runs the cudag binary in a scratch folder and checks its exits,
// its one-line errors and what it leaves behind.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "support/cli_run.hpp"
#include "support/paths.hpp"

namespace cudag::test {

namespace fs = std::filesystem;

class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("cudag_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
                std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    CliRun run(const std::string& args) { return run_cudag(args, dir_); }
    fs::path write(const std::string& name, const std::string& text) {
        const fs::path p = dir_ / name;
        std::ofstream(p) << text;
        return p;
    }
    // Only the inputs we wrote remain in the directory (no result, no temporaries).
    void expect_no_outputs(const std::set<std::string>& inputs) {
        for (const auto& e : fs::directory_iterator(dir_))
            EXPECT_TRUE(inputs.count(e.path().filename().string())) << "left behind: " << e.path().filename();
    }
    // A failing run: non-zero exit, exactly one line on stderr containing `what`.
    void expect_error(const std::string& args, const std::string& what) {
        const CliRun r = run(args);
        EXPECT_NE(r.code, 0) << args;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr: " << r.err;
        EXPECT_NE(r.err.find(what), std::string::npos) << "stderr: " << r.err << " (wanted '" << what << "')";
    }
    fs::path dir_;
};

}  // namespace cudag::test
