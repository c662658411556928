// SPDX-License-Identifier: Apache-2.0
// Level-start lines for long levels (issue 22): planned tests and the time at the last
// level's rate, printed before the level runs; and the plan the skeleton search hands over.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mpi/communicator.hpp"
#include "sim/gaussian.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/progress.hpp"
#include "skeleton/row_work.hpp"
#include "skeleton/skeleton.hpp"

using namespace cudag;

TEST(Progress, LongLevelsAreAnnouncedWithTheirPlannedTestsAndTime) {
    skeleton::Progress p(skeleton::Progress::Mode::Always, "cudag pc");
    skeleton::LevelStats last;
    last.level = 6;
    last.tests = 1000000;
    last.seconds = 1.0;
    skeleton::LevelPlan small;
    small.level = 7;
    small.planned_tests = 1e9;  // below kLongLevelTests: no line
    skeleton::LevelPlan big = small;
    big.planned_tests = 3.6e10;
    big.rows = 10;
    big.max_degree = 200;
    testing::internal::CaptureStderr();
    p.level(last);
    p.level_start(small);
    p.level_start(big);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.find("starting level 7 with up to 1e+09"), std::string::npos) << err;
    EXPECT_NE(err.find("starting level 7 with up to 3.6e+10 tests over 10 rows (largest 200 neighbours); "
                       "at level 6's rate up to 10.0 h; --max-level caps the depth"),
              std::string::npos)
        << err;
    skeleton::Progress quiet(skeleton::Progress::Mode::Quiet, "cudag pc");
    testing::internal::CaptureStderr();
    quiet.level_start(big);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(Progress, BootstrapRoundsShowDoneRateAndTimeLeftAtMostOnceASecond) {
    skeleton::Progress p(skeleton::Progress::Mode::Always, "cudag pc");
    testing::internal::CaptureStderr();
    p.replicates(10, 100, 4.0);   // 2.5 a second: 36 s left
    p.replicates(20, 100, 4.5);   // within a second of the last line: none
    p.replicates(100, 100, 5.0);  // the last round: always
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("bootstrap: 10 of 100 replicates, 2.5/s, about 36 s left"), std::string::npos) << err;
    EXPECT_EQ(err.find("20 of 100"), std::string::npos) << err;
    EXPECT_NE(err.find("bootstrap: 100 of 100 replicates, 20/s ("), std::string::npos) << err;
    skeleton::Progress quiet(skeleton::Progress::Mode::Quiet, "cudag pc");
    testing::internal::CaptureStderr();
    quiet.replicates(100, 100, 5.0);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(Progress, TheSearchHandsEachLevelItsPlanFromTheSnapshot) {
    const sim::GaussianSim s = sim::simulate_gaussian({60, 400, 0.15, 5}, 1);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.2;
    skeleton::CpuFisherEngine engine(s.data, opt.policy, 1);
    // The plan of level l is the row work of level l - 1's result.
    std::vector<skeleton::LevelPlan> plans;
    skeleton::SkeletonHooks hooks;
    hooks.on_level_start = [&](const skeleton::LevelPlan& p) { plans.push_back(p); };
    mpi::SerialCommunicator serial;
    const skeleton::SkeletonResult all = skeleton::learn_skeleton(engine, opt, serial, {}, hooks);
    ASSERT_GE(plans.size(), 2u);
    for (std::size_t k = 0; k < plans.size(); ++k) {
        const int l = plans[k].level;
        EXPECT_EQ(l, static_cast<int>(k) + 1);
        skeleton::SkeletonOptions upto = opt;
        upto.max_level = l - 1;
        skeleton::CpuFisherEngine e2(s.data, opt.policy, 1);
        const Graph g = skeleton::learn_skeleton(e2, upto).skeleton;
        const Adjacency snap = Adjacency::from_graph(g, 1);
        double sum = 0.0;
        std::int64_t rows = 0;
        for (double w : skeleton::row_work(snap, l)) {
            sum += w;
            rows += w > 0.0;
        }
        EXPECT_EQ(plans[k].planned_tests, sum) << l;
        EXPECT_EQ(plans[k].rows, rows) << l;
        EXPECT_EQ(plans[k].max_degree, g.max_degree()) << l;
        EXPECT_GE(plans[k].planned_tests, static_cast<double>(all.levels[static_cast<std::size_t>(l)].tests)) << l;
    }
}
