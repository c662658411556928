// SPDX-License-Identifier: Apache-2.0
// The CI tests of FCI's stages after the skeleton (Possible-D-SEP, the conservative and
// majority-rule triple checks, RFCI's extra tests): one ci::CiTest per worker thread, asked
// one test at a time or in batches. A test's p-value does not depend on the worker, the
// batch or the order (the tests are deterministic functions of x, y and S), so a batch
// gives the answers of the same tests asked one by one.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "ci/ci_test.hpp"
#include "ci/decision.hpp"

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
    /// `make` builds one test instance per worker (lazily); `threads` >= 1.
    Tester(Factory make, int threads, ci::Decision decision);

    ci::Decision decision() const { return decision_; }
    bool independent(double p) const { return decision_.independent(p); }
    int threads() const { return threads_; }

    /// p-value of x ⟂ y | s. A non-finite p-value is an error (ci tests throw on their own).
    double p_value(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s);
    /// Every query of `batch`, on the workers; out[q] is query q's p-value.
    void p_values(const TestBatch& batch, std::span<double> out);
    /// fn(item, test) for every item in [0, n), on the workers (`test`: the worker's instance;
    /// results must not depend on which worker ran an item). fn adds its tests with count().
    void each(std::int64_t n, const std::function<void(std::int64_t, ci::CiTest&)>& fn);
    /// Tests run so far.
    std::int64_t tests() const { return tests_.load(); }
    void count(std::int64_t k) { tests_ += k; }

private:
    ci::CiTest& worker(int w);
    Factory make_;
    int threads_;
    ci::Decision decision_;
    std::vector<std::unique_ptr<ci::CiTest>> workers_;
    std::atomic<std::int64_t> tests_{0};
};

}  // namespace cudag::fci
