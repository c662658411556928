// SPDX-License-Identifier: Apache-2.0
// Contingency-table CI tests for discrete data: Pearson χ² (gpuPC, Hagedorn & Huegle
// SDM'21 §2.3; shared/seeds/DIGEST.md §3.3) and G², with the degrees-of-freedom rules of
// gpuPC, pcalg (gSquareDis) and causal-learn (cit.py Chisq_or_Gsq). Shared by the CPU
// engine and the CUDA kernels.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/hd.hpp"

namespace cudag::ci {

/// The statistic summed over the cells of the table N[s][x][y].
enum class DiscreteStat : int {
    ChiSquare = 0,  ///< Σ (N − E)² / E, cells with E = 0 contribute 0 (gpuPC)
    GSquare = 1,    ///< 2 Σ N ln(N / E), cells with N = 0 contribute 0
};

/// How the degrees of freedom of X ⟂ Y | S are counted (rx, ry: levels of X and Y
/// in the whole data set; |S|: product of the levels of the variables in S).
enum class DofRule : int {
    /// gpuPC: (rx − 1)(ry − 1)|S|, unadjusted, no small-sample rule.
    Gpupc = 0,
    /// pcalg gSquareDis (adaptDF = FALSE): the same df, and n < 10·df gives p = 1
    /// ("too few samples, treated as independence").
    Pcalg = 1,
    /// causal-learn: Σ over strata s with N₊₊s > 0 of (r_x,s − 1)(r_y,s − 1), where
    /// r_x,s and r_y,s count the levels of X and Y seen in stratum s; df = 0 gives p = 1.
    CausalLearn = 2,
    /// bnlearn's mi-adf / x2-adf: causal-learn's df over the strata (bnlearn counts the levels
    /// of X and Y with a non-zero margin in each stratum), and fewer than 5 samples per cell
    /// (n < 5·rx·ry·|S|, declared levels) leave the test independent with statistic 0.
    BnlearnAdf = 3,
    /// pcalg's gSquareDis / gSquareBin with adaptDF = TRUE: pcalg's rule (n < 10·df, df
    /// unadjusted, gives p = 1), and for |S| > 0 the df lowered by one for each zero count:
    /// max(1, df − zeros), zeros = the table's empty cells (rx·ry·|S| − cells with a row)
    /// + 4·(2^|S| − |S| levels), pcalg's count (its second term is 0 for binary S).
    PcalgAdaptDf = 4,
};

/// Expected count of a cell: E = N_x+s · N_+ys / N_++s (DIGEST.md §3.3, file 004).
CUDAG_HD inline double expected_count(double nx, double ny, double ns) { return nx * ny / ns; }

/// One cell's contribution to the statistic (observed n, expected e).
CUDAG_HD inline double cell_term(DiscreteStat stat, double n, double e) {
    if (stat == DiscreteStat::ChiSquare) return e > 0.0 ? (n - e) * (n - e) / e : 0.0;
    return n > 0.0 ? 2.0 * n * log(n / e) : 0.0;
}

/// Regularised upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), a > 0.
/// x < a + 1: 1 − P(a, x) from the power series of P; otherwise the continued fraction
/// of Q evaluated by the modified Lentz method. Relative accuracy about 1e-14 for
/// moderate a; both expansions need O(√a) terms near x ≈ a.
CUDAG_HD inline double gamma_q(double a, double x) {
    if (!(x > 0.0)) return 1.0;
    const double eps = 1e-16;
    const double tiny = 1e-300;
    const int max_iter = 1 << 22;
    const double log_front = a * log(x) - x - lgamma(a);
    if (x < a + 1.0) {
        double ap = a;
        double term = 1.0 / a;
        double sum = term;
        for (int k = 0; k < max_iter; ++k) {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if (fabs(term) < fabs(sum) * eps) break;
        }
        const double p = sum * exp(log_front);
        return p >= 1.0 ? 0.0 : 1.0 - p;
    }
    double b = x + 1.0 - a;
    double c = 1.0 / tiny;
    double d = 1.0 / b;
    double h = d;
    for (int k = 1; k < max_iter; ++k) {
        const double an = -k * (k - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        const double delta = d * c;
        h *= delta;
        if (fabs(delta - 1.0) < eps) break;
    }
    return exp(log_front) * h;
}

/// Survival function of the χ² distribution with df degrees of freedom (df > 0):
/// P(χ²_df > stat) = Q(df / 2, stat / 2).
CUDAG_HD inline double chi2_sf(double stat, double df) { return gamma_q(0.5 * df, 0.5 * stat); }

/// What a test's p-value needs besides its statistic (a test of X ⟂ Y | S on n samples).
struct DiscreteTable {
    double df_full = 0.0;  ///< (rx − 1)(ry − 1)|S|
    double df_seen = 0.0;  ///< the causal-learn sum over non-empty strata
    double cells = 0.0;    ///< rx·ry·|S| (declared levels)
    double nonzero = 0.0;  ///< the cells some sample falls in
    double prod_s = 1.0;   ///< |S|: the product of S's levels
    int l = 0;             ///< the number of variables in S
    std::int64_t n = 0;    ///< samples
};

/// bnlearn's small-sample rule of mi-adf / x2-adf: fewer than 5 samples per cell of the
/// rx·ry·|S| table (declared levels) make the test independent, statistic 0.
CUDAG_HD inline bool discrete_too_few(DofRule rule, const DiscreteTable& t) {
    return rule == DofRule::BnlearnAdf && static_cast<double>(t.n) < 5.0 * t.cells;
}

/// The statistic a test reports: its sum, or 0 where discrete_too_few (bnlearn's).
CUDAG_HD inline double discrete_statistic(DofRule rule, double sum, const DiscreteTable& t) {
    return discrete_too_few(rule, t) ? 0.0 : sum;
}

/// The degrees of freedom of a test under `rule` (see DofRule).
CUDAG_HD inline double discrete_dof(DofRule rule, const DiscreteTable& t) {
    switch (rule) {
        case DofRule::CausalLearn:
        case DofRule::BnlearnAdf:
            return t.df_seen;
        case DofRule::PcalgAdaptDf: {
            if (t.l == 0) return t.df_full;
            const double zeros = (t.cells - t.nonzero) + 4.0 * (ldexp(1.0, t.l) - t.prod_s);
            return fmax(t.df_full - zeros, 1.0);
        }
        default:
            return t.df_full;
    }
}

/// p-value of a test from its statistic and its table's summary. See DofRule.
CUDAG_HD inline double discrete_pvalue(DofRule rule, double stat, const DiscreteTable& t) {
    switch (rule) {
        case DofRule::Gpupc:
            return chi2_sf(stat, t.df_full);
        case DofRule::Pcalg:
        case DofRule::PcalgAdaptDf:
            return static_cast<double>(t.n) < 10.0 * t.df_full ? 1.0 : chi2_sf(stat, discrete_dof(rule, t));
        case DofRule::CausalLearn:
            return t.df_seen <= 0.0 ? 1.0 : chi2_sf(stat, t.df_seen);
        case DofRule::BnlearnAdf:
            // df 0: every stratum holds one level of X or of Y, so the statistic is 0 and
            // R's pchisq(0, 0, lower.tail = FALSE) is 1.
            return discrete_too_few(rule, t) || t.df_seen <= 0.0 ? 1.0 : chi2_sf(stat, t.df_seen);
    }
    return 1.0;
}

/// Statistic and causal-learn df of one stratum held as a dense rx × ry table
/// `n` (row-major, N[x][y]) with its marginals nx (rx), ny (ry) and total ns > 0.
CUDAG_HD inline void dense_stratum(DiscreteStat stat, const std::uint32_t* n, const std::uint32_t* nx,
                                   const std::uint32_t* ny, std::uint32_t ns, int rx, int ry, double& sum,
                                   double& df_seen) {
    int seen_x = 0;
    int seen_y = 0;
    for (int x = 0; x < rx; ++x) seen_x += nx[x] > 0;
    for (int y = 0; y < ry; ++y) seen_y += ny[y] > 0;
    df_seen += static_cast<double>(seen_x - 1) * (seen_y - 1);
    const double dns = static_cast<double>(ns);
    for (int x = 0; x < rx; ++x) {
        if (nx[x] == 0) continue;
        for (int y = 0; y < ry; ++y) {
            if (ny[y] == 0) continue;
            const double e = expected_count(nx[x], ny[y], dns);
            sum += cell_term(stat, n[x * ry + y], e);
        }
    }
}

}  // namespace cudag::ci
