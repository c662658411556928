// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dsep.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::skeleton {

/// The CPU skeleton engine of the d-separation oracle (`--oracle`): each test is one
/// d-separation query in the oracle's DAG (p = 1 when d-separated, else 0, as pcalg's
/// dsepTest), rows dealt to threads.
class CpuDsepEngine final : public SkeletonEngine {
public:
    CpuDsepEngine(std::shared_ptr<const DsepOracle> oracle, const TestPolicy& policy, int threads);

    std::string name() const override { return "cpu"; }
    std::int64_t n_vars() const override { return oracle_->n_vars(); }
    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) override;
    void run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) override;
    bool splits_rows() const override { return true; }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override;

private:
    std::shared_ptr<const DsepOracle> oracle_;
    TestPolicy policy_;
    int threads_ = 1;
};

}  // namespace cudag::skeleton
