// SPDX-License-Identifier: Apache-2.0
// PCMCI's checkpoint (issue 56): the answered tests, so that a killed run resumes without
// asking them again and ends with the uninterrupted run's result, bit for bit.
//
// PCMCI and PCMCI+ are deterministic given their tests' answers: the same data and settings
// ask the same tests in the same order (the cut of that stream into BatchTest::run calls
// depends on timing, the stream does not). CheckpointBatch wraps the run's BatchTest and
// keeps that stream: every answered query's key (a 64-bit digest of x, y and the set) with
// its statistic and p-value, in order. Resumed, it answers the recorded prefix from the file
// (checking each query's key: a run that asks another test is refused) and the rest from the
// wrapped test.
//
// The file is an io::CheckpointFile (format "cudag-pcmci-checkpoint-1": the configuration
// hash and its settings, Fletcher32 checksums, a temporary renamed over the file, so a kill
// leaves the previous one intact) holding /tests/key (int64, the digests' bits),
// /tests/statistic and /tests/p_value (float64). It is rewritten after a call that answered
// new tests once `every_seconds` have passed since the last write. With MPI ranks the
// wrapped test is the ranks' (pcmci::RankSplitBatch), rank 0 reads the file and broadcasts
// it, every rank replays it, and rank 0 writes; errors are agreed (mpi::run_agreed).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/error.hpp"
#include "io/checkpoint_file.hpp"
#include "mpi/communicator.hpp"

namespace cudag::pcmci {

inline constexpr io::CheckpointFormat kCheckpointFormat{"cudag-pcmci-checkpoint-1", "PCMCI"};

/// The key of one query: a digest of x, y, the set's size and its members.
std::uint64_t query_key(std::int32_t x, std::int32_t y, std::span<const std::int32_t> set);

/// The answered tests, in the order they were asked.
struct AnsweredTests {
    std::vector<std::int64_t> key;  ///< query_key's bits
    std::vector<double> statistic, p;
    std::size_t size() const { return key.size(); }
};

/// Reads a checkpoint (one line InputError when it is missing or for another configuration,
/// CorruptCheckpoint when it cannot be trusted: lengths that differ, a statistic that is not
/// finite, a p-value outside [0, 1]).
AnsweredTests read_checkpoint(const std::string& path, const std::string& config_hash,
                              const io::CheckpointSettings& settings);

/// Writes `tests` as the checkpoint at `path` (atomically).
void write_checkpoint(const std::string& path, const std::string& config_hash, const io::CheckpointSettings& settings,
                      const AnsweredTests& tests);

/// Thrown on every rank by CheckpointBatch after Options::stop_after_tests tests (and their
/// checkpoint): a simulated kill, for resume tests.
class StoppedAfterTests : public Error {
public:
    explicit StoppedAfterTests(std::int64_t tests)
        : Error("stopped after " + std::to_string(tests) + " tests as asked (--stop-after-tests)") {}
};

class CheckpointBatch final : public ci::BatchTest {
public:
    struct Options {
        std::string path;
        std::string config_hash;
        io::CheckpointSettings settings;
        bool resume = false;        ///< read `path` first and answer its tests from it
        double every_seconds = 30;  ///< least time between two writes (0: after every call)
        /// Called after each write with the tests the file holds (the interrupt note).
        std::function<void(std::int64_t tests)> on_write;
        /// Testing: once this many tests are answered, write the checkpoint and throw
        /// StoppedAfterTests on every rank (a simulated kill); unset (or negative): never.
        std::optional<std::int64_t> stop_after_tests;
    };

    /// `comm` (null: one process): with several ranks every rank makes it alike.
    CheckpointBatch(std::unique_ptr<ci::BatchTest> inner, Options options, mpi::Communicator* comm = nullptr);

    std::string name() const override { return inner_->name(); }
    std::string where() const override { return inner_->where(); }
    void run(const ci::Queries& queries, std::span<double> statistic, std::span<double> p) override;
    double agreed_max(double v) override { return inner_->agreed_max(v); }

    /// Writes the checkpoint now when it lacks answered tests (rank 0; agreed).
    void flush();

    /// Tests the checkpoint held when the run began (0 without --resume).
    std::int64_t resumed_tests() const { return static_cast<std::int64_t>(resumed_); }
    /// Tests answered from the checkpoint so far.
    std::int64_t replayed_tests() const { return static_cast<std::int64_t>(std::min(cursor_, resumed_)); }
    /// Tests answered (from the file or the wrapped test) so far.
    std::int64_t answered_tests() const { return static_cast<std::int64_t>(cursor_); }
    /// Tests the checkpoint file holds (those of the last write, or of the file resumed).
    std::int64_t written_tests() const { return static_cast<std::int64_t>(written_); }

private:
    void write_due(bool force);
    /// `fn` agreed over the ranks (run alone with one process).
    void agreed(const std::function<void()>& fn);

    std::unique_ptr<ci::BatchTest> inner_;
    Options options_;
    mpi::Communicator* comm_;
    AnsweredTests tests_;
    std::size_t resumed_ = 0;
    std::size_t cursor_ = 0;   ///< the next query's place in the stream
    std::size_t written_ = 0;  ///< tests the file holds
    std::chrono::steady_clock::time_point last_write_;
};

}  // namespace cudag::pcmci
