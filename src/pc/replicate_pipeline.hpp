// SPDX-License-Identifier: Apache-2.0
// A rank's bootstrap replicates run ahead of its rounds: a team of workers takes the
// replicates in order, while the caller (the thread that talks to the other ranks) takes
// the rounds' graphs in order, agrees on errors, reports progress and writes checkpoints.
// A round boundary is then no barrier for the devices: a GPU never waits for a round's
// slowest replicate, nor idles while its replicates orient their graphs in step.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "core/pdag.hpp"

namespace cudag::pc {

/// Replicate `replicate`'s graph, run by worker `worker` (0 .. workers - 1: the GPU and
/// stream it drives follow from it) on `threads` host threads.
using WorkerGraph = std::function<Pdag(std::int64_t replicate, int threads, int worker)>;

class ReplicatePipeline {
public:
    /// Round k (0 .. rounds - 1) holds replicates range(k) = [lo, hi), hi - lo <= batch.
    /// `workers` threads, each running its replicates on `threads` host threads; they run
    /// at most `window` rounds ahead of the last round taken.
    ReplicatePipeline(WorkerGraph replicate, std::function<std::pair<std::int64_t, std::int64_t>(std::int64_t)> range,
                      std::int64_t rounds, std::int64_t batch, int workers, int threads, int window);
    /// Stops the workers (those running finish their replicate) and joins them.
    ~ReplicatePipeline();
    ReplicatePipeline(const ReplicatePipeline&) = delete;
    ReplicatePipeline& operator=(const ReplicatePipeline&) = delete;

    /// Round k's graphs in replicate order, once they are done; the rounds are taken in
    /// order (k = 0, 1, ...). Rethrows the first error of a replicate (of this round or a
    /// later one) once no worker is running.
    std::vector<Pdag> take(std::int64_t k);

private:
    void work(int worker);
    void stop();

    WorkerGraph replicate_;
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
    std::vector<std::vector<Pdag>> slots_;  ///< round k's graphs in slot k % window_
    std::vector<std::int64_t> done_;        ///< items of the slot's round finished
    std::vector<std::thread> team_;
};

}  // namespace cudag::pc
