// SPDX-License-Identifier: Apache-2.0
// CMIknn (ci/cmi_knn.hpp): the statistic against tigramite 5.2.10.1 (values made by
// scripts/dev/cmiknn_reference.py into tests/data/cmiknn/), the kd-tree against brute force,
// p-values against tigramite within sampling error, thread-count invariance, early stop and
// the tie rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ci/cmi_knn.hpp"
#include "ci/kd_tree.hpp"
#include "core/error.hpp"
#include "io/dataset_io.hpp"
#include "support/names.hpp"

using namespace cudag;
using ci::CmiKnn;
using ci::CmiKnnSpec;
using ci::CmiTransform;

namespace {

std::string data_dir() { return std::string(CUDAG_SOURCE_DIR) + "/tests/data/cmiknn"; }

/// Rows of a tab-separated file with a header line; '#' lines are skipped. Each row is a
/// map from column name to text.
std::vector<std::map<std::string, std::string>> read_tsv(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << "cannot open " << path;
    std::vector<std::string> header;
    std::vector<std::map<std::string, std::string>> rows;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, '\t')) cells.push_back(cell);
        if (header.empty()) {
            header = cells;
            continue;
        }
        std::map<std::string, std::string> row;
        for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c) row[header[c]] = cells[c];
        rows.push_back(row);
    }
    return rows;
}

/// "-" or "2;3;4".
std::vector<std::int32_t> parse_set(const std::string& s) {
    std::vector<std::int32_t> z;
    if (s == "-") return z;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ';')) z.push_back(std::stoi(item));
    return z;
}

Dataset make_dataset(const std::vector<std::vector<double>>& cols) {
    Dataset d;
    d.n_vars = static_cast<std::int64_t>(cols.size());
    d.n_samples = static_cast<std::int64_t>(cols[0].size());
    for (std::size_t v = 0; v < cols.size(); ++v) {
        d.names.push_back(cudag::test::indexed_name("V", static_cast<long long>(v)));
        d.values.insert(d.values.end(), cols[v].begin(), cols[v].end());
    }
    d.source = "test";
    return d;
}

/// n samples: a continuous column, two tied integer columns (0..4) and a mixed one.
Dataset random_tied(std::int64_t n, unsigned seed) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> nd;
    std::uniform_int_distribution<int> ud(0, 4);
    std::vector<std::vector<double>> cols(5, std::vector<double>(static_cast<std::size_t>(n)));
    for (std::int64_t t = 0; t < n; ++t) {
        cols[0][t] = nd(gen);
        cols[1][t] = ud(gen);
        cols[2][t] = ud(gen) + (cols[1][t] > 2 ? 1 : 0);
        cols[3][t] = std::round(2.0 * nd(gen)) + cols[0][t] * 0.0;
        cols[4][t] = 0.5 * cols[0][t] + nd(gen);
    }
    return make_dataset(cols);
}

/// Max-norm distance between samples a and b over the given columns.
double dist(const std::vector<const double*>& cols, std::int64_t a, std::int64_t b) {
    double m = 0.0;
    for (const double* c : cols) m = std::max(m, std::fabs(c[a] - c[b]));
    return m;
}

/// The statistic by brute force (O(T²)) on the engine's working columns: ε from a full
/// sort, counts from ci::cmi_counts_brute (the routine the GPU kernels share).
double brute_statistic(const CmiKnn& cmi, std::int32_t x, std::int32_t y, const std::vector<std::int32_t>& z) {
    const std::int64_t n = cmi.n_samples();
    std::vector<const double*> cols{cmi.working_column(x), cmi.working_column(y)};
    for (std::int32_t v : z) cols.push_back(cmi.working_column(v));
    std::vector<double> d(static_cast<std::size_t>(n));
    std::uint64_t sum = 0;  // the engines' fixed-point sum (ci::cmi_fixed_bits)
    const std::vector<std::int64_t>& pf = cmi.psi_fixed();
    for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < n; ++j) d[j] = dist(cols, i, j);
        std::nth_element(d.begin(), d.begin() + cmi.k(), d.end());
        const double eps = d[static_cast<std::size_t>(cmi.k())];
        std::int64_t kxz = 0, kyz = 0, kz = 0;
        ci::cmi_counts_brute(cols.data(), static_cast<int>(z.size()), n, i, eps, kxz, kyz, kz);
        sum += static_cast<std::uint64_t>(pf[kxz] + pf[kyz] - pf[kz]);
    }
    return cmi.statistic_from_sum(static_cast<std::int64_t>(sum));
}

bool throws_one_line_input_error(const std::function<void()>& f, const std::string& needle) {
    try {
        f();
    } catch (const InputError& e) {
        const std::string what = e.what();
        return what.find('\n') == std::string::npos && what.find(needle) != std::string::npos;
    }
    return false;
}

}  // namespace

TEST(CmiKnn, DigammaMatchesKnownValues) {
    const double euler = 0.57721566490153286061;
    EXPECT_NEAR(ci::cmi_digamma(1.0), -euler, 1e-15);
    EXPECT_NEAR(ci::cmi_digamma(0.5), -euler - 2.0 * std::log(2.0), 1e-14);
    // ψ(n) = H_{n−1} − γ.
    double h = 0.0;
    for (int n = 1; n <= 5000; ++n) {
        EXPECT_NEAR(ci::cmi_digamma(n), h - euler, 1e-13 * std::max(1.0, std::fabs(h))) << n;
        h += 1.0 / n;
    }
}

TEST(CmiKnn, KFollowsTigramite) {
    EXPECT_EQ(ci::cmi_k(0.2, 200), 40);
    EXPECT_EQ(ci::cmi_k(0.33, 200), 66);
    EXPECT_EQ(ci::cmi_k(0.001, 200), 1);  // max(1, int(0.2))
    EXPECT_EQ(ci::cmi_k(7.0, 200), 7);
    EXPECT_EQ(ci::cmi_k(7.9, 200), 7);
}

TEST(CmiKnn, StatisticMatchesTigramite) {
    const Dataset data = io::read_dataset(data_dir() + "/data.csv");
    ASSERT_EQ(data.n_samples, 200);
    const auto rows = read_tsv(data_dir() + "/statistic.tsv");
    ASSERT_GE(rows.size(), 12u);
    ci::CmiKnnWorkspace ws;
    double max_diff = 0.0;
    std::vector<bool> seen_z(4, false);
    for (const auto& row : rows) {
        CmiKnnSpec spec;
        spec.knn = std::stod(row.at("knn"));
        spec.transform = ci::parse_cmi_transform(row.at("transform"));
        const CmiKnn cmi(data, spec);
        const auto z = parse_set(row.at("z"));
        seen_z[z.size()] = true;
        const double expected = std::stod(row.at("statistic"));
        const double got = cmi.statistic(std::stoi(row.at("x")), std::stoi(row.at("y")), z, ws);
        EXPECT_NEAR(got, expected, 1e-9) << row.at("x") << " " << row.at("y") << " | " << row.at("z") << " knn "
                                         << row.at("knn") << " " << row.at("transform");
        max_diff = std::max(max_diff, std::fabs(got - expected));
    }
    for (std::size_t l = 0; l < seen_z.size(); ++l) EXPECT_TRUE(seen_z[l]) << "no case with |Z| = " << l;
    std::printf("[ cmi-knn ] %zu statistics vs tigramite: max |diff| = %.3g\n", rows.size(), max_diff);
}

TEST(CmiKnn, UniformEqualsRanks) {
    const Dataset data = io::read_dataset(data_dir() + "/data.csv");
    CmiKnnSpec r, u;
    u.transform = CmiTransform::Uniform;
    const CmiKnn a(data, r), b(data, u);
    ci::CmiKnnWorkspace ws;
    const std::vector<std::int32_t> z{2, 3};
    EXPECT_EQ(a.statistic(0, 1, z, ws), b.statistic(0, 1, z, ws));
    // The public transform gives tigramite's uniform marginals (rank + 1)/T.
    std::vector<double> out(static_cast<std::size_t>(data.n_samples));
    std::vector<std::int32_t> order;
    ci::cmi_transform(data.column(0), data.n_samples, CmiTransform::Uniform, ci::CmiTieBreak::Noise, 42, 0, out.data(),
                      order);
    for (std::int64_t t = 0; t < data.n_samples; ++t)
        EXPECT_NEAR(out[t], (a.working_column(0)[t] + 1.0) / data.n_samples, 1e-15);
}

TEST(CmiKnn, KdTreeQueriesEqualBruteForceWithTies) {
    const Dataset data = random_tied(700, 3);
    CmiKnnSpec spec;
    spec.transform = CmiTransform::None;
    spec.tie_break = ci::CmiTieBreak::Index;  // keep the ties: distances tie everywhere
    const CmiKnn cmi(data, spec);
    const std::int64_t n = data.n_samples;
    std::vector<std::int32_t> vars{1, 2, 3, 0};
    std::vector<double> heap;
    std::vector<ci::MaxNormKdTree::Near> nn_heap;
    std::mt19937 gen(5);
    for (int d = 1; d <= 4; ++d) {
        std::vector<const double*> cols;
        for (int c = 0; c < d; ++c) cols.push_back(cmi.working_column(vars[c]));
        ci::MaxNormKdTree tree;
        tree.build(cols.data(), d, n);
        for (int rep = 0; rep < 60; ++rep) {
            const std::int64_t i = std::uniform_int_distribution<std::int64_t>(0, n - 1)(gen);
            const std::int64_t k = std::uniform_int_distribution<std::int64_t>(1, n)(gen);
            const std::uint64_t salt = ci::cmi_neighbor_salt(7, i);
            std::vector<ci::MaxNormKdTree::Near> all;
            for (std::int64_t j = 0; j < n; ++j) {
                double l1 = 0.0;
                for (const double* c : cols) l1 += std::fabs(c[i] - c[j]);
                all.push_back({dist(cols, i, j), l1, ci::kd_tie_key(salt, j), static_cast<std::int32_t>(j)});
            }
            std::sort(all.begin(), all.end());
            std::vector<double> q;
            for (const double* c : cols) q.push_back(c[i]);
            ASSERT_EQ(tree.kth_distance(q.data(), k, heap), all[k - 1].d) << d << " " << i << " " << k;
            for (double r : {all[k - 1].d, all[k - 1].d + 0.5, 0.0}) {
                std::int64_t brute = 0, at_most = 0;
                for (const auto& e : all) {
                    brute += ci::cmi_counts_point(e.d, r);
                    at_most += e.d <= r;
                }
                ASSERT_EQ(tree.count_within(q.data(), ci::cmi_count_radius(r)), brute) << d << " " << i << " r " << r;
                ASSERT_EQ(tree.count_within(q.data(), r), at_most) << d << " " << i << " r " << r;
            }
            const int kn = static_cast<int>(std::min<std::int64_t>(k, 40));
            std::vector<std::int32_t> got(static_cast<std::size_t>(kn));
            tree.nearest(q.data(), kn, salt, got.data(), nn_heap);
            for (int t = 0; t < kn; ++t) ASSERT_EQ(got[t], all[t].id) << d << " " << i << " " << t;
        }
    }
}

TEST(CmiKnn, StatisticEqualsBruteForceOnTiedData) {
    const Dataset data = random_tied(300, 11);
    ci::CmiKnnWorkspace ws;
    for (auto tb : {ci::CmiTieBreak::Index, ci::CmiTieBreak::Noise}) {
        for (auto tr : {CmiTransform::Ranks, CmiTransform::None, CmiTransform::Standardize}) {
            for (double knn : {0.1, 5.0, 1.0}) {
                CmiKnnSpec spec;
                spec.knn = knn;
                spec.transform = tr;
                spec.tie_break = tb;
                const CmiKnn cmi(data, spec);
                for (const auto& z : std::vector<std::vector<std::int32_t>>{{}, {2}, {2, 3}, {0, 2, 3}}) {
                    EXPECT_EQ(cmi.statistic(1, 4, z, ws), brute_statistic(cmi, 1, 4, z))
                        << to_string(tr) << " knn " << knn << " |Z| " << z.size();
                }
            }
        }
    }
}

TEST(CmiKnn, PValueIdenticalOnAnyThreadCount) {
    const Dataset data = io::read_dataset(data_dir() + "/data.csv");
    CmiKnnSpec spec;
    spec.permutations = 60;
    spec.seed = 123;
    const CmiKnn cmi(data, spec);
    for (const auto& z : std::vector<std::vector<std::int32_t>>{{}, {2}, {2, 3, 4}}) {
        const std::uint64_t id = ci::cmi_test_id(0, 1, 17);
        std::vector<ci::CmiKnnWorkspace> one(1), three(3);
        const auto r1 = cmi.test(0, 1, z, id, std::span<ci::CmiKnnWorkspace>(one));
        const auto r3 = cmi.test(0, 1, z, id, std::span<ci::CmiKnnWorkspace>(three));
        EXPECT_EQ(r1.p, r3.p);
        EXPECT_EQ(r1.statistic, r3.statistic);
        EXPECT_EQ(r1.exceedances, r3.exceedances);
        EXPECT_EQ(one[0].null, three[0].null);
        // Another seed or test id gives other surrogates.
        const auto other = cmi.test(0, 1, z, ci::cmi_test_id(0, 1, 18), 2);
        EXPECT_EQ(other.statistic, r1.statistic);
        std::vector<ci::CmiKnnWorkspace> w2(1);
        cmi.test(0, 1, z, ci::cmi_test_id(0, 1, 18), std::span<ci::CmiKnnWorkspace>(w2));
        EXPECT_NE(w2[0].null, one[0].null);
    }
}

TEST(CmiKnn, PValueWithinSamplingErrorOfTigramite) {
    const Dataset data = io::read_dataset(data_dir() + "/data.csv");
    const auto rows = read_tsv(data_dir() + "/pvalue.tsv");
    ASSERT_GE(rows.size(), 4u);
    for (const auto& row : rows) {
        CmiKnnSpec spec;
        spec.knn = std::stod(row.at("knn"));
        spec.transform = ci::parse_cmi_transform(row.at("transform"));
        spec.permute = ci::parse_cmi_permute(row.at("permute"));
        spec.permutations = std::stoi(row.at("B"));
        spec.seed = 2024;
        const CmiKnn cmi(data, spec);
        const auto z = parse_set(row.at("z"));
        const std::int32_t x = std::stoi(row.at("x")), y = std::stoi(row.at("y"));
        const auto r = cmi.test(x, y, z, ci::cmi_test_id(x, y, 0), 2);
        const double p_tg = std::stod(row.at("p"));
        EXPECT_NEAR(r.statistic, std::stod(row.at("statistic")), 1e-9);
        // Both p-values estimate the same permutation p from B surrogates each: the
        // difference has sd sqrt(2 p (1 − p) / B); allow 4 sd (plus one step of 1/B).
        const double b = spec.permutations;
        const double pbar = std::clamp(0.5 * (r.p + p_tg), 1.0 / b, 1.0 - 1.0 / b);
        const double tol = 4.0 * std::sqrt(2.0 * pbar * (1.0 - pbar) / b) + 1.0 / b;
        EXPECT_NEAR(r.p, p_tg, tol) << x << " " << y << " | " << row.at("z") << " " << row.at("transform")
                                    << " permute " << row.at("permute");
        std::printf(
            "[ cmi-knn ] p(%d,%d|%s) %s permute %s B=%d: cudag %.4f tigramite %.4f "
            "(|diff| %.4f, 4 sd %.4f)\n",
            x, y, row.at("z").c_str(), row.at("transform").c_str(), row.at("permute").c_str(), spec.permutations, r.p,
            p_tg, std::fabs(r.p - p_tg), tol - 1.0 / b);
    }
}

TEST(CmiKnn, EarlyStopGivesTheFullDecision) {
    const Dataset data = io::read_dataset(data_dir() + "/data.csv");
    CmiKnnSpec full;
    full.permutations = 200;
    full.seed = 9;
    const CmiKnn cmi_full(data, full);
    for (bool strict : {false, true}) {
        CmiKnnSpec early = full;
        early.early_stop = ci::CmiEarlyStop{0.05, strict};
        const CmiKnn cmi_early(data, early);
        int stopped = 0;
        for (const auto& c : std::vector<std::pair<std::int32_t, std::vector<std::int32_t>>>{
                 {1, {2, 3, 4}}, {1, {2}}, {5, {2}}, {1, {3}}, {1, {}}}) {
            const std::uint64_t id = ci::cmi_test_id(0, c.first, 3);
            std::vector<ci::CmiKnnWorkspace> wf(1), we1(1), we3(3);
            const auto rf = cmi_full.test(0, c.first, c.second, id, std::span<ci::CmiKnnWorkspace>(wf));
            const auto re = cmi_early.test(0, c.first, c.second, id, std::span<ci::CmiKnnWorkspace>(we1));
            const auto re3 = cmi_early.test(0, c.first, c.second, id, std::span<ci::CmiKnnWorkspace>(we3));
            auto independent = [&](double p) { return strict ? p > 0.05 : p >= 0.05; };
            EXPECT_EQ(independent(re.p), independent(rf.p)) << c.first;
            EXPECT_LE(re.p, rf.p);
            EXPECT_EQ(re.p, re3.p);
            EXPECT_EQ(re.surrogates, re3.surrogates);
            if (re.early_stopped) {
                ++stopped;
                EXPECT_LT(re.surrogates, full.permutations);
                EXPECT_TRUE(std::equal(we1[0].null.begin(), we1[0].null.end(), wf[0].null.begin()));
            } else {
                EXPECT_EQ(re.p, rf.p);
            }
        }
        EXPECT_GE(stopped, 2);  // the independent cases stop early
    }
}

// ties: T = 200, few values per column; ties_wide: T = 1,000 and k up to 900, where many
// samples sit within 1e-9 of ε after the noise and only tigramite's counting rule
// (ci::cmi_counts_point) gives its statistic (strict `d < ε` was 5 to 25 sd off).
class CmiKnnTies : public testing::TestWithParam<const char*> {};

TEST_P(CmiKnnTies, NoiseTieBreakMatchesTigramite) {
    const std::string set = GetParam();
    const Dataset data = io::read_dataset(data_dir() + "/" + set + ".csv");
    const auto rows = read_tsv(data_dir() + "/" + set + ".tsv");
    ASSERT_GE(rows.size(), 3u);
    ci::CmiKnnWorkspace ws;
    for (const auto& row : rows) {
        const std::int32_t x = std::stoi(row.at("x")), y = std::stoi(row.at("y"));
        const auto z = parse_set(row.at("z"));
        const double mean_tg = std::stod(row.at("mean")), sd_tg = std::stod(row.at("sd"));
        const int seeds = std::stoi(row.at("seeds"));
        CmiKnnSpec spec;
        spec.knn = std::stod(row.at("knn"));
        spec.transform = ci::parse_cmi_transform(row.at("transform"));
        std::vector<double> vals;
        for (int s = 0; s < seeds; ++s) {
            spec.seed = 1000 + static_cast<std::uint64_t>(s);
            vals.push_back(CmiKnn(data, spec).statistic(x, y, z, ws));
        }
        const double mean = std::accumulate(vals.begin(), vals.end(), 0.0) / seeds;
        double var = 0.0;
        for (double v : vals) var += (v - mean) * (v - mean);
        const double sd = std::sqrt(var / (seeds - 1));
        spec.tie_break = ci::CmiTieBreak::Index;
        const double by_index = CmiKnn(data, spec).statistic(x, y, z, ws);
        // Two means of `seeds` draws: difference sd ≈ sqrt(sd_a² + sd_b²)/sqrt(seeds).
        const double se = std::sqrt((sd * sd + sd_tg * sd_tg) / seeds);
        EXPECT_NEAR(mean, mean_tg, 4.0 * se) << x << " " << y << " | " << row.at("z");
        std::printf(
            "[ cmi-knn ] %s (%d,%d|%s) %s: tigramite %.4g±%.2g, noise %.4g±%.2g "
            "(%.1f se), index %.4g (%.1f tigramite sd)\n",
            set.c_str(), x, y, row.at("z").c_str(), row.at("transform").c_str(), mean_tg, sd_tg, mean, sd,
            (mean - mean_tg) / se, by_index, (by_index - mean_tg) / sd_tg);
    }
}

INSTANTIATE_TEST_SUITE_P(TiedData, CmiKnnTies, testing::Values("ties", "ties_wide"),
                         [](const testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST(CmiKnn, ValidationMessages) {
    const Dataset data = random_tied(50, 1);
    auto make = [&](CmiKnnSpec s) { return [&data, s] { CmiKnn c(data, s); }; };
    CmiKnnSpec s;
    s.knn = 50;
    EXPECT_TRUE(throws_one_line_input_error(make(s), "k = 50 neighbours"));
    s = {};
    s.knn = -1;
    EXPECT_TRUE(throws_one_line_input_error(make(s), "knn must be positive"));
    s = {};
    s.shuffle_neighbors = 50;
    EXPECT_TRUE(throws_one_line_input_error(make(s), "--shuffle-neighbors 50"));
    s = {};
    s.permutations = 0;
    EXPECT_TRUE(throws_one_line_input_error(make(s), "permutations"));
    s = {};
    s.early_stop = ci::CmiEarlyStop{1.5, false};
    EXPECT_TRUE(throws_one_line_input_error(make(s), "early-stop alpha"));
    const Dataset tiny = make_dataset({{1.0, 2.0}, {3.0, 1.0}});
    EXPECT_TRUE(throws_one_line_input_error([&] { CmiKnn c(tiny, CmiKnnSpec{}); }, "too few samples"));
    EXPECT_TRUE(throws_one_line_input_error([] { ci::parse_cmi_transform("rank"); }, "unknown transform"));
    EXPECT_TRUE(throws_one_line_input_error([] { ci::parse_cmi_permute("z"); }, "x or y"));
    const CmiKnn ok(data, CmiKnnSpec{});
    ci::CmiKnnWorkspace ws;
    EXPECT_TRUE(throws_one_line_input_error([&] { ok.statistic(1, 1, {}, ws); }, "must differ"));
    const std::vector<std::int32_t> bad{1};
    EXPECT_TRUE(throws_one_line_input_error([&] { ok.statistic(1, 2, bad, ws); }, "equals x or y"));
}
