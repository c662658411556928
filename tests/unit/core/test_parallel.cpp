// SPDX-License-Identifier: Apache-2.0
// parallel_for on its pool of parked threads: every item once, worker ids in range,
// exceptions, nested and concurrent calls, and the pool's threads serving call after call.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/parallel.hpp"

namespace cudag {
namespace {

TEST(ParallelFor, EveryItemOnceWithWorkerIdsInRange) {
    for (const int threads : {1, 2, 3, 8, 17}) {
        for (const std::int64_t chunk : {1, 7, 1000}) {
            const std::int64_t n = 5003;
            std::vector<std::atomic<int>> seen(n);
            std::atomic<int> bad_worker{0};
            parallel_for(0, n, threads, chunk, [&](std::int64_t i, int w) {
                seen[i].fetch_add(1);
                if (w < 0 || w >= threads) bad_worker.fetch_add(1);
            });
            for (std::int64_t i = 0; i < n; ++i)
                ASSERT_EQ(seen[i].load(), 1) << "item " << i << ", " << threads << " threads";
            EXPECT_EQ(bad_worker.load(), 0);
        }
    }
}

TEST(ParallelFor, EmptyAndOffsetRanges) {
    int calls = 0;
    parallel_for(5, 5, 4, 1, [&](std::int64_t, int) { ++calls; });
    parallel_for(9, 3, 4, 1, [&](std::int64_t, int) { ++calls; });
    EXPECT_EQ(calls, 0);
    std::atomic<std::int64_t> sum{0};
    parallel_for(100, 200, 4, 3, [&](std::int64_t i, int) { sum.fetch_add(i); });
    EXPECT_EQ(sum.load(), (100 + 199) * 100 / 2);
}

TEST(ParallelFor, FirstExceptionIsRethrownAndThePoolServesOn) {
    EXPECT_THROW(parallel_for(0, 1000, 4, 1,
                              [](std::int64_t i, int) {
                                  if (i == 500) throw std::runtime_error("item 500");
                              }),
                 std::runtime_error);
    std::atomic<std::int64_t> count{0};
    parallel_for(0, 1000, 4, 1, [&](std::int64_t, int) { count.fetch_add(1); });
    EXPECT_EQ(count.load(), 1000);
}

TEST(ParallelFor, NestedCallsFinish) {
    std::atomic<std::int64_t> sum{0};
    parallel_for(0, 8, 4, 1, [&](std::int64_t i, int) {
        parallel_for(0, 100, 3, 5, [&](std::int64_t j, int w) {
            EXPECT_LT(w, 3);
            sum.fetch_add(i * 100 + j);
        });
    });
    EXPECT_EQ(sum.load(), (800 * 799) / 2);
}

TEST(ParallelFor, ConcurrentCallersEachGetTheirItems) {
    std::vector<std::int64_t> sums(6, 0);
    std::vector<std::thread> callers;
    for (int c = 0; c < 6; ++c)
        callers.emplace_back([&sums, c] {
            for (int rep = 0; rep < 50; ++rep) {
                std::atomic<std::int64_t> s{0};
                parallel_for(0, 1000, 4, 16, [&](std::int64_t i, int) { s.fetch_add(i + c); });
                sums[static_cast<std::size_t>(c)] += s.load();
            }
        });
    for (auto& t : callers) t.join();
    for (int c = 0; c < 6; ++c) EXPECT_EQ(sums[static_cast<std::size_t>(c)], 50 * (999 * 1000 / 2 + 1000 * c)) << c;
}

std::atomic<int> g_threads_born{0};
/// A number per thread, drawn when the thread first asks (a thread that ended and a fresh
/// one that got its id get different numbers).
int thread_birth() {
    thread_local const int birth = g_threads_born.fetch_add(1);
    return birth;
}

TEST(ParallelFor, ManyShortCallsReuseTheSameThreads) {
    // The caller and the pool's parked threads run every call: call after call, no more
    // threads than the largest team so far (fresh threads would be ~3 per call).
    std::mutex m;
    std::set<int> births;
    for (int rep = 0; rep < 300; ++rep)
        parallel_for(0, 64, 4, 1, [&](std::int64_t, int) {
            std::this_thread::sleep_for(std::chrono::microseconds(20));
            const std::lock_guard<std::mutex> lock(m);
            births.insert(thread_birth());
        });
    EXPECT_GE(births.size(), 2u);
    EXPECT_LE(births.size(), 4u + 16u);  // + 16: the teams of up to 17 of earlier tests
}

TEST(ParallelFor, ConcurrentCallersWithPrivatePoolsReuseTheirOwnThreads) {
    // Six callers at once, each with a pool of its own: every call gets its items, and a
    // caller's calls run on its own parked threads (without pools, all callers but the
    // one holding the shared pool would start ~3 fresh threads per call).
    constexpr int kCallers = 6, kCalls = 100;
    std::vector<std::int64_t> sums(kCallers, 0);
    std::vector<std::set<int>> births(kCallers);
    std::vector<std::thread> callers;
    for (int c = 0; c < kCallers; ++c)
        callers.emplace_back([&sums, &births, c] {
            const PrivatePool pool;
            const PrivatePool inner;  // nested: the outer one serves
            std::mutex m;
            for (int rep = 0; rep < kCalls; ++rep) {
                std::atomic<std::int64_t> s{0};
                parallel_for(0, 64, 4, 1, [&](std::int64_t i, int) {
                    s.fetch_add(i + c);
                    std::this_thread::sleep_for(std::chrono::microseconds(20));
                    const std::lock_guard<std::mutex> lock(m);
                    births[static_cast<std::size_t>(c)].insert(thread_birth());
                });
                sums[static_cast<std::size_t>(c)] += s.load();
            }
        });
    for (auto& t : callers) t.join();
    for (int c = 0; c < kCallers; ++c) {
        EXPECT_EQ(sums[static_cast<std::size_t>(c)], kCalls * (63 * 64 / 2 + 64 * c)) << c;
        EXPECT_GE(births[static_cast<std::size_t>(c)].size(), 2u) << c;
        EXPECT_LE(births[static_cast<std::size_t>(c)].size(), 4u) << c;  // the caller and its 3 parked threads
    }
}

}  // namespace
}  // namespace cudag

TEST(Parallel, ThreadsForWorkGrowWithTheWorkUpToTheRequest) {
    EXPECT_EQ(cudag::threads_for(100, 2048, 16), 1);  // a small job: the caller alone
    EXPECT_EQ(cudag::threads_for(0, 2048, 16), 1);
    EXPECT_EQ(cudag::threads_for(3 * 2048 + 5, 2048, 8), 3);
    EXPECT_EQ(cudag::threads_for(10 * 2048, 2048, 4), 4);                                   // never past the request
    EXPECT_EQ(cudag::threads_for(std::int64_t{1} << 40, 1, 0), cudag::resolve_threads(0));  // 0: every hardware thread
}
