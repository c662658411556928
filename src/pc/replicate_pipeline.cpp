// SPDX-License-Identifier: Apache-2.0
#include "pc/replicate_pipeline.hpp"

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag::pc {

ReplicatePipeline::ReplicatePipeline(WorkerGraph replicate,
                                     std::function<std::pair<std::int64_t, std::int64_t>(std::int64_t)> range,
                                     std::int64_t rounds, std::int64_t batch, int workers, int threads, int window)
    : replicate_(std::move(replicate)),
      range_(std::move(range)),
      rounds_(rounds),
      batch_(batch),
      threads_(threads),
      window_(window),
      slots_(static_cast<std::size_t>(window), std::vector<Pdag>(static_cast<std::size_t>(batch))),
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

ReplicatePipeline::~ReplicatePipeline() { stop(); }

void ReplicatePipeline::stop() {
    {
        std::lock_guard<std::mutex> lk(m_);
        stop_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : team_)
        if (t.joinable()) t.join();
}

void ReplicatePipeline::work(int worker) {
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
        Pdag g;
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

std::vector<Pdag> ReplicatePipeline::take(std::int64_t k) {
    std::unique_lock<std::mutex> lk(m_);
    CUDAG_EXPECTS(k == taken_ && k < rounds_, "ReplicatePipeline: rounds are taken in order");
    const auto slot = static_cast<std::size_t>(k % window_);
    done_cv_.wait(lk, [&] { return error_ ? running_ == 0 : done_[slot] == batch_; });
    if (error_) std::rethrow_exception(error_);
    std::vector<Pdag> out = std::move(slots_[slot]);
    slots_[slot] = std::vector<Pdag>(static_cast<std::size_t>(batch_));
    done_[slot] = 0;
    ++taken_;
    lk.unlock();
    work_cv_.notify_all();
    const auto [lo, hi] = range_(k);
    out.resize(static_cast<std::size_t>(hi - lo));
    return out;
}

}  // namespace cudag::pc
