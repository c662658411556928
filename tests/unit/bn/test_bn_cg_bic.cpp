// SPDX-License-Identifier: Apache-2.0
// The cg-bic score (bn/cg_bic.hpp) against values computed here from the textbook formulas:
// the Gaussian BIC of a least-squares regression on all-continuous data, the multinomial BIC
// from counts on all-discrete data, and, on mixed data, the conditional-Gaussian
// log-likelihoods of Andrews et al. (2018) from two-pass covariances and LU determinants in
// long double. pgmpy's BICCondGauss is compared in test_bn_cg_bic_pgmpy.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "support/mixed_dataset.hpp"
#include "bn/cg_bic.hpp"
#include "bn/prior.hpp"
#include "bn/score_table.hpp"
#include "core/error.hpp"

using namespace cudag;
using namespace cudag::bn;

namespace {

using test::make_dataset;

/// Mixed columns: v0 (3 levels), v1 (2 levels), v2 continuous given v0, v3 continuous given
/// v2 and v1, v4 (3 levels) from v3, v5 continuous given v3 and v4, with offsets and scales.
std::vector<std::vector<double>> mixed_columns(int n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::vector<double>> c(6, std::vector<double>(static_cast<std::size_t>(n)));
    for (int i = 0; i < n; ++i) {
        const double d0 = u(rng) < 0.3 ? 0.0 : (u(rng) < 0.5 ? 1.0 : 2.0);
        const double d1 = u(rng) < 0.4 ? 0.0 : 1.0;
        const double c2 = 5.0 + 1.5 * d0 + z(rng);
        const double c3 = 0.6 * c2 - 2.0 * d1 + 0.8 * z(rng);
        const double t = c3 + 0.7 * z(rng);
        const double d4 = t < 0.5 ? 0.0 : (t < 2.0 ? 1.0 : 2.0);
        const double c5 = 100.0 + 3.0 * c3 - 4.0 * d4 + 2.0 * z(rng);
        c[0][i] = d0, c[1][i] = d1, c[2][i] = c2, c[3][i] = c3, c[4][i] = d4, c[5][i] = c5;
    }
    return c;
}
const std::vector<int> kMixedLevels = {3, 2, 0, 0, 3, 0};

using Real = long double;

/// log det of a p × p matrix by LU with partial pivoting (long double).
Real log_det(std::vector<Real> a, int p) {
    Real out = 0.0L;
    for (int k = 0; k < p; ++k) {
        int piv = k;
        for (int i = k + 1; i < p; ++i)
            if (std::fabs(a[i * p + k]) > std::fabs(a[piv * p + k])) piv = i;
        if (piv != k)
            for (int j = 0; j < p; ++j) std::swap(a[k * p + j], a[piv * p + j]);
        out += std::log(std::fabs(a[k * p + k]));
        for (int i = k + 1; i < p; ++i) {
            const Real f = a[i * p + k] / a[k * p + k];
            for (int j = k; j < p; ++j) a[i * p + j] -= f * a[k * p + j];
        }
    }
    return out;
}

/// The conditional-Gaussian log-likelihood L(A) of the set `vars` over `rows`: strata by the
/// configuration of its discrete variables, each with its two-pass MLE covariance.
Real cg_loglik(const Dataset& d, const std::vector<std::int32_t>& vars, const std::vector<std::int64_t>& rows) {
    std::vector<std::int32_t> cont, disc;
    for (auto v : vars) (d.is_discrete(v) ? disc : cont).push_back(v);
    std::map<std::vector<int>, std::vector<std::int64_t>> strata;
    for (auto r : rows) {
        std::vector<int> key;
        for (auto v : disc) key.push_back(static_cast<int>(d.column(v)[r]));
        strata[key].push_back(r);
    }
    const auto n_all = static_cast<Real>(rows.size());
    const int p = static_cast<int>(cont.size());
    Real ll = 0.0L;
    for (const auto& [key, rs] : strata) {
        const auto n = static_cast<Real>(rs.size());
        ll += n * std::log(n / n_all);
        if (p == 0) continue;
        std::vector<Real> mean(p, 0.0L), cov(p * p, 0.0L);
        for (int a = 0; a < p; ++a) {
            for (auto r : rs) mean[a] += d.column(cont[a])[r];
            mean[a] /= n;
        }
        for (int a = 0; a < p; ++a)
            for (int b = 0; b < p; ++b) {
                Real s = 0.0L;
                for (auto r : rs) s += (d.column(cont[a])[r] - mean[a]) * (d.column(cont[b])[r] - mean[b]);
                cov[a * p + b] = s / n;
            }
        ll -= 0.5L * n * (log_det(cov, p) + p * (1.0L + std::log(2.0L * std::numbers::pi_v<Real>)));
    }
    return ll;
}

/// k(A) = F (p + p(p+1)/2) + F - 1, F the product of the declared level counts (every level
/// occurs in these tests' data unless a test says otherwise).
Real cg_params(const Dataset& d, const std::vector<std::int32_t>& vars) {
    Real f = 1.0L, p = 0.0L;
    for (auto v : vars) {
        if (d.is_discrete(v))
            f *= static_cast<Real>(d.levels[v].size());
        else
            p += 1.0L;
    }
    return f * (p + p * (p + 1.0L) / 2.0L) + f - 1.0L;
}

/// The cg-bic local score from the definition, over the rows whose configuration of the
/// family's discrete variables occurs in more rows than the family has continuous variables.
double reference_local(const Dataset& d, std::int32_t v, std::vector<std::int32_t> parents) {
    std::vector<std::int32_t> family = parents;
    family.push_back(v);
    std::map<std::vector<int>, std::int64_t> cells;
    std::int64_t p_f = 0;
    for (auto u : family) p_f += d.is_discrete(u) ? 0 : 1;
    const auto cell = [&](std::int64_t r) {
        std::vector<int> key;
        for (auto u : family)
            if (d.is_discrete(u)) key.push_back(static_cast<int>(d.column(u)[r]));
        return key;
    };
    for (std::int64_t r = 0; r < d.n_samples; ++r) ++cells[cell(r)];
    std::vector<std::int64_t> rows;
    for (std::int64_t r = 0; r < d.n_samples; ++r)
        if (cells[cell(r)] > p_f) rows.push_back(r);
    const Real half_log_n = 0.5L * std::log(static_cast<Real>(d.n_samples));
    return static_cast<double>(cg_loglik(d, family, rows) - cg_loglik(d, parents, rows) -
                               half_log_n * (cg_params(d, family) - cg_params(d, parents)));
}

void expect_close(double got, double want, double rel, const std::string& what) {
    EXPECT_LE(std::abs(got - want), rel * std::max(1.0, std::abs(want))) << what << ": " << got << " vs " << want;
}

}  // namespace

TEST(CgBic, AllContinuousEqualsGaussianRegressionBic) {
    // v_j = Σ_{i<j} b_ij v_i + noise with offsets; RSS by least squares (normal equations in
    // long double), then -(N/2)(log 2π + log(RSS/N) + 1) - (log N / 2)(|P| + 2).
    const int n = 300, p = 5;
    std::mt19937_64 rng(7);
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<std::vector<double>> c(p, std::vector<double>(n));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < p; ++j) {
            double v = z(rng) + 3.0 * j;
            for (int k = 0; k < j; ++k) v += 0.5 * ((j + k) % 3 - 1) * c[k][i];
            c[j][i] = v * (1.0 + j);
        }
    const Dataset d = make_dataset(c, std::vector<int>(p, 0));
    const CgBicScorer s(d);
    const std::vector<std::pair<int, std::vector<std::int32_t>>> cases = {{0, {}},     {1, {0}}, {4, {0, 1, 2, 3}},
                                                                          {2, {3, 0}}, {3, {1}}, {0, {4, 2}}};
    for (const auto& [v, ps] : cases) {
        // Least squares with an intercept: X = [1, parents], solve (X^T X) b = X^T y.
        const int q = static_cast<int>(ps.size()) + 1;
        std::vector<Real> a(q * (q + 1), 0.0L);
        for (int i = 0; i < n; ++i) {
            std::vector<Real> x(q, 1.0L);
            for (int t = 1; t < q; ++t) x[t] = c[ps[t - 1]][i];
            for (int r = 0; r < q; ++r) {
                for (int t = 0; t < q; ++t) a[r * (q + 1) + t] += x[r] * x[t];
                a[r * (q + 1) + q] += x[r] * c[v][i];
            }
        }
        for (int k = 0; k < q; ++k)  // Gauss-Jordan
            for (int r = 0; r < q; ++r) {
                if (r == k) continue;
                const Real f = a[r * (q + 1) + k] / a[k * (q + 1) + k];
                for (int t = 0; t <= q; ++t) a[r * (q + 1) + t] -= f * a[k * (q + 1) + t];
            }
        Real rss = 0.0L;
        for (int i = 0; i < n; ++i) {
            Real fit = a[0 * (q + 1) + q] / a[0];
            for (int t = 1; t < q; ++t) fit += a[t * (q + 1) + q] / a[t * (q + 1) + t] * c[ps[t - 1]][i];
            rss += (c[v][i] - fit) * (c[v][i] - fit);
        }
        const Real big_n = n;
        const double want = static_cast<double>(
            -(big_n / 2) * (std::log(2.0L * std::numbers::pi_v<Real>) + std::log(rss / big_n) + 1.0L) -
            std::log(big_n) / 2 * (static_cast<Real>(ps.size()) + 2.0L));
        expect_close(s.local(v, ps), want, 1e-10, "v" + std::to_string(v));
    }
}

TEST(CgBic, AllDiscreteEqualsMultinomialBic) {
    // Σ n_jk log(n_jk / n_j) - (log N / 2) q (r - 1), q the product of the parents' level
    // counts (bnlearn's bic): every configuration counts, also one that never occurs.
    const int n = 400;
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<int> l3(0, 2), l4(0, 3), l2(0, 1);
    std::vector<std::vector<double>> c(4, std::vector<double>(n));
    for (int i = 0; i < n; ++i) {
        c[0][i] = l3(rng);
        c[1][i] = l4(rng);
        c[2][i] = (c[0][i] + (l2(rng) ? 1 : 0)) > 1 ? 1.0 : 0.0;
        c[3][i] = std::fmod(c[1][i] + c[2][i] + l3(rng) / 2, 3.0);
        if (c[0][i] == 2 && c[1][i] == 3) c[1][i] = 2;  // configuration (v0 = 2, v1 = 3) never occurs
    }
    const Dataset d = make_dataset(c, {3, 4, 2, 3});
    const CgBicScorer s(d);
    const std::vector<std::pair<int, std::vector<std::int32_t>>> cases = {{0, {}},     {2, {0}},       {3, {1, 2}},
                                                                          {2, {0, 1}}, {3, {0, 1, 2}}, {1, {3}}};
    for (const auto& [v, ps] : cases) {
        std::map<std::vector<int>, std::map<int, Real>> counts;
        for (int i = 0; i < n; ++i) {
            std::vector<int> key;
            for (auto u : ps) key.push_back(static_cast<int>(c[u][i]));
            counts[key][static_cast<int>(c[v][i])] += 1.0L;
        }
        Real ll = 0.0L;
        for (const auto& [key, row] : counts) {
            Real nj = 0.0L;
            for (const auto& [k, m] : row) nj += m;
            for (const auto& [k, m] : row) ll += m * std::log(m / nj);
        }
        Real q = 1.0L;
        for (auto u : ps) q *= d.levels[u].size();
        const Real r = d.levels[v].size();
        const double want = static_cast<double>(ll - std::log(static_cast<Real>(n)) / 2 * q * (r - 1.0L));
        expect_close(s.local(v, ps), want, 1e-11, "v" + std::to_string(v));
    }
}

TEST(CgBic, LevelsThatDoNotOccurDoNotCount) {
    // v0 declares 4 levels of which 3 occur: the score is that of the same codes declared
    // with 3 (both as parent and as child).
    std::vector<std::vector<double>> c = mixed_columns(200, 3);
    const Dataset declared4 = make_dataset(c, {4, 2, 0, 0, 3, 0});
    const Dataset declared3 = make_dataset(c, kMixedLevels);
    const CgBicScorer a(declared4), b(declared3);
    for (const auto& [v, ps] :
         std::vector<std::pair<int, std::vector<std::int32_t>>>{{2, {0}}, {0, {2}}, {0, {}}, {3, {0, 1, 2}}})
        EXPECT_EQ(a.local(v, ps), b.local(v, ps)) << v;
    // Declared levels counted (bnlearn's bic, the R face): the same likelihood, a penalty of
    // (log n / 2) times the parameters the unused level adds. v0 as the child of nothing:
    // (4 - 1) - (3 - 1) = 1 more; v2 (continuous) given v0: one more stratum of an intercept
    // and a variance, 2 more.
    const CgBicScorer declared(declared4, true);
    const double half_log_n = 0.5 * std::log(200.0);
    EXPECT_NEAR(declared.local(0, {}), b.local(0, {}) - half_log_n, 1e-9);
    EXPECT_NEAR(declared.local(2, std::vector<std::int32_t>{0}),
                b.local(2, std::vector<std::int32_t>{0}) - 2 * half_log_n, 1e-9);
}

TEST(CgBic, MixedEqualsTheDefinition) {
    for (unsigned seed : {1u, 2u, 3u}) {
        const Dataset d = make_dataset(mixed_columns(500, seed), kMixedLevels);
        const CgBicScorer s(d);
        const std::vector<std::pair<int, std::vector<std::int32_t>>> cases = {
            {2, {}},     {0, {}},        {2, {0}},           // continuous | discrete
            {4, {3}},    {4, {3, 5}},    {4, {2, 3, 5}},     // discrete | continuous
            {5, {3, 4}}, {3, {0, 1, 2}}, {4, {0, 1, 3, 5}},  // both
            {1, {0}},    {0, {1, 4}},    {5, {0, 1, 2, 3, 4}}};
        for (const auto& [v, ps] : cases) {
            const double want = reference_local(d, v, ps);
            std::string what = "seed " + std::to_string(seed) + " v" + std::to_string(v) + " |";
            for (auto u : ps) what += " v" + std::to_string(u);
            expect_close(s.local(v, ps), want, 1e-10, what);
        }
    }
}

TEST(CgBic, ParentOrderDoesNotMatter) {
    const Dataset d = make_dataset(mixed_columns(300, 5), kMixedLevels);
    const CgBicScorer s(d);
    const std::vector<std::int32_t> a = {0, 3, 5}, b = {5, 0, 3};
    EXPECT_EQ(s.local(4, a), s.local(4, b));
    EXPECT_EQ(s.local(2, std::vector<std::int32_t>{1, 0}), s.local(2, std::vector<std::int32_t>{0, 1}));
}

TEST(CgBic, TinyStrataAreLeftOutOfBothLikelihoods) {
    // Family v2 | v0 (v0: 3 levels): one row of v0 = 2 (n = 1 <= p_F = 1) is left out; the
    // likelihoods are those of the data without it, the penalty keeps log N of all rows.
    std::vector<std::vector<double>> c = mixed_columns(120, 9);
    for (std::size_t i = 0; i < c[0].size(); ++i)
        if (c[0][i] == 2.0) c[0][i] = 1.0;
    c[0][17] = 2.0;  // the only row of level 2
    const Dataset full = make_dataset(c, kMixedLevels);
    std::vector<std::vector<double>> k = c;
    for (auto& col : k) col.erase(col.begin() + 17);
    // Without the row, level 2 no longer occurs: declared 3 levels still count as observed
    // in the full data, so the reduced data declare the same for the same F.
    const Dataset reduced = make_dataset(k, kMixedLevels);
    const CgBicScorer sf(full);
    // L(v2 ∪ v0) - L(v0) on the reduced rows, F = 3 observed levels on the full data.
    std::vector<std::int64_t> rows(k[0].size());
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
    const Real ll = cg_loglik(reduced, {0, 2}, rows) - cg_loglik(reduced, {0}, rows);
    const Real want = ll - 0.5L * std::log(static_cast<Real>(c[0].size())) * (3.0L * 2.0L);
    expect_close(sf.local(2, std::vector<std::int32_t>{0}), static_cast<double>(want), 1e-10, "v2 | v0");
    // All-discrete families lose no row: v1 | v0 as the multinomial over all 120 rows.
    const double direct = reference_local(full, 1, {0});
    expect_close(sf.local(1, std::vector<std::int32_t>{0}), direct, 1e-11, "v1 | v0");
}

TEST(CgBic, SingularStratumIsAnInputErrorNamingTheFamily) {
    std::vector<std::vector<double>> c = mixed_columns(200, 4);
    for (std::size_t i = 0; i < c[0].size(); ++i)
        if (c[1][i] == 1.0) c[3][i] = 2.5;  // v3 constant where v1 = 1
    const Dataset d = make_dataset(c, kMixedLevels);
    const CgBicScorer s(d);
    try {
        (void)s.local(3, std::vector<std::int32_t>{1, 2});
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("'v3' given {'v1', 'v2'}"), std::string::npos) << m;
        EXPECT_NE(m.find("'v1' = 1"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
    EXPECT_NO_THROW((void)s.local(3, std::vector<std::int32_t>{2}));  // no stratum by v1: finite
}

TEST(CgBic, TooFewRowsOrBadValuesAreInputErrors) {
    EXPECT_THROW(CgBicScorer(make_dataset({{1.0}, {0.0}}, {0, 2})), InputError);
    std::vector<std::vector<double>> c = mixed_columns(50, 2);
    c[2][7] = std::nan("");
    EXPECT_THROW(CgBicScorer(make_dataset(c, kMixedLevels)), InputError);
}

TEST(CgBic, TableEntriesAreTheLocalScores) {
    const Dataset d = make_dataset(mixed_columns(250, 8), kMixedLevels);
    const CgBicScorer s(d);
    const PriorScorer prior(s, StructurePrior{});
    const ScoreTable table = ScoreTable::build(prior, 3, 2);
    for (std::int32_t v = 0; v < 6; ++v)
        for (const std::vector<std::int32_t>& ps :
             std::vector<std::vector<std::int32_t>>{{}, {(v + 1) % 6}, {(v + 2) % 6, (v + 4) % 6}}) {
            std::vector<std::int32_t> sorted = ps;
            std::sort(sorted.begin(), sorted.end());
            EXPECT_EQ(table.lookup(v, sorted), prior.local(v, sorted)) << v;
        }
}
