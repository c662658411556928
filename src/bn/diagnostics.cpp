// SPDX-License-Identifier: Apache-2.0
#include "bn/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <string>

#include "core/error.hpp"

namespace cudag::bn {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The common length of the chains; InputError naming `what` when they differ.
std::size_t common_length(const std::vector<std::vector<double>>& chains, const char* what) {
    const std::size_t len = chains.empty() ? 0 : chains.front().size();
    for (std::size_t j = 1; j < chains.size(); ++j)
        CUDAG_EXPECTS(chains[j].size() == len, std::string(what) + ": chain " + std::to_string(j) + " has " +
                                                   std::to_string(chains[j].size()) + " draws, chain 0 has " +
                                                   std::to_string(len));
    return len;
}

/// Exact moments of a chain by two passes; a chain of equal draws gets its draw as mean
/// and M2 0 exactly (a summed mean may round away from it).
ChainMoments two_pass_moments(const std::vector<double>& x) {
    ChainMoments r;
    r.count = static_cast<std::int64_t>(x.size());
    if (x.empty()) return r;
    if (std::all_of(x.begin(), x.end(), [&](double v) { return v == x.front(); })) {
        r.mean = x.front();
        return r;
    }
    double s = 0.0;
    for (const double v : x) s += v;
    r.mean = s / static_cast<double>(x.size());
    for (const double v : x) r.m2 += (v - r.mean) * (v - r.mean);
    return r;
}

/// B/L: the variance (divisor m - 1) of the chain means; 0 for one chain.
double between_over_length(std::span<const ChainMoments> chains) {
    const std::size_t m = chains.size();
    if (m < 2) return 0.0;
    double grand = 0.0;
    for (const auto& c : chains) grand += c.mean;
    grand /= static_cast<double>(m);
    double b = 0.0;
    for (const auto& c : chains) b += (c.mean - grand) * (c.mean - grand);
    return b / static_cast<double>(m - 1);
}

/// PSRF of chains already checked to have the same count L >= 2, m >= 2 of them.
double psrf_core(std::span<const ChainMoments> chains) {
    const auto m = static_cast<double>(chains.size());
    const auto len = static_cast<double>(chains.front().count);
    double w = 0.0;
    for (const auto& c : chains) w += c.m2 / (len - 1.0);
    w /= m;
    if (w == 0.0) {
        const bool same = std::all_of(chains.begin(), chains.end(),
                                      [&](const ChainMoments& c) { return c.mean == chains.front().mean; });
        return same ? 1.0 : kInf;
    }
    const double v = (len - 1.0) / len * w + between_over_length(chains);
    return std::sqrt(v / w);
}

/// exp(-2πik/N) for k < N/2, each from its own cos and sin (no accumulated rounding).
std::vector<std::complex<double>> fft_twiddles(std::size_t n) {
    std::vector<std::complex<double>> w(n / 2);
    for (std::size_t k = 0; k < n / 2; ++k) {
        const double angle = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
        w[k] = {std::cos(angle), std::sin(angle)};
    }
    return w;
}

/// In-place iterative radix-2 Cooley–Tukey FFT of `a` (size N, a power of two) with the
/// twiddles of fft_twiddles(N); `inverse` conjugates them and does not divide by N. The
/// products are written out: std::complex's operator* checks for NaN and infinity (Annex G)
/// on every multiplication.
void fft_in_place(std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& twiddle,
                  bool inverse) {
    const std::size_t n = a.size();
    for (std::size_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(a[i], a[j]);
    }
    const double sign = inverse ? -1.0 : 1.0;
    for (std::size_t span = 2; span <= n; span <<= 1) {
        const std::size_t half = span / 2, step = n / span;
        for (std::size_t start = 0; start < n; start += span)
            for (std::size_t k = 0; k < half; ++k) {
                const double wr = twiddle[k * step].real(), wi = sign * twiddle[k * step].imag();
                const std::complex<double> u = a[start + k];
                const std::complex<double> x = a[start + k + half];
                const std::complex<double> v{x.real() * wr - x.imag() * wi, x.real() * wi + x.imag() * wr};
                a[start + k] = u + v;
                a[start + k + half] = u - v;
            }
    }
}

/// γ̄(t) = (1/m) Σ_j (1/L) Σ_{i < L-t} (x_ij - x̄_j)(x_{i+t,j} - x̄_j) for t = 0 .. L-1, by the
/// Wiener–Khinchin route: each centred chain zero-padded to N >= 2L (a power of two, so the
/// circular correlation has no wrap-around), |FFT|² summed over chains, one inverse FFT.
/// Two real chains share one complex transform (chain a in the real part, b in the
/// imaginary): |A_k|² + |B_k|² = (|Z_k|² + |Z_{N-k}|²) / 2. Equal to the direct sums up to
/// rounding of order ε log2 N · γ̄(0).
std::vector<double> mean_autocovariance(const std::vector<std::vector<double>>& chains,
                                        std::span<const ChainMoments> moments) {
    const std::size_t len = chains.front().size(), m = chains.size();
    std::size_t n = 1;
    while (n < 2 * len) n <<= 1;
    const std::vector<std::complex<double>> twiddle = fft_twiddles(n);
    std::vector<std::complex<double>> z(n), power(n);
    for (std::size_t j = 0; j < m; j += 2) {
        const bool pair = j + 1 < m;
        std::fill(z.begin(), z.end(), std::complex<double>{});
        for (std::size_t i = 0; i < len; ++i)
            z[i] = {chains[j][i] - moments[j].mean, pair ? chains[j + 1][i] - moments[j + 1].mean : 0.0};
        fft_in_place(z, twiddle, false);
        for (std::size_t k = 0; k < n; ++k) power[k] += 0.5 * (std::norm(z[k]) + std::norm(z[(n - k) % n]));
    }
    fft_in_place(power, twiddle, true);
    std::vector<double> gamma(len);
    const double scale = 1.0 / (static_cast<double>(n) * static_cast<double>(len) * static_cast<double>(m));
    for (std::size_t t = 0; t < len; ++t) gamma[t] = power[t].real() * scale;
    return gamma;
}

}  // namespace

void ChainMoments::push(double x) {
    ++count;
    const double d = x - mean;
    mean += d / static_cast<double>(count);
    m2 += d * (x - mean);
}

ChainMoments moments_from_sums(std::int64_t count, double sum, double sumsq) {
    CUDAG_EXPECTS(count >= 0, "moments_from_sums: count " + std::to_string(count) + " is negative");
    ChainMoments r;
    r.count = count;
    if (count == 0) return r;
    r.mean = sum / static_cast<double>(count);
    const double m2 = sumsq - sum * r.mean;
    const double tolerance = 3.0 * static_cast<double>(count) * std::numeric_limits<double>::epsilon() * sumsq;
    r.m2 = m2 <= tolerance ? 0.0 : m2;
    return r;
}

double psrf(const std::vector<std::vector<double>>& chains) {
    const std::size_t len = common_length(chains, "psrf");
    if (chains.size() < 2 || len < 2) return kNaN;
    std::vector<ChainMoments> moments;
    moments.reserve(chains.size());
    for (const auto& x : chains) moments.push_back(two_pass_moments(x));
    return psrf_core(moments);
}

double psrf_from_moments(std::span<const ChainMoments> chains) {
    for (std::size_t j = 0; j < chains.size(); ++j) {
        CUDAG_EXPECTS(chains[j].count >= 0, "psrf_from_moments: chain " + std::to_string(j) + " has a negative count");
        CUDAG_EXPECTS(chains[j].count == chains.front().count,
                      "psrf_from_moments: chain " + std::to_string(j) + " has " + std::to_string(chains[j].count) +
                          " draws, chain 0 has " + std::to_string(chains.front().count));
    }
    if (chains.size() < 2 || chains.front().count < 2) return kNaN;
    return psrf_core(chains);
}

double effective_sample_size(const std::vector<std::vector<double>>& chains) {
    const std::size_t len = common_length(chains, "effective_sample_size");
    if (chains.empty() || len < 2) return kNaN;
    const std::size_t m = chains.size();

    std::vector<ChainMoments> moments;
    moments.reserve(m);
    for (const auto& x : chains) moments.push_back(two_pass_moments(x));
    // γ̄(t) for every lag at once by FFT (O(m N log N)); the direct sums cost O(m L) per lag
    // and the truncation below can reach lag L, quadratic in L (issue 33 item 1).
    const std::vector<double> gamma = mean_autocovariance(chains, moments);
    const double gamma0 = gamma[0];
    const double var_plus = gamma0 + between_over_length(moments);
    if (!(var_plus > 0.0)) return kNaN;
    auto rho = [&](std::size_t t) { return t == 0 ? 1.0 : 1.0 - (gamma0 - gamma[t]) / var_plus; };

    // Geyer's initial positive sequence over the pairs (2k, 2k + 1).
    double pairs = 0.0;
    for (std::size_t k = 0; 2 * k + 1 <= len - 1; ++k) {
        const double g = rho(2 * k) + rho(2 * k + 1);
        if (!(g > 0.0)) break;
        pairs += g;
    }
    const double total = static_cast<double>(m) * static_cast<double>(len);
    const double tau = std::max(-1.0 + 2.0 * pairs, 1.0 / std::log10(total));
    return total / tau;
}

EdgeConvergence edge_convergence(std::span<const double> per_chain_sum, std::span<const double> per_chain_sumsq,
                                 int chains, std::int64_t kept_per_chain, std::int64_t n, double threshold) {
    CUDAG_EXPECTS(chains >= 1, "edge_convergence: chains " + std::to_string(chains) + " is below 1");
    CUDAG_EXPECTS(n >= 0, "edge_convergence: n " + std::to_string(n) + " is negative");
    CUDAG_EXPECTS(kept_per_chain >= 0,
                  "edge_convergence: kept_per_chain " + std::to_string(kept_per_chain) + " is negative");
    const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    const std::size_t want = static_cast<std::size_t>(chains) * cells;
    CUDAG_EXPECTS(per_chain_sum.size() == want && per_chain_sumsq.size() == want,
                  "edge_convergence: sums of " + std::to_string(per_chain_sum.size()) + " and " +
                      std::to_string(per_chain_sumsq.size()) +
                      " entries, expected chains * n * n = " + std::to_string(want));
    CUDAG_EXPECTS(!std::isnan(threshold), "edge_convergence: threshold is NaN");

    EdgeConvergence r;
    if (kept_per_chain == 0) return {kNaN, kNaN, 0, kNaN};
    const bool has_psrf = chains >= 2 && kept_per_chain >= 2;
    std::vector<ChainMoments> moments(static_cast<std::size_t>(chains));
    std::int64_t above = 0;
    double max_psrf = -kInf;
    for (std::size_t e = 0; e < cells; ++e) {
        if (e / static_cast<std::size_t>(n) == e % static_cast<std::size_t>(n)) continue;  // p == v
        double lo = kInf, hi = -kInf;
        bool flat = true;
        for (std::size_t c = 0; c < moments.size(); ++c) {
            moments[c] =
                moments_from_sums(kept_per_chain, per_chain_sum[c * cells + e], per_chain_sumsq[c * cells + e]);
            lo = std::min(lo, moments[c].mean);
            hi = std::max(hi, moments[c].mean);
            flat = flat && moments[c].m2 == 0.0;
        }
        r.max_chain_difference = std::max(r.max_chain_difference, hi - lo);
        if (flat && lo == hi) continue;  // constant over every chain and iteration
        ++r.edges_counted;
        if (!has_psrf) continue;
        const double p = psrf_from_moments(moments);
        max_psrf = std::max(max_psrf, p);
        if (p > threshold) ++above;
    }
    const bool defined = has_psrf && r.edges_counted > 0;
    r.max_psrf = defined ? max_psrf : kNaN;
    r.fraction_above = defined ? static_cast<double>(above) / static_cast<double>(r.edges_counted) : kNaN;
    return r;
}

}  // namespace cudag::bn
