// SPDX-License-Identifier: Apache-2.0
// The conditional-Gaussian BIC ("cg-bic") of mixed, all-continuous or all-discrete data:
// Andrews, Ramsey & Cooper (2018), "Scoring Bayesian networks of mixed variables" (Int. J.
// Data Sci. Anal. 6, 3-18), §3-4, the score of Tetrad's ConditionalGaussianScore without its
// discretisation of continuous parents of a discrete child. The continuous variables of a set
// are jointly Gaussian given each configuration of its discrete ones, so the score is
// decomposable and order MCMC tabulates it as any other local score.
//
// With L(A) the maximised log-likelihood of a set A of variables over the N rows used,
//   L(A) = Σ_s n_s log(n_s / N) − Σ_s (n_s / 2) (log det Σ_s + p_A (1 + log 2π)),
// s over the configurations of A's discrete variables that occur (n_s rows each), Σ_s the
// maximum-likelihood (divided by n_s) covariance of A's p_A continuous variables in stratum s,
// and k(A) = F_A (p_A + p_A (p_A + 1) / 2) + F_A − 1 its parameter count (F_A the product of
// A's discrete variables' level counts), the local score of node v with parents P is
//   L({v} ∪ P) − L(P) − (log N_all / 2) (k({v} ∪ P) − k(P)).
// The likelihood and the count are those of the cg-lrt test (ci/cg_lrt.hpp), with its
// arithmetic (ci/cg_lrt_core.hpp: sums and cross-products per stratum less its first row,
// Cholesky of the covariance, set_dof); N log N and p (1 + log 2π) are left out where they
// cancel, so L({v} ∪ P) − L(P) is computed as
//   (Σ_F n log n − Σ_P n log n) − (Σ_F n log det − Σ_P n log det)/2 − [v continuous] N (1 + log 2π)/2.
// What that gives: a continuous v is scored by its Gaussian linear regression on the
// continuous parents within each configuration of the discrete parents (k difference
// F_P (p_P + 2): intercept, slopes, variance); a discrete v by its multinomial given the
// discrete parents times the Gaussian of the continuous parents given v and the discrete
// parents, against that of the continuous parents given the discrete ones (k difference
// F_P (r − 1)(1 + p_P (p_P + 3) / 2)). All-continuous data: the Gaussian BIC of the linear
// regression of v on P, −(N/2)(log 2π + log(RSS/N) + 1) − (log N / 2)(|P| + 2). All-discrete
// data: the multinomial BIC with F_P (r − 1) parameters, F_P the product of the parents' level
// counts whether or not each configuration occurs: bnlearn's `bic` (and pgmpy's BIC).
//
// Level counts: a discrete variable's levels that occur in the data (all rows), as pgmpy's
// BICCondGauss counts them (a level no row has, e.g. after --missing listwise, does not
// count); or its declared levels (CgBicScorer's declared_levels: bnlearn's count for a
// factor's levels, used or not; the R face).
//
// Too-small strata (the cg-lrt test's rule, ci/cg_lrt.hpp): a stratum of n rows has a
// singular maximum-likelihood covariance of p variables whenever n <= p, and an unbounded
// likelihood. The rows whose configuration of the family's discrete variables ({v} ∪ P's)
// occurs in at most p_F rows (p_F: the family's continuous variables) are left out of both
// L({v} ∪ P) and L(P) (so every stratum of both sets has more rows than variables); no row is
// left out of all-discrete families, nor of families without a discrete variable when N >
// p_F. The penalty keeps log N_all, N_all the data's rows, for every family: families compare
// on the same penalty scale. (Tetrad falls back to another covariance in small cells and pgmpy
// to the identity, both of which depend on the variables' scales; leaving the rows out keeps
// the score's differences invariant to each column's scale, as the cg-lrt statistic is.)
//
// Singular covariance in a stratum that is large enough (a constant or collinear continuous
// variables given a configuration of the discrete ones): the likelihood is unbounded; an
// InputError naming the node, its parents and the stratum (as cg-lrt). Singular: a Cholesky
// pivot at or below 1e-10 of its diagonal entry, or a zero variance (cg_lrt_core::kSingular).
//
// Determinism (the GPU table, kernels/bn_table_kernels.cu, gives the same bits): parents in
// increasing order; a family's stratum key is the mixed-radix number of its discrete parents'
// codes (increasing ids, the first most significant, radix each one's declared level count),
// times v's declared level count plus v's code when v is discrete; P's key is the family's
// divided by that count. Each stratum's count, sums and cross-products are accumulated in row
// order (values less the stratum's first row used); strata are summed in increasing key
// order; every log is xm::log (core/exact_math.hpp), sqrt correctly rounded, no FMA.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bn/score.hpp"
#include "ci/cg_lrt_core.hpp"
#include "core/dataset.hpp"
#include "core/exact_math.hpp"
#include "core/hd.hpp"

namespace cudag::bn {

/// The most continuous variables of a family (v and its parents) cg-bic scores.
inline constexpr int kCgMaxContinuous = 32;
/// Fewest rows cg-bic scores (InputError below).
inline constexpr std::int64_t kCgMinSamples = 2;

/// Doubles of one stratum's record for p continuous variables: count, first row, sums (p),
/// cross-products (lower triangle).
CUDAG_HD constexpr int cg_record_doubles(int p) { return 2 + p + ci::cg_lrt_core::triangle(p); }

/// Adds row `row` to stratum record `rec` (cg_record_doubles(p), zero before its first row):
/// the values of the p continuous variables cont[] (columns of `values`, variable-major with
/// `n_samples` rows), less those of the stratum's first row.
CUDAG_HD inline void cg_record_add(double* rec, int p, const double* values, std::int64_t n_samples,
                                   const std::int32_t* cont, std::int64_t row) {
    if (rec[0] == 0.0) rec[1] = static_cast<double>(row);
    rec[0] += 1.0;
    const auto first = static_cast<std::int64_t>(rec[1]);
    double dev[kCgMaxContinuous];
    for (int a = 0; a < p; ++a) {
        const double* col = values + static_cast<std::int64_t>(cont[a]) * n_samples;
        dev[a] = col[row] - col[first];
    }
    ci::cg_lrt_core::add_row(dev, p, rec + 2, rec + 2 + p);
}

/// Adds a stratum's terms (record `rec` of n >= 1 rows): *mult += n log n and, for p > 0,
/// *gauss += n log det Σ. `l` holds triangle(p), `roots` p doubles. Returns false (adding no
/// Gaussian term) when Σ is singular.
CUDAG_HD inline bool cg_record_terms(const double* rec, int p, double* l, double* roots, double* mult, double* gauss) {
    const double n = rec[0];
    *mult += n * xm::log(n);
    if (p == 0) return true;
    if (ci::cg_lrt_core::cholesky_roots(n, rec + 2, rec + 2 + p, p, l, roots) >= 0) return false;
    *gauss += n * ci::cg_lrt_core::log_det_exact(roots, p);
    return true;
}

/// The local score from the two sets' terms: family F = {v} ∪ P (mult_f, gauss_f) and P
/// (mult_p, gauss_p) over n_kept rows, v continuous or not, k_diff = k(F) − k(P),
/// half_log_n = xm::log(N_all) / 2, one_log_2pi = 1 + xm::log(2π).
CUDAG_HD inline double cg_bic_combine(double mult_f, double gauss_f, double mult_p, double gauss_p, double n_kept,
                                      bool cont_child, double k_diff, double half_log_n, double one_log_2pi) {
    double ll = (mult_f - mult_p) - 0.5 * (gauss_f - gauss_p);
    if (cont_child) ll -= 0.5 * n_kept * one_log_2pi;
    return ll - half_log_n * k_diff;
}

/// k(F) − k(P) (ci::cg_lrt_core::set_dof): f_p the product of P's discrete level counts (in
/// increasing id order), r v's level count (1 for a continuous v), p_p P's continuous
/// variables.
CUDAG_HD inline double cg_bic_k_diff(double f_p, double r, int p_p, bool cont_child) {
    return ci::cg_lrt_core::set_dof(f_p * r, p_p + (cont_child ? 1 : 0)) - ci::cg_lrt_core::set_dof(f_p, p_p);
}

/// cg-bic local and DAG scores of a Dataset (mixed, all continuous or all discrete; no
/// missing cell). Holds a copy of the data.
class CgBicScorer final : public LocalScorer {
public:
    /// Throws InputError for fewer than kCgMinSamples rows or a value that is not finite (a
    /// continuous variable) or not one of its levels' codes (a discrete one). With
    /// `declared_levels` a discrete variable's level count is its declared one (every entry of
    /// Dataset::levels, bnlearn's count for a factor) instead of the levels that occur.
    explicit CgBicScorer(Dataset data, bool declared_levels = false);

    std::int64_t n_vars() const override { return data_.n_vars; }
    /// Throws InputError for a singular stratum covariance (naming v, its parents and the
    /// stratum), more than kCgMaxContinuous continuous variables in the family, or a score
    /// that is not finite.
    double local(std::int32_t node, std::span<const std::int32_t> parents) const override;

    const Dataset& data() const { return data_; }
    /// Each variable's declared level count (0 for a continuous one): the keys' radices.
    const std::vector<std::int32_t>& radix() const { return radix_; }
    /// Each variable's observed level count as a double (1 for a continuous one; the declared
    /// count under declared_levels): F's factors.
    const std::vector<double>& observed() const { return observed_; }
    double half_log_n() const { return half_log_n_; }
    double one_log_2pi() const { return one_log_2pi_; }

private:
    Dataset data_;
    std::vector<std::int32_t> radix_;
    std::vector<double> observed_;
    double half_log_n_ = 0.0, one_log_2pi_ = 0.0;
};

}  // namespace cudag::bn
