// SPDX-License-Identifier: Apache-2.0
// Many conditional-independence tests at once: a span of queries in, statistics and
// p-values out (issue 54). FCI's stages after the skeleton (Possible-D-SEP, the triple
// checks, RFCI's extra tests), `cudag citest --queries` and Python's batch tests all ask
// through BatchTest; the CPU answers on its workers (CpuBatchTest, one CiTest each), a GPU
// engine through its batch path (skeleton::make_batch_test). Every implementation gives,
// for every query, the statistic and p-value of the same test asked alone
// (CiTest::test), bit for bit, whatever the batch, its order or the thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ci/ci_test.hpp"

namespace cudag::ci {

/// Tests laid flat, viewed: query q is x[q] ⟂ y[q] given nodes[offsets[q] - offsets[0] ..
/// offsets[q + 1] - offsets[0]) (offsets: one more entry than x; `nodes` starts at the
/// first query's set, so a slice of a larger batch is a view without copies).
struct Queries {
    std::span<const std::int32_t> x, y;
    std::span<const std::int64_t> offsets;
    std::span<const std::int32_t> nodes;

    std::size_t size() const { return x.size(); }
    /// The conditioning set of query q.
    std::span<const std::int32_t> set(std::size_t q) const {
        return nodes.subspan(static_cast<std::size_t>(offsets[q] - offsets[0]),
                             static_cast<std::size_t>(offsets[q + 1] - offsets[q]));
    }
    /// Queries [begin, end) of these.
    Queries slice(std::size_t begin, std::size_t end) const;
};

/// Tests laid flat, owned (built by a caller, one query at a time).
struct QueryList {
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
    Queries view() const { return {x, y, offsets, nodes}; }
};

class BatchTest {
public:
    virtual ~BatchTest() = default;
    /// The test's command-line name ("fisher-z", ...).
    virtual std::string name() const = 0;
    /// Where the tests run, for messages ("the CPU (8 threads)", "GPU 0").
    virtual std::string where() const = 0;
    /// statistic[q] and p[q] (spans of queries.size()) for every query: those of the same
    /// test asked alone. A non-finite statistic or p-value is an InputError naming the
    /// query's variables.
    virtual void run(const Queries& queries, std::span<double> statistic, std::span<double> p) = 0;
    /// `v` agreed by every process that answers these batches together (the largest of theirs),
    /// for a decision they must all take alike, such as the next batch's size from the time the
    /// last one took; on one process, v.
    virtual double agreed_max(double v) { return v; }
};

/// The CPU's batches: the queries dealt over `threads` workers, each with its own CiTest
/// (made by `make` when first needed); the workers also answer single tests (worker()).
class CpuBatchTest final : public BatchTest {
public:
    using Factory = std::function<std::unique_ptr<CiTest>()>;
    /// `names`: the variables' names for messages (empty: their indices).
    CpuBatchTest(Factory make, int threads, std::vector<std::string> names = {});

    std::string name() const override;
    std::string where() const override;
    void run(const Queries& queries, std::span<double> statistic, std::span<double> p) override;

    int threads() const { return threads_; }
    /// Worker w's test, made at the first call (not thread-safe against another first call:
    /// make the workers a parallel loop uses before it starts, as make_workers does).
    CiTest& worker(int w);
    /// Makes workers [0, n) (n capped at threads()).
    void make_workers(int n);

private:
    Factory make_;
    int threads_;
    std::vector<std::string> names_;
    std::vector<std::unique_ptr<CiTest>> workers_;
};

/// The InputError of a query whose statistic or p-value is not finite (`names` empty: the
/// variables by index).
[[noreturn]] void throw_not_finite(const std::string& test, std::int32_t x, std::int32_t y, double statistic, double p,
                                   const std::vector<std::string>& names);

/// Whether (statistic, p) is a result: both finite, p in [0, 1].
inline bool is_result(double statistic, double p) { return statistic - statistic == 0.0 && p >= 0.0 && p <= 1.0; }

}  // namespace cudag::ci
