// SPDX-License-Identifier: Apache-2.0
// tigramite's ParCorr test on raw arrays (ParCorr.run_test_raw with significance
// 'analytic', tigramite 5.2): the partial correlation of X and Y given Z as the Pearson
// correlation of their least-squares residuals on Z, and its two-sided Student-t p-value.
// The Python face is cudag.compat.tigramite.ParCorr; docs/python.md tells the rules.
#pragma once

#include <cstdint>
#include <vector>

namespace cudag::ci {

struct ParCorrResult {
    double value = 0.0;                   ///< partial correlation; NaN where X's or Y's values are all equal
    double p_value = 0.0;                 ///< two-sided Student-t p-value; NaN where df < 1 or value is NaN
    std::int64_t degrees_of_freedom = 0;  ///< T − dim
};

/// ParCorr on `values`, row-major T x dim: column 0 is X, column 1 is Y, columns 2..dim−1
/// are Z (dim >= 2). As tigramite: every column is standardised (mean 0, population
/// standard deviation 1; a column of equal values is left at 0), X and Y are regressed on
/// Z by least squares (Householder QR with column pivoting; columns dependent on earlier
/// ones within eps·max(T, dim_z) of the largest, as numpy.linalg.lstsq's rcond=None, are
/// left out, which leaves the residual, a projection, the same), the value is
/// scipy.stats.pearsonr of the two residuals (NaN where one of X, Y is constant; rounded
/// to ±1 at T = 2), and the p-value is parcorr_p_value(value, T, dim).
/// Throws InputError for dim < 2, T < 2 or a value that is not finite.
ParCorrResult parcorr(const double* values, std::int64_t t, int dim);

/// tigramite's ParCorr.get_analytic_significance: df = T − dim; NaN where df < 1; 0 where
/// ||value| − 1| <= DBL_MIN; else 2 P(T_df > |value| √(df / (1 − value²))) (ci/student_t.hpp).
double parcorr_p_value(double value, std::int64_t t, int dim);

/// tigramite's ParCorr._get_single_residuals: column `target` (0: X, 1: Y) of `values`
/// (row-major T x dim, Z in columns 2..dim−1) regressed on Z by least squares without an
/// intercept (as residualise in parcorr), after standardising every column when
/// `standardize` (a constant column left at 0). `fitted` is the target as regressed
/// (standardised or not) less `residual`; with no Z the residual is the target and `fitted`
/// is empty (tigramite's None).
struct ParCorrResiduals {
    std::vector<double> residual;
    std::vector<double> fitted;
};
ParCorrResiduals parcorr_residuals(const double* values, std::int64_t t, int dim, int target, bool standardize);

/// The row order of tigramite's block shuffle (CondIndTest._get_shuffle_dist) for T rows and
/// block length L (1 <= L <= T): the floor(T/L) blocks starting at 0, L, 2L, ... in a random
/// order, then the tail (the last T mod L rows, in order) inserted before the block at a
/// random position k·L, 0 <= k < floor(T/L). Drawn from CounterRng keyed by `seed`, stream
/// (a shuffle tag + `replicate`): a pure function of its arguments (not NumPy's stream).
std::vector<std::int64_t> block_shuffle_order(std::int64_t t, std::int64_t blocklength, std::uint64_t seed,
                                              std::int64_t replicate);

/// The rows of tigramite's block bootstrap (CondIndTest.get_bootstrap_confidence) for T rows
/// and block length L (1 <= L <= T): ceil(T/L) block starts drawn uniformly in [0, T − L],
/// each followed by its L rows, cut to T rows. CounterRng keyed by `seed`, stream (a
/// bootstrap tag + `replicate`).
std::vector<std::int64_t> block_bootstrap_rows(std::int64_t t, std::int64_t blocklength, std::uint64_t seed,
                                               std::int64_t replicate);

/// tigramite's ParCorr shuffle null distribution on residuals x and y (T values each): for
/// replicate r = 0..samples−1, the Pearson correlation of x in block_shuffle_order(T, L,
/// seed, r) with y (scipy.stats.pearsonr's, as parcorr's value). NaN where x or y is constant.
std::vector<double> parcorr_shuffle_null(const double* x, const double* y, std::int64_t t, std::int64_t samples,
                                         std::int64_t blocklength, std::uint64_t seed);

/// The block bootstrap distribution of parcorr's value on `values` (row-major T x dim): for
/// replicate r = 0..samples−1, parcorr on the rows block_bootstrap_rows(T, L, seed, r), in
/// replicate order (unsorted; NaN where a replicate leaves X or Y constant).
std::vector<double> parcorr_bootstrap(const double* values, std::int64_t t, int dim, std::int64_t samples,
                                      std::int64_t blocklength, std::uint64_t seed);

}  // namespace cudag::ci
