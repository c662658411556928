// SPDX-License-Identifier: Apache-2.0
// Level-start lines for long levels (issue 22): planned tests and the time at the last
// level's rate, printed before the level runs; and the plan the skeleton search hands over.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pc/cpu/fisher_engine.hpp"
#include "mpi/communicator.hpp"
#include "pc/progress.hpp"
#include "pc/row_work.hpp"
#include "pc/skeleton.hpp"
#include "sim/gaussian.hpp"

using namespace cudag;

TEST(Progress, LongLevelsAreAnnouncedWithTheirPlannedTestsAndTime) {
    pc::Progress p(pc::Progress::Mode::Always, "cudag pc");
    pc::LevelStats last;
    last.level = 6;
    last.tests = 1000000;
    last.seconds = 1.0;
    pc::LevelPlan small;
    small.level = 7;
    small.planned_tests = 1e9;  // below kLongLevelTests: no line
    pc::LevelPlan big = small;
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
    pc::Progress quiet(pc::Progress::Mode::Quiet, "cudag pc");
    testing::internal::CaptureStderr();
    quiet.level_start(big);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(Progress, BootstrapRoundsShowDoneRateAndTimeLeftAtMostOnceASecond) {
    pc::Progress p(pc::Progress::Mode::Always, "cudag pc");
    testing::internal::CaptureStderr();
    p.replicates(10, 100, 4.0);   // 2.5 a second: 36 s left
    p.replicates(20, 100, 4.5);   // within a second of the last line: none
    p.replicates(100, 100, 5.0);  // the last round: always
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("bootstrap: 10 of 100 replicates, 2.5/s, about 36 s left"), std::string::npos) << err;
    EXPECT_EQ(err.find("20 of 100"), std::string::npos) << err;
    EXPECT_NE(err.find("bootstrap: 100 of 100 replicates, 20/s ("), std::string::npos) << err;
    pc::Progress quiet(pc::Progress::Mode::Quiet, "cudag pc");
    testing::internal::CaptureStderr();
    quiet.replicates(100, 100, 5.0);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(Progress, TheSearchHandsEachLevelItsPlanFromTheSnapshot) {
    const sim::GaussianSim s = sim::simulate_gaussian({60, 400, 0.15, 5}, 1);
    pc::SkeletonOptions opt;
    opt.policy.alpha = 0.2;
    pc::CpuFisherEngine engine(s.data, opt.policy, 1);
    // The plan of level l is the row work of level l - 1's result.
    std::vector<pc::LevelPlan> plans;
    pc::SkeletonHooks hooks;
    hooks.on_level_start = [&](const pc::LevelPlan& p) { plans.push_back(p); };
    mpi::SerialCommunicator serial;
    const pc::SkeletonResult all = pc::learn_skeleton(engine, opt, serial, {}, hooks);
    ASSERT_GE(plans.size(), 2u);
    for (std::size_t k = 0; k < plans.size(); ++k) {
        const int l = plans[k].level;
        EXPECT_EQ(l, static_cast<int>(k) + 1);
        pc::SkeletonOptions upto = opt;
        upto.max_level = l - 1;
        pc::CpuFisherEngine e2(s.data, opt.policy, 1);
        const Graph g = pc::learn_skeleton(e2, upto).skeleton;
        const Adjacency snap = Adjacency::from_graph(g, 1);
        double sum = 0.0;
        std::int64_t rows = 0;
        for (double w : pc::row_work(snap, l)) {
            sum += w;
            rows += w > 0.0;
        }
        EXPECT_EQ(plans[k].planned_tests, sum) << l;
        EXPECT_EQ(plans[k].rows, rows) << l;
        EXPECT_EQ(plans[k].max_degree, g.max_degree()) << l;
        EXPECT_GE(plans[k].planned_tests, static_cast<double>(all.levels[static_cast<std::size_t>(l)].tests)) << l;
    }
}
