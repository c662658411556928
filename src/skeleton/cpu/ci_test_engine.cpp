// SPDX-License-Identifier: Apache-2.0
#include "skeleton/cpu/ci_test_engine.hpp"

#include <span>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "skeleton/cpu/row_search.hpp"

namespace cudag::skeleton {

CpuCiTestEngine::CpuCiTestEngine(std::int64_t n_vars, const CiTestFactory& factory, const TestPolicy& policy,
                                 int threads)
    : n_vars_(n_vars), policy_(policy), threads_(resolve_threads(threads)) {
    CUDAG_EXPECTS(factory != nullptr, "CpuCiTestEngine: no test factory");
    tests_.reserve(static_cast<std::size_t>(threads_));
    for (int w = 0; w < threads_; ++w) tests_.push_back(factory());
}

void CpuCiTestEngine::level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) {
    level0_rows(n_vars_, row_begin, row_end, dense, policy_, threads_, g, out,
                [&](std::int64_t i, std::int64_t j, int w) {
                    return tests_[static_cast<std::size_t>(w)]
                        ->test(static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), {})
                        .p;
                });
}

namespace {

/// One row's tests at level l, on one thread's test.
struct CiRowTester {
    ci::CiTest& ci;
    std::int32_t i;
    std::span<const std::int32_t> s;

    void prepare(const std::int32_t* set, int l) { s = {set, static_cast<std::size_t>(l)}; }
    double test(std::int32_t j) const { return ci.test(i, j, s).p; }
};

}  // namespace

void CpuCiTestEngine::run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) {
    std::vector<std::int64_t> tests(static_cast<std::size_t>(threads_), 0);
    parallel_for(block.row_begin, block.row_end, threads_, 1, [&](std::int64_t i, int w) {
        const auto [qb, qe] = block.positions(snap, i);
        CiRowTester tester{*tests_[static_cast<std::size_t>(w)], static_cast<std::int32_t>(i), {}};
        tests[static_cast<std::size_t>(w)] += search_row(level, snap, i, policy_, out, tester, qb, qe);
    });
    for (const std::int64_t t : tests) out.tests += t;
}

double CpuCiTestEngine::p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) {
    return tests_[0]->test(i, j, s).p;
}

}  // namespace cudag::skeleton
