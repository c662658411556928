// SPDX-License-Identifier: Apache-2.0
// Checkpoints that must not lose or mislead (issue 33 items 2-4), for `cudag pc` and
// `cudag mcmc`: an existing checkpoint is refused without --resume (or replaced with
// --overwrite-checkpoint), a corrupt one (values edited, a byte flipped) is refused in one
// line and left as it was, and --keep-checkpoint keeps the finished run's state.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "io/checkpoint_lock.hpp"
#include "io/hdf5_file.hpp"
#include "support/cli_fixture.hpp"
#include "support/result_files.hpp"

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;
namespace fs = std::filesystem;
namespace h5 = cudag::io::h5;

/// Set element `index` of dataset `name` of the HDF5 file at `path` to `value`, through HDF5
/// (any checksum is rewritten with it: the file stays well-formed, the value is wrong).
template <class T>
void poke(const fs::path& path, const std::string& name, std::size_t index, T value) {
    h5::Handle f = h5::check_id(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "poke");
    std::vector<T> v = h5::read_array<T>(f.get(), name, "poke");
    ASSERT_LT(index, v.size()) << name;
    v[index] = value;
    h5::Handle ds = h5::check_id(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), "poke");
    h5::check(H5Dwrite(ds.get(), h5::TypeOf<T>::mem(), H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "poke");
}

/// Where the (first chunk of the) data of dataset `name` starts in the file at `path`.
haddr_t data_offset(const fs::path& path, const std::string& name) {
    h5::Handle f = h5::open_file(path.string());
    h5::Handle ds = h5::check_id(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), "offset");
    h5::Handle dcpl = h5::check_id(H5Dget_create_plist(ds.get()), "offset");
    if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED) return H5Dget_offset(ds.get());
    h5::Handle space = h5::check_id(H5Dget_space(ds.get()), "offset");
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    h5::check(H5Dget_chunk_info(ds.get(), space.get(), 0, nullptr, nullptr, &addr, &size), "offset");
    return addr;
}

/// Flip every bit of one byte of dataset `name`'s stored data, behind HDF5's back (bit rot).
void flip_byte(const fs::path& path, const std::string& name) {
    const haddr_t at = data_offset(path, name);
    ASSERT_NE(at, HADDR_UNDEF) << name;
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    io.seekg(static_cast<std::streamoff>(at));
    char c = 0;
    io.read(&c, 1);
    c = static_cast<char>(~c);
    io.seekp(static_cast<std::streamoff>(at));
    io.write(&c, 1);
}

/// Flip every bit of byte `at` of the trace log beside checkpoint `path`.
void flip_log_byte(const fs::path& path, std::streamoff at) {
    std::fstream io(path.string() + ".traces", std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(io.good()) << path;
    io.seekg(at);
    char c = 0;
    io.read(&c, 1);
    c = static_cast<char>(~c);
    io.seekp(at);
    io.write(&c, 1);
}

/// Whether dataset `name` carries the Fletcher32 filter.
bool has_checksum(const fs::path& path, const std::string& name) {
    h5::Handle f = h5::open_file(path.string());
    h5::Handle ds = h5::check_id(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), "filter");
    h5::Handle dcpl = h5::check_id(H5Dget_create_plist(ds.get()), "filter");
    return H5Pget_filter_by_id2(dcpl.get(), H5Z_FILTER_FLETCHER32, nullptr, nullptr, nullptr, 0, nullptr, nullptr) >= 0;
}

template <class T>
std::vector<T> read(const fs::path& path, const std::string& name) {
    h5::Handle f = h5::open_file(path.string());
    return h5::read_array<T>(f.get(), name, "read");
}

/// An edit that corrupts a checkpoint, and what the refusal must say.
struct Corruption {
    const char* what;
    std::function<void(const fs::path&)> edit;
};

class CheckpointSafety : public Cli {
protected:
    void SetUp() override {
        Cli::SetUp();
        const CliRun r =
            run("simulate discrete --vars 6 --samples 400 --density 0.4 --states 3 --max-parents 2 "
                "--seed 3 --out " +
                p("d.csv"));
        ASSERT_EQ(r.code, 0) << r.err;
        mcmc = "mcmc -q --data " + p("d.csv") + " --score bdeu --max-parents 2 --chains 2 --iterations 400 ";
        pc = "pc -q --data " + std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.csv --alpha 0.05 ";
    }
    std::string p(const std::string& name) const { return (dir_ / name).string(); }
    /// The command fails in one line holding `what`, leaves `ck` byte for byte as it was and
    /// writes no `out`.
    void expect_refused(const std::string& args, const std::string& what, const std::string& ck,
                        const std::string& out) {
        const std::string before = cudag::test::slurp(dir_ / ck);
        expect_error(args, what);
        EXPECT_EQ(cudag::test::slurp(dir_ / ck), before) << args;
        EXPECT_FALSE(fs::exists(dir_ / out)) << args;
    }
    /// An MCMC checkpoint stopped at iteration 200 of 400, in `name`.
    void mcmc_checkpoint(const std::string& name) {
        const CliRun r = run(mcmc + "--checkpoint " + p(name) + " --checkpoint-every 100 --stop-after 200");
        ASSERT_EQ(r.code, 3) << r.err;
    }
    /// A PC checkpoint stopped after level 1, in `name`.
    void pc_checkpoint(const std::string& name) {
        const CliRun r = run(pc + "--checkpoint " + p(name) + " --stop-after-level 1");
        ASSERT_EQ(r.code, 3) << r.err;
    }
    /// Each edit applied to a copy of `good`: `resume` + the copy fails in one line
    /// ("checkpoint '<copy>' is corrupt: " and the edit's `what`), the copy unchanged.
    void expect_corrupt(const std::string& resume, const std::string& good, const std::vector<Corruption>& edits) {
        for (const Corruption& c : edits) {
            copy_checkpoint(good, "bad.h5");
            c.edit(dir_ / "bad.h5");
            expect_refused(resume + p("bad.h5"), "checkpoint '" + p("bad.h5") + "' is corrupt: ", "bad.h5", "r.h5");
            expect_error(resume + p("bad.h5"), c.what);
        }
    }
    /// A stopped checkpoint `ck` of pc (`is_pc`) or mcmc; returns the command that made it.
    std::string stopped_checkpoint(bool is_pc, const std::string& ck) {
        if (is_pc)
            pc_checkpoint(ck);
        else
            mcmc_checkpoint(ck);
        return is_pc ? pc : mcmc;
    }
    /// Copy checkpoint `from` to `to`, with its MCMC trace log when it has one.
    void copy_checkpoint(const std::string& from, const std::string& to) {
        fs::copy_file(dir_ / from, dir_ / to, fs::copy_options::overwrite_existing);
        fs::remove(dir_ / (to + ".traces"));
        if (fs::exists(dir_ / (from + ".traces"))) fs::copy_file(dir_ / (from + ".traces"), dir_ / (to + ".traces"));
    }
    std::string mcmc, pc;
};

}  // namespace

TEST_F(CheckpointSafety, AnExistingCheckpointNeedsResumeOrOverwrite) {
    for (const bool is_pc : {false, true}) {
        const std::string ck = is_pc ? "pc.ck.h5" : "mcmc.ck.h5";
        const std::string cmd = stopped_checkpoint(is_pc, ck);
        expect_refused(cmd + "--checkpoint " + p(ck) + " --out " + p("r.h5"),
                       "checkpoint '" + p(ck) + "' exists: add --resume to continue it, or remove it", ck, "r.h5");
        expect_refused(cmd + "--checkpoint " + p(ck) + " --resume --overwrite-checkpoint --out " + p("r.h5"),
                       "give one", ck, "r.h5");
        expect_error(cmd + "--overwrite-checkpoint --out " + p("r.h5"), "--overwrite-checkpoint needs --checkpoint");
        // Replaced: the run starts afresh, and removes the checkpoint when it is done.
        const CliRun r = run(cmd + "--checkpoint " + p(ck) + " --overwrite-checkpoint --out " + p("r.h5"));
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(fs::exists(dir_ / "r.h5"));
        EXPECT_FALSE(fs::exists(dir_ / ck));
        fs::remove(dir_ / "r.h5");
    }
}

TEST_F(CheckpointSafety, CheckpointsCarryChecksums) {
    mcmc_checkpoint("m.h5");
    pc_checkpoint("p.h5");
    for (const char* name : {"/chains/order", "/chains/edge_sum", "/chains/trace_log"})
        EXPECT_TRUE(has_checksum(dir_ / "m.h5", name)) << name;
    for (const char* name : {"/state/next_level", "/skeleton/edges", "/sepsets/nodes", "/pmax/values"})
        EXPECT_TRUE(has_checksum(dir_ / "p.h5", name)) << name;
}

TEST_F(CheckpointSafety, CorruptMcmcCheckpointsAreRefused) {
    mcmc_checkpoint("good.h5");
    const std::string resume = mcmc + "--checkpoint-every 100 --resume --out " + p("r.h5") + " --checkpoint ";
    expect_corrupt(
        resume, "good.h5",
        {
            {"/chains/order is not a permutation",
             [](const fs::path& f) { poke<std::int32_t>(f, "chains/order", 0, -1); }},
            {"/chains/order is not a permutation",
             [](const fs::path& f) { poke<std::int32_t>(f, "chains/order", 3, 999); }},
            {"/chains/best_order is not a permutation",
             [](const fs::path& f) { poke<std::int32_t>(f, "chains/best_order", 1, 0); }},
            {"since = 4000000000 is not within [0, kept = ",
             [](const fs::path& f) { poke<std::int64_t>(f, "chains/since", 2, 4000000000); }},
            {"done = 5000 is not within [0, 400]",
             [](const fs::path& f) {
                 poke<std::int64_t>(f, "chains/done", 0, 5000);
                 poke<std::int64_t>(f, "chains/done", 1, 5000);
             }},
            {"accepted = -3", [](const fs::path& f) { poke<std::int64_t>(f, "chains/accepted", 1, -3); }},
            {"holds iterations beyond the 7 kept ones the checkpoint records",
             [](const fs::path& f) {
                 poke<std::int64_t>(f, "chains/kept", 0, 7);
                 poke<std::int64_t>(f, "chains/kept", 1, 7);
             }},
            {"an edge sum is not within", [](const fs::path& f) { poke<double>(f, "chains/edge_sum", 1, -22368.6); }},
            {"a score is not finite", [](const fs::path& f) { poke<double>(f, "chains/score", 0, std::nan("")); }},
            {"not at one iteration", [](const fs::path& f) { poke<std::int64_t>(f, "chains/done", 1, 100); }},
            {"cannot read dataset 'chains/order': data error detected by Fletcher32 checksum",
             [](const fs::path& f) { flip_byte(f, "/chains/order"); }},
            {"cannot read dataset 'chains/edge_sum'", [](const fs::path& f) { flip_byte(f, "/chains/edge_sum"); }},
            {"cannot read dataset 'chains/trace_log'", [](const fs::path& f) { flip_byte(f, "/chains/trace_log"); }},
            // The trace log beside it (io/trace_log.hpp): a flipped bit, a cut, another run's, none.
            {"its trace log '", [](const fs::path& f) { flip_log_byte(f, 32 + 24 + 8); }},
            {"the block at byte 32 fails its checksum", [](const fs::path& f) { flip_log_byte(f, 32 + 24 + 8); }},
            {"is shorter than the",
             [](const fs::path& f) {
                 fs::resize_file(f.string() + ".traces", fs::file_size(f.string() + ".traces") - 8);
             }},
            {"belongs to another run", [](const fs::path& f) { flip_log_byte(f, 16); }},
            {"cannot be read", [](const fs::path& f) { fs::remove(f.string() + ".traces"); }},
        });
    // The unedited checkpoint resumes.
    const CliRun r = run(resume + p("good.h5"));
    EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(CheckpointSafety, CorruptPcCheckpointsAreRefused) {
    pc_checkpoint("good.h5");
    const std::string resume = pc + "--resume --out " + p("r.h5") + " --checkpoint ";
    expect_corrupt(
        resume, "good.h5",
        {
            {"/state/next_level = 17592186044416 is not within [1, 20]",
             [](const fs::path& f) { poke<std::int64_t>(f, "state/next_level", 0, std::int64_t{1} << 44); }},
            {"/state/next_level = 0 is not within [1, 20]",
             [](const fs::path& f) { poke<std::int64_t>(f, "state/next_level", 0, 0); }},
            {"/levels holds 2 levels, /state/next_level says 3",
             [](const fs::path& f) { poke<std::int64_t>(f, "state/next_level", 0, 3); }},
            {"/levels row 1 is out of range", [](const fs::path& f) { poke<std::int64_t>(f, "levels/tests", 1, -5); }},
            {"/levels says", [](const fs::path& f) { poke<std::int64_t>(f, "levels/edges_after", 1, 3); }},
            {"/pmax/values holds a p-value outside [0, 1]",
             [](const fs::path& f) { poke<double>(f, "pmax/values", 0, 7.5); }},
            {"cannot read dataset 'skeleton/edges'", [](const fs::path& f) { flip_byte(f, "/skeleton/edges"); }},
            {"cannot read dataset 'values': data error detected by Fletcher32 checksum",
             [](const fs::path& f) { flip_byte(f, "/pmax/values"); }},
        });
    // A separating variable out of range (when the checkpoint holds a separating set).
    if (!read<std::int32_t>(dir_ / "good.h5", "/sepsets/nodes").empty()) {
        copy_checkpoint("good.h5", "bad.h5");
        poke<std::int32_t>(dir_ / "bad.h5", "sepsets/nodes", 0, 20);
        expect_refused(resume + p("bad.h5"), "/sepsets/nodes holds 20", "bad.h5", "r.h5");
    }
    const CliRun r = run(resume + p("good.h5"));
    EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(CheckpointSafety, RefusedResumeNamesTheOptionThatDiffers) {
    mcmc_checkpoint("ck.h5");
    const std::string resume = " --checkpoint " + p("ck.h5") + " --checkpoint-every 100 --resume --out " + p("r.h5");
    std::string longer = mcmc;
    longer.replace(longer.find("--iterations 400"), 16, "--iterations 500");
    expect_refused(longer + resume,
                   "checkpoint '" + p("ck.h5") +
                       "' was written for other options: --iterations was 400 in the "
                       "checkpoint, 500 now; give the checkpoint's, or drop --resume to start afresh",
                   "ck.h5", "r.h5");
    expect_refused(mcmc + "--seed 9" + resume, "--seed was 1 in the checkpoint, 9 now", "ck.h5", "r.h5");
    expect_refused(mcmc + "--iss 2" + resume, "--iss was 1 in the checkpoint, 2 now", "ck.h5", "r.h5");
    CliRun r = run("simulate discrete --vars 6 --samples 400 --density 0.4 --states 3 --max-parents 2 --seed 4 --out " +
                   p("e.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    std::string other = mcmc;
    other.replace(other.find(p("d.csv")), p("d.csv").size(), p("e.csv"));
    expect_refused(other + resume,
                   "was written for other data or options: the data (--data) differ from the checkpoint's", "ck.h5",
                   "r.h5");
}

TEST_F(CheckpointSafety, RefusedPcResumeNamesTheOptionThatDiffers) {
    pc_checkpoint("ck.h5");
    const std::string resume = " --checkpoint " + p("ck.h5") + " --resume --out " + p("r.h5");
    std::string other = pc;
    other.replace(other.find("--alpha 0.05"), 12, "--alpha 0.01");
    expect_refused(other + resume,
                   "checkpoint '" + p("ck.h5") +
                       "' was written for other options: --alpha was 0.05 in the checkpoint, "
                       "0.01 now; give the checkpoint's, or drop --resume to start afresh",
                   "ck.h5", "r.h5");
    expect_refused(pc + "--compat causal-learn" + resume, "--compat was pcalg in the checkpoint, causal-learn now",
                   "ck.h5", "r.h5");
}

TEST_F(CheckpointSafety, TracesAreAppendedNotRewritten) {
    CliRun r = run(mcmc + "--out " + p("plain.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    // Stopped at 200 of 400 (checkpoints at 100 and 200): kept iterations 1..120 of each of
    // the 2 chains (burn-in 80), in blocks [0, 20) and [20, 120).
    mcmc_checkpoint("ck.h5");
    const std::string log200 = cudag::test::slurp(dir_ / "ck.h5.traces");
    EXPECT_EQ(log200.size(), 32u + (24 + 2 * 20 * 8) + (24 + 2 * 100 * 8));
    const auto recorded = read<std::int64_t>(dir_ / "ck.h5", "/chains/trace_log");
    ASSERT_EQ(recorded.size(), 2u);
    EXPECT_EQ(recorded[1], static_cast<std::int64_t>(log200.size()));
    // An append that a kill kept the state from recording: ignored on resume, cut off
    // before the next append.
    std::ofstream(dir_ / "ck.h5.traces", std::ios::binary | std::ios::app) << "half a block";
    r = run(mcmc + "--checkpoint " + p("ck.h5") + " --checkpoint-every 100 --resume --stop-after 300");
    ASSERT_EQ(r.code, 3) << r.err;
    const std::string log300 = cudag::test::slurp(dir_ / "ck.h5.traces");
    EXPECT_EQ(log300.size(), log200.size() + 24 + 2 * 100 * 8);
    EXPECT_EQ(log300.substr(0, log200.size()), log200) << "the log was rewritten, not appended to";
    r = run(mcmc + "--checkpoint " + p("ck.h5") + " --checkpoint-every 100 --resume --out " + p("r.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_mcmc_results(p("r.h5"), p("plain.h5")));
    // Served: the checkpoint and its log are removed.
    EXPECT_FALSE(fs::exists(dir_ / "ck.h5"));
    EXPECT_FALSE(fs::exists(dir_ / "ck.h5.traces"));
}

TEST_F(CheckpointSafety, CheckpointsWithTheTracesInsideStillResume) {
    // A checkpoint as versions before the trace log wrote it: /chains/trace (chains x kept)
    // in the HDF5 file, no /chains/trace_log and no log beside it.
    CliRun r = run(mcmc + "--out " + p("plain.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    mcmc_checkpoint("ck.h5");
    const std::string log = cudag::test::slurp(dir_ / "ck.h5.traces");
    std::vector<double> trace(2 * 120);
    for (int c = 0; c < 2; ++c)
        for (int k = 0; k < 120; ++k) {
            const std::size_t block = k < 20 ? 32 + 24 : 32 + 24 + 2 * 20 * 8 + 24;
            const std::size_t at = block + 8 * (k < 20 ? c * 20 + k : c * 100 + (k - 20));
            std::memcpy(&trace[c * 120 + k], log.data() + at, 8);
        }
    {
        h5::Handle f = h5::check_id(H5Fopen((dir_ / "ck.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "edit");
        h5::check(H5Ldelete(f.get(), "chains/trace_log", H5P_DEFAULT), "edit");
        h5::Handle g = h5::check_id(H5Gopen2(f.get(), "chains", H5P_DEFAULT), "edit");
        h5::write_array(g.get(), "trace", trace, {2, 120}, "edit");
    }
    fs::remove(dir_ / "ck.h5.traces");
    r = run(mcmc + "--checkpoint " + p("ck.h5") + " --checkpoint-every 100 --resume --out " + p("r.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_mcmc_results(p("r.h5"), p("plain.h5")));
}

TEST_F(CheckpointSafety, UnfilteredCheckpointsOfEarlierVersionsStillResume) {
    mcmc_checkpoint("ck.h5");
    // The checkpoint as versions before the checksums wrote it: contiguous, no filters.
    const auto rp = cudag::test::run_command("h5repack -f NONE -l CONTI " + p("ck.h5") + " " + p("old.h5"), dir_);
    if (rp.code != 0) GTEST_SKIP() << "h5repack is not available: " << rp.err;
    fs::copy_file(dir_ / "ck.h5.traces", dir_ / "old.h5.traces");
    ASSERT_FALSE(has_checksum(dir_ / "old.h5", "/chains/order"));
    CliRun r = run(mcmc + "--out " + p("plain.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(mcmc + "--checkpoint " + p("old.h5") + " --resume --out " + p("r.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(cudag::test::same_mcmc_results(p("r.h5"), p("plain.h5")));
}

TEST_F(CheckpointSafety, KeptCheckpointHoldsTheFinishedRun) {
    CliRun r = run(mcmc + "--out " + p("plain.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    // Short (no periodic checkpoint before the end) and long (periodic ones): either way the
    // kept checkpoint is at the last iteration, and resuming it gives the same result.
    for (const std::string every : {"", " --checkpoint-every 150"}) {
        fs::remove(dir_ / "ck.h5");
        fs::remove(dir_ / "ck.h5.traces");  // its log too: a log of that name is refused (issue 53)
        r = run(mcmc + "--checkpoint " + p("ck.h5") + every + " --keep-checkpoint --out " + p("r.h5"));
        ASSERT_EQ(r.code, 0) << r.err;
        ASSERT_TRUE(fs::exists(dir_ / "ck.h5")) << every;
        EXPECT_EQ(read<std::int64_t>(dir_ / "ck.h5", "/chains/done"), (std::vector<std::int64_t>{400, 400})) << every;
        r = run(mcmc + "--checkpoint " + p("ck.h5") + every + " --resume --keep-checkpoint --out " + p("again.h5"));
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(cudag::test::same_mcmc_results(p("again.h5"), p("plain.h5"))) << every;
        fs::remove(dir_ / "r.h5");
        fs::remove(dir_ / "again.h5");
    }
    // PC checkpoints after every level: the kept one holds every level the run made.
    r = run(pc + "--out " + p("pc.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(pc + "--checkpoint " + p("pc.ck.h5") + " --keep-checkpoint --out " + p("pc2.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(fs::exists(dir_ / "pc.ck.h5"));
    const auto levels = read<std::int32_t>(dir_ / "pc.h5", "/levels/level");
    EXPECT_EQ(read<std::int64_t>(dir_ / "pc.ck.h5", "/state/next_level"),
              (std::vector<std::int64_t>{static_cast<std::int64_t>(levels.size())}));
    EXPECT_EQ(read<std::int32_t>(dir_ / "pc.ck.h5", "/skeleton/edges"),
              read<std::int32_t>(dir_ / "pc.h5", "/skeleton/edges"));
}

// Issue 53 item 1: the trace log beside an mcmc checkpoint is a file the run writes and
// removes, checked as every other output.
TEST_F(CheckpointSafety, TheTraceLogIsClaimedAsEveryOutput) {
    const std::string data = cudag::test::slurp(dir_ / "d.csv");
    // --out named as the trace log: refused, nothing written or removed.
    expect_error(
        mcmc + "--checkpoint " + p("o") + " --out " + p("o.traces"),
        "--out '" + p("o.traces") + "' and --checkpoint's trace log '" + p("o.traces") + "' are the same file");
    EXPECT_FALSE(fs::exists(dir_ / "o.traces"));
    // The input data named as the trace log: refused, the data left as they were.
    fs::copy_file(dir_ / "d.csv", dir_ / "X.h5.traces");
    std::string on_x = mcmc;
    on_x.replace(on_x.find(p("d.csv")), p("d.csv").size(), p("X.h5.traces"));
    expect_error(on_x + "--checkpoint " + p("X.h5"),
                 "--checkpoint's trace log '" + p("X.h5.traces") + "' is the input --data '" + p("X.h5.traces") + "'");
    EXPECT_EQ(cudag::test::slurp(dir_ / "X.h5.traces"), data);
    // The prior named as the trace log.
    write("p.traces", "from\tto\tprob\n");
    expect_error(mcmc + "--prior " + p("p.traces") + " --checkpoint " + p("p"), "is the input --prior");
    EXPECT_EQ(cudag::test::slurp(dir_ / "p.traces"), "from\tto\tprob\n");
    // An unrelated file of the trace log's name: refused without --resume/--overwrite-checkpoint.
    write("my.h5.traces", "precious");
    expect_error(mcmc + "--checkpoint " + p("my.h5") + " --out " + p("r.h5"),
                 "'" + p("my.h5.traces") + "' (a file cudag writes beside --checkpoint '" + p("my.h5") +
                     "') exists: add --resume");
    EXPECT_EQ(cudag::test::slurp(dir_ / "my.h5.traces"), "precious");
    EXPECT_FALSE(fs::exists(dir_ / "r.h5"));
    EXPECT_FALSE(fs::exists(dir_ / "my.h5"));
    // A link in the trace log's place is never written through, not even when replacing.
    write("precious.csv", "a,b\n1,2\n");
    fs::create_symlink(dir_ / "precious.csv", dir_ / "lnk.h5.traces");
    for (const char* how : {"", " --overwrite-checkpoint"})
        expect_error(mcmc + "--checkpoint " + p("lnk.h5") + how, "is a symbolic link: cudag writes no side file");
    EXPECT_EQ(cudag::test::slurp(dir_ / "precious.csv"), "a,b\n1,2\n");
    EXPECT_TRUE(fs::is_symlink(dir_ / "lnk.h5.traces"));
    // --overwrite-checkpoint replaces a stale log of the checkpoint's name.
    const CliRun r = run(mcmc + "--checkpoint " + p("my.h5") + " --overwrite-checkpoint --out " + p("r.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "my.h5.traces"));  // served: removed with the checkpoint
}

// Issue 53 item 2: one run at a time on a checkpoint; a lock that dies with its holder.
TEST_F(CheckpointSafety, ASecondRunOnACheckpointIsRefusedAtOnce) {
    for (const bool is_pc : {false, true}) {
        const std::string ck = is_pc ? "pc.ck.h5" : "mcmc.ck.h5";
        const std::string cmd = stopped_checkpoint(is_pc, ck);
        const std::string before = cudag::test::slurp(dir_ / ck);
        {
            // Another run holds the checkpoint (this process, as a running cudag would).
            cudag::io::CheckpointLock held = cudag::io::CheckpointLock::acquire(p(ck));
            ASSERT_TRUE(held.held());
            for (const char* how : {" --resume", " --overwrite-checkpoint", ""})
                expect_refused(cmd + "--checkpoint " + p(ck) + how + " --out " + p("r.h5"),
                               "checkpoint '" + p(ck) + "' is in use by another cudag run (process " +
                                   std::to_string(::getpid()) + " on host ",
                               ck, "r.h5");
            EXPECT_TRUE(fs::exists(dir_ / (ck + ".lock")));
        }
        EXPECT_FALSE(fs::exists(dir_ / (ck + ".lock"))) << "the holder removes its lock";
        EXPECT_EQ(cudag::test::slurp(dir_ / ck), before);
        // A holder killed (-9) leaves its lock file, unlocked: the next run takes it over.
        write(ck + ".lock", "cudag checkpoint lock: process 1 on host gone, since 2026-01-01 00:00:00 UTC\n");
        CliRun r = run(cmd + "--checkpoint " + p(ck) + " --resume --out " + p("r.h5"));
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_FALSE(fs::exists(dir_ / (ck + ".lock")));
        fs::remove(dir_ / "r.h5");
    }
    // A file of the lock's name that cudag did not write is left alone, and the run refused.
    write("x.h5.lock", "my notes");
    expect_error(mcmc + "--checkpoint " + p("x.h5"), "exists and is not a lock cudag wrote");
    EXPECT_EQ(cudag::test::slurp(dir_ / "x.h5.lock"), "my notes");
    fs::create_symlink(dir_ / "d.csv", dir_ / "y.h5.lock");
    expect_error(pc + "--checkpoint " + p("y.h5"),
                 "the lock cudag keeps beside --checkpoint '" + p("y.h5") + "') is a symbolic link");
}

// Two cudag runs started together on one checkpoint: one runs, the other is refused at
// once naming it; the survivor's state resumes.
TEST_F(CheckpointSafety, TwoRunsStartedTogetherDoNotShareACheckpoint) {
    const std::string cmd = "mcmc -q --data " + p("d.csv") +
                            " --score bdeu --max-parents 2 --chains 2 --iterations 30000000 --thin 1000 "
                            "--checkpoint-every 100000 --checkpoint " +
                            p("ck.h5") + " --out ";
    const pid_t first = cudag::test::spawn_cudag(cmd + p("a.h5"), dir_ / "o.txt", dir_ / "e.txt");
    ASSERT_GT(first, 0);
    // Wait for the first run's lock (at most 20 s), then start the second.
    for (int i = 0; i < 2000 && !fs::exists(dir_ / "ck.h5.lock"); ++i) ::usleep(10000);
    ASSERT_TRUE(fs::exists(dir_ / "ck.h5.lock"));
    expect_error(cmd + p("b.h5"), "is in use by another cudag run (process " + std::to_string(first));
    ::kill(first, SIGTERM);
    int status = 0;
    ::waitpid(first, &status, 0);
    EXPECT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 143);
    EXPECT_FALSE(fs::exists(dir_ / "ck.h5.lock")) << "SIGTERM removes the lock";
    EXPECT_FALSE(fs::exists(dir_ / "b.h5"));
}

// Issue 53 item 6: checkpoint values checked against the run: a bootstrap's done beyond B, a
// chain's score that is not its order's.
TEST_F(CheckpointSafety, CountsAndScoresAreCheckedAgainstTheRun) {
    const std::string boot_pc = pc + "--bootstrap 6 --seed 3 --out " + p("r.h5") + " --checkpoint ";
    CliRun r = run(boot_pc + p("pb.h5") + " --stop-after-level 2");
    ASSERT_EQ(r.code, 3) << r.err;
    const std::string boot_mcmc = mcmc + "--bootstrap 4 --out " + p("r.h5") + " --checkpoint ";
    r = run(boot_mcmc + p("mb.h5") + " --stop-after 2");
    ASSERT_EQ(r.code, 3) << r.err;
    for (const auto& [cmd, good, b] : {std::tuple{boot_pc, "pb.h5", 6}, std::tuple{boot_mcmc, "mb.h5", 4}}) {
        for (const std::int64_t done : {std::int64_t{b} + 1, std::int64_t{1} << 40}) {
            copy_checkpoint(good, "bad.h5");
            poke<std::int64_t>(dir_ / "bad.h5", "bootstrap/done", 0, done);
            expect_refused(cmd + p("bad.h5") + " --resume",
                           "checkpoint '" + p("bad.h5") + "' is corrupt: /bootstrap/done = " + std::to_string(done) +
                               " is not within [0, --bootstrap " + std::to_string(b) + "]",
                           "bad.h5", "r.h5");
        }
    }
    mcmc_checkpoint("m.h5");
    const std::string resume = mcmc + "--checkpoint-every 100 --resume --out " + p("r.h5") + " --checkpoint ";
    expect_corrupt(resume, "m.h5",
                   {
                       {"chain 0: its best score 1.0000000000000001e+300 is not its best order's",
                        [](const fs::path& f) { poke<double>(f, "chains/best_score", 0, 1e300); }},
                       {"chain 1: its score -3 is not its order's",
                        [](const fs::path& f) { poke<double>(f, "chains/score", 1, -3.0); }},
                   });
    // A pc bootstrap checkpoint resumed by mcmc names the command that wrote it.
    expect_refused(boot_mcmc + p("pb.h5") + " --resume",
                   "checkpoint '" + p("pb.h5") + "' was written by cudag pc --bootstrap, not cudag mcmc --bootstrap",
                   "pb.h5", "r.h5");
}

// Issue 53 item 8: --keep-checkpoint with --bootstrap keeps the finished run's totals, fresh
// or resumed, and resuming them gives the same table.
TEST_F(CheckpointSafety, KeptBootstrapCheckpointsHoldTheFinishedRun) {
    const auto done_in = [&](const std::string& ck) { return read<std::int64_t>(dir_ / ck, "/bootstrap/done"); };
    for (const bool is_pc : {true, false}) {
        const std::string cmd =
            is_pc ? pc + "--bootstrap 6 --seed 3 --format freq --out " : mcmc + "--bootstrap 4 --format freq --out ";
        const std::int64_t b = is_pc ? 6 : 4;
        CliRun r = run(cmd + p("plain.h5"));
        ASSERT_EQ(r.code, 0) << r.err;
        const std::string freq = cudag::test::slurp(dir_ / "plain.freq.tsv");
        ASSERT_FALSE(freq.empty());
        // Fresh.
        r = run(cmd + p("k.h5") + " --checkpoint " + p("ck.h5") + " --keep-checkpoint");
        ASSERT_EQ(r.code, 0) << r.err;
        ASSERT_TRUE(fs::exists(dir_ / "ck.h5"));
        EXPECT_EQ(done_in("ck.h5"), (std::vector<std::int64_t>{b}));
        // Its resume: the same table, the checkpoint kept as it is.
        r = run(cmd + p("again.h5") + " --checkpoint " + p("ck.h5") + " --resume --keep-checkpoint");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(cudag::test::slurp(dir_ / "again.freq.tsv"), freq);
        EXPECT_EQ(done_in("ck.h5"), (std::vector<std::int64_t>{b}));
        // Stopped part way, resumed with --keep-checkpoint: the finished run's, not the stale state.
        fs::remove(dir_ / "ck.h5");
        r = run(cmd + p("part.h5") + " --checkpoint " + p("ck.h5") +
                (is_pc ? " --stop-after-level 2" : " --stop-after 2"));
        ASSERT_EQ(r.code, 3) << r.err;
        EXPECT_LT(done_in("ck.h5")[0], b);
        r = run(cmd + p("rest.h5") + " --checkpoint " + p("ck.h5") + " --resume --keep-checkpoint");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(cudag::test::slurp(dir_ / "rest.freq.tsv"), freq);
        EXPECT_EQ(done_in("ck.h5"), (std::vector<std::int64_t>{b}));
        fs::remove(dir_ / "ck.h5");
    }
}
