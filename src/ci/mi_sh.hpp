// SPDX-License-Identifier: Apache-2.0
// bnlearn's mi-sh: the shrinkage estimator of (conditional) mutual information (Hausser and
// Strimmer's James-Stein shrinkage of the cell probabilities toward the uniform table), as
// bnlearn 4.9 computes it (its c_shmi / c_shcmi), its G²-scaled statistic 2·N·MI against χ²
// with bnlearn's unadjusted df (rx − 1)(ry − 1)|S|, declared levels. The CPU only.
//
// For X ⟂ Y | S on N complete samples and the dense rx × ry × |S| table of counts n:
//   t = 1 / (rx·ry·|S|),  λ = (1 − Σ (n/N)²) / ((N − 1) Σ (t − n/N)²) truncated to [0, 1]
//   (λ = 1 when Σ (t − n/N)² = 0),  p = λ t + (1 − λ) n / N in every cell,
//   MI = Σ_s Σ_y Σ_x p log(p·p_s / (p_xs·p_ys)) over cells with p > 0 (strata with p_s > 0;
//   without S: p log(p / (p_x·p_y))), statistic 2·N·MI; N ≤ 1: statistic 0.
// Every cell counts, those no sample takes included: a test costs O(N + rx·ry·|S|).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ci/ci_test.hpp"
#include "core/dataset.hpp"

namespace cudag::ci {

/// The statistic and df of bnlearn's mi-sh on codes (x, y and the strata of S, each sample's
/// stratum index in [0, prod_s)); the p-value is chi2_sf(statistic, df).
struct MiShResult {
    double statistic = 0.0;
    double df = 0.0;
};
MiShResult mi_sh(std::span<const std::int32_t> x, int rx, std::span<const std::int32_t> y, int ry,
                 std::span<const std::int64_t> stratum, std::int64_t prod_s, bool conditional);

class MiShTest final : public CiTest {
public:
    explicit MiShTest(const Dataset& data) : data_(data) {}
    std::string name() const override { return "mi-sh"; }
    CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override;
    std::vector<std::string> digest() const override { return {"mi-sh"}; }

private:
    const Dataset& data_;
};

}  // namespace cudag::ci
