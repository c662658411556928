// SPDX-License-Identifier: Apache-2.0
// A rank's bootstrap replicates run ahead of its rounds: a team of workers takes the
// replicates in order, while the caller (the thread that talks to the other ranks) takes
// the rounds' graphs in order, agrees on errors, reports progress and writes checkpoints.
// A round boundary is then no barrier for the devices: a GPU never waits for a round's
// slowest replicate, nor idles while its replicates orient their graphs in step.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "bootstrap/table.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/parallel.hpp"

namespace cudag::bootstrap {

/// Replicate `replicate`'s outcome G (its graph, or its counted edges), run by worker
/// `worker` (0 .. workers - 1: the GPU and stream it drives follow from it) on `threads`
/// host threads.
template <class G>
using WorkerFn = std::function<G(std::int64_t replicate, int threads, int worker)>;

template <class G>
class BasicReplicatePipeline {
public:
    /// Round k (0 .. rounds - 1) holds replicates range(k) = [lo, hi), hi - lo <= batch.
    /// `workers` threads, each running its replicates on `threads` host threads; they run
    /// at most `window` rounds ahead of the last round taken.
    BasicReplicatePipeline(WorkerFn<G> replicate,
                           std::function<std::pair<std::int64_t, std::int64_t>(std::int64_t)> range,
                           std::int64_t rounds, std::int64_t batch, int workers, int threads, int window);
    /// Stops the workers (those running finish their replicate) and joins them.
    ~BasicReplicatePipeline() { stop(); }
    BasicReplicatePipeline(const BasicReplicatePipeline&) = delete;
    BasicReplicatePipeline& operator=(const BasicReplicatePipeline&) = delete;

    /// Round k's graphs in replicate order, once they are done; the rounds are taken in
    /// order (k = 0, 1, ...). Rethrows the first error of a replicate (of this round or a
    /// later one) once no worker is running. While it waits, Ctrl-C in a binding is looked
    /// at (core/interrupt.hpp's poll_waiting; what its check throws ends the wait, and the
    /// workers, seeing stop_requested(), give up their replicates).
    std::vector<G> take(std::int64_t k);

private:
    void work(int worker);
    void stop();

    WorkerFn<G> replicate_;
    std::function<std::pair<std::int64_t, std::int64_t>(std::int64_t)> range_;
    const std::int64_t rounds_, batch_;
    const int threads_, window_;
    std::mutex m_;
    std::condition_variable work_cv_, done_cv_;
    std::int64_t next_ = 0;   ///< the next item (round next_ / batch_, place next_ % batch_)
    std::int64_t taken_ = 0;  ///< rounds taken
    int running_ = 0;         ///< items being run
    bool stop_ = false;
    std::exception_ptr error_;
    std::vector<std::vector<G>> slots_;  ///< round k's graphs in slot k % window_
    std::vector<std::int64_t> done_;     ///< items of the slot's round finished
    std::vector<std::thread> team_;
};

// Definitions (the class is a template: a replicate's outcome, whatever the learner).

template <class G>
BasicReplicatePipeline<G>::BasicReplicatePipeline(
    WorkerFn<G> replicate, std::function<std::pair<std::int64_t, std::int64_t>(std::int64_t)> range,
    std::int64_t rounds, std::int64_t batch, int workers, int threads, int window)
    : replicate_(std::move(replicate)),
      range_(std::move(range)),
      rounds_(rounds),
      batch_(batch),
      threads_(threads),
      window_(window),
      slots_(static_cast<std::size_t>(window), std::vector<G>(static_cast<std::size_t>(batch))),
      done_(static_cast<std::size_t>(window), 0) {
    CUDAG_EXPECTS(rounds >= 0 && batch >= 1 && workers >= 1 && threads >= 1 && window >= 1,
                  "ReplicatePipeline: bad sizes");
    try {
        for (int w = 0; w < workers; ++w) team_.emplace_back([this, w] { work(w); });
    } catch (...) {
        stop();
        throw;
    }
}

template <class G>
void BasicReplicatePipeline<G>::stop() {
    {
        std::lock_guard<std::mutex> lk(m_);
        stop_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : team_)
        if (t.joinable()) t.join();
}

template <class G>
void BasicReplicatePipeline<G>::work(int worker) {
    // The replicate's parallel loops on parked threads of this worker's own, not fresh
    // threads for each loop (the process's pool serves one team at a time).
    const PrivatePool pool;
    const std::int64_t items = rounds_ * batch_;
    for (;;) {
        std::int64_t item = 0;
        {
            std::unique_lock<std::mutex> lk(m_);
            work_cv_.wait(lk, [&] { return stop_ || next_ >= items || next_ / batch_ < taken_ + window_; });
            if (stop_ || next_ >= items) return;
            item = next_++;
            ++running_;
        }
        const std::int64_t k = item / batch_, place = item % batch_;
        const auto slot = static_cast<std::size_t>(k % window_);
        std::exception_ptr err;
        G g;
        bool ran = false;
        try {
            const auto [lo, hi] = range_(k);
            if (lo + place < hi) {
                g = replicate_(lo + place, threads_, worker);
                ran = true;
            }
        } catch (...) {
            err = std::current_exception();
        }
        {
            std::lock_guard<std::mutex> lk(m_);
            --running_;
            if (err) {
                if (!error_) error_ = err;
                stop_ = true;
            } else {
                if (ran) slots_[slot][static_cast<std::size_t>(place)] = std::move(g);
                ++done_[slot];
            }
        }
        if (err) work_cv_.notify_all();
        done_cv_.notify_all();
    }
}

template <class G>
std::vector<G> BasicReplicatePipeline<G>::take(std::int64_t k) {
    std::unique_lock<std::mutex> lk(m_);
    CUDAG_EXPECTS(k == taken_ && k < rounds_, "ReplicatePipeline: rounds are taken in order");
    const auto slot = static_cast<std::size_t>(k % window_);
    const auto ready = [&] { return error_ ? running_ == 0 : done_[slot] == batch_; };
    while (!done_cv_.wait_for(lk, std::chrono::milliseconds(10), ready)) {
        lk.unlock();
        interrupt::poll_waiting();
        lk.lock();
    }
    if (error_) std::rethrow_exception(error_);
    std::vector<G> out = std::move(slots_[slot]);
    slots_[slot] = std::vector<G>(static_cast<std::size_t>(batch_));
    done_[slot] = 0;
    ++taken_;
    lk.unlock();
    work_cv_.notify_all();
    const auto [lo, hi] = range_(k);
    out.resize(static_cast<std::size_t>(hi - lo));
    return out;
}

/// The replicates' counted edges (bootstrap/table.hpp), as the scheduler takes them.
extern template class BasicReplicatePipeline<ReplicateEdges>;

}  // namespace cudag::bootstrap
