// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include "ci/discrete_codes.hpp"
#include "core/dataset.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::skeleton {

/// Multithreaded CPU skeleton engine for discrete data (χ² or G² on contingency tables).
/// Rows are dealt to threads; within a row, the strata of a conditioning set S (the
/// observed configurations of S, renumbered densely in increasing mixed-radix order and
/// the samples bucketed by stratum) are built once and serve every neighbour j ∉ S. Each
/// thread counts into its own scratch tables: no allocation per test.
class CpuDiscreteEngine final : public SkeletonEngine {
public:
    CpuDiscreteEngine(const Dataset& data, const TestPolicy& policy, const ci::DiscreteTestSpec& test, int threads);
    CpuDiscreteEngine(ci::DiscreteCodes codes, const TestPolicy& policy, const ci::DiscreteTestSpec& test, int threads);
    ~CpuDiscreteEngine() override;

    std::string name() const override { return "cpu"; }
    std::int64_t n_vars() const override { return data_.n_vars; }
    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) override;
    void run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) override;
    bool splits_rows() const override { return true; }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override;

    /// Statistic, degrees of freedom (of the configured rule) and p-value of one test.
    struct TestResult {
        double statistic = 0.0;
        double dof = 0.0;
        double p = 1.0;
    };
    TestResult test(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s);

    class Scratch;  ///< one thread's strata and counting tables

private:
    /// Each worker's scratch, made on the first level0 / run_level.
    void make_scratch();

    ci::DiscreteCodes data_;
    TestPolicy policy_;
    ci::DiscreteTestSpec test_;
    int threads_ = 1;
    std::vector<Scratch> scratch_;
};

}  // namespace cudag::skeleton
