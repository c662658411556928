// SPDX-License-Identifier: Apache-2.0
// tigramite's ParCorr test on raw arrays (ParCorr.run_test_raw with significance
// 'analytic', tigramite 5.2): the partial correlation of X and Y given Z as the Pearson
// correlation of their least-squares residuals on Z, and its two-sided Student-t p-value.
// The Python face is cudag.compat.tigramite.ParCorr; docs/python.md tells the rules.
#pragma once

#include <cstdint>

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

}  // namespace cudag::ci
