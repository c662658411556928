// SPDX-License-Identifier: Apache-2.0
// The conditional-Gaussian likelihood-ratio test ("cg-lrt") of x ⟂ y | S on mixed,
// all-continuous or all-discrete data: Andrews, Ramsey & Cooper (2018), "Scoring Bayesian
// networks of mixed variables" (Int. J. Data Sci. Anal. 6, 3-18), §3, as Tetrad's
// IndTestConditionalGaussianLrt uses ConditionalGaussianLikelihood (the LRT only; Tetrad's
// discretisation of continuous parents of a discrete child is not done: its `discretize`
// off). The continuous variables are jointly Gaussian given each configuration of the
// discrete ones.
//
// For a set J of the test's variables (continuous C_J, p_J = |C_J|; discrete D_J) the
// maximised log-likelihood over the rows used (N of them) is
//   L(J) = Σ_s n_s log(n_s / N) − Σ_s (n_s / 2) (log det Σ_s + p_J (1 + log 2π)),
// s over the configurations of D_J that occur (n_s rows each; an absent configuration adds
// nothing), Σ_s the maximum-likelihood (divided by n_s) covariance of C_J in stratum s. The
// statistic is, as Tetrad's L(y | x ∪ S) − L(y | S) with L(i | P) = L({i} ∪ P) − L(P),
//   G = 2 (L(x y S) − L(x S) − L(y S) + L(S)),
// computed without the N log N and p_J (1 + log 2π) terms, which cancel exactly (each of
// the four sets' strata hold the same N rows, and p_xyS − p_xS − p_yS + p_S = 0).
//
// Degrees of freedom: as the paper and Tetrad (2025) count parameters, a set J has
// dof(J) = F_J (p_J + p_J (p_J + 1) / 2) + F_J − 1, F_J the product over D_J of each
// variable's number of levels; dof = dof(xyS) − dof(xS) − dof(yS) + dof(S). With F_S over
// S's discrete variables and k = |continuous of S|: x, y continuous: F_S; one of them
// discrete with r levels: (r − 1)(k + 2) F_S; both discrete: (r_x − 1)(r_y − 1)(1 + k(k + 3)/2) F_S
// (all-discrete data: the textbook G² dof (r_x − 1)(r_y − 1) F_S). Tetrad counts the levels a
// variable declares; here a variable's levels are those that occur among the rows used (a
// level absent from a sub-dataset does not count). A configuration of observed levels that
// does not occur still counts in F (as Tetrad; not causal-learn's per-stratum adjustment).
//
// Too-small strata (a stratum of n rows has a singular maximum-likelihood covariance of p
// variables whenever n <= p): the rows whose configuration of *all* the test's discrete
// variables occurs in at most k_all rows (k_all: the test's continuous variables among x, y,
// S) are left out of the test, of all four likelihoods alike; then every stratum of every set
// has n_s > p_J. (Tetrad drops, per likelihood, each cell of fewer than max(4, p) rows and
// renormalises N; dropping the same rows from the four keeps the statistic invariant to the
// scale of each continuous variable.) All-discrete data lose no row. rows = N, the rows kept.
//
// Singular covariance in a stratum that is large enough (collinear continuous variables, or
// one constant, given a configuration of the discrete ones): the likelihood is unbounded, and
// Tetrad (2025: |det| < 1e-12) makes the test's likelihood NaN; here that is an InputError
// naming the variables and the stratum's size. Singular means a Cholesky pivot of Σ_s at or
// below 1e-10 times its diagonal entry (one minus the R² of that variable on the ones before it
// in the stratum), or a zero variance.
//
// p = P(χ²_dof > G) (ci/discrete_test.hpp chi2_sf); p = 1 where dof <= 0 (a discrete x or
// y with one observed level; Tetrad gives NaN) or no row is left (N = 0). Tetrad uses
// bias-corrected (n − 1) covariances with the MLE's constant; the paper's, used here, is the
// MLE (n), with which L is the maximised log-likelihood.
//
// Determinism (for a GPU port to reproduce bit for bit): S is sorted and x < y swapped in,
// so the answer does not depend on their order; each set's per-stratum sufficient statistics
// (count, sums and cross-products of the values less the stratum's first row) are accumulated
// in row order in one pass; strata are numbered by first occurrence and summed in that order;
// log det by Cholesky. No threads, no reductions of unspecified order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ci/ci_test.hpp"
#include "core/dataset.hpp"

namespace cudag::ci {

struct CgLrtResult {
    double statistic = 0.0;  ///< G = 2 (L(xyS) − L(xS) − L(yS) + L(S)); may be ≤ 0 by rounding
    double dof = 0.0;        ///< parameter-count difference (an integer, held as double)
    double p = 1.0;          ///< P(χ²_dof > G); 1 where dof <= 0 or rows == 0
    std::int64_t rows = 0;   ///< rows used (those of strata large enough, see above)
};

/// The cg-lrt test of x ⟂ y | s on `data` (all its rows; no NaN: a caller with missing values
/// passes a sub-dataset). x, y, s: distinct variable indices; s in any order. A discrete
/// variable's codes may leave levels out. Throws InputError for a singular stratum covariance
/// or a statistic that is not finite, naming the variables.
CgLrtResult cg_lrt(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> s);

/// cg_lrt behind the CiTest interface: name "cg-lrt", extra {"dof", "rows"} (%.17g / integer).
/// Holds a reference to `data`, which must outlive it.
class CgLrtTest final : public CiTest {
public:
    explicit CgLrtTest(const Dataset& data) : data_(data) {}
    std::string name() const override { return "cg-lrt"; }
    CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override;
    std::vector<std::string> digest() const override { return {"cg-lrt"}; }

private:
    const Dataset& data_;
};

}  // namespace cudag::ci
