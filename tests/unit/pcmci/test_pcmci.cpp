// SPDX-License-Identifier: Apache-2.0
// PCMCI (src/pcmci/pcmci.hpp) against tigramite 5.2.10.1's run_pcmci with ParCorr on the
// cases of tests/data/pcmci/ (scripts/dev/pcmci_reference.py): the condition selection's
// parents in tigramite's order, the graph, and val_matrix / p_matrix to 1e-9 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/dataset.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "pcmci/lagged.hpp"
#include "pcmci/parcorr_test.hpp"
#include "pcmci/pcmci.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/test_spec.hpp"
#include "support/parcorr_residuals.hpp"
#include "support/pcmci_reference.hpp"
#include "support/pcmci_series.hpp"

using namespace cudag;
using namespace cudag::pcmci;

namespace {

const std::string kDir = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmci/";

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, sep)) out.push_back(cell);
    if (!line.empty() && line.back() == sep) out.push_back("");
    return out;
}

Dataset read_series(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    Dataset d;
    d.names = split(line, ',');
    d.n_vars = static_cast<std::int64_t>(d.names.size());
    std::vector<std::vector<double>> cols(d.names.size());
    while (std::getline(in, line)) {
        const auto cells = split(line, ',');
        for (std::size_t j = 0; j < cols.size(); ++j) cols[j].push_back(std::stod(cells[j]));
    }
    d.n_samples = static_cast<std::int64_t>(cols[0].size());
    for (const auto& c : cols) d.values.insert(d.values.end(), c.begin(), c.end());
    return d;
}

struct Expected {
    Settings settings;
    std::vector<std::vector<Node>> parents;
    std::vector<double> val, p;
    std::vector<std::string> graph;
    /// pc_alpha selection cases (sNN): the chosen pc_alpha (per variable for run_pcmci, one
    /// for run_pcmciplus) and tigramite's scores in Result::pc_alpha_scores' layout.
    std::vector<double> optimal, scores;
};

Expected read_expected(const std::string& path, std::int32_t n) {
    Expected e;
    std::ifstream in(path);
    std::string line;
    std::map<std::string, std::string> kv;
    e.parents.resize(static_cast<std::size_t>(n));
    struct Cell {
        int i, j, lag;
        double v, p;
        std::string g;
    };
    std::vector<Cell> cells;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto f = split(line, '\t');
        if (f[0] == "parents") {
            const int j = std::stoi(f[1]);
            if (f.size() > 2 && !f[2].empty())
                for (const auto& node : split(f[2], ';')) {
                    const auto il = split(node, ',');
                    e.parents[static_cast<std::size_t>(j)].push_back({std::stoi(il[0]), std::stoi(il[1])});
                }
        } else if (f[0] == "optimal_pc_alpha") {
            e.optimal.push_back(std::stod(f[2]));  // j = 0, 1, ... in order
        } else if (f[0] == "score") {
            e.scores.push_back(std::stod(f[3]));  // (j, k) in order: [j·K + k]
        } else if (f.size() == 2) {
            kv[f[0]] = f[1];
        } else {
            cells.push_back({std::stoi(f[0]), std::stoi(f[1]), std::stoi(f[2]), std::stod(f[3]), std::stod(f[4]),
                             f[5] == "." ? "" : f[5]});
        }
    }
    Settings& s = e.settings;
    s.tau_max = std::stoi(kv.at("tau_max"));
    if (kv.count("tau_min")) s.tau_min = std::stoi(kv["tau_min"]);
    if (kv.count("pc_alpha")) test::set_reference_pc_alpha(s, kv["pc_alpha"], false);
    if (kv.count("alpha_level")) s.alpha_level = std::stod(kv["alpha_level"]);
    if (kv.count("max_conds_dim")) s.max_conds_dim = std::stoi(kv["max_conds_dim"]);
    if (kv.count("max_combinations")) s.max_combinations = std::stoi(kv["max_combinations"]);
    if (kv.count("max_conds_px")) s.max_conds_px = std::stoi(kv["max_conds_px"]);
    if (kv.count("max_conds_py")) s.max_conds_py = std::stoi(kv["max_conds_py"]);
    if (kv.count("fdr_method")) s.fdr_bh = kv["fdr_method"] == "fdr_bh";
    const std::size_t size = static_cast<std::size_t>(n) * n * (s.tau_max + 1);
    e.val.resize(size);
    e.p.resize(size);
    e.graph.resize(size);
    for (const Cell& c : cells) {
        const std::size_t at = (static_cast<std::size_t>(c.i) * n + c.j) * (s.tau_max + 1) + c.lag;
        e.val[at] = c.v;
        e.p[at] = c.p;
        e.graph[at] = c.g;
    }
    return e;
}

/// ParCorr as `cudag pcmci` runs it on the CPU: the Fisher-z engine's partial correlations
/// with ParCorr's p-value (test-wise, each query on its complete rows, when cells are missing).
std::unique_ptr<ci::BatchTest> parcorr_batch(const LaggedData& lagged, int threads) {
    skeleton::TestSpec spec;
    spec.kind = skeleton::TestKind::FisherZ;
    auto fisher = std::make_unique<ci::CpuBatchTest>(
        skeleton::ci_test_factory(lagged.data, spec, skeleton::Compat::Pcalg, threads), threads, lagged.data.names);
    return std::make_unique<ParCorrBatch>(std::move(fisher), lagged, threads);
}

Result run(const Dataset& series, const Settings& s, int threads, const std::vector<std::int64_t>& starts = {}) {
    const LaggedData lagged = make_lagged(series, 2 * s.tau_max, starts);
    return run_pcmci(lagged, s, *parcorr_batch(lagged, threads));
}

/// A reference case's input as tigramite's DataFrame reads it: its settings' missing_flag
/// and series_column (scripts/dev/pcmci_reference.py).
Dataset case_input(const std::string& stem, std::vector<std::int64_t>& starts) {
    std::ifstream in(kDir + stem + ".tsv");
    std::map<std::string, std::string> kv;
    for (std::string line; std::getline(in, line);) {
        const auto f = split(line, '\t');
        if (f.size() == 2) kv[f[0]] = f[1];
    }
    std::optional<double> flag;
    if (kv.count("missing_flag")) flag = std::stod(kv["missing_flag"]);
    const Dataset d = test::read_pcmci_case(kDir + stem + ".csv", flag, kv.count("series_column") > 0, starts);
    EXPECT_EQ(d.missing > 0, flag.has_value());
    return d;
}

bool near_rel(double a, double b, double rel) {
    if (a == b) return true;
    return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)) || std::fabs(a - b) <= 1e-300;
}

/// Runs every case `prefix`00, 01, ... against its reference: parents, graph, val and p within
/// 1e-9 relative, and (pc_alpha selection) the chosen pc_alpha exactly and the scores within
/// 1e-9 relative; the largest differences in `worst` (val, p, score). Returns the cases run.
int check_cases(const char* prefix, double worst[3]) {
    int cases = 0;
    for (int c = 0;; ++c) {
        char stem[16];
        std::snprintf(stem, sizeof stem, "%s%02d", prefix, c);
        if (!std::ifstream(kDir + stem + ".csv")) break;
        ++cases;
        SCOPED_TRACE(stem);
        std::vector<std::int64_t> starts;
        const Dataset series = case_input(stem, starts);
        const auto n = static_cast<std::int32_t>(series.n_vars);
        const Expected e = read_expected(kDir + stem + ".tsv", n);
        const Result r = run(series, e.settings, 3, starts);
        EXPECT_EQ(r.parents.size(), e.parents.size());
        for (std::int32_t j = 0; j < n && j < static_cast<std::int32_t>(r.parents.size()); ++j) {
            EXPECT_EQ(r.parents[j].size(), e.parents[j].size()) << "parents of " << j;
            for (std::size_t k = 0; k < e.parents[j].size() && k < r.parents[j].size(); ++k) {
                EXPECT_EQ(r.parents[j][k].var, e.parents[j][k].var) << "parent " << k << " of " << j;
                EXPECT_EQ(r.parents[j][k].lag, e.parents[j][k].lag) << "parent " << k << " of " << j;
            }
        }
        EXPECT_EQ(r.val_matrix.size(), e.val.size());
        for (std::size_t at = 0; at < e.val.size() && at < r.val_matrix.size(); ++at) {
            EXPECT_EQ(r.graph[at], e.graph[at]) << "cell " << at;
            EXPECT_PRED3(near_rel, r.val_matrix[at], e.val[at], 1e-9) << "val, cell " << at;
            // p-values below 1e-200 are compared absolutely (the Student-t tail's last bits).
            EXPECT_PRED3(near_rel, r.p_matrix[at], e.p[at], 1e-9) << "p, cell " << at;
            const double dv = std::fabs(r.val_matrix[at] - e.val[at]) / std::max(1e-300, std::fabs(e.val[at]));
            const double dp = std::fabs(r.p_matrix[at] - e.p[at]) / std::max(1e-300, std::fabs(e.p[at]));
            worst[0] = std::max(worst[0], e.val[at] == 0.0 ? 0.0 : dv);
            worst[1] = std::max(worst[1], e.p[at] == 0.0 ? 0.0 : dp);
        }
        EXPECT_EQ(r.optimal_pc_alpha, e.optimal);
        EXPECT_EQ(r.pc_alpha_candidates, e.settings.pc_alpha_list);
        EXPECT_EQ(r.pc_alpha_scores.size(), e.scores.size());
        for (std::size_t k = 0; k < e.scores.size() && k < r.pc_alpha_scores.size(); ++k) {
            EXPECT_PRED3(near_rel, r.pc_alpha_scores[k], e.scores[k], 1e-9) << "score " << k;
            worst[2] = std::max(worst[2], std::fabs(r.pc_alpha_scores[k] - e.scores[k]) / std::fabs(e.scores[k]));
        }
    }
    return cases;
}

}  // namespace

TEST(Pcmci, EqualsTigramiteRunPcmciOnEveryReferenceCase) {
    double worst[3] = {0.0, 0.0, 0.0};
    const int cases = check_cases("c", worst);
    EXPECT_GE(cases, 12);
    std::printf("pcmci: %d cases, largest relative difference val %.2e, p %.2e\n", cases, worst[0], worst[1]);
}

TEST(Pcmci, PcAlphaSelectionEqualsTigramite) {
    // run_pcmci with pc_alpha a list or None (tests/data/pcmci/sNN): the chosen pc_alpha of
    // every variable, its scores, and the result as above.
    double worst[3] = {0.0, 0.0, 0.0};
    const int cases = check_cases("s", worst);
    EXPECT_GE(cases, 5);
    std::printf("pcmci pc_alpha selection: %d cases, largest relative difference val %.2e, p %.2e, score %.2e\n", cases,
                worst[0], worst[1], worst[2]);
}

TEST(Pcmci, PcAlphaSelectionKeepsTheChosenValuesOwnRun) {
    // The lanes of one run_pc_stable equal PC1 run alone with each value: every variable's
    // parents are those of its chosen value; a test several lanes ask runs once.
    const Dataset series = read_series(kDir + "s01.csv");
    const auto n = static_cast<std::int32_t>(series.n_vars);
    Settings s;
    s.tau_max = 3;
    s.pc_alpha_list = default_pc_alpha_list(false);
    const LaggedData lagged = make_lagged(series, 2 * s.tau_max);
    auto tests = parcorr_batch(lagged, 2);
    std::int64_t lanes_tests = 0, alone_tests = 0;
    Pc1Selection sel;
    const auto parents = run_pc_stable(lagged, s, *tests, &lanes_tests, {}, nullptr, &sel);
    ASSERT_EQ(sel.optimal.size(), static_cast<std::size_t>(n));
    ASSERT_EQ(sel.scores.size(), static_cast<std::size_t>(n) * s.pc_alpha_list.size());
    for (std::size_t k = 0; k < s.pc_alpha_list.size(); ++k) {
        Settings one = s;
        one.pc_alpha_list.clear();
        one.pc_alpha = s.pc_alpha_list[k];
        std::int64_t count = 0;
        const auto alone = run_pc_stable(lagged, one, *tests, &count);
        alone_tests += count;
        for (std::int32_t j = 0; j < n; ++j) {
            EXPECT_EQ(sel.scores[static_cast<std::size_t>(j) * s.pc_alpha_list.size() + k],
                      model_selection_criterion(lagged, j, alone[static_cast<std::size_t>(j)]));
            if (sel.optimal[static_cast<std::size_t>(j)] == one.pc_alpha) {
                EXPECT_EQ(parents[static_cast<std::size_t>(j)], alone[static_cast<std::size_t>(j)]) << j;
            }
        }
    }
    EXPECT_LT(lanes_tests, alone_tests);
    std::printf("pc_alpha lanes: %lld tests, each value alone %lld\n", static_cast<long long>(lanes_tests),
                static_cast<long long>(alone_tests));
}

TEST(Pcmci, ModelSelectionCriterionIsTheClosedForm) {
    // No parents: RSS of the standardised (j, 0) is T, the score T·log(T) + 2. A parent that
    // is (j, 0) itself, or given twice, is left out as construct_array does.
    const Dataset series = read_series(kDir + "c00.csv");
    const LaggedData lagged = make_lagged(series, 4);
    const double t = static_cast<double>(lagged.data.n_samples);
    EXPECT_NEAR(model_selection_criterion(lagged, 1, {}), t * std::log(t) + 2.0, 1e-9 * t * std::log(t));
    const double one = model_selection_criterion(lagged, 1, {{1, 1}});
    EXPECT_EQ(model_selection_criterion(lagged, 1, {{1, 1}, {1, 0}, {1, 1}}), one);
    // Order does not matter: the parents are taken in (var, lag) order.
    EXPECT_EQ(model_selection_criterion(lagged, 2, {{3, 2}, {0, 1}, {2, 1}}),
              model_selection_criterion(lagged, 2, {{0, 1}, {2, 1}, {3, 2}}));
}

TEST(Pcmci, EqualsTigramiteWithMissingFlag) {
    // tigramite's DataFrame(missing_flag=999.): each test drops the time steps where one of its
    // lagged variables is missing; ParCorr's degrees of freedom are each test's.
    double worst[3] = {0.0, 0.0, 0.0};
    EXPECT_GE(check_cases("m", worst), 4);
}

TEST(Pcmci, EqualsTigramiteOnSeveralSeries) {
    // DataFrame(dict of arrays, analysis_mode='multiple'): each series' lagged rows stacked; a
    // series of no more than 2 tau_max steps gives none (g01); g01 has missing values too.
    double worst[3] = {0.0, 0.0, 0.0};
    EXPECT_GE(check_cases("g", worst), 3);
}

TEST(Pcmci, TheSameBitsOnAnyThreadCount) {
    const Dataset series = read_series(kDir + "c07.csv");
    Settings s;
    s.tau_max = 2;
    s.pc_alpha = 0.3;
    s.max_combinations = 2;
    const Result one = run(series, s, 1), four = run(series, s, 4);
    EXPECT_EQ(one.val_matrix, four.val_matrix);
    EXPECT_EQ(one.p_matrix, four.p_matrix);
    EXPECT_EQ(one.graph, four.graph);
    EXPECT_EQ(one.pc1_tests, four.pc1_tests);
    EXPECT_GT(one.pc1_tests, 0);
    EXPECT_GT(one.mci_tests, 0);
    s.pc_alpha_list = {0.05, 0.2, 0.5};
    const Result l1 = run(series, s, 1), l4 = run(series, s, 4);
    EXPECT_EQ(l1.val_matrix, l4.val_matrix);
    EXPECT_EQ(l1.p_matrix, l4.p_matrix);
    EXPECT_EQ(l1.pc_alpha_scores, l4.pc_alpha_scores);
    EXPECT_EQ(l1.optimal_pc_alpha, l4.optimal_pc_alpha);
}

TEST(Pcmci, LinkAssumptionsFixAndForbidLinks) {
    const Dataset series = read_series(kDir + "c00.csv");
    const auto n = static_cast<std::int32_t>(series.n_vars);
    Settings s;
    s.tau_max = 2;
    // Every default link, but (1, -1) -> 0 forced ('-->': never tested, value 1, p 0) and
    // the links into 2 limited to its own lag 1.
    LinkAssumptions la = default_links(n, 0, 2);
    for (auto& [node, type] : la.links[0])
        if (node == Node{1, 1}) type = "-->";
    la.links[2] = {{{2, 1}, "-?>"}};
    // Lag-0 links into 2 are gone; their reverses must go too for consistency.
    for (std::int32_t j = 0; j < n; ++j)
        if (j != 2)
            la.links[j].erase(std::remove_if(la.links[j].begin(), la.links[j].end(),
                                             [](const auto& l) {
                                                 return l.first == Node{2, 0};
                                             }),
                              la.links[j].end());
    s.link_assumptions = la;
    const Result r = run(series, s, 2);
    EXPECT_EQ(r.val_matrix[r.at(1, 0, 1)], 1.0);
    EXPECT_EQ(r.p_matrix[r.at(1, 0, 1)], 0.0);
    EXPECT_EQ(r.graph[r.at(1, 0, 1)], "-->");
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t lag = 0; lag <= 2; ++lag)
            if (!(i == 2 && lag == 1)) {
                EXPECT_EQ(r.p_matrix[r.at(i, 2, lag)], 1.0) << i << " " << lag;
                EXPECT_EQ(r.graph[r.at(i, 2, lag)], "") << i << " " << lag;
            }
    for (const Node& p : r.parents[2]) EXPECT_EQ(p, (Node{2, 1}));
}

TEST(Pcmci, BadSettingsAreOneLineErrors) {
    const Dataset series = read_series(kDir + "c08.csv");  // T = 120
    Settings s;
    s.tau_max = 60;
    EXPECT_THROW(check_settings(s, 3, series.n_samples), InputError);
    s.tau_max = 2;
    s.tau_min = 3;
    EXPECT_THROW(check_settings(s, 3, series.n_samples), InputError);
    s.tau_min = 0;
    s.max_combinations = 0;
    EXPECT_THROW(check_settings(s, 3, series.n_samples), InputError);
    s.max_combinations = 1;
    EXPECT_NO_THROW(check_settings(s, 3, series.n_samples));
    LinkAssumptions bad = default_links(3, 0, 2);
    bad.links[0].push_back({{1, 3}, "-?>"});  // lag beyond tau_max
    EXPECT_THROW(normalise_links(bad, 3, 0, 2, false), InputError);
    LinkAssumptions typo = default_links(3, 0, 2);
    typo.links[1][0].second = "->";
    EXPECT_THROW(normalise_links(typo, 3, 0, 2, false), InputError);
    LinkAssumptions cycle;
    cycle.links = {{{{1, 0}, "-->"}}, {{{2, 0}, "-->"}}, {{{0, 0}, "-->"}}};
    EXPECT_THROW(normalise_links(cycle, 3, 0, 2, false), InputError);
    LinkAssumptions clash;
    clash.links = {{{{1, 0}, "-->"}}, {{{0, 0}, "-->"}}, {}};
    EXPECT_THROW(normalise_links(clash, 3, 0, 2, false), InputError);
}

TEST(Pcmci, FdrBhIsNumpysArithmetic) {
    // Worked by hand: sorted 0.01, 0.02, 0.03, 0.5 over m = 4 → 0.04, 0.04, 0.04, 0.5;
    // the ties share one value; above 1 is capped.
    const std::vector<double> q = fdr_bh({0.03, 0.5, 0.01, 0.02});
    EXPECT_DOUBLE_EQ(q[0], 0.03 / 0.75);
    EXPECT_DOUBLE_EQ(q[1], 0.5);
    EXPECT_DOUBLE_EQ(q[2], 0.03 / 0.75);
    EXPECT_DOUBLE_EQ(q[3], 0.03 / 0.75);
    const std::vector<double> capped = fdr_bh({0.9, 0.9, 0.2});
    EXPECT_DOUBLE_EQ(capped[0], 0.9);
    EXPECT_DOUBLE_EQ(capped[2], 0.6);
    const std::vector<double> ties = fdr_bh({0.04, 0.04});
    EXPECT_EQ(ties[0], ties[1]);
    EXPECT_DOUBLE_EQ(ties[0], 0.04);
}

TEST(Pcmci, LaggedTableHoldsEachSeriesShifted) {
    Dataset d;
    d.n_vars = 2;
    d.n_samples = 6;
    d.names = {"a", "b"};
    d.values = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
    const LaggedData l = make_lagged(d, 2);
    ASSERT_EQ(l.data.n_samples, 4);
    ASSERT_EQ(l.data.n_vars, 6);
    EXPECT_EQ(l.data.names[l.column(1, 2)], "b(t-2)");
    EXPECT_EQ(l.node_name({0, 1}), "a(t-1)");
    // Row r is time t = 2 + r: (a, −1) there is a[t − 1].
    for (std::int64_t r = 0; r < 4; ++r) {
        EXPECT_EQ(l.data.column(l.column(0, 0))[r], static_cast<double>(2 + r));
        EXPECT_EQ(l.data.column(l.column(0, 1))[r], static_cast<double>(1 + r));
        EXPECT_EQ(l.data.column(l.column(1, 2))[r], static_cast<double>(10 + r));
    }
    EXPECT_THROW(make_lagged(d, 6), InputError);
}

TEST(Pcmci, ParCorrBatchEqualsResidualParCorrToRounding) {
    // The two ways to ParCorr's value: least squares on residuals (ParCorrTest, tigramite's
    // arithmetic) and the correlation matrix (ParCorrBatch over the Fisher-z engine).
    const Dataset series = read_series(kDir + "c09.csv");
    const LaggedData lagged = make_lagged(series, 2);
    ci::QueryList q;
    const std::int32_t sets[][3] = {{5, 7, 9}, {2, 11, 14}, {1, 3, 20}};
    for (std::int32_t x = 0; x < 12; ++x)
        for (int k = 0; k < 3; ++k) {
            std::vector<std::int32_t> s;
            for (int m = 0; m <= k; ++m)
                if (sets[k][m] != x && sets[k][m] != 23) s.push_back(sets[k][m]);
            q.add(x, 23, s);
        }
    std::vector<double> st(q.size()), p(q.size());
    parcorr_batch(lagged, 2)->run(q.view(), st, p);
    ParCorrTest direct(lagged.data);
    double worst = 0.0;
    for (std::size_t k = 0; k < q.size(); ++k) {
        const ci::CiOutcome o = direct.test(q.x[k], q.y[k], q.set(k));
        worst = std::max(worst, std::fabs(o.statistic - st[k]));
        EXPECT_NEAR(o.statistic, st[k], 1e-12) << k;
        EXPECT_NEAR(o.p, p[k], 1e-12 * std::max(1e-300, o.p) + 1e-300) << k;
    }
    std::printf("parcorr: residuals vs correlation matrix, largest difference %.2e\n", worst);
}

/// Three series of T steps: a and b share an exponential trend e^(0.03 t) (b driven by a's
/// last step), c is an AR(1) without trend; Gaussian noise from CounterRng.
Dataset trending_series(std::int64_t t) {
    Dataset d;
    d.n_vars = 3;
    d.n_samples = t;
    d.names = {"a", "b", "c"};
    d.values.assign(static_cast<std::size_t>(3 * t), 0.0);
    CounterRng rng(17, 0);
    double* a = d.values.data();
    double* b = a + t;
    double* c = b + t;
    double pa = 0.0, pb = 0.0, pc = 0.0;
    for (std::int64_t k = 0; k < t; ++k) {
        const double na = 0.5 * pa + rng.normal(), nb = 0.5 * pb + 0.4 * pa + rng.normal(),
                     nc = 0.3 * pc + rng.normal();
        pa = na, pb = nb, pc = nc;
        const double trend = std::exp(0.03 * static_cast<double>(k));
        a[k] = na + trend;
        b[k] = nb + 1.5 * trend;
        c[k] = nc;
    }
    return d;
}

/// The partial correlation of columns x and y given s by modified Gram-Schmidt in long double
/// on the standardised columns: an independent reference, its error about 1e-19 times the
/// columns' condition number.
double partial_correlation_mgs(const Dataset& d, std::int32_t x, std::int32_t y, const std::vector<std::int32_t>& s) {
    const std::int64_t t = d.n_samples;
    const auto standard = [&](std::int32_t col) {
        std::vector<long double> v(d.column(col), d.column(col) + t);
        long double mean = 0, ss = 0;
        for (const long double e : v) mean += e;
        mean /= t;
        for (long double& e : v) ss += (e - mean) * (e - mean);
        const long double sd = std::sqrt(ss / t);
        for (long double& e : v) e = (e - mean) / sd;
        return v;
    };
    std::vector<std::vector<long double>> basis;
    for (const std::int32_t col : s) {
        std::vector<long double> v = standard(col);
        for (int pass = 0; pass < 2; ++pass)  // twice: orthogonal to rounding
            for (const auto& q : basis) {
                long double dot = 0;
                for (std::int64_t k = 0; k < t; ++k) dot += v[k] * q[k];
                for (std::int64_t k = 0; k < t; ++k) v[k] -= dot * q[k];
            }
        long double norm = 0;
        for (const long double e : v) norm += e * e;
        norm = std::sqrt(norm);
        for (long double& e : v) e /= norm;
        basis.push_back(std::move(v));
    }
    const auto residual = [&](std::int32_t col) {
        std::vector<long double> v = standard(col);
        for (int pass = 0; pass < 2; ++pass)
            for (const auto& q : basis) {
                long double dot = 0;
                for (std::int64_t k = 0; k < t; ++k) dot += v[k] * q[k];
                for (std::int64_t k = 0; k < t; ++k) v[k] -= dot * q[k];
            }
        return v;
    };
    const std::vector<long double> rx = residual(x), ry = residual(y);
    long double sxy = 0, sxx = 0, syy = 0, mx = 0, my = 0;
    for (std::int64_t k = 0; k < t; ++k) mx += rx[k], my += ry[k];
    mx /= t, my /= t;
    for (std::int64_t k = 0; k < t; ++k) {
        sxy += (rx[k] - mx) * (ry[k] - my);
        sxx += (rx[k] - mx) * (rx[k] - mx);
        syy += (ry[k] - my) * (ry[k] - my);
    }
    return static_cast<double>(sxy / std::sqrt(sxx * syy));
}

TEST(Pcmci, IllConditionedSeriesAreTestedByLeastSquares) {
    // A trend makes a series' lags nearly collinear: the partial correlation from the
    // correlation matrix loses about eps/λ of its digits (0.06 on this set, the graph changed
    // against tigramite's), least squares on the rows (tigramite's) only its square root.
    const Dataset series = trending_series(600);
    const LaggedData lagged = make_lagged(series, 2);
    const std::vector<char> flagged = ill_conditioned_columns(lagged);
    for (std::int32_t lag = 0; lag <= 2; ++lag) {
        EXPECT_EQ(flagged[static_cast<std::size_t>(lagged.column(0, lag))], 1);
        EXPECT_EQ(flagged[static_cast<std::size_t>(lagged.column(1, lag))], 1);
        EXPECT_EQ(flagged[static_cast<std::size_t>(lagged.column(2, lag))], 0);
    }
    ci::QueryList q;
    const std::vector<std::vector<std::int32_t>> sets = {
        {}, {lagged.column(0, 1)}, {lagged.column(1, 1), lagged.column(0, 2)}, {lagged.column(2, 1)}};
    std::vector<std::vector<std::int32_t>> asked;
    for (std::int32_t x = 0; x < lagged.data.n_vars; ++x)
        for (std::int32_t y = x + 1; y < lagged.data.n_vars; ++y)
            for (const auto& s : sets) {
                if (std::find(s.begin(), s.end(), x) != s.end() || std::find(s.begin(), s.end(), y) != s.end())
                    continue;
                q.add(x, y, s);
                asked.push_back(s);
            }
    std::vector<double> job(q.size()), job_p(q.size()), plain(q.size()), plain_p(q.size());
    auto batch = parcorr_batch(lagged, 2);
    batch->run(q.view(), job, job_p);
    skeleton::TestSpec spec;
    spec.kind = skeleton::TestKind::FisherZ;
    ParCorrBatch correlations(
        std::make_unique<ci::CpuBatchTest>(skeleton::ci_test_factory(lagged.data, spec, skeleton::Compat::Pcalg, 2), 2,
                                           lagged.data.names),
        lagged.data, 2);
    correlations.run(q.view(), plain, plain_p);
    double worst_job = 0.0, worst_plain = 0.0;
    std::int64_t untouched = 0;
    for (std::size_t k = 0; k < q.size(); ++k) {
        const double want = partial_correlation_mgs(lagged.data, q.x[k], q.y[k], asked[k]);
        worst_job = std::max(worst_job, std::fabs(job[k] - want));
        worst_plain = std::max(worst_plain, std::fabs(plain[k] - want));
        EXPECT_NEAR(job[k], want, 1e-9) << "query " << k;
        EXPECT_EQ(job_p[k], ci::parcorr_p_value(job[k], lagged.data.n_samples, static_cast<int>(asked[k].size()) + 2));
        // a query of the trendless series alone is the correlation matrix's, bit for bit
        const bool touches = flagged[static_cast<std::size_t>(q.x[k])] || flagged[static_cast<std::size_t>(q.y[k])] ||
                             std::any_of(asked[k].begin(), asked[k].end(),
                                         [&](std::int32_t c) { return flagged[static_cast<std::size_t>(c)] != 0; });
        if (!touches) {
            ++untouched;
            EXPECT_EQ(job[k], plain[k]) << "query " << k;
        }
    }
    EXPECT_GT(untouched, 0);
    EXPECT_GT(worst_plain, 1e-4) << "the correlation matrix should lose digits on this set";
    std::printf("trending series: least squares %.2e, correlation matrix %.2e from the long-double reference\n",
                worst_job, worst_plain);
}

TEST(Pcmci, ParCorrDropsConstantColumnsAsTigramite) {
    Dataset d;
    d.n_vars = 4;
    d.n_samples = 8;
    d.names = {"x", "y", "c", "z"};
    d.values = {1, 3, 2, 5, 4, 6, 8, 7, 2, 1, 4, 3, 6, 5, 8, 9, 7, 7, 7, 7, 7, 7, 7, 7, 1, 0, 1, 1, 0, 1, 0, 0};
    ParCorrTest t(d);
    const std::int32_t zc[] = {2, 3};
    const std::int32_t z[] = {3};
    const ci::CiOutcome with_c = t.test(0, 1, zc), without = t.test(0, 1, z);
    // The constant condition is dropped: the same value and the same degrees of freedom (8 − 3).
    EXPECT_EQ(with_c.statistic, without.statistic);
    EXPECT_EQ(with_c.p, without.p);
    EXPECT_EQ(with_c.extra.at(0).second, "5");
    const ci::CiOutcome const_x = t.test(2, 1, z);
    EXPECT_EQ(const_x.statistic, 0.0);
    EXPECT_EQ(const_x.p, 1.0);
}
