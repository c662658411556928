// SPDX-License-Identifier: Apache-2.0
// PCMCI's checkpoint (src/pcmci/checkpoint.hpp): a run stopped after k tests, or killed inside
// a batch after its last checkpoint, resumes to the uninterrupted run's result bit for bit,
// answering the recorded tests from the file (the wrapped test is asked only the others); a
// checkpoint of other settings, one that cannot be trusted and one of another run's tests are
// refused in one line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/error.hpp"
#include "io/dataset_io.hpp"
#include "pcmci/checkpoint.hpp"
#include "pcmci/lagged.hpp"
#include "pcmci/parcorr_test.hpp"
#include "pcmci/pcmci.hpp"
#include "pcmci/pcmciplus.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/test_spec.hpp"

using namespace cudag;
using namespace cudag::pcmci;
namespace fs = std::filesystem;

namespace {

/// ParCorr on the CPU (the job's: the Fisher-z engine's partial correlations, ParCorr's
/// p-value), counting the tests asked and, from call `fail_at` on, failing (a kill inside a
/// batch).
class CountingParCorr final : public ci::BatchTest {
public:
    explicit CountingParCorr(const LaggedData& lagged, std::int64_t fail_at = -1) : fail_at_(fail_at) {
        skeleton::TestSpec spec;
        spec.kind = skeleton::TestKind::FisherZ;
        inner_ = std::make_unique<ParCorrBatch>(
            std::make_unique<ci::CpuBatchTest>(skeleton::ci_test_factory(lagged.data, spec, skeleton::Compat::Pcalg, 2),
                                               2, lagged.data.names),
            lagged.data.n_samples);
    }
    std::string name() const override { return inner_->name(); }
    std::string where() const override { return inner_->where(); }
    void run(const ci::Queries& q, std::span<double> statistic, std::span<double> p) override {
        if (fail_at_ >= 0 && calls_ >= fail_at_) throw std::runtime_error("killed");
        ++calls_;
        asked += static_cast<std::int64_t>(q.size());
        inner_->run(q, statistic, p);
    }
    std::int64_t asked = 0;

private:
    std::unique_ptr<ci::BatchTest> inner_;
    std::int64_t fail_at_, calls_ = 0;
};

struct Case {
    const char* method;
    const char* data;
    std::int32_t tau_max;
};

class PcmciCheckpoint : public ::testing::TestWithParam<Case> {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cudag_pcmci_checkpoint_" + std::to_string(::getpid()));
        fs::create_directories(dir_);
        path_ = (dir_ / "ck.h5").string();
        const Dataset series = io::read_dataset(std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmci/" + GetParam().data);
        settings_.tau_max = GetParam().tau_max;
        settings_.pc_alpha = 0.2;
        lagged_ = std::make_unique<LaggedData>(make_lagged(series, 2 * settings_.tau_max));
    }
    void TearDown() override { fs::remove_all(dir_); }

    Result run(ci::BatchTest& tests) const {
        return std::string(GetParam().method) == "pcmciplus" ? run_pcmciplus(*lagged_, settings_, tests)
                                                             : run_pcmci(*lagged_, settings_, tests);
    }
    CheckpointBatch::Options options(bool resume) const {
        CheckpointBatch::Options o;
        o.path = path_;
        o.config_hash = "0123456789abcdef";
        o.settings = {{"--tau-max", std::to_string(settings_.tau_max)}};
        o.resume = resume;
        o.every_seconds = 0.0;
        return o;
    }
    /// Resumes from path_ (holding `recorded` tests): the result equals `reference`, the
    /// recorded tests come from the file and only the others are asked.
    void expect_resumed(const Result& reference, std::int64_t total, std::int64_t recorded) {
        auto counting = std::make_unique<CountingParCorr>(*lagged_);
        CountingParCorr& asked = *counting;
        CheckpointBatch resumed(std::move(counting), options(true));
        EXPECT_EQ(resumed.resumed_tests(), recorded);
        const Result r = run(resumed);
        EXPECT_EQ(r.val_matrix, reference.val_matrix);
        EXPECT_EQ(r.p_matrix, reference.p_matrix);
        EXPECT_EQ(r.graph, reference.graph);
        ASSERT_EQ(r.parents.size(), reference.parents.size());
        for (std::size_t j = 0; j < r.parents.size(); ++j) EXPECT_TRUE(r.parents[j] == reference.parents[j]) << j;
        EXPECT_EQ(r.pc1_tests, reference.pc1_tests);
        EXPECT_EQ(r.mci_tests, reference.mci_tests);
        EXPECT_EQ(resumed.replayed_tests(), recorded);
        EXPECT_EQ(asked.asked, total - recorded);
        EXPECT_EQ(resumed.answered_tests(), total);
    }

    fs::path dir_;
    std::string path_;
    Settings settings_;
    std::unique_ptr<LaggedData> lagged_;
};

}  // namespace

TEST_P(PcmciCheckpoint, StoppedAfterKTestsResumesToTheSameResult) {
    CountingParCorr plain(*lagged_);
    const Result reference = run(plain);
    const std::int64_t total = plain.asked;
    ASSERT_GT(total, 20);
    for (const std::int64_t k : {std::int64_t{1}, total / 3, total - 1}) {
        SCOPED_TRACE("stopped after " + std::to_string(k) + " of " + std::to_string(total));
        fs::remove(path_);
        CheckpointBatch::Options o = options(false);
        o.stop_after_tests = k;
        CheckpointBatch stopped(std::make_unique<CountingParCorr>(*lagged_), o);
        EXPECT_THROW(run(stopped), StoppedAfterTests);
        const std::int64_t recorded = stopped.answered_tests();
        EXPECT_GE(recorded, k);
        EXPECT_EQ(static_cast<std::int64_t>(read_checkpoint(path_, o.config_hash, o.settings).size()), recorded);
        expect_resumed(reference, total, recorded);
    }
}

TEST_P(PcmciCheckpoint, KilledInsideABatchResumesFromTheLastCheckpoint) {
    CountingParCorr plain(*lagged_);
    const Result reference = run(plain);
    for (const std::int64_t calls : {1, 2}) {
        SCOPED_TRACE("killed in call " + std::to_string(calls + 1));
        fs::remove(path_);
        auto failing = std::make_unique<CountingParCorr>(*lagged_, calls);
        CountingParCorr& answered = *failing;
        CheckpointBatch killed(std::move(failing), options(false));
        EXPECT_THROW(run(killed), std::runtime_error);
        // The checkpoint holds the calls before the kill, the one killed is asked again.
        ASSERT_TRUE(fs::exists(path_));
        expect_resumed(reference, plain.asked, answered.asked);
    }
}

TEST_P(PcmciCheckpoint, AFinishedCheckpointAnswersEveryTest) {
    CountingParCorr plain(*lagged_);
    const Result reference = run(plain);
    {
        CheckpointBatch first(std::make_unique<CountingParCorr>(*lagged_), options(false));
        run(first);
        first.flush();
    }
    expect_resumed(reference, plain.asked, plain.asked);
}

INSTANTIATE_TEST_SUITE_P(Methods, PcmciCheckpoint,
                         ::testing::Values(Case{"pcmci", "c03.csv", 2}, Case{"pcmciplus", "c05.csv", 2}),
                         [](const auto& info) { return std::string(info.param.method); });

TEST(PcmciCheckpointFile, RefusesOtherSettingsAndCorruptFiles) {
    const fs::path dir = fs::temp_directory_path() / ("cudag_pcmci_checkpoint_file_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string path = (dir / "ck.h5").string();
    const io::CheckpointSettings settings = {{"--tau-max", "2"}, {"--pc-alpha", "0.2"}};
    AnsweredTests t;
    t.key = {11, 12, 13};
    t.statistic = {0.5, -0.25, 0.125};
    t.p = {0.01, 0.5, 1.0};
    write_checkpoint(path, "aaaa", settings, t);
    const AnsweredTests back = read_checkpoint(path, "aaaa", settings);
    EXPECT_EQ(back.key, t.key);
    EXPECT_EQ(back.statistic, t.statistic);
    EXPECT_EQ(back.p, t.p);
    // Other settings: the first that differs named.
    try {
        read_checkpoint(path, "bbbb", {{"--tau-max", "2"}, {"--pc-alpha", "0.1"}});
        ADD_FAILURE() << "read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--pc-alpha was 0.2 in the checkpoint, 0.1 now"), std::string::npos)
            << e.what();
    }
    // Values no test gives: corrupt.
    for (const auto& [statistic, p] : std::vector<std::pair<double, double>>{{NAN, 0.5}, {0.5, 1.5}, {0.5, -0.1}}) {
        AnsweredTests bad = t;
        bad.statistic[1] = statistic;
        bad.p[1] = p;
        write_checkpoint(path, "aaaa", settings, bad);
        EXPECT_THROW(read_checkpoint(path, "aaaa", settings), io::CorruptCheckpoint);
    }
    fs::remove_all(dir);
}

TEST(PcmciCheckpointFile, RefusesTheTestsOfAnotherRun) {
    const fs::path dir = fs::temp_directory_path() / ("cudag_pcmci_checkpoint_other_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const Dataset series = io::read_dataset(std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmci/c03.csv");
    Settings s;
    s.tau_max = 2;
    const LaggedData lagged = make_lagged(series, 4);
    CheckpointBatch::Options o;
    o.path = (dir / "ck.h5").string();
    o.config_hash = "aaaa";
    o.resume = true;
    // A checkpoint whose second test's key is not the run's second test's.
    AnsweredTests t;
    {
        CountingParCorr tests(lagged);
        ci::QueryList q;
        std::vector<std::int32_t> none;
        q.add(0, 1, none);
        q.add(0, 2, none);
        std::vector<double> st(2), p(2);
        tests.run(q.view(), st, p);
        t.key = {static_cast<std::int64_t>(query_key(0, 1, none)), static_cast<std::int64_t>(query_key(0, 2, none))};
        t.statistic = st;
        t.p = p;
    }
    write_checkpoint(o.path, o.config_hash, o.settings, t);
    CheckpointBatch resumed(std::make_unique<CountingParCorr>(lagged), o);
    ci::QueryList q;
    std::vector<std::int32_t> none;
    q.add(0, 1, none);
    q.add(1, 2, none);
    std::vector<double> st(2), p(2);
    try {
        resumed.run(q.view(), st, p);
        ADD_FAILURE() << "ran";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("does not fit this run: its test 1 "), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}
