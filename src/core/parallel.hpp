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

/// Workers for `work` items of which each worker should take at least `per_worker`: between
/// 1 and `threads` (a request, resolve_threads's). A small job then runs on the caller
/// before a team would wake.
inline int threads_for(std::int64_t work, std::int64_t per_worker, int threads) {
    return static_cast<int>(std::clamp<std::int64_t>(work / per_worker, 1, resolve_threads(threads)));
}

namespace detail {

/// `work(worker)` for worker 0 (the caller) and for those of ids 1 .. threads - 1 that the process's parked
/// pool (made on first use) takes up before the caller's call returns: that call hands out every item.
/// False, having run nothing, where the pool cannot serve: it is running another team,
/// or the caller is itself one of its workers (a nested parallel_for).
bool run_team(int threads, void (*work)(void*, int), void* context);

}  // namespace detail

/// While it lives, the parallel_for calls of the thread that made it run on a pool of
/// that thread's own (its parked threads kept until then), not the process's shared one:
/// for threads that each run their own parallel loops at the same time (a bootstrap's
/// replicates), which would otherwise start fresh threads for every loop but one team's.
/// Nothing when the thread already has one.
class PrivatePool {
public:
    PrivatePool();
    ~PrivatePool();
    PrivatePool(const PrivatePool&) = delete;
    PrivatePool& operator=(const PrivatePool&) = delete;

private:
    void* pool_ = nullptr;
};

/// Run fn(item, worker) for item in [begin, end) on `threads` workers, handing out
/// `chunk` consecutive items at a time (dynamic schedule). Results must not
/// depend on which worker ran an item. The first exception is rethrown.
/// The workers are the caller and threads parked in a pool between calls (a call costs
/// a wake-up, not a thread start: many short loops, as orientation's, stay cheap on a
/// machine of many cores); fresh threads only for a nested call, or a concurrent one
/// from a thread without a PrivatePool.
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
    using Work = decltype(work);
    const bool pooled = detail::run_team(
        threads, [](void* w, int worker) { (*static_cast<Work*>(w))(worker); }, &work);
    if (!pooled) {
        std::vector<std::thread> team;
        for (int t = 1; t < threads; ++t) team.emplace_back(work, t);
        work(0);
        for (auto& th : team) th.join();
    }
    if (error) std::rethrow_exception(error);
}

/// Write a zero into every 4 KiB page of `bytes` fresh bytes at `p`, on `threads`
/// threads, so that a single-threaded copy into them (a pageable CUDA download of
/// hundreds of MB) does not take the page faults one at a time. Small arrays: nothing.
inline void first_touch(void* p, std::size_t bytes, int threads) {
    constexpr std::size_t kPage = 4096, kChunkPages = 256;
    if (bytes < (std::size_t{16} << 20) || threads <= 1) return;
    auto* b = static_cast<unsigned char*>(p);
    const auto pages = static_cast<std::int64_t>((bytes + kPage - 1) / kPage);
    parallel_for(0, (pages + kChunkPages - 1) / static_cast<std::int64_t>(kChunkPages), threads, 1,
                 [&](std::int64_t c, int) {
                     const std::size_t first = static_cast<std::size_t>(c) * kChunkPages * kPage;
                     for (std::size_t k = first; k < std::min(bytes, first + kChunkPages * kPage); k += kPage) b[k] = 0;
                 });
}

}  // namespace cudag
