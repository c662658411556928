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
#include <vector>

#include "ci/ci_test.hpp"
#include "ci/decision.hpp"
#include "mpi/communicator.hpp"

namespace cudag::fci {

/// Tests x ⟂ y | S, laid flat: query q is (x[q], y[q]) given nodes[offsets[q] .. offsets[q + 1]).
struct TestBatch {
    std::vector<std::int32_t> x, y;
    std::vector<std::int64_t> offsets{0};
    std::vector<std::int32_t> nodes;

    std::size_t size() const { return x.size(); }
    void add(std::int32_t a, std::int32_t b, std::span<const std::int32_t> s) {
        x.push_back(a);
        y.push_back(b);
        nodes.insert(nodes.end(), s.begin(), s.end());
        offsets.push_back(static_cast<std::int64_t>(nodes.size()));
    }
    std::span<const std::int32_t> set(std::size_t q) const {
        return {nodes.data() + offsets[q], static_cast<std::size_t>(offsets[q + 1] - offsets[q])};
    }
    void clear() {
        x.clear();
        y.clear();
        nodes.clear();
        offsets.assign(1, 0);
    }
};

class Tester {
public:
    using Factory = std::function<std::unique_ptr<ci::CiTest>()>;
    /// `make` builds one test instance per worker (lazily); `threads` >= 1. With `comm`,
    /// p_values is a collective of its ranks (each rank passes its own
    /// Tester, made alike); without, everything runs here.
    Tester(Factory make, int threads, ci::Decision decision, mpi::Communicator* comm = nullptr);

    ci::Decision decision() const { return decision_; }
    bool independent(double p) const { return decision_.independent(p); }
    int threads() const { return threads_; }

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
    /// p-values of queries [begin, end) of a batch into out[begin, end), all at once (a
    /// GPU's batch path): p_values then calls it instead of the workers. Must give the
    /// workers' answers.
    using BatchFn = std::function<void(const TestBatch&, std::size_t, std::size_t, std::span<double>)>;
    void set_batch(BatchFn fn) { batch_ = std::move(fn); }
    void set_round_tests(std::int64_t n) { round_tests_ = n < 1 ? 1 : n; }
    /// Tests run so far.
    std::int64_t tests() const { return tests_.load(); }
    void count(std::int64_t k) { tests_ += k; }

private:
    ci::CiTest& worker(int w);
    /// Rethrows `err` here (no communicator) or after every rank agreed to stop.
    void settle(const std::exception_ptr& err);
    Factory make_;
    mpi::Communicator* comm_ = nullptr;
    int threads_;
    ci::Decision decision_;
    std::vector<std::unique_ptr<ci::CiTest>> workers_;
    std::atomic<std::int64_t> tests_{0};
    std::int64_t round_tests_ = 1 << 16;
    BatchFn batch_;
};

}  // namespace cudag::fci
