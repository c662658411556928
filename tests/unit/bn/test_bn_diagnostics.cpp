// SPDX-License-Identifier: Apache-2.0
// MCMC convergence diagnostics (bn/diagnostics.hpp): PSRF against hand-computed values and
// its edge cases, PSRF from moments against PSRF from draws, ESS of iid and AR(1) draws and
// of one chain against a plain Geyer estimator, and the per-edge summary on hand-built sums.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bn/diagnostics.hpp"
#include "core/error.hpp"

namespace {

using cudag::bn::ChainMoments;
using cudag::bn::EdgeConvergence;
using Chains = std::vector<std::vector<double>>;

/// splitmix64 mapped to a uniform in [0, 1) from its top 53 bits.
class Uniform {
public:
    explicit Uniform(std::uint64_t seed) : state_(seed) {}
    double operator()() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return static_cast<double>(z >> 11) * 0x1.0p-53;
    }

private:
    std::uint64_t state_;
};

/// m chains of L iid uniforms, chain j from seed 1000 + j.
Chains iid_chains(int m, int len) {
    Chains out(m);
    for (int j = 0; j < m; ++j) {
        Uniform u(1000 + j);
        for (int i = 0; i < len; ++i) out[j].push_back(u());
    }
    return out;
}

/// m chains of L steps of x_t = phi x_{t-1} + e_t, e_t of variance 1 (centred uniforms),
/// started from the stationary variance.
Chains ar1_chains(int m, int len, double phi) {
    Chains out(m);
    for (int j = 0; j < m; ++j) {
        Uniform u(77 + j);
        auto noise = [&] { return std::sqrt(12.0) * (u() - 0.5); };
        double x = noise() / std::sqrt(1.0 - phi * phi);
        for (int i = 0; i < len; ++i) {
            out[j].push_back(x);
            x = phi * x + noise();
        }
    }
    return out;
}

/// The textbook single-chain estimator: ρ_t = γ(t)/γ(0), Geyer's initial positive sequence.
double single_chain_geyer_ess(const std::vector<double>& x) {
    const auto len = x.size();
    double mean = 0.0;
    for (const double v : x) mean += v;
    mean /= static_cast<double>(len);
    auto autocov = [&](std::size_t t) {
        double s = 0.0;
        for (std::size_t i = t; i < len; ++i) s += (x[i - t] - mean) * (x[i] - mean);
        return s / static_cast<double>(len);
    };
    const double g0 = autocov(0);
    double tau = -1.0;
    for (std::size_t t = 0; t + 1 < len; t += 2) {
        const double pair = (autocov(t) + autocov(t + 1)) / g0;
        if (pair <= 0.0) break;
        tau += 2.0 * pair;
    }
    return static_cast<double>(len) / tau;
}

/// Per-chain sums and sums of squares, laid out as edge_convergence wants them, of
/// traces[c][e] (chain c, cell e = p * n + v, the values over the kept iterations).
struct Sums {
    std::vector<double> sum, sumsq;
};
Sums sums_of(const std::vector<std::vector<std::vector<double>>>& traces) {
    Sums s;
    for (const auto& chain : traces)
        for (const auto& cell : chain) {
            double a = 0.0, b = 0.0;
            for (const double x : cell) a += x, b += x * x;
            s.sum.push_back(a);
            s.sumsq.push_back(b);
        }
    return s;
}

TEST(Diagnostics, PsrfMatchesHandComputedValues) {
    // Means 2 and 4, s² = 1 and 1: W = 1, B/L = 2, V = 2/3 + 2 = 8/3.
    EXPECT_NEAR(cudag::bn::psrf({{1, 2, 3}, {3, 4, 5}}), std::sqrt(8.0 / 3.0), 1e-15);
    // Means 0.5 and 1.5, s² = 1/3 and 5/3: W = 1, B/L = 0.5, V = 3/4 + 1/2 = 5/4.
    EXPECT_NEAR(cudag::bn::psrf({{0, 0, 1, 1}, {0, 1, 2, 3}}), std::sqrt(1.25), 1e-15);
    // Three chains, means 1, 2, 3 and s² = 1 each: W = 1, B/L = 1, V = 2/3 + 1 = 5/3.
    EXPECT_NEAR(cudag::bn::psrf({{0, 1, 2}, {1, 2, 3}, {2, 3, 4}}), std::sqrt(5.0 / 3.0), 1e-15);
}

TEST(Diagnostics, PsrfEdgeCases) {
    EXPECT_EQ(cudag::bn::psrf({std::vector<double>(10, 0.1), std::vector<double>(10, 0.1)}), 1.0);
    EXPECT_EQ(cudag::bn::psrf({{1, 1, 1}, {2, 2, 2}}), std::numeric_limits<double>::infinity());
    EXPECT_TRUE(std::isnan(cudag::bn::psrf({{1, 2, 3}})));
    EXPECT_TRUE(std::isnan(cudag::bn::psrf({})));
    EXPECT_TRUE(std::isnan(cudag::bn::psrf({{1}, {2}})));
    EXPECT_THROW(cudag::bn::psrf({{1, 2, 3}, {1, 2}}), cudag::InputError);
}

TEST(Diagnostics, PsrfFromMomentsMatchesPsrfOfDraws) {
    // Four chains of 500 uniforms, shifted apart so that the PSRF is well above 1.
    Chains chains = iid_chains(4, 500);
    for (std::size_t j = 0; j < chains.size(); ++j)
        for (double& x : chains[j]) x = 0.7 * x + 0.05 * static_cast<double>(j);
    const double direct = cudag::bn::psrf(chains);
    EXPECT_GT(direct, 1.01);

    std::vector<ChainMoments> welford(chains.size()), from_sums;
    for (std::size_t j = 0; j < chains.size(); ++j) {
        double s = 0.0, sq = 0.0;
        for (const double x : chains[j]) welford[j].push(x), s += x, sq += x * x;
        from_sums.push_back(cudag::bn::moments_from_sums(500, s, sq));
    }
    EXPECT_NEAR(cudag::bn::psrf_from_moments(welford), direct, 1e-12 * direct);
    EXPECT_NEAR(cudag::bn::psrf_from_moments(from_sums), direct, 1e-12 * direct);

    // The hand example from moments: means 2 and 4, M2 = 2 each.
    const std::vector<ChainMoments> hand = {{3, 2.0, 2.0}, {3, 4.0, 2.0}};
    EXPECT_NEAR(cudag::bn::psrf_from_moments(hand), std::sqrt(8.0 / 3.0), 1e-15);
}

TEST(Diagnostics, MomentsEdgeCasesAndChecks) {
    // 1000 draws of 0.1: the naive sums do not cancel exactly, M2 still comes out 0.
    double s = 0.0, sq = 0.0;
    for (int i = 0; i < 1000; ++i) s += 0.1, sq += 0.1 * 0.1;
    const ChainMoments c = cudag::bn::moments_from_sums(1000, s, sq);
    EXPECT_EQ(c.m2, 0.0);
    EXPECT_NEAR(c.mean, 0.1, 1e-13);  // the naive sum drifts
    const ChainMoments zero = cudag::bn::moments_from_sums(0, 0.0, 0.0);
    EXPECT_EQ(zero.count, 0);
    EXPECT_EQ(zero.mean, 0.0);
    EXPECT_THROW(cudag::bn::moments_from_sums(-1, 0.0, 0.0), cudag::InputError);

    const std::vector<ChainMoments> same = {{5, 0.3, 0.0}, {5, 0.3, 0.0}};
    EXPECT_EQ(cudag::bn::psrf_from_moments(same), 1.0);
    const std::vector<ChainMoments> apart = {{5, 0.3, 0.0}, {5, 0.4, 0.0}};
    EXPECT_EQ(cudag::bn::psrf_from_moments(apart), std::numeric_limits<double>::infinity());
    const std::vector<ChainMoments> one = {{5, 0.3, 1.0}};
    EXPECT_TRUE(std::isnan(cudag::bn::psrf_from_moments(one)));
    const std::vector<ChainMoments> short_chains = {{1, 0.3, 0.0}, {1, 0.4, 0.0}};
    EXPECT_TRUE(std::isnan(cudag::bn::psrf_from_moments(short_chains)));
    const std::vector<ChainMoments> uneven = {{5, 0.3, 1.0}, {4, 0.4, 1.0}};
    EXPECT_THROW(cudag::bn::psrf_from_moments(uneven), cudag::InputError);
}

TEST(Diagnostics, EssOfIidDrawsIsNearTheTotal) {
    const double ess = cudag::bn::effective_sample_size(iid_chains(4, 2000));
    EXPECT_NEAR(ess, 8000.0, 0.15 * 8000.0);
    std::printf("[ info ] ESS of 4 x 2000 iid uniforms = %.1f\n", ess);
}

TEST(Diagnostics, EssOfAr1MatchesTheory) {
    const double phi = 0.9;
    const double expected = 40000.0 * (1.0 - phi) / (1.0 + phi);  // about 2105
    const double ess = cudag::bn::effective_sample_size(ar1_chains(4, 10000, phi));
    EXPECT_NEAR(ess, expected, 0.25 * expected);
    std::printf("[ info ] ESS of 4 x 10000 AR(1), phi 0.9 = %.1f (theory %.1f)\n", ess, expected);
}

TEST(Diagnostics, EssOfOneChainIsTheSingleChainGeyerEstimator) {
    for (const double phi : {0.0, 0.5, 0.9}) {
        const Chains one = ar1_chains(1, 3000, phi);
        const double reference = single_chain_geyer_ess(one.front());
        EXPECT_NEAR(cudag::bn::effective_sample_size(one), reference, 1e-12 * reference) << "phi " << phi;
    }
}

TEST(Diagnostics, EssEdgeCases) {
    // Every draw the same: no variance to estimate from.
    EXPECT_TRUE(
        std::isnan(cudag::bn::effective_sample_size({std::vector<double>(50, 0.1), std::vector<double>(50, 0.1)})));
    EXPECT_TRUE(std::isnan(cudag::bn::effective_sample_size({{1.0}, {2.0}})));
    EXPECT_TRUE(std::isnan(cudag::bn::effective_sample_size({})));
    EXPECT_THROW(cudag::bn::effective_sample_size({{1, 2, 3}, {1, 2}}), cudag::InputError);
    // Chains that each mix well but sit apart: the between-chain variance dominates and
    // the ESS falls far below the total.
    Chains apart = iid_chains(4, 1000);
    for (std::size_t j = 0; j < apart.size(); ++j)
        for (double& x : apart[j]) x += static_cast<double>(j);
    EXPECT_LT(cudag::bn::effective_sample_size(apart), 0.05 * 4000.0);
}

/// The multi-chain ESS by its definition in diagnostics.hpp with the direct O(m L) sum per
/// lag (the implementation before issue 33 item 1, which effective_sample_size replaced by
/// an FFT): the reference the FFT must reproduce.
double direct_ess(const Chains& chains) {
    const std::size_t m = chains.size(), len = chains.front().size();
    const auto dl = static_cast<double>(len);
    Chains centered(m);
    std::vector<double> means(m);
    for (std::size_t j = 0; j < m; ++j) {
        double s = 0.0;
        for (const double v : chains[j]) s += v;
        means[j] = s / dl;
        for (const double v : chains[j]) centered[j].push_back(v - means[j]);
    }
    double grand = 0.0, between = 0.0;
    for (const double mu : means) grand += mu / static_cast<double>(m);
    for (const double mu : means) between += (mu - grand) * (mu - grand);
    between = m > 1 ? between / static_cast<double>(m - 1) : 0.0;
    auto mean_autocov = [&](std::size_t t) {
        double all = 0.0;
        for (const auto& c : centered) {
            double s = 0.0;
            for (std::size_t i = 0; i + t < len; ++i) s += c[i] * c[i + t];
            all += s / dl;
        }
        return all / static_cast<double>(m);
    };
    const double gamma0 = mean_autocov(0);
    const double var_plus = gamma0 + between;
    auto rho = [&](std::size_t t) { return t == 0 ? 1.0 : 1.0 - (gamma0 - mean_autocov(t)) / var_plus; };
    double pairs = 0.0;
    for (std::size_t k = 0; 2 * k + 1 <= len - 1; ++k) {
        const double g = rho(2 * k) + rho(2 * k + 1);
        if (!(g > 0.0)) break;
        pairs += g;
    }
    const double total = static_cast<double>(m) * dl;
    return total / std::max(-1.0 + 2.0 * pairs, 1.0 / std::log10(total));
}

/// m random walks of L steps (chain j from seed 500 + j): positive autocorrelation out to
/// lags of order L, so Geyer's truncation runs through most lags.
Chains random_walks(int m, int len) {
    Chains out(m);
    for (int j = 0; j < m; ++j) {
        Uniform u(500 + j);
        double x = 0.0;
        for (int i = 0; i < len; ++i) out[j].push_back(x += u() - 0.5);
    }
    return out;
}

TEST(Diagnostics, EssByFftEqualsTheDirectSums) {
    // Lengths that are and are not powers of two, one to five chains (odd counts leave one
    // chain alone in its transform), fast and slow mixing, chains at different levels and
    // antithetic draws (the log10 floor).
    std::vector<std::pair<std::string, Chains>> cases = {
        {"iid 4 x 2000", iid_chains(4, 2000)},
        {"iid 3 x 1023", iid_chains(3, 1023)},
        {"ar1 0.5, 1 x 4096", ar1_chains(1, 4096, 0.5)},
        {"ar1 0.9, 5 x 3001", ar1_chains(5, 3001, 0.9)},
        {"ar1 -0.7, 2 x 777", ar1_chains(2, 777, -0.7)},
        {"walks 3 x 2500", random_walks(3, 2500)},
        {"2 x 2", {{1.0, 2.0}, {0.5, 3.0}}},
        {"1 x 3", {{1.0, -2.0, 4.0}}},
    };
    Chains apart = iid_chains(4, 1000);
    for (std::size_t j = 0; j < apart.size(); ++j)
        for (double& x : apart[j]) x += static_cast<double>(j);
    cases.emplace_back("apart 4 x 1000", apart);
    Chains alternating(2);
    for (int i = 0; i < 600; ++i) alternating[0].push_back(i % 2), alternating[1].push_back((i + 1) % 2);
    cases.emplace_back("alternating 2 x 600", alternating);
    for (const auto& [name, chains] : cases) {
        const double want = direct_ess(chains);
        EXPECT_NEAR(cudag::bn::effective_sample_size(chains), want, 1e-10 * std::abs(want)) << name;
    }
}

TEST(Diagnostics, EssOfTwoMillionDrawsOfARandomWalkFinishes) {
    // The direct sums would need about 10^12 products here (truncation near lag L / 3).
    const Chains walk = random_walks(1, 2'000'000);
    const double ess = cudag::bn::effective_sample_size(walk);
    EXPECT_TRUE(std::isfinite(ess));
    EXPECT_GT(ess, 1.0);
    EXPECT_LT(ess, 1e-3 * 2e6);  // a random walk barely mixes
    std::printf("[ info ] ESS of a 2,000,000-step random walk = %.2f\n", ess);
}

/// Two chains, two nodes, four kept iterations. Cell 1 (0 --> 1): chain means 0.5 and 0.75,
/// PSRF sqrt(6/7) (W = 7/24, B/L = 1/32, V = 1/4). Cell 2 (1 --> 0): `edge10`. The diagonal
/// cells hold values that must be ignored.
std::vector<std::vector<std::vector<double>>> two_node_traces(const std::vector<double>& edge10_chain0,
                                                              const std::vector<double>& edge10_chain1) {
    const std::vector<double> junk = {5, -3, 9, 2};
    return {{junk, {0, 0, 1, 1}, edge10_chain0, junk}, {junk, {0, 1, 1, 1}, edge10_chain1, junk}};
}

TEST(Diagnostics, EdgeConvergenceOnHandBuiltTwoChains) {
    // 1 --> 0: means 0.25 and 0.75, s² = 1/4 each: W = 1/4, B/L = 1/8, PSRF sqrt(5/4).
    const Sums s = sums_of(two_node_traces({0, 0, 0, 1}, {1, 1, 1, 0}));
    const EdgeConvergence r = cudag::bn::edge_convergence(s.sum, s.sumsq, 2, 4, 2);
    EXPECT_NEAR(r.max_psrf, std::sqrt(1.25), 1e-14);
    EXPECT_EQ(r.edges_counted, 2);
    EXPECT_DOUBLE_EQ(r.fraction_above, 0.5);
    EXPECT_DOUBLE_EQ(r.max_chain_difference, 0.5);
    // A threshold above both PSRFs; one below both.
    EXPECT_DOUBLE_EQ(cudag::bn::edge_convergence(s.sum, s.sumsq, 2, 4, 2, 1.2).fraction_above, 0.0);
    EXPECT_DOUBLE_EQ(cudag::bn::edge_convergence(s.sum, s.sumsq, 2, 4, 2, 0.9).fraction_above, 1.0);
}

TEST(Diagnostics, EdgeConvergenceSkipsConstantEdges) {
    // 1 --> 0 always 1 in both chains: skipped; only 0 --> 1 (PSRF sqrt(6/7)) counts.
    const Sums s = sums_of(two_node_traces({1, 1, 1, 1}, {1, 1, 1, 1}));
    const EdgeConvergence r = cudag::bn::edge_convergence(s.sum, s.sumsq, 2, 4, 2);
    EXPECT_EQ(r.edges_counted, 1);
    EXPECT_NEAR(r.max_psrf, std::sqrt(6.0 / 7.0), 1e-14);
    EXPECT_EQ(r.fraction_above, 0.0);
    EXPECT_DOUBLE_EQ(r.max_chain_difference, 0.25);

    // Constant within each chain but not across them: counted, PSRF infinite.
    const Sums split = sums_of(two_node_traces({0, 0, 0, 0}, {1, 1, 1, 1}));
    const EdgeConvergence q = cudag::bn::edge_convergence(split.sum, split.sumsq, 2, 4, 2);
    EXPECT_EQ(q.edges_counted, 2);
    EXPECT_EQ(q.max_psrf, std::numeric_limits<double>::infinity());
    EXPECT_DOUBLE_EQ(q.fraction_above, 0.5);
    EXPECT_DOUBLE_EQ(q.max_chain_difference, 1.0);

    // Nothing but constant edges: nothing counted, NaN fraction and max.
    const std::vector<double> zeros(8, 0.0);
    const EdgeConvergence none = cudag::bn::edge_convergence(zeros, zeros, 2, 4, 2);
    EXPECT_EQ(none.edges_counted, 0);
    EXPECT_TRUE(std::isnan(none.fraction_above));
    EXPECT_TRUE(std::isnan(none.max_psrf));
    EXPECT_EQ(none.max_chain_difference, 0.0);
}

TEST(Diagnostics, EdgeConvergenceOneChainAndNoKeptIterations) {
    const Sums s = sums_of(two_node_traces({0, 0, 0, 1}, {1, 1, 1, 0}));
    const std::span<const double> first_sum(s.sum.data(), 4), first_sumsq(s.sumsq.data(), 4);
    const EdgeConvergence one = cudag::bn::edge_convergence(first_sum, first_sumsq, 1, 4, 2);
    EXPECT_TRUE(std::isnan(one.max_psrf));
    EXPECT_TRUE(std::isnan(one.fraction_above));
    EXPECT_EQ(one.edges_counted, 2);
    EXPECT_EQ(one.max_chain_difference, 0.0);

    const std::vector<double> zeros(8, 0.0);
    const EdgeConvergence empty = cudag::bn::edge_convergence(zeros, zeros, 2, 0, 2);
    EXPECT_TRUE(std::isnan(empty.max_psrf));
    EXPECT_TRUE(std::isnan(empty.fraction_above));
    EXPECT_EQ(empty.edges_counted, 0);
    EXPECT_TRUE(std::isnan(empty.max_chain_difference));
}

TEST(Diagnostics, EdgeConvergenceRejectsBadArguments) {
    const std::vector<double> eight(8, 0.0), seven(7, 0.0);
    using cudag::bn::edge_convergence;
    EXPECT_THROW(edge_convergence(seven, eight, 2, 4, 2), cudag::InputError);
    EXPECT_THROW(edge_convergence(eight, seven, 2, 4, 2), cudag::InputError);
    EXPECT_THROW(edge_convergence(eight, eight, 0, 4, 2), cudag::InputError);
    EXPECT_THROW(edge_convergence(eight, eight, 2, -1, 2), cudag::InputError);
    EXPECT_THROW(edge_convergence(eight, eight, 2, 4, -2), cudag::InputError);
    EXPECT_THROW(edge_convergence(eight, eight, 2, 4, 2, std::numeric_limits<double>::quiet_NaN()), cudag::InputError);
    EXPECT_NO_THROW(edge_convergence({}, {}, 3, 4, 0));
}

}  // namespace
