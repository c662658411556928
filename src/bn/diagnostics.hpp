// SPDX-License-Identifier: Apache-2.0
// Convergence diagnostics for MCMC chains (issue 21: order MCMC): the Gelman–Rubin potential
// scale reduction factor (PSRF) of a scalar, from the draws or from per-chain moments, the
// multi-chain effective sample size, and the per-edge PSRF summary that order MCMC can
// compute from per-chain sums without storing n × n traces.
//
// Notation: m chains of L draws each; chain j has mean x̄_j and sample variance
// s_j² = Σ_i (x_ij - x̄_j)² / (L - 1).
//   W = (1/m) Σ_j s_j²                         (within-chain variance)
//   B/L = Σ_j (x̄_j - x̄)² / (m - 1), x̄ = (1/m) Σ_j x̄_j   (between-chain variance over L)
//   V̂ = (L - 1)/L · W + B/L
//   PSRF = sqrt(V̂ / W)
// This is the point estimate of Gelman et al., BDA3 §11.4 (Stan's non-split R̂): no
// (m + 1)/m factor on B and no degrees-of-freedom correction. R coda's gelman.diag point
// estimate is larger: sqrt((d + 3)/(d + 1) · ((L - 1)/L + (1 + 1/m) B/(L W))), d the
// estimated degrees of freedom of V̂.
//
// Every function is deterministic: sums run in a fixed order (chains by index, draws by
// position), with no threads.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace cudag::bn {

/// Count, mean and M2 = Σ (x - mean)² of one chain's draws of a scalar.
struct ChainMoments {
    std::int64_t count = 0;
    double mean = 0.0;
    double m2 = 0.0;

    /// Adds one draw (Welford's update).
    void push(double x);
};

/// The moments of `count` draws whose sum is `sum` and sum of squares `sumsq`:
/// mean = sum / count, M2 = sumsq - sum · mean. That difference cancels when the draws vary
/// little around a large mean; an M2 within the worst-case rounding error of naively summed
/// sums, 3 · count · ε · sumsq (ε the double epsilon), or below it counts as exactly 0, so
/// that a chain whose draws are all equal has M2 0. count 0 gives all zeros. InputError when
/// count < 0.
ChainMoments moments_from_sums(std::int64_t count, double sum, double sumsq);

/// PSRF (formula above) of one scalar over m chains of equal length L (chains[j] = chain j's
/// draws in order). 1.0 when W = 0 and all chain means are equal (every draw the same);
/// +infinity when W = 0 but the means differ; NaN when m < 2 or L < 2. InputError when the
/// chains differ in length.
double psrf(const std::vector<std::vector<double>>& chains);

/// The same estimate from per-chain moments (chain j's sample variance is m2 / (count - 1)):
/// equal to psrf() on the same draws up to rounding. Same edge cases; InputError when the
/// counts differ or one is negative.
double psrf_from_moments(std::span<const ChainMoments> chains);

/// Effective sample size of one scalar over m chains of equal length L (BDA3 §11.5, as in
/// Stan, without splitting chains):
///   γ_j(t) = (1/L) Σ_{i < L-t} (x_ij - x̄_j)(x_{i+t,j} - x̄_j)   (chain j's autocovariance)
///   ρ_t = 1 - (γ̄(0) - γ̄(t)) / V̂,   γ̄(t) = (1/m) Σ_j γ_j(t),   V̂ = γ̄(0) + B/L
/// (this V̂ is the PSRF's V̂, since (L - 1)/L · W = γ̄(0)). Stan subtracts W instead of γ̄(0),
/// which shifts every ρ_t by W/(L V̂); with γ̄(0), ρ_0 = 1 and one chain gives the usual
/// ρ_t = γ(t)/γ(0). The lags are truncated by Geyer's initial positive sequence: with
/// Γ_k = ρ_{2k} + ρ_{2k+1} for 2k + 1 <= L - 1 and K the first k with Γ_k <= 0 (or the number
/// of pairs when none is),
///   τ = -1 + 2 Σ_{k < K} Γ_k,   ESS = m L / max(τ, 1 / log10(m L))
/// (the floor is Stan's; it caps the ESS of antithetic chains at m L log10(m L)). No
/// monotone-sequence step. For one chain this is the single-chain Geyer initial-positive-
/// sequence estimator. NaN when m < 1, L < 2 or every draw is the same (V̂ = 0).
/// The γ̄(t) come from a zero-padded radix-2 FFT (autocovariance by Wiener–Khinchin, as Stan
/// computes it): cost O(m N log N), N the power of two >= 2L, memory about 40 N bytes; the
/// estimator is unchanged (the direct sums it replaced cost O(m L) per lag, quadratic when
/// the truncation lag nears L) and agrees with them to rounding (relative ~1e-13). It is
/// Geyer's/Stan's estimator as before, not coda's effectiveSize, which divides by an AR
/// model's spectral density at frequency 0 (spectrum0.ar) and gives a similar but not equal
/// number. InputError when the chains differ in length.
double effective_sample_size(const std::vector<std::vector<double>>& chains);

/// Per-edge PSRF summary of an order-MCMC run.
struct EdgeConvergence {
    double max_psrf = 0.0;              ///< largest PSRF over the counted edges (+inf possible)
    double fraction_above = 0.0;        ///< fraction of the counted edges with PSRF > threshold
    std::int64_t edges_counted = 0;     ///< edges p != v not constant over every chain and iteration
    double max_chain_difference = 0.0;  ///< max over edges p != v of (max - min over chains of the chain mean)
};

/// Edge convergence from per-chain sums: per_chain_sum[c * n*n + p*n + v] is chain c's sum,
/// over its kept_per_chain kept iterations, of the per-iteration value of edge p --> v
/// (P(p --> v | current order) in sum mode), per_chain_sumsq the same for the squares.
/// Diagonal entries (p == v) are ignored. Each chain's moments come from moments_from_sums.
/// An edge is constant when every chain has M2 = 0 and the same mean; constant edges (e.g.
/// always 0) are skipped, as BiDAG does, and the others counted. For a counted edge the PSRF
/// is psrf_from_moments over the chains.
///   chains >= 2, kept_per_chain >= 2: max_psrf and fraction_above over the counted edges,
///     both NaN when none is counted.
///   chains == 1 or kept_per_chain == 1: max_psrf and fraction_above NaN (no PSRF);
///     edges_counted still counts the non-constant edges.
///   kept_per_chain == 0: max_psrf, fraction_above and max_chain_difference NaN, edges_counted 0.
/// With one chain max_chain_difference is 0. InputError when chains < 1, n < 0,
/// kept_per_chain < 0, the spans are not chains · n · n long, or threshold is NaN.
EdgeConvergence edge_convergence(std::span<const double> per_chain_sum, std::span<const double> per_chain_sumsq,
                                 int chains, std::int64_t kept_per_chain, std::int64_t n, double threshold = 1.1);

}  // namespace cudag::bn
