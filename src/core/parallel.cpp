// SPDX-License-Identifier: Apache-2.0
// The pool behind parallel_for: threads parked on a condition variable between teams.
#include "core/parallel.hpp"

#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace cudag::detail {
namespace {

thread_local bool t_pool_worker = false;

/// One team at a time: the caller runs worker 0, up to `wanted_` parked threads take the
/// ids 1..wanted_ of the current generation, and the caller, once its own share is done,
/// waits for those that took one (the others are not waited for).
class Pool {
public:
    Pool() = default;
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
    /// Ends the parked threads (a PrivatePool's; the process's pool is never destroyed).
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stopping_ = true;
            ++generation_;
        }
        wake_.notify_all();
        for (std::thread& t : workers_) t.join();
    }

    /// Whether the team ran (false: busy with another team; nothing was run).
    bool run(int threads, void (*work)(void*, int), void* context) {
        std::unique_lock<std::mutex> team(team_, std::try_to_lock);
        if (!team.owns_lock()) return false;
        int helpers = threads - 1;
        {
            std::lock_guard<std::mutex> lock(m_);
            try {
                while (static_cast<int>(workers_.size()) < helpers) workers_.emplace_back([this] { park(); });
            } catch (const std::system_error&) {
                helpers = static_cast<int>(workers_.size());  // no more threads to be had: a smaller team
            }
            work_ = work;
            context_ = context;
            wanted_ = helpers;
            taken_ = 0;
            finished_ = 0;
            ++generation_;
        }
        wake_.notify_all();
        t_pool_worker = true;
        work(context, 0);
        t_pool_worker = false;
        std::unique_lock<std::mutex> lock(m_);
        // The caller is done: every item has been handed out (parallel_for's work returns
        // only then). A helper that has not taken an id yet (not woken, or woken but not
        // scheduled: a loaded machine) would find nothing left, so the team closes without
        // it; the caller waits for those that took one only.
        wanted_ = taken_;
        done_.wait(lock, [&] { return finished_ == wanted_; });
        work_ = nullptr;
        context_ = nullptr;
        return true;
    }

private:
    void park() {
        t_pool_worker = true;
        std::uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(m_);
        for (;;) {
            wake_.wait(lock, [&] { return generation_ != seen; });
            if (stopping_) return;
            seen = generation_;
            if (taken_ >= wanted_) continue;
            const int id = ++taken_;
            void (*work)(void*, int) = work_;
            void* context = context_;
            lock.unlock();
            work(context, id);  // parallel_for's work catches what fn throws
            lock.lock();
            if (++finished_ == wanted_) done_.notify_one();
        }
    }

    std::mutex team_;  ///< held by the caller of the team running
    std::mutex m_;
    std::condition_variable wake_, done_;
    std::vector<std::thread> workers_;  ///< parked for the life of the process
    std::uint64_t generation_ = 0;
    void (*work_)(void*, int) = nullptr;
    void* context_ = nullptr;
    int wanted_ = 0, taken_ = 0, finished_ = 0;
    bool stopping_ = false;
};

/// This thread's own pool while a PrivatePool lives on it.
thread_local Pool* t_private = nullptr;

}  // namespace

bool run_team(int threads, void (*work)(void*, int), void* context) {
    if (t_pool_worker || threads < 2) return false;
    if (t_private != nullptr) return t_private->run(threads, work, context);
    // The pool of this process (a child made by fork() has none of its parent's threads:
    // it makes its own). Never destroyed: the parked threads end with the process.
    static std::mutex owner_mutex;
    static Pool* pool = nullptr;
    static pid_t owner = 0;
    Pool* p = nullptr;
    {
        std::lock_guard<std::mutex> lock(owner_mutex);
        if (pool == nullptr || owner != getpid()) {
            pool = new Pool();  // a forked child's inherited one is abandoned, not touched
            owner = getpid();
        }
        p = pool;
    }
    return p->run(threads, work, context);
}

}  // namespace cudag::detail

namespace cudag {

PrivatePool::PrivatePool() {
    if (detail::t_private != nullptr) return;  // an enclosing one serves
    pool_ = new detail::Pool();
    detail::t_private = static_cast<detail::Pool*>(pool_);
}

PrivatePool::~PrivatePool() {
    if (pool_ == nullptr) return;
    detail::t_private = nullptr;
    delete static_cast<detail::Pool*>(pool_);
}

}  // namespace cudag
