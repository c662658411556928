// SPDX-License-Identifier: Apache-2.0
// bootstrap/pipeline.hpp: rounds come back whole and in replicate order however many
// workers run ahead; a replicate's error is rethrown once no worker runs, and the
// workers stop taking replicates after it; a pipeline dropped early stops its workers; a
// binding's Ctrl-C check that throws while the caller waits ends the wait and the workers.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bootstrap/pipeline.hpp"
#include "core/pdag.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace cudag {
namespace {

/// A pipeline of whole graphs (PC's and order MCMC's replicates before they are counted).
using ReplicatePipeline = bootstrap::BasicReplicatePipeline<Pdag>;

/// Replicate r's graph: nodes 0 .. 3, with edge (r % 3, 3) and, for odd r, (0, 1) too.
Pdag graph_of(std::int64_t r) {
    Pdag g{Graph(4)};
    g.set(static_cast<std::int32_t>(r % 3), 3, Mark::Tail, Mark::Arrow);
    if (r % 2 == 1) g.set(0, 1, Mark::Tail, Mark::Tail);
    return g;
}

/// Rounds of `batch` replicates from `first`, the last one short, as count_rounds cuts them.
std::pair<std::int64_t, std::int64_t> round_range(std::int64_t k, std::int64_t first, std::int64_t batch,
                                                  std::int64_t end) {
    const std::int64_t lo = std::min(end, first + k * batch);
    return {lo, std::min(end, lo + batch)};
}

TEST(ReplicatePipeline, RoundsComeBackWholeAndInOrder) {
    for (int workers : {1, 3, 8}) {
        for (std::int64_t batch : {1, 4, 5}) {
            const std::int64_t first = 3, end = 26;  // 23 replicates
            const std::int64_t rounds = (end - first + batch - 1) / batch;
            std::atomic<int> calls{0};
            std::set<int> workers_seen;
            std::mutex m;
            ReplicatePipeline pipe(
                [&](std::int64_t r, int threads, int worker) {
                    EXPECT_EQ(threads, 2);
                    ++calls;
                    {
                        std::lock_guard<std::mutex> lk(m);
                        workers_seen.insert(worker);
                    }
                    // Later replicates finish first now and then: the order must not depend on it.
                    std::this_thread::sleep_for(std::chrono::microseconds(200 * ((r * 7) % 5)));
                    return graph_of(r);
                },
                [&](std::int64_t k) { return round_range(k, first, batch, end); }, rounds, batch, workers, 2, 3);
            std::int64_t next = first;
            for (std::int64_t k = 0; k < rounds; ++k) {
                const std::vector<Pdag> got = pipe.take(k);
                const auto [lo, hi] = round_range(k, first, batch, end);
                ASSERT_EQ(static_cast<std::int64_t>(got.size()), hi - lo) << "round " << k;
                for (const Pdag& g : got) {
                    const Pdag want = graph_of(next);
                    for (std::int32_t i = 0; i < 4; ++i)
                        for (std::int32_t j = 0; j < 4; ++j)
                            EXPECT_EQ(g.end(i, j), want.end(i, j))
                                << "replicate " << next << " (" << i << ", " << j << ")";
                    ++next;
                }
            }
            EXPECT_EQ(next, end);
            EXPECT_EQ(calls.load(), end - first) << workers << " workers, batch " << batch;
            for (int w : workers_seen) {
                EXPECT_GE(w, 0);
                EXPECT_LT(w, workers);
            }
        }
    }
}

TEST(ReplicatePipeline, AnErrorIsRethrownAndStopsTheWorkers) {
    const std::int64_t batch = 4, rounds = 50;
    std::atomic<int> calls{0};
    ReplicatePipeline pipe(
        [&](std::int64_t r, int, int) {
            ++calls;
            if (r == 6) throw InputError("replicate 6 failed");
            return graph_of(r);
        },
        [&](std::int64_t k) { return round_range(k, 0, batch, batch * rounds); }, rounds, batch, 4, 1, 2);
    // Round 0 (replicates 0 .. 3) may come back before the error is seen, or carry it;
    // round 1 holds replicate 6: its error at the latest.
    bool thrown = false;
    for (std::int64_t k = 0; k < 2 && !thrown; ++k) {
        try {
            pipe.take(k);
        } catch (const InputError& e) {
            EXPECT_STREQ(e.what(), "replicate 6 failed");
            thrown = true;
        }
    }
    EXPECT_TRUE(thrown);
    // Workers run at most `window` (2) rounds ahead and stop after the error.
    EXPECT_LE(calls.load(), 3 * batch);
}

TEST(ReplicatePipeline, DroppedEarlyItStopsItsWorkers) {
    std::atomic<int> calls{0};
    {
        ReplicatePipeline pipe(
            [&](std::int64_t r, int, int) {
                ++calls;
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                return graph_of(r);
            },
            [](std::int64_t k) {
                return std::pair<std::int64_t, std::int64_t>{2 * k, 2 * k + 2};
            },
            1000, 2, 4, 1, 2);
        pipe.take(0);
    }  // no more rounds taken: the workers wait, then stop
    EXPECT_LE(calls.load(), 3 * 2 + 4);
}

// Ctrl-C in a binding while the caller waits for a round (core/interrupt.hpp): take() looks
// at the PollScope's check between slices of its wait and ends with what it throws; the
// workers, seeing stop_requested(), give up their replicates, and the pipeline ends.
TEST(ReplicatePipeline, AThrowingCheckEndsTheWaitForARound) {
    struct Stop {};
    std::atomic<int> checks{0}, gave_up{0}, calls{0};
    {
        const interrupt::PollScope scope(
            [&checks] {
                if (++checks == 3) throw Stop();
            },
            0);
        ReplicatePipeline pipe(
            [&](std::int64_t r, int, int) {
                ++calls;
                // Until the run is stopped (a minute at most: the test then fails below).
                const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
                while (!interrupt::stop_requested() && std::chrono::steady_clock::now() < until)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                if (interrupt::stop_requested()) ++gave_up;
                return graph_of(r);
            },
            [](std::int64_t k) {
                return std::pair<std::int64_t, std::int64_t>{2 * k, 2 * k + 2};
            },
            10, 2, 2, 1, 2);
        EXPECT_THROW(pipe.take(0), Stop);
        EXPECT_EQ(checks.load(), 3);  // one look per slice, until the check threw
        EXPECT_TRUE(interrupt::stop_requested());
    }  // the workers joined: each replicate that ran gave up when the check threw
    EXPECT_FALSE(interrupt::stop_requested());
    EXPECT_GE(calls.load(), 1);
    EXPECT_EQ(gave_up.load(), calls.load());
}

TEST(ReplicatePipeline, RoundsAreTakenInOrder) {
    ReplicatePipeline pipe([](std::int64_t r, int, int) { return graph_of(r); },
                           [](std::int64_t k) {
                               return std::pair<std::int64_t, std::int64_t>{k, k + 1};
                           },
                           3, 1, 2, 1, 2);
    EXPECT_THROW(pipe.take(1), std::exception);
    EXPECT_EQ(pipe.take(0).size(), 1u);
}

}  // namespace
}  // namespace cudag
