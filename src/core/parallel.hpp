// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace cudag {

/// Number of worker threads for a request: 0 or negative means all hardware threads.
inline int resolve_threads(int requested) {
    if (requested > 0) return requested;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw ? static_cast<int>(hw) : 1;
}

/// Run fn(item, worker) for item in [begin, end) on `threads` workers, handing out
/// `chunk` consecutive items at a time (dynamic schedule). Results must not
/// depend on which worker ran an item. The first exception is rethrown.
template <class Fn>
void parallel_for(std::int64_t begin, std::int64_t end, int threads, std::int64_t chunk, Fn&& fn) {
    if (end <= begin) return;
    threads = std::max(1, std::min<int>(threads, static_cast<int>((end - begin + chunk - 1) / chunk)));
    if (threads == 1) {
        for (std::int64_t i = begin; i < end; ++i) fn(i, 0);
        return;
    }
    std::atomic<std::int64_t> next{begin};
    std::exception_ptr error;
    std::atomic<bool> failed{false};
    auto work = [&](int worker) {
        try {
            for (;;) {
                if (failed.load(std::memory_order_relaxed)) return;
                const std::int64_t b = next.fetch_add(chunk);
                if (b >= end) return;
                const std::int64_t e = std::min(end, b + chunk);
                for (std::int64_t i = b; i < e; ++i) fn(i, worker);
            }
        } catch (...) {
            if (!failed.exchange(true)) error = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace cudag
