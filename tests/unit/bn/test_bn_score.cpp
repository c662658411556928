// SPDX-License-Identifier: Apache-2.0
// BDeu and K2 local scores (bn/local_score.hpp, bn/score.hpp) against bnlearn's formulas
// evaluated here over every parent configuration, on tables small enough to check by hand;
// decomposability, BDeu score equivalence, cycle finding and the data checks. BGe against
// the family marginal likelihood (Geiger & Heckerman with Kuipers et al.'s correction) in
// BiDAG's parameterisation, and its score equivalence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bn/bge.hpp"
#include "bn/local_score.hpp"
#include "bn/score.hpp"
#include "core/error.hpp"
#include "core/exact_math.hpp"

namespace {

using cudag::Dataset;
using cudag::bn::Dag;
using cudag::bn::DiscreteScorer;
using cudag::bn::ScoreKind;
using cudag::bn::ScoreSpec;

/// A data set of the columns `cols` (values as they are), named A, B, C, ...
template <typename T>
Dataset make_dataset(const std::vector<std::vector<T>>& cols) {
    Dataset d;
    d.n_vars = static_cast<std::int64_t>(cols.size());
    d.n_samples = static_cast<std::int64_t>(cols[0].size());
    d.source = "test";
    for (std::size_t v = 0; v < cols.size(); ++v) {
        d.names.push_back(std::string(1, static_cast<char>('A' + v)));
        d.values.insert(d.values.end(), cols[v].begin(), cols[v].end());
    }
    return d;
}

/// A discrete data set whose column v holds the codes cols[v] (each column uses every
/// code 0..max), levels labelled "0", "1", ...
Dataset make_discrete(const std::vector<std::vector<int>>& cols) {
    Dataset d = make_dataset(cols);
    for (std::size_t v = 0; v < cols.size(); ++v) {
        int top = 0;
        for (const int x : cols[v]) top = std::max(top, x);
        std::vector<std::string> levels;
        for (int l = 0; l <= top; ++l) levels.push_back(std::to_string(l));
        d.levels.push_back(levels);
    }
    return d;
}

/// bnlearn's formula read literally: every one of the q parent configurations (observed
/// or not), each with its counts found by scanning the samples.
double formula_score(const std::vector<std::vector<int>>& cols, const std::vector<int>& cards, int node,
                     const std::vector<int>& parents, ScoreKind kind, double iss) {
    const int r = cards[node];
    long q = 1;
    for (const int p : parents) q *= cards[p];
    const std::size_t m = cols[0].size();
    double score = 0.0;
    for (long j = 0; j < q; ++j) {
        std::vector<int> conf(parents.size());  // configuration j, first parent most significant
        long rest = j;
        for (std::size_t t = parents.size(); t-- > 0;) {
            conf[t] = static_cast<int>(rest % cards[parents[t]]);
            rest /= cards[parents[t]];
        }
        std::vector<double> n(static_cast<std::size_t>(r), 0.0);
        for (std::size_t s = 0; s < m; ++s) {
            bool match = true;
            for (std::size_t t = 0; t < parents.size(); ++t) match = match && cols[parents[t]][s] == conf[t];
            if (match) n[cols[node][s]] += 1.0;
        }
        double n_j = 0.0;
        for (const double x : n) n_j += x;
        const double a_jk = kind == ScoreKind::BDeu ? iss / static_cast<double>(q * r) : 1.0;
        const double a_j = a_jk * r;
        score += std::lgamma(a_j) - std::lgamma(a_j + n_j);
        for (const double x : n) score += std::lgamma(a_jk + x) - std::lgamma(a_jk);
    }
    return score;
}

// A, B binary, C ternary; (A, B) = (1, 1) never occurs.
const std::vector<std::vector<int>> kSmall = {
    {0, 0, 0, 0, 1, 1, 0, 1},
    {0, 0, 1, 1, 0, 0, 0, 0},
    {0, 1, 2, 1, 0, 0, 2, 1},
};
const std::vector<int> kSmallCards = {2, 2, 3};

DiscreteScorer scorer(const std::vector<std::vector<int>>& cols, ScoreKind kind, double iss = 1.0) {
    return DiscreteScorer(cudag::bn::discrete_codes_for_scoring(make_discrete(cols)), ScoreSpec{kind, iss});
}

Dag dag(std::vector<std::vector<std::int32_t>> parents) { return Dag{std::move(parents)}; }

TEST(BnLocalScore, KnownValuesOnASmallTable) {
    // Values worked out from the formulas (bnlearn's BDeu with iss 1 and 2.5, K2): A alone,
    // 5 zeros and 3 ones, K2 = lgamma(2) - lgamma(10) + lgamma(6) + lgamma(4).
    const std::vector<std::int32_t> none, ab = {0, 1};
    EXPECT_NEAR(scorer(kSmall, ScoreKind::K2).local(0, none), -std::log(362880.0) + std::log(120.0) + std::log(6.0),
                1e-12);
    EXPECT_NEAR(scorer(kSmall, ScoreKind::K2).local(0, none), -6.222576268071365, 1e-12);
    EXPECT_NEAR(scorer(kSmall, ScoreKind::BDeu).local(0, none), -6.59054521862886, 1e-12);
    // C given (A, B), with the unobserved configuration (1, 1).
    EXPECT_NEAR(scorer(kSmall, ScoreKind::BDeu).local(2, ab), -15.446711843858077, 1e-12);
    EXPECT_NEAR(scorer(kSmall, ScoreKind::BDeu, 2.5).local(2, ab), -12.767743777453457, 1e-12);
    EXPECT_NEAR(scorer(kSmall, ScoreKind::K2).local(2, ab), -9.980448593672257, 1e-12);
}

TEST(BnLocalScore, MatchesTheFormulaForEveryParentSet) {
    for (const ScoreKind kind : {ScoreKind::BDeu, ScoreKind::K2})
        for (const double iss : {1.0, 0.5, 10.0}) {
            const DiscreteScorer s = scorer(kSmall, kind, iss);
            const std::vector<std::vector<int>> sets = {{}, {0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}};
            for (int node = 0; node < 3; ++node)
                for (const auto& ps : sets) {
                    if (std::find(ps.begin(), ps.end(), node) != ps.end()) continue;
                    const std::vector<std::int32_t> p(ps.begin(), ps.end());
                    EXPECT_NEAR(s.local(node, p), formula_score(kSmall, kSmallCards, node, ps, kind, iss), 1e-10)
                        << "node " << node << " parents " << ps.size() << " iss " << iss;
                }
        }
}

TEST(BnLocalScore, ParentOrderDoesNotMatter) {
    const DiscreteScorer s = scorer(kSmall, ScoreKind::BDeu);
    const std::vector<std::int32_t> ab = {0, 1}, ba = {1, 0};
    EXPECT_DOUBLE_EQ(s.local(2, ab), s.local(2, ba));
}

// Random data with more parent configurations than samples (the counts renumber keys).
std::vector<std::vector<int>> random_columns(const std::vector<int>& cards, int m, unsigned seed) {
    std::mt19937 gen(seed);
    std::vector<std::vector<int>> cols(cards.size());
    for (std::size_t v = 0; v < cards.size(); ++v) {
        for (int s = 0; s < m; ++s) cols[v].push_back(s < cards[v] ? s : static_cast<int>(gen() % cards[v]));
    }
    return cols;
}

TEST(BnLocalScore, ManyParentsMatchTheFormula) {
    const std::vector<int> cards = {3, 3, 3, 3, 2, 4};
    const auto cols = random_columns(cards, 10, 7);  // 3^4 * 2 = 162 configurations > 10 rows
    for (const ScoreKind kind : {ScoreKind::BDeu, ScoreKind::K2}) {
        const DiscreteScorer s = scorer(cols, kind);
        const std::vector<std::int32_t> p = {0, 1, 2, 3, 4};
        EXPECT_NEAR(s.local(5, p), formula_score(cols, cards, 5, {0, 1, 2, 3, 4}, kind, 1.0), 1e-10);
    }
}

TEST(BnLocalScore, CountsFunctionsTakeObservedRowsOnly) {
    // One observed configuration of 4: the other 3 add nothing.
    const std::uint32_t counts[] = {2, 1};
    const double a_j = 1.0 / 4, a_jk = a_j / 2;
    const double expected =
        std::lgamma(a_j) - std::lgamma(a_j + 3) + std::lgamma(a_jk + 2) + std::lgamma(a_jk + 1) - 2 * std::lgamma(a_jk);
    EXPECT_NEAR(cudag::bn::bdeu_local_score(counts, 1, 2, 4.0, 1.0), expected, 1e-12);
    EXPECT_NEAR(cudag::bn::k2_local_score(counts, 1, 2), std::lgamma(2.0) - std::lgamma(5.0) + std::lgamma(3.0), 1e-12);
}

TEST(BnLocalScore, DenseCountsEqualObservedRowsBitForBit) {
    // DiscreteScorer counts small tables densely; the observed-rows path must give the same bits.
    const std::vector<int> cards = {2, 3, 4, 2, 3, 2};
    const auto cols = random_columns(cards, 300, 11);
    for (const ScoreKind kind : {ScoreKind::BDeu, ScoreKind::K2}) {
        const DiscreteScorer s = scorer(cols, kind, 2.5);
        for (const std::vector<std::int32_t>& p : std::vector<std::vector<std::int32_t>>{
                 {}, {1}, {0, 2}, {2, 0}, {1, 3, 4}, {0, 1, 2, 3}, {4, 3, 2, 1, 0}}) {
            std::int64_t rows = 0;
            const auto counts = cudag::bn::parent_counts(s.codes(), 5, p, rows);
            double q = 1.0;
            for (const std::int32_t x : p) q *= cards[x];
            const double observed = kind == ScoreKind::K2 ? cudag::bn::k2_local_score(counts.data(), rows, 2)
                                                          : cudag::bn::bdeu_local_score(counts.data(), rows, 2, q, 2.5);
            EXPECT_EQ(s.local(5, p), observed) << p.size() << " parents";
        }
    }
}

TEST(BnLocalScore, ManyLevelledParentsEqualTheDenseSumsBitForBit) {
    // Issue 37 (munin): the scorer counts only the observed configurations (a bitmap of them
    // up to 2^26 configurations, sorting beyond) and computes each distinct count's lgamma
    // terms once. Every score and superset bound must still be the dense table's sum in
    // configuration order, bit for bit: q from 1 to 21^4 x 20 (bitmap) and beyond (sorting).
    const std::vector<int> cards = {21, 20, 19, 2, 17, 18, 3, 5};
    const auto cols = random_columns(cards, 400, 29);
    for (const ScoreKind kind : {ScoreKind::BDeu, ScoreKind::K2}) {
        const DiscreteScorer s = scorer(cols, kind, 3.0);
        for (const std::vector<std::int32_t>& p : std::vector<std::vector<std::int32_t>>{
                 {}, {3}, {0}, {0, 3}, {1, 2}, {6, 0, 3}, {0, 1, 2}, {0, 1, 5}, {0, 1, 2, 4}, {0, 1, 2, 4, 5}}) {
            const std::int32_t node = 7;
            double q = 1.0;
            for (const std::int32_t x : p) q *= cards[x];
            // Every configuration's row, observed or not, up to 2^21 cells; beyond, the
            // observed rows as parent_counts sorts them.
            std::int64_t rows = 0;
            std::vector<std::uint32_t> counts;
            if (q * cards[node] <= (1 << 21)) {
                rows = static_cast<std::int64_t>(q);
                counts.assign(static_cast<std::size_t>(rows * cards[node]), 0);
                for (std::size_t i = 0; i < cols[node].size(); ++i) {
                    std::int64_t j = 0;
                    for (const std::int32_t x : p) j = j * cards[x] + cols[x][i];
                    ++counts[static_cast<std::size_t>(j * cards[node] + cols[node][i])];
                }
            } else {
                counts = cudag::bn::parent_counts(s.codes(), node, p, rows);
            }
            const double dense = kind == ScoreKind::K2
                                     ? cudag::bn::k2_local_score(counts.data(), rows, cards[node])
                                     : cudag::bn::bdeu_local_score(counts.data(), rows, cards[node], q, 3.0);
            EXPECT_EQ(s.local(node, p), dense) << p.size() << " parents, q " << q;
            // The bound with a floor that forces it, against bd_superset_bound itself.
            double bound = 0.0;
            const double got = s.local_bounded(node, p, 6, std::numeric_limits<double>::infinity(), &bound);
            EXPECT_EQ(got, dense);
            if (kind == ScoreKind::K2) {
                EXPECT_EQ(bound, cudag::bn::bd_superset_bound(counts.data(), rows, cards[node], 1.0));
            } else {
                EXPECT_TRUE(std::isfinite(bound));
                EXPECT_GE(bound, dense - 1e-9 * std::abs(dense));
            }
        }
    }
}

TEST(BnLocalScore, TabulatedTermsEqualDirectLgamma) {
    // bd_term_tables (issue 37) must hold the very doubles bd_local_score computes.
    struct Case {
        double iss;
        std::int64_t q;
        std::int32_t r, samples;
    };
    for (const Case c :
         {Case{1.0, 1, 2, 600}, Case{1.0, 16, 2, 600}, Case{2.5, 9, 3, 50}, Case{10.0, 4, 5, 7}, Case{0.5, 1, 1, 3}}) {
        for (const bool k2 : {false, true}) {
            const double a_jk = k2 ? 1.0 : c.iss / (static_cast<double>(c.q) * c.r), a_j = a_jk * c.r;
            std::vector<double> cell(static_cast<std::size_t>(c.samples) + 1), row(cell.size());
            cudag::bn::bd_term_tables(a_jk, c.r, c.samples, cell.data(), row.data());
            for (std::int32_t n = 0; n <= c.samples; ++n) {
                const auto i = static_cast<std::size_t>(n);
                EXPECT_EQ(cell[i], cudag::xm::lgamma(a_jk + n) - cudag::xm::lgamma(a_jk)) << c.q << " " << n;
                EXPECT_EQ(row[i], cudag::xm::lgamma(a_j) - cudag::xm::lgamma(a_j + n)) << c.q << " " << n;
            }
            EXPECT_EQ(cell[0], 0.0);
            EXPECT_EQ(row[0], 0.0);
            EXPECT_NEAR(cell[3], std::lgamma(a_jk + 3) - std::lgamma(a_jk), 1e-12);
        }
    }
}

TEST(BnLocalScore, BitsetScoreEqualsTheScorerBitForBit) {
    // bd_bitset_score (the GPU table's thread-per-entry score) from one-hot sample bitsets and
    // tabulated terms against DiscreteScorer::local, nodes of 2, 3 and 4 levels; 70 samples
    // leave a partial last word.
    const std::vector<int> cards = {2, 3, 4, 2, 3, 2};
    const auto cols = random_columns(cards, 70, 5);
    for (const ScoreKind kind : {ScoreKind::BDeu, ScoreKind::K2}) {
        const DiscreteScorer s = scorer(cols, kind, 2.5);
        const auto& codes = s.codes();
        const std::int64_t words = (codes.n_samples + 31) / 32;
        std::vector<std::int32_t> offs;
        std::int32_t sets = 1;
        for (const std::int32_t c : codes.cards) offs.push_back(sets - 1), sets += c;
        std::vector<std::uint32_t> bits(static_cast<std::size_t>(sets * words), 0u);
        for (std::int64_t i = 0; i < codes.n_samples; ++i) bits[static_cast<std::size_t>(i / 32)] |= 1u << (i % 32);
        for (std::int64_t u = 0; u < codes.n_vars; ++u)
            for (std::int64_t i = 0; i < codes.n_samples; ++i) {
                const std::int64_t set = 1 + offs[static_cast<std::size_t>(u)] + codes.column(u)[i];
                bits[static_cast<std::size_t>(set * words + i / 32)] |= 1u << (i % 32);
            }
        const cudag::bn::SampleBits B{bits.data(), offs.data(), codes.cards.data(), words};
        for (const std::int32_t v : {5, 1, 2}) {
            for (const std::vector<std::int32_t>& p : std::vector<std::vector<std::int32_t>>{
                     {}, {0}, {3}, {0, 4}, {0, 3, 4}, {0, 1, 2, 3}, {0, 1, 3, 4}, {0, 1, 2, 3, 4}}) {
                if (std::find(p.begin(), p.end(), v) != p.end()) continue;
                std::int64_t q = 1;
                for (const std::int32_t x : p) q *= cards[static_cast<std::size_t>(x)];
                const std::int32_t r = cards[static_cast<std::size_t>(v)];
                const double a_jk = kind == ScoreKind::K2 ? 1.0 : 2.5 / (static_cast<double>(q) * r);
                std::vector<double> cell(static_cast<std::size_t>(codes.n_samples) + 1), row(cell.size());
                cudag::bn::bd_term_tables(a_jk, r, codes.n_samples, cell.data(), row.data());
                const double got =
                    cudag::bn::bd_bitset_score(B, v, p.data(), static_cast<int>(p.size()), q, cell.data(), row.data());
                EXPECT_EQ(got, s.local(v, p)) << "node " << v << ", " << p.size() << " parents";
            }
        }
    }
}

TEST(BnDagScore, IsTheSumOfLocalScores) {
    const auto cols = random_columns({2, 3, 2, 4, 3}, 60, 11);
    const Dag g = dag({{}, {0}, {0, 1}, {2}, {1, 3}});
    for (const ScoreKind kind : {ScoreKind::BDeu, ScoreKind::K2}) {
        const DiscreteScorer s = scorer(cols, kind);
        double sum = 0.0;
        for (std::int32_t v = 0; v < g.n(); ++v) sum += s.local(v, g.parents[v]);
        EXPECT_NEAR(s.dag_score(g), sum, 1e-12);
        const std::vector<double> local = s.local_scores(g);
        ASSERT_EQ(local.size(), 5u);
        for (std::int32_t v = 0; v < g.n(); ++v) EXPECT_DOUBLE_EQ(local[v], s.local(v, g.parents[v]));
    }
}

TEST(BnDagScore, BDeuIsScoreEquivalent) {
    // A - B - C: the chain both ways and the fork are Markov equivalent; the collider is not.
    const auto cols = random_columns({2, 3, 2}, 40, 3);
    for (const double iss : {1.0, 4.0}) {
        const DiscreteScorer s = scorer(cols, ScoreKind::BDeu, iss);
        const double chain = s.dag_score(dag({{}, {0}, {1}}));
        EXPECT_NEAR(s.dag_score(dag({{1}, {2}, {}})), chain, 1e-9);
        EXPECT_NEAR(s.dag_score(dag({{1}, {}, {1}})), chain, 1e-9);
        EXPECT_GT(std::fabs(s.dag_score(dag({{}, {0, 2}, {}})) - chain), 1e-6);
    }
    // Five variables, a v-structure kept: reversing the covered edge 0 -> 1 keeps the score.
    const auto cols5 = random_columns({2, 3, 2, 4, 3}, 80, 5);
    const DiscreteScorer s5 = scorer(cols5, ScoreKind::BDeu);
    const double g1 = s5.dag_score(dag({{}, {0}, {0, 1}, {2, 4}, {}}));
    const double g2 = s5.dag_score(dag({{1}, {}, {0, 1}, {2, 4}, {}}));
    EXPECT_NEAR(g1, g2, 1e-9);
}

TEST(BnDagScore, FindsACycle) {
    EXPECT_TRUE(cudag::bn::find_cycle(dag({{}, {0}, {0, 1}})).empty());
    // 1 -> 2 -> 3 -> 1, and 0 -> 1, 3 -> 4 hanging on it.
    const std::vector<std::int32_t> c = cudag::bn::find_cycle(dag({{}, {0, 3}, {1}, {2}, {3}}));
    EXPECT_EQ(c, (std::vector<std::int32_t>{1, 2, 3}));
    EXPECT_EQ(cudag::bn::find_cycle(dag({{0}})), (std::vector<std::int32_t>{0}));
}

TEST(BnScoreData, RefusesNonIntegersAndSingleLevels) {
    Dataset d;
    d.n_vars = 2;
    d.n_samples = 3;
    d.names = {"x", "y"};
    d.source = "t.csv";
    d.values = {0, 1, 2, 0, 1.5, 1};
    try {
        (void)cudag::bn::discrete_codes_for_scoring(d);
        FAIL() << "no error";
    } catch (const cudag::InputError& e) {
        // The rule of the discrete CI tests (io::check_integer_levels), in the scores' words.
        EXPECT_NE(std::string(e.what()).find("column 'y' holds the non-integer value 1.5 (data row 2) among numbers "
                                             "only: BDeu and K2 score discrete data"),
                  std::string::npos)
            << e.what();
    }
    d.values = {0, 1, 2, 7, 7, 7};
    EXPECT_THROW((void)cudag::bn::discrete_codes_for_scoring(d), cudag::InputError);
    d.values = {0, 1, 2, 7, 8, 7};
    const cudag::ci::DiscreteCodes c = cudag::bn::discrete_codes_for_scoring(d);
    EXPECT_EQ(c.cards, (std::vector<std::int32_t>{3, 2}));
}

// ---- BGe ----------------------------------------------------------------------------

Dataset make_continuous(const std::vector<std::vector<double>>& cols) { return make_dataset(cols); }

/// log det of the symmetric positive definite submatrix of `m` (n × n) on `idx`, by
/// Gaussian elimination.
double log_det(const std::vector<double>& m, int n, const std::vector<int>& idx) {
    const std::size_t k = idx.size();
    std::vector<double> a(k * k);
    for (std::size_t r = 0; r < k; ++r)
        for (std::size_t c = 0; c < k; ++c) a[r * k + c] = m[idx[r] * n + idx[c]];
    double ld = 0.0;
    for (std::size_t p = 0; p < k; ++p) {
        ld += std::log(a[p * k + p]);
        for (std::size_t r = p + 1; r < k; ++r) {
            const double f = a[r * k + p] / a[p * k + p];
            for (std::size_t c = p; c < k; ++c) a[r * k + c] -= f * a[p * k + c];
        }
    }
    return ld;
}

/// The BGe log marginal likelihood of the variables `y` (Kuipers et al. 2014, eq. 2 with
/// aw - n + |Y| degrees of freedom), in BiDAG's parameterisation (mu0 = 0, T0 = t I).
double family_log_ml(const std::vector<std::vector<double>>& cols, const std::vector<int>& y, double am) {
    const int n = static_cast<int>(cols.size());
    const double big_n = static_cast<double>(cols[0].size());
    const double aw = n + am + 1.0, t = am * (aw - n - 1.0) / (am + 1.0);
    std::vector<double> mean(n), tn(static_cast<std::size_t>(n * n));
    for (int v = 0; v < n; ++v) {
        for (const double x : cols[v]) mean[v] += x;
        mean[v] /= big_n;
    }
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            double s = 0.0;
            for (std::size_t r = 0; r < cols[0].size(); ++r) s += (cols[a][r] - mean[a]) * (cols[b][r] - mean[b]);
            tn[a * n + b] = s + am * big_n / (am + big_n) * mean[a] * mean[b] + (a == b ? t : 0.0);
        }
    const double k = static_cast<double>(y.size());
    if (y.empty()) return 0.0;
    const double aw_y = aw - n + k;
    double r = -0.5 * big_n * k * std::log(std::numbers::pi) + 0.5 * k * std::log(am / (am + big_n));
    for (int i = 1; i <= static_cast<int>(k); ++i)
        r += std::lgamma(0.5 * (aw_y + big_n - k + i)) - std::lgamma(0.5 * (aw_y - k + i));
    return r + 0.5 * aw_y * k * std::log(t) - 0.5 * (aw_y + big_n) * log_det(tn, n, y);
}

const std::vector<std::vector<double>> kGauss = {
    {0.5, 1.2, -0.8, 0.3, 2.0, -0.4},
    {1.0, 0.7, -1.1, 0.2, 1.7, 0.1},
    {-0.3, 0.9, 0.1, -1.4, 0.6, 0.2},
};

TEST(BnBge, KnownValuesOnASmallTable) {
    const cudag::bn::BgeScorer s(make_continuous(kGauss), {});
    EXPECT_DOUBLE_EQ(s.aw(), 5.0);  // n + am + 1
    const std::vector<std::int32_t> none, a = {0}, ab = {0, 1};
    // From the family formula, worked out independently of cudag.
    EXPECT_NEAR(s.local(0, none), -10.905163859285748, 1e-10);
    EXPECT_NEAR(s.local(1, a), -6.278801801903915, 1e-10);
    EXPECT_NEAR(s.local(2, ab), -10.953295120290573, 1e-10);
}

std::vector<std::vector<double>> gaussian_chain(int n, int m, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<std::vector<double>> cols(static_cast<std::size_t>(n));
    for (int s = 0; s < m; ++s)
        for (int v = 0; v < n; ++v) cols[v].push_back((v ? 0.8 * cols[v - 1].back() : 1.5) + z(gen));
    return cols;
}

TEST(BnBge, MatchesTheFamilyMarginalLikelihood) {
    const auto cols = gaussian_chain(5, 40, 9);
    for (const double am : {1.0, 3.0}) {
        const cudag::bn::BgeScorer s(make_continuous(cols), {am, std::nullopt});
        const std::vector<std::pair<int, std::vector<int>>> cases = {{0, {}},        {0, {1}},          {0, {3, 1}},
                                                                     {1, {0, 2, 4}}, {0, {1, 2, 3, 4}}, {4, {2}}};
        for (const auto& [node, ps] : cases) {
            std::vector<int> fam = ps;
            fam.push_back(node);
            const double expected = family_log_ml(cols, fam, am) - family_log_ml(cols, ps, am);
            const std::vector<std::int32_t> p(ps.begin(), ps.end());
            EXPECT_NEAR(s.local(node, p), expected, 1e-8) << "am " << am << " parents " << ps.size();
        }
    }
}

TEST(BnBge, IsScoreEquivalent) {
    const auto cols = gaussian_chain(3, 50, 4);
    const cudag::bn::BgeScorer s(make_continuous(cols), {});
    const double chain = s.dag_score(dag({{}, {0}, {1}}));
    EXPECT_NEAR(s.dag_score(dag({{1}, {2}, {}})), chain, 1e-8);
    EXPECT_NEAR(s.dag_score(dag({{1}, {}, {1}})), chain, 1e-8);
    EXPECT_GT(std::fabs(s.dag_score(dag({{}, {0, 2}, {}})) - chain), 1e-6);
    // Five variables: the complete DAG in two orders, and a covered-edge reversal.
    const auto cols5 = gaussian_chain(5, 60, 8);
    const cudag::bn::BgeScorer s5(make_continuous(cols5), {2.0, 9.0});
    EXPECT_NEAR(s5.dag_score(dag({{}, {0}, {0, 1}, {0, 1, 2}, {0, 1, 2, 3}})),
                s5.dag_score(dag({{1, 2, 3, 4}, {2, 3, 4}, {3, 4}, {4}, {}})), 1e-8);
    EXPECT_NEAR(s5.dag_score(dag({{}, {0}, {0, 1}, {2, 4}, {}})), s5.dag_score(dag({{1}, {}, {0, 1}, {2, 4}, {}})),
                1e-8);
}

TEST(BnBge, RefusesBadHyperParameters) {
    EXPECT_THROW(cudag::bn::BgeScorer(make_continuous(kGauss), {0.0, std::nullopt}), cudag::InputError);
    EXPECT_THROW(cudag::bn::BgeScorer(make_continuous(kGauss), {1.0, 4.0}), cudag::InputError);  // aw <= n + 1
}

}  // namespace
