// SPDX-License-Identifier: Apache-2.0
// Ctrl-C inside a skeleton level for the bindings (issue 57; core/interrupt.hpp): poll() runs
// a PollScope's check on the scope's thread only, every 16th call past the interval
// (poll_waiting: every call past it); a check that throws ends the level it runs in with its
// exception (every engine thread stopping), the flag workers read lasting until the scope
// ends; a check that never throws leaves the answer as it is without a scope.
#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "core/interrupt.hpp"
#include "pc/run.hpp"
#include "sim/gaussian.hpp"

namespace cudag {
namespace {

struct Stop : std::runtime_error {
    Stop() : std::runtime_error("stop") {}
};

TEST(LevelInterrupt, PollRunsTheCheckOnTheScopesThreadOnly) {
    for (int k = 0; k < 100; ++k) interrupt::poll();  // no scope: nothing
    EXPECT_FALSE(interrupt::stop_requested());
    int calls = 0;
    {
        const interrupt::PollScope scope([&calls] { ++calls; }, 0);
        for (int k = 0; k < 160; ++k) interrupt::poll();
        EXPECT_EQ(calls, 10);
        std::thread([] {
            for (int k = 0; k < 160; ++k) interrupt::poll();
        }).join();
        EXPECT_EQ(calls, 10);
    }
    for (int k = 0; k < 160; ++k) interrupt::poll();
    EXPECT_EQ(calls, 10);
}

TEST(LevelInterrupt, AThrowingCheckStopsEveryThreadUntilTheScopeEnds) {
    {
        const interrupt::PollScope scope([] { throw Stop(); }, 0);
        EXPECT_THROW(for (int k = 0; k < 16; ++k) interrupt::poll(), Stop);
        EXPECT_TRUE(interrupt::stop_requested());
        bool seen = false;
        std::thread([&seen] { seen = interrupt::stop_requested(); }).join();
        EXPECT_TRUE(seen);
    }
    EXPECT_FALSE(interrupt::stop_requested());
}

TEST(LevelInterrupt, PollWaitingRunsTheCheckOnEveryCallPastTheInterval) {
    interrupt::poll_waiting();  // no scope: nothing
    int calls = 0;
    {
        const interrupt::PollScope scope([&calls] { ++calls; }, 0);
        for (int k = 0; k < 5; ++k) interrupt::poll_waiting();
        EXPECT_EQ(calls, 5);
        std::thread([] { interrupt::poll_waiting(); }).join();
        EXPECT_EQ(calls, 5);
    }
    {
        const interrupt::PollScope scope([&calls] { ++calls; }, 60000);  // not yet a minute
        for (int k = 0; k < 5; ++k) interrupt::poll_waiting();
        EXPECT_EQ(calls, 5);
    }
}

pc::PcConfig fisher_config(int threads) {
    pc::PcConfig cfg;
    cfg.test.kind = skeleton::TestKind::FisherZ;
    cfg.alpha = 0.05;
    cfg.backend.kind = BackendKind::Cpu;
    cfg.backend.threads = threads;
    return cfg;
}

TEST(LevelInterrupt, AThrowInsideALevelEndsTheRunWithIt) {
    const Dataset d = sim::simulate_gaussian({80, 400, 0.15, 3}).data;
    for (const int threads : {1, 2}) {
        pc::PcConfig cfg = fisher_config(threads);
        int levels = 0;
        cfg.on_level = [&levels](const skeleton::LevelStats&) { ++levels; };
        {
            // Thrown at the first look inside level 1 (level 0 ended; the next line is level 1's).
            const interrupt::PollScope scope(
                [&levels] {
                    if (levels == 1) throw Stop();
                },
                0);
            EXPECT_THROW(pc::run_pc(d, cfg), Stop) << threads << " threads";
        }
        EXPECT_EQ(levels, 1) << threads << " threads";  // level 1 never ended
        EXPECT_FALSE(interrupt::stop_requested());
    }
}

TEST(LevelInterrupt, ACheckThatNeverThrowsLeavesTheAnswer) {
    const Dataset d = sim::simulate_gaussian({80, 400, 0.15, 3}).data;
    const pc::PcConfig cfg = fisher_config(2);
    const pc::PcResult plain = pc::run_pc(d, cfg);
    int calls = 0;
    const interrupt::PollScope scope([&calls] { ++calls; }, 0);
    const pc::PcResult polled = pc::run_pc(d, cfg);
    EXPECT_GT(calls, 0);
    EXPECT_EQ(polled.skeleton.n_edges(), plain.skeleton.n_edges());
    for (std::int32_t i = 0; i < plain.skeleton.n(); ++i)
        EXPECT_EQ(polled.skeleton.neighbours(i), plain.skeleton.neighbours(i));
    ASSERT_EQ(polled.pmax.size(), plain.pmax.size());
    for (std::size_t k = 0; k < plain.pmax.size(); ++k) EXPECT_EQ(polled.pmax[k].p, plain.pmax[k].p);
    ASSERT_EQ(polled.levels.size(), plain.levels.size());
    for (std::size_t k = 0; k < plain.levels.size(); ++k) EXPECT_EQ(polled.levels[k].tests, plain.levels[k].tests);
}

}  // namespace
}  // namespace cudag
