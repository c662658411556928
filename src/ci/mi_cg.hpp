// SPDX-License-Identifier: Apache-2.0
// bnlearn's "mi-cg" test (bnlearn 4.9: the default of its constraint-based learners on mixed
// data, a data frame of factors and numeric columns): x ⟂ y | S as a likelihood-ratio test
// between conditional linear Gaussian (CLG) models, in which a discrete variable never has a
// continuous parent. Written from bnlearn's definition of the test (its documentation and its
// behaviour, compared case by case in r/tests/testthat/test-bnlearn-mixed.R); the arithmetic
// is cudag's own.
//
// A CLG regression L(v | C; D): v continuous, regressed by least squares with an intercept on
// the continuous C, separately within each configuration of the discrete D (none: one
// regression on all rows); each configuration k with n_k rows gets its residual standard
// deviation σ_k = √(RSS_k / (n_k − q)), q = |C| + 1 (the unbiased estimate, not the maximum
// likelihood one), σ_k = 0 where n_k <= q; L = Σ_rows log φ((v − fitted) / σ_k) / σ_k. A model
// with some σ_k below √ε (2⁻²⁶, absolute) is singular: L = −∞. The fits are bnlearn's closed
// forms (0, 1 or 2 continuous regressors: means, variances and covariances; a regressor of
// variance below √ε left out, two regressors correlated beyond 1 − √ε the second left out)
// and, for more, a Householder QR whose columns (intercept first, then C in order) are left
// out where their remaining norm falls below √ε times their initial one (LINPACK's dqrdc2
// rule, which R's lm and bnlearn use). Sums are in double (bnlearn's accumulators are long
// double) and in row order; each configuration's sums of one pass over all rows.
//
// The statistic, for n rows, discrete S_d (F_S configurations, counting every level a
// variable has, 0 when S_d is empty) and continuous S_c:
//  * S empty: x, y discrete: G² = 2 Σ n_xy log(n_xy n / (n_x n_y)), dof (r_x − 1)(r_y − 1);
//    continuous: −n log(1 − r²), r Pearson's correlation (0 where a sum of squares is below
//    √ε), dof 1; one of each: 2 (L₁ − L₀), L₀ the Gaussian of the continuous one (mean,
//    unbiased σ), L₁ the Gaussian within each level (each its mean and unbiased σ, 0 for a
//    level of one row), dof 2 (r − 1).
//  * x, y continuous: 2 (L(y | x, S_c; S_d) − L(y | S_c; S_d)), dof max(F_S, 1).
//  * one continuous (v), one discrete (d, r levels): 2 (L(v | S_c; d, S_d) − L(v | S_c; S_d)),
//    dof (r − 1) max(F_S, 1) (|S_c| + 2).
//  * x, y discrete, S_c empty: G² of x, y given S_d's configurations, dof (r_x − 1)(r_y − 1) F_S.
//  * x, y discrete, S_c = (g_1, ..., g_k): G² of x, y given S_d (as above, given nothing when
//    S_d is empty) plus 2 Σ_i (T_i(S_d) − T_i(y, S_d)), T_i(D) = L(g_i | g_{i+1..k}; x) −
//    L(g_i | g_{i+1..k}; D) (D empty: no configuration); dof (r_x − 1)(r_y − 1) max(F_S, 1) +
//    F_S (r_y − 1) k (k + 3) / 2. This is bnlearn 4.9's chain-rule form as it computes it: the
//    terms depend on y and not on x (the L(g_i | ..; x) cancel), so the test is not symmetric
//    in x and y; PC's search (skeleton::TestPolicy::bnlearn_pairs) then runs a pair's tests in
//    bnlearn's pc.stable order, x the endpoint whose neighbours S is drawn from.
// A comparison (the two-model ones) whose either model is singular gives 0 (p = 1: bnlearn
// "rejects" a singular alternative), in the chain-rule sum term by term; p = P(χ²_dof > G).
// A statistic that is not finite (perfectly correlated x and y, a level whose rows hold one
// value in the test without S) is an InputError naming the test, where bnlearn returns p = 0
// (or fails on NaN). bnlearn 4.9 forms 2 n n of the chain-rule form in int arithmetic, which
// overflows past n = 32,768 rows; here every product is a double.
//
// Levels: a discrete variable's levels are Dataset::levels (the R face refuses factor levels
// no row takes, so they are bnlearn's). Determinism: one thread, row order in every sum, S in
// the order given (its discrete and continuous parts keep it).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ci/ci_test.hpp"
#include "core/dataset.hpp"

namespace cudag::ci {

struct MiCgResult {
    double statistic = 0.0;
    double dof = 0.0;
    double p = 1.0;
};

/// The degrees of freedom of mi_cg's test of x ⟂ y | s: a function of the variables' kinds and
/// declared levels only (bnlearn's; what it reports where too few rows leave the test
/// independent).
double mi_cg_dof(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> s);

/// bnlearn's mi-cg test of x ⟂ y | s on all the rows of `data` (no NaN). Throws InputError for
/// a value that is not finite or not a level's code, or a statistic that is not finite.
MiCgResult mi_cg(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> s);

/// mi_cg behind the CiTest interface: name "mi-cg", extra {"dof"}. Holds a reference to
/// `data`, which must outlive it.
class MiCgTest final : public CiTest {
public:
    explicit MiCgTest(const Dataset& data) : data_(data) {}
    std::string name() const override { return "mi-cg"; }
    CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override;
    std::vector<std::string> digest() const override { return {"mi-cg"}; }

private:
    const Dataset& data_;
};

}  // namespace cudag::ci
