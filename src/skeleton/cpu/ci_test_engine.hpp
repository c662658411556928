// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ci/ci_test.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::skeleton {

/// The CPU skeleton engine of any ci::CiTest (issue 55: the mixed-data tests, and every test
/// under `--missing testwise`): each thread asks its own instance from `factory`, rows dealt
/// to threads, a row's sets walked as search_row walks them. Slower than an engine built
/// for one test (nothing is shared between the tests of a set), the same answers.
class CpuCiTestEngine final : public SkeletonEngine {
public:
    CpuCiTestEngine(std::int64_t n_vars, const CiTestFactory& factory, const TestPolicy& policy, int threads);

    std::string name() const override { return "cpu"; }
    std::int64_t n_vars() const override { return n_vars_; }
    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) override;
    void run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) override;
    bool splits_rows() const override { return true; }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override;

private:
    std::int64_t n_vars_ = 0;
    TestPolicy policy_;
    int threads_ = 1;
    std::vector<std::unique_ptr<ci::CiTest>> tests_;  ///< one per thread
};

}  // namespace cudag::skeleton
