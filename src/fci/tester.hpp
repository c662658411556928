// SPDX-License-Identifier: Apache-2.0
// The CI tests of FCI's stages after the skeleton (Possible-D-SEP, the conservative and
// majority-rule triple checks, RFCI's extra tests): one ci::CiTest per worker thread, asked
// one test at a time or in batches. A test's p-value does not depend on the worker, the
// batch or the order (the tests are deterministic functions of x, y and S), so a batch
// gives the answers of the same tests asked one by one.
#pragma once

#include <atomic>
#include <exception>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "ci/ci_test.hpp"
#include "ci/decision.hpp"
#include "mpi/communicator.hpp"

namespace cudag::fci {

/// Tests x ⟂ y | S, laid flat (ci/batch.hpp).
using TestBatch = ci::QueryList;

class Tester {
public:
    using Factory = std::function<std::unique_ptr<ci::CiTest>()>;
    /// `make` builds one test instance per worker (lazily); `threads` >= 1. With `comm`,
    /// p_values is a collective of its ranks (each rank passes its own
    /// Tester, made alike); without, everything runs here. `names`: the variables' names
    /// for messages.
    Tester(Factory make, int threads, ci::Decision decision, mpi::Communicator* comm = nullptr,
           std::vector<std::string> names = {});

    ci::Decision decision() const { return decision_; }
    bool independent(double p) const { return decision_.independent(p); }
    int threads() const { return cpu_.threads(); }

    int ranks() const { return comm_ ? comm_->size() : 1; }

    /// p-value of x ⟂ y | s, here (not shared). A non-finite p-value is an error (ci
    /// tests throw on their own).
    double p_value(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s);
    /// Every query of `batch` (the same batch on every rank): each rank runs a contiguous
    /// share on its workers, and out[q] is query q's p-value on every rank.
    void p_values(const TestBatch& batch, std::span<double> out);
    /// fn(item, test) for every item in [0, n), on this rank's workers only (`test`: the
    /// worker's instance; results must not depend on which worker ran an item): every rank
    /// runs every item (causal-learn's Possible-D-SEP stage, which is light). fn adds its
    /// tests with count().
    void each(std::int64_t n, const std::function<void(std::int64_t, ci::CiTest&)>& fn);
    /// How many tests a stage asks in one p_values call when it may ask more than it needs
    /// (Possible-D-SEP's rounds, fci/pdsep_tests.hpp): large for cheap tests, small for
    /// costly ones. Changes the work, never the answer.
    std::int64_t round_tests() const { return round_tests_; }
    /// The tests of p_values' shares from now on (a GPU's batch path,
    /// skeleton::make_batch_test): they must give the workers' answers. Null: the workers.
    void set_batch(std::unique_ptr<ci::BatchTest> batch) { batch_ = std::move(batch); }
    /// The tests p_values runs.
    ci::BatchTest& batch() { return batch_ ? *batch_ : cpu_; }
    void set_round_tests(std::int64_t n) { round_tests_ = n < 1 ? 1 : n; }
    /// Tests run so far.
    std::int64_t tests() const { return tests_.load(); }
    void count(std::int64_t k) { tests_ += k; }

private:
    /// Rethrows `err` here (no communicator) or after every rank agreed to stop.
    void settle(const std::exception_ptr& err);
    ci::CpuBatchTest cpu_;
    mpi::Communicator* comm_ = nullptr;
    ci::Decision decision_;
    std::vector<std::string> names_;
    std::atomic<std::int64_t> tests_{0};
    std::int64_t round_tests_ = 1 << 16;
    std::unique_ptr<ci::BatchTest> batch_;
    std::vector<double> statistic_;  ///< p_values' scratch
};

}  // namespace cudag::fci
