// SPDX-License-Identifier: Apache-2.0
// tigramite's RegressionCI (tigramite 5.2.10.1, independence_tests/regressionCI.py; Tsagris et
// al. 2018, "Constraint-based causal discovery with mixed data", as a likelihood-ratio test):
// X ⟂ Y | Z on continuous, discrete or mixed data by comparing the fit of one of X, Y (the
// dependent variable) on Z alone with its fit on Z and the other one. One thread, fixed loop
// order; the fits are ci/regression_core.hpp's, which the GPU batch (kernels/regression_batch.cu)
// runs too, so that both give the same bits.
//
// What tigramite computes (run_test_raw with the data types of X, Y and Z):
//  * The regressors: Z's columns in the given order, a continuous one as is, a discrete one as
//    one one-hot column per level that occurs (the levels in sorted order, all of them: no
//    level is dropped), and a single column of ones where Z is empty. The other of X, Y is
//    encoded the same way and comes first.
//  * The dependent variable: X, Y both continuous: Y, unless X is the more normal one (Y where
//    scipy.stats.normaltest's K² of X >= that of Y, so X where either is NaN: a constant
//    column or fewer than 8 rows); both discrete: Y, unless X has the smaller entropy (Y where
//    H(X) >= H(Y), H from the level frequencies); one discrete: the continuous one.
//  * A continuous dependent variable: least squares with an intercept (sklearn's
//    LinearRegression), deviance n log 2π + n log(RSS/n) + n; the statistic, the difference of
//    the two deviances, is n log(RSS_Z / RSS_ZX) (computed in this form: no cancellation).
//  * A discrete dependent variable (X, Y both discrete): sklearn's LogisticRegression(
//    solver='newton-cholesky') with its defaults (C = 1, tol = 1e-4, max_iter = 100, an
//    intercept). It minimises the mean loss plus an L2 penalty on the coefficients (not the
//    intercepts) of strength 1/(C·n): (1/n) Σ −log p(yᵢ | xᵢ) + (1/2n)‖W‖². Two classes: one
//    coefficient vector, p(class 1) = expit(xw + b). Three or more: the symmetric
//    multinomial, one coefficient vector and intercept per class, p = softmax(xWᵀ + b), the
//    last class's intercept held at 0 while solving and the intercepts centred at the end. A
//    dependent variable with one level has deviance 0 in both fits. The deviance is
//    2 Σ −log clip(p(yᵢ | xᵢ), ε, 1 − ε) (sklearn's log_loss, ε = 2⁻⁵²) at the coefficients
//    the solver stops at, the statistic the difference.
//  * dof: the number of columns the other variable adds (1 when continuous, else its levels
//    that occur); p = P(χ²_dof > statistic) (scipy's chi2.sf; 1 for a statistic <= 0).
//
// The logistic fits follow scikit-learn 1.9.1's NewtonCholeskySolver step for step, because
// it stops short of the optimum and the deviance, the unpenalised loss at the penalised fit,
// moves to first order with the distance from it (by up to 2.6e-4 relative in the statistic
// and 2.8e-3 in p on the reference cases): from θ = 0, each iteration computes the gradient g
// and Hessian H of the mean objective, the Newton step s = −H⁻¹g, and backtracks t = 1, ½, …,
// 2⁻²⁰ until f(θ + ts) − f(θ) <= t·2⁻¹¹·gᵀs (or, where that change is within 16ε|f|, until
// the gradient's L1 norm decreases); it stops after the first step with max|g(θ + ts)| <= 1e-4
// and ½ sᵀHs <= 1e-4 (H and s of that step), or after 100 steps. Not reproduced: sklearn's
// fallback to L-BFGS-B (a Hessian singular or ill-conditioned below rcond ε/2, a step that is
// not a descent direction, a line search that fails, or, binary, more than a quarter of the
// pointwise Hessian not positive; sklearn warns then), where this solves to the optimum
// instead. LogisticStop::Optimum runs the same Newton steps to the optimum (full steps once
// ½ sᵀHs <= 1e-8 (1/n + |f|), until it is <= 1e-20 (1/n + |f|)). Least squares: centred
// columns scaled to unit norm, Householder QR with column pivoting (columns dependent within
// ε·max(n, k), as a full one-hot set is on the intercept, are left out: the residual is the
// same); the sums over rows of the QR (norms, dot products, the residual's squares) are
// regression_core::lane_sum's (row i on lane i mod 32, as the GPU's warp adds them). The
// logistic fits' exponentials and logarithms (and log1p, built from them) are
// xm::exp and xm::log (core/exact_math.hpp: within 1 ulp of glibc's, and the same bits on a
// GPU); least squares needs none; the entropy, normaltest's K² from its moments,
// n log(RSS_Z / RSS_ZX) and chi2.sf use glibc's functions, on the host in both paths.
//
// Compared with tigramite 5.2.10.1 and scikit-learn 1.9.1 (numpy 2.4.6, scipy 1.17.1) on the
// 40 cases of tests/data/regression_ci/ (scripts/dev/regression_reference.py), the largest
// relative differences:
//   linear fits (18 cases), against tigramite:        statistic 2.9e-11, p-value 7.4e-13
//     (8.8e-11 and 2.3e-12 with the QR's sums in row order, before lane_sum)
//     (tigramite subtracts two deviances of ~1e3 for a statistic of 0.0037; numpy's lstsq in
//     the form n log(RSS_Z / RSS_ZX) differs from tigramite's value by as much, 5.8e-11)
//   logistic fits (22 cases, 44 fits of 2 to 4 Newton steps), against tigramite as it is:
//                                                     statistic 2.0e-13, p-value 1.2e-13
//     (each of the 44 fits stops after as many steps as sklearn's, checked by instrumenting
//     both; the stopping tests closest to tol 1e-4:
//     converged with the larger of max|g| and ½ sᵀHs at 9.55e-5, not converged with it at
//     1.15e-4: far beyond rounding's reach)
//   logistic fits with LogisticStop::Optimum, against tigramite with the logistic fits run to
//   tol 1e-12:                                        statistic 9.4e-13, p-value 2.8e-12
// (with glibc's exp, log and log1p in the logistic fits, as before the GPU batch: 1.4e-13,
// 2.3e-13, 8.3e-13, 2.9e-12.)
// The one statistic of docs/performance.md's 200-query comparison at n = 5,000
// (scripts/bench/mixed_tests_speed.py, seed 1) that differs from tigramite's by 1.2e-6 relative
// (p by 1.1e-9) is query 150, V25 ⟂ V15 | V14, all continuous, so a linear fit: a tiny
// statistic, 6.07e-6 = n log(RSS_Z / RSS_ZX) with RSS_Z / RSS_ZX − 1 = 1.2e-9. Against the
// exact value (the two least-squares problems solved in rationals, the logarithm to 60
// digits: 6.0686644912e-6) cudag is 1.27e-6 off, tigramite 1.2e-7 (its difference of two
// deviances of 14,189, 1.8e-12 apart per ulp) and n log(RSS_Z / RSS_ZX) from sklearn's
// residuals y − Xb summed by numpy 5.8e-9: cudag's two RSS, each the sum of the squared
// trailing entries of Qᵀy after its own pivoted QR, carry first-order rounding of a few ε each
// (here 1.5e-15 relative in their ratio), which n = 5,000 turns into 7.7e-12 absolute in the
// statistic. No stopping rule is involved. The statistic is this sensitive for any
// double-precision method (a few ε / |log(RSS_Z / RSS_ZX)| relative: 1.8e-7 per ε here); a
// residual Σ (y − Xb)² with b from the same QR (first-order insensitive to b's rounding, as
// sklearn's is) would gain about two digits on such cases; not done. Reproduced by
// scripts/dev/regression_small_statistic.py. (All of this measured with the QR's sums in row
// order; with lane_sum's order the same query is still the farthest from tigramite, by 1.2e-7,
// tigramite's own error: cudag's statistic is 5.8e-9 from the exact value, the very double
// n log(RSS_Z / RSS_ZX) from sklearn's residuals gives.)
// tests/unit/ci/test_regression_ci.cpp asserts 1e-9 (linear), 1e-6 (logistic, against
// tigramite as it is) and 1e-10 (LogisticStop::Optimum against the tol 1e-12 run).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ci/ci_test.hpp"
#include "core/dataset.hpp"

namespace cudag::ci {

struct RegressionCiResult {
    double statistic = 0.0;    ///< deviance on Z minus deviance on Z and the other variable
    double p = 1.0;            ///< P(χ²_dof > statistic)
    std::int64_t dof = 0;      ///< columns the other variable adds: 1, or its levels that occur
    std::int64_t rows = 0;     ///< samples used (all of the data's)
    bool x_dependent = false;  ///< X was the dependent variable (else Y)
    bool logistic = false;     ///< the fits were logistic regressions (X and Y discrete)
};

/// Where the logistic fits stop: where scikit-learn 1.9.1's LogisticRegression(solver=
/// 'newton-cholesky') does, at its default tol 1e-4 (tigramite as it is), or at the optimum
/// of the same penalised objective.
enum class LogisticStop { Sklearn, Optimum };

/// tigramite's RegressionCI of x ⟂ y | z on `data` (continuous, discrete or mixed:
/// data.is_discrete(v) gives each variable's type; discrete values are the codes
/// 0..levels[v].size()−1, of which only those that occur are encoded). z: any order, no
/// repeats, neither x nor y. Throws InputError for an index out of range, a value that is
/// not finite, a discrete value that is not one of its variable's codes, or a statistic or
/// p-value that is not finite (a constant dependent variable; the message names x and y).
RegressionCiResult regression_ci(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> z,
                                 LogisticStop stop = LogisticStop::Sklearn);

/// scipy.stats.normaltest's statistic K² (D'Agostino–Pearson: skewtest's z² plus
/// kurtosistest's z²) of `n` values; NaN for n < 8 or a constant column, as scipy.
double normaltest_statistic(const double* values, std::int64_t n);

/// normaltest's K² of n values from their mean and central moments m2, m3, m4 as
/// regression_core::moments forms them (normaltest_statistic's second half: glibc's pow, sqrt
/// and log; host only).
double normaltest_from_moments(std::int64_t n, double mean, double m2, double m3, double m4);

/// tigramite's entropy of a discrete variable, −Σ p log p (numpy's sum, glibc's log), from
/// the counts of its levels in ascending code order (zero counts skipped), n rows in all.
double level_entropy(std::span<const std::int64_t> counts, std::int64_t n);

/// The statistic of a linear test of n rows from the two residual sums of squares:
/// n log(RSS_Z / RSS_ZX) (glibc's log; host only).
double linear_statistic(std::int64_t n, double rss_z, double rss_zx);

/// RegressionCI behind the CiTest interface ("regression"); the data are referenced, not
/// copied, and must outlive the test. extra: {"dof", ...}.
class RegressionCiTest final : public CiTest {
public:
    explicit RegressionCiTest(const Dataset& data) : data_(data) {}
    std::string name() const override { return "regression"; }
    CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override;
    std::vector<std::string> digest() const override { return {"regression"}; }

private:
    const Dataset& data_;
};

}  // namespace cudag::ci
