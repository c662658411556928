// SPDX-License-Identifier: Apache-2.0
// io::CheckpointFile on its own, with a made-up learner format: write and reopen, the
// refusals (missing file, other format, other configuration) and the atomic replace.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/checkpoint_file.hpp"
#include "io/hdf5_file.hpp"

namespace cudag {
namespace {

namespace fs = std::filesystem;

constexpr io::CheckpointFormat toy{"cudag-toy-checkpoint-1", "toy"};

class CheckpointFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        // Built with += : GCC 12 gives a false -Wrestrict on "literal" + std::string.
        std::string name = "cudag_checkpoint_file_";
        name += std::to_string(::getpid());
        name += '_';
        name += ::testing::UnitTest::GetInstance()->current_test_info()->name();
        dir_ = fs::temp_directory_path() / name;
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        path_ = (dir_ / "state.h5").string();
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }

    /// Write a toy checkpoint holding `step` in /toy/step.
    void write(const std::string& hash, std::int64_t step) const {
        io::CheckpointFile f = io::CheckpointFile::create(path_, toy, hash);
        {
            io::h5::Handle g = io::h5::create_group(f.root(), "toy", f.where());
            io::h5::write_array(g.get(), "step", std::vector<std::int64_t>{step}, {1}, f.where());
        }
        f.commit();
    }
    std::int64_t read_step(const std::string& hash) const {
        io::CheckpointFile f = io::CheckpointFile::open(path_, toy, hash);
        const auto v = io::h5::read_array<std::int64_t>(f.root(), "toy/step", f.where());
        EXPECT_EQ(v.size(), 1u);
        return v.empty() ? -1 : v[0];
    }
    /// The InputError message of opening the checkpoint ("" when it opens).
    std::string open_error(const io::CheckpointFormat& format, const std::string& hash) const {
        try {
            io::CheckpointFile::open(path_, format, hash);
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    }
    /// Files in the directory (temporaries included).
    std::vector<std::string> entries() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
        return out;
    }

    fs::path dir_;
    std::string path_;
};

TEST_F(CheckpointFileTest, WritesAndReopens) {
    write("0123456789abcdef", 4);
    EXPECT_EQ(entries(), std::vector<std::string>{"state.h5"});
    EXPECT_EQ(read_step("0123456789abcdef"), 4);
    io::h5::Handle file = io::h5::open_file(path_);
    const std::string where = "test";
    EXPECT_EQ(io::h5::read_string_attr(file.get(), "format", where),
              std::vector<std::string>{"cudag-toy-checkpoint-1"});
    EXPECT_EQ(io::h5::read_string_attr(file.get(), "config_hash", where), std::vector<std::string>{"0123456789abcdef"});
    EXPECT_TRUE(io::h5::has_attr(file.get(), "cudag_version"));
    // A second write replaces the first.
    write("0123456789abcdef", 5);
    EXPECT_EQ(read_step("0123456789abcdef"), 5);
}

TEST_F(CheckpointFileTest, RefusesMissingOtherFormatAndOtherHash) {
    std::string m = open_error(toy, "h");
    EXPECT_EQ(m, "--resume: checkpoint '" + path_ + "' does not exist");

    write("h1", 1);
    constexpr io::CheckpointFormat other{"cudag-other-checkpoint-1", "other"};
    m = open_error(other, "h1");
    EXPECT_EQ(m, "checkpoint '" + path_ + "' is not a cudag other checkpoint (cudag-other-checkpoint-1)");
    m = open_error(toy, "h2");
    EXPECT_EQ(m, "checkpoint '" + path_ +
                     "' was written for other data or options (config hash h1, this run h2); "
                     "drop --resume to start afresh");
    EXPECT_EQ(open_error(toy, "h1"), "");

    // An HDF5 file without the attributes is not a checkpoint.
    fs::remove(path_);
    { io::h5::Handle f = io::h5::create_file(path_); }
    m = open_error(toy, "h1");
    EXPECT_NE(m.find("is not a cudag toy checkpoint (cudag-toy-checkpoint-1)"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

TEST_F(CheckpointFileTest, FailedWriteKeepsThePreviousFile) {
    write("h1", 3);
    const std::size_t registered = interrupt::temporaries();
    try {
        io::CheckpointFile f = io::CheckpointFile::create(path_, toy, "h2");
        EXPECT_EQ(interrupt::temporaries(), registered + 1);  // SIGINT/SIGTERM would remove it
        EXPECT_EQ(entries().size(), 2u);                      // the target and the temporary
        io::h5::Handle g = io::h5::create_group(f.root(), "toy", f.where());
        throw std::runtime_error("killed mid-write");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(interrupt::temporaries(), registered);
    EXPECT_EQ(entries(), std::vector<std::string>{"state.h5"});
    EXPECT_EQ(read_step("h1"), 3);
}

TEST_F(CheckpointFileTest, UnwritableDirectoryIsOneLine) {
    const std::string path = (dir_ / "missing" / "state.h5").string();
    try {
        io::CheckpointFile::create(path, toy, "h");
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("does not exist"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
}

}  // namespace
}  // namespace cudag
