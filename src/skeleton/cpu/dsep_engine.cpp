// SPDX-License-Identifier: Apache-2.0
#include "skeleton/cpu/dsep_engine.hpp"

#include <utility>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "skeleton/cpu/row_search.hpp"

namespace cudag::skeleton {

CpuDsepEngine::CpuDsepEngine(std::shared_ptr<const DsepOracle> oracle, const TestPolicy& policy, int threads)
    : oracle_(std::move(oracle)), policy_(policy), threads_(resolve_threads(threads)) {
    CUDAG_EXPECTS(oracle_ != nullptr, "CpuDsepEngine: no oracle");
}

void CpuDsepEngine::level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) {
    level0_rows(oracle_->n_vars(), row_begin, row_end, dense, policy_, threads_, g, out,
                [&](std::int64_t i, std::int64_t j, int) {
                    return oracle_->p_value(static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), {});
                });
}

namespace {

/// One row's tests at level l: each is one d-separation query.
struct DsepRowTester {
    const DsepOracle& oracle;
    std::int32_t i;
    std::span<const std::int32_t> s;

    void prepare(const std::int32_t* set, int l) { s = {set, static_cast<std::size_t>(l)}; }
    double test(std::int32_t j) const { return oracle.p_value(i, j, s); }
};

}  // namespace

void CpuDsepEngine::run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) {
    std::vector<std::int64_t> tests(static_cast<std::size_t>(threads_), 0);
    parallel_for(block.row_begin, block.row_end, threads_, 1, [&](std::int64_t i, int w) {
        const auto [qb, qe] = block.positions(snap, i);
        DsepRowTester tester{*oracle_, static_cast<std::int32_t>(i), {}};
        tests[static_cast<std::size_t>(w)] += search_row(level, snap, i, policy_, out, tester, qb, qe);
    });
    for (const std::int64_t t : tests) out.tests += t;
}

double CpuDsepEngine::p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) {
    return oracle_->p_value(i, j, s);
}

}  // namespace cudag::skeleton
