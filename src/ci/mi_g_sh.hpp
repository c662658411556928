// SPDX-License-Identifier: Apache-2.0
// bnlearn's mi-g-sh: the Gaussian mutual information test on the shrinkage estimate of the
// covariance (Schäfer and Strimmer's intensity for the off-diagonal entries, toward the
// diagonal), as bnlearn 4.9 computes it: statistic −n log(1 − r²) of the shrunk (partial)
// correlation r against χ² with 1 df. The CPU only, complete data.
//
// Without S (bnlearn's ut_gaustests_complete): c = Σ (x − x̄)(y − ȳ) / (n − 1), r the
// correlation, λ = n Σ ((x − x̄)(y − ȳ) − c)² / ((n − 1)³ c²) in [0, 1] (0 when that sum is
// below √ε), r ← r (1 − λ). With S (its allsubs test): C the (n − 1) covariance of (x, y, S),
// λ = n Σ_{i<j} Σ_k (d_ik d_jk − C_ij (n − 1)/n)² / ((n − 1)³ Σ_{i<j} C_ij²) in [0, 1], the
// off-diagonal entries of C times 1 − λ, r = −K_xy / √(K_xx K_yy) for K = C⁻¹.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ci/ci_test.hpp"
#include "core/dataset.hpp"

namespace cudag::ci {

/// The shrunk (partial) correlation of columns cols[0] and cols[1] given cols[2..] (n rows).
double mi_g_sh_correlation(std::span<const double* const> cols, std::int64_t n);

class MiGShTest final : public CiTest {
public:
    explicit MiGShTest(const Dataset& data) : data_(data) {}
    std::string name() const override { return "mi-g-sh"; }
    CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override;
    std::vector<std::string> digest() const override { return {"mi-g-sh"}; }

private:
    const Dataset& data_;
};

}  // namespace cudag::ci
