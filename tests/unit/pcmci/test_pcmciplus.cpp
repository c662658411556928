// SPDX-License-Identifier: Apache-2.0
// PCMCI+ (src/pcmci/pcmciplus.hpp) against tigramite 5.2.10.1's run_pcmciplus with ParCorr on
// the cases of tests/data/pcmciplus/ (scripts/dev/pcmciplus_reference.py: every collider rule,
// conflict resolution on and off, reset_lagged_links, fdr_bh, the condition caps, 'x-x'
// conflicts): the condition selection's parents in tigramite's order, the graph exactly, and
// val_matrix / p_matrix to 1e-9 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/dataset.hpp"
#include "core/error.hpp"
#include "pcmci/lagged.hpp"
#include "pcmci/parcorr_test.hpp"
#include "pcmci/pcmciplus.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/test_spec.hpp"
#include "support/parcorr_residuals.hpp"
#include "support/pcmci_reference.hpp"

using namespace cudag;
using namespace cudag::pcmci;

namespace {

const std::string kDir = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmciplus/";

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
            e.optimal.push_back(std::stod(f[1]));
        } else if (f[0] == "score") {
            // (k, j) in order: the mean over j of the k-th value's scores, summed as numpy does.
            const auto k = static_cast<std::size_t>(std::stoi(f[1]));
            if (e.scores.size() <= k) e.scores.resize(k + 1, 0.0);
            e.scores[k] += std::stod(f[3]);
            if (std::stoi(f[2]) == n - 1) e.scores[k] /= static_cast<double>(n);
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
    if (kv.count("alpha_level")) s.alpha_level = std::stod(kv["alpha_level"]);
    if (kv.count("max_conds_dim")) s.max_conds_dim = std::stoi(kv["max_conds_dim"]);
    if (kv.count("max_combinations")) s.max_combinations = std::stoi(kv["max_combinations"]);
    if (kv.count("max_conds_px")) s.max_conds_px = std::stoi(kv["max_conds_px"]);
    if (kv.count("max_conds_py")) s.max_conds_py = std::stoi(kv["max_conds_py"]);
    if (kv.count("fdr_method")) s.fdr_bh = kv["fdr_method"] == "fdr_bh";
    // run_pcmciplus's own defaults and settings.
    s.pc_alpha = 0.01;
    if (kv.count("pc_alpha")) test::set_reference_pc_alpha(s, kv["pc_alpha"], true);
    if (kv.count("contemp_collider_rule")) s.contemp_collider_rule = parse_collider_rule(kv["contemp_collider_rule"]);
    if (kv.count("conflict_resolution")) s.conflict_resolution = kv["conflict_resolution"] == "True";
    if (kv.count("reset_lagged_links")) s.reset_lagged_links = kv["reset_lagged_links"] == "True";
    if (kv.count("max_conds_px_lagged")) s.max_conds_px_lagged = std::stoi(kv["max_conds_px_lagged"]);
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

/// ParCorr as `cudag pcmci` runs it (`residuals` false: the Fisher-z engine's partial
/// correlations with ParCorr's p-value) or as tigramite computes it (true: least squares on
/// residuals, ParCorrTest).
Result run(const Dataset& series, const Settings& s, int threads, bool residuals = false) {
    const LaggedData lagged = make_lagged(series, 2 * s.tau_max);
    if (residuals) {
        ci::CpuBatchTest tests([&] { return std::make_unique<ParCorrTest>(lagged.data); }, threads, lagged.data.names);
        return run_pcmciplus(lagged, s, tests);
    }
    skeleton::TestSpec spec;
    spec.kind = skeleton::TestKind::FisherZ;
    auto fisher = std::make_unique<ci::CpuBatchTest>(
        skeleton::ci_test_factory(lagged.data, spec, skeleton::Compat::Pcalg, threads), threads, lagged.data.names);
    ParCorrBatch tests(std::move(fisher), lagged.data.n_samples);
    return run_pcmciplus(lagged, s, tests);
}

bool near_rel(double a, double b, double rel) {
    if (a == b) return true;
    return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)) || std::fabs(a - b) <= 1e-300;
}

/// What check_cases counts: the largest relative differences (val, p, score) and the lag-0
/// marks of the references.
struct Tally {
    double worst[3] = {0.0, 0.0, 0.0};
    int conflicts = 0, unoriented = 0, oriented = 0;
};

/// Runs every case `prefix`00, 01, ... against its reference with both ParCorr forms:
/// parents, graph, val and p within 1e-9 relative, and (pc_alpha selection) the chosen
/// pc_alpha exactly and the mean scores within 1e-9 relative. Returns the cases run.
int check_cases(const char* prefix, Tally& t) {
    int cases = 0;
    for (int c = 0;; ++c) {
        char stem[16];
        std::snprintf(stem, sizeof stem, "%s%02d", prefix, c);
        if (!std::ifstream(kDir + stem + ".csv")) break;
        ++cases;
        SCOPED_TRACE(stem);
        const Dataset series = read_series(kDir + stem + ".csv");
        const auto n = static_cast<std::int32_t>(series.n_vars);
        const Expected e = read_expected(kDir + stem + ".tsv", n);
        for (const bool residuals : {false, true}) {
            SCOPED_TRACE(residuals ? "ParCorrTest (residuals)" : "ParCorrBatch (the job's)");
            const Result r = run(series, e.settings, 3, residuals);
            EXPECT_EQ(r.parents.size(), e.parents.size());
            for (std::int32_t j = 0; j < n && j < static_cast<std::int32_t>(r.parents.size()); ++j) {
                EXPECT_EQ(r.parents[j].size(), e.parents[j].size()) << "parents of " << j;
                for (std::size_t k = 0; k < e.parents[j].size() && k < r.parents[j].size(); ++k) {
                    EXPECT_EQ(r.parents[j][k].var, e.parents[j][k].var) << "parent " << k << " of " << j;
                    EXPECT_EQ(r.parents[j][k].lag, e.parents[j][k].lag) << "parent " << k << " of " << j;
                }
            }
            EXPECT_EQ(r.val_matrix.size(), e.val.size());
            EXPECT_EQ(r.graph.size(), e.graph.size());
            for (std::size_t at = 0; at < e.val.size() && at < r.val_matrix.size(); ++at) {
                EXPECT_EQ(r.graph[at], e.graph[at]) << "cell " << at;
                EXPECT_PRED3(near_rel, r.val_matrix[at], e.val[at], 1e-9) << "val, cell " << at;
                EXPECT_PRED3(near_rel, r.p_matrix[at], e.p[at], 1e-9) << "p, cell " << at;
                const double dv = std::fabs(r.val_matrix[at] - e.val[at]) / std::max(1e-300, std::fabs(e.val[at]));
                const double dp = std::fabs(r.p_matrix[at] - e.p[at]) / std::max(1e-300, std::fabs(e.p[at]));
                t.worst[0] = std::max(t.worst[0], e.val[at] == 0.0 ? 0.0 : dv);
                t.worst[1] = std::max(t.worst[1], e.p[at] == 0.0 ? 0.0 : dp);
                t.conflicts += e.graph[at] == "x-x";
                t.unoriented += e.graph[at] == "o-o";
                t.oriented += e.graph[at] == "<--";
            }
            EXPECT_GT(r.mci_tests, 0);
            EXPECT_EQ(r.optimal_pc_alpha, e.optimal);
            EXPECT_EQ(r.pc_alpha_candidates, e.settings.pc_alpha_list);
            EXPECT_EQ(r.pc_alpha_scores.size(), e.scores.size());
            for (std::size_t k = 0; k < e.scores.size() && k < r.pc_alpha_scores.size(); ++k) {
                EXPECT_PRED3(near_rel, r.pc_alpha_scores[k], e.scores[k], 1e-9) << "score " << k;
                t.worst[2] =
                    std::max(t.worst[2], std::fabs(r.pc_alpha_scores[k] - e.scores[k]) / std::fabs(e.scores[k]));
            }
        }
    }
    return cases;
}

}  // namespace

TEST(PcmciPlus, EqualsTigramiteRunPcmciplusOnEveryReferenceCase) {
    Tally t;
    const int cases = check_cases("c", t);
    EXPECT_GE(cases, 12);
    // The cases exercise what they are there for: conflicts, unoriented and oriented lag-0 links.
    EXPECT_GT(t.conflicts, 0);
    EXPECT_GT(t.unoriented, 0);
    EXPECT_GT(t.oriented, 0);
    std::printf("pcmciplus: %d cases, largest relative difference val %.2e, p %.2e\n", cases, t.worst[0], t.worst[1]);
}

TEST(PcmciPlus, PcAlphaSelectionEqualsTigramite) {
    // run_pcmciplus with pc_alpha a list or None (tests/data/pcmciplus/sNN): the whole method
    // per value, the chosen one by the mean score of a DAG of its graph (unoriented lag-0
    // links in s00, s02 oriented by the simplicial order).
    Tally t;
    const int cases = check_cases("s", t);
    EXPECT_GE(cases, 4);
    EXPECT_GT(t.unoriented, 0);
    std::printf("pcmciplus pc_alpha selection: %d cases, largest relative difference val %.2e, p %.2e, score %.2e\n",
                cases, t.worst[0], t.worst[1], t.worst[2]);
}

TEST(PcmciPlus, TheSameBitsOnAnyThreadCount) {
    const Dataset series = read_series(kDir + "c11.csv");
    Settings s;
    s.tau_max = 2;
    s.pc_alpha = 0.2;
    s.reset_lagged_links = true;
    const Result one = run(series, s, 1), four = run(series, s, 4);
    EXPECT_EQ(one.val_matrix, four.val_matrix);
    EXPECT_EQ(one.p_matrix, four.p_matrix);
    EXPECT_EQ(one.graph, four.graph);
    EXPECT_EQ(one.pc1_tests, four.pc1_tests);
    EXPECT_EQ(one.mci_tests, four.mci_tests);
    EXPECT_GT(one.mci_tests, 0);
}

TEST(PcmciPlus, ForcedContemporaneousLinkIsKeptAndNeverTested) {
    const Dataset series = read_series(kDir + "c00.csv");
    const auto n = static_cast<std::int32_t>(series.n_vars);
    Settings s;
    s.tau_max = 1;
    s.pc_alpha = 0.01;
    // (3, 0) --> 0 forced: value 1 and p-value 0 both ways (symmetrised), the graph keeps the
    // orientation; no other link into 0 at lag 0.
    LinkAssumptions la = default_links(n, 0, 1);
    for (std::int32_t j = 0; j < n; ++j)
        la.links[j].erase(
            std::remove_if(la.links[j].begin(), la.links[j].end(),
                           [&](const auto& l) { return l.first.lag == 0 && (j == 0 || l.first.var == 0); }),
            la.links[j].end());
    la.links[0].push_back({{3, 0}, "-->"});
    s.link_assumptions = la;
    const Result r = run(series, s, 2);
    EXPECT_EQ(r.val_matrix[r.at(3, 0, 0)], 1.0);
    EXPECT_EQ(r.p_matrix[r.at(3, 0, 0)], 0.0);
    EXPECT_EQ(r.p_matrix[r.at(0, 3, 0)], 0.0);
    EXPECT_EQ(r.graph[r.at(3, 0, 0)], "-->");
    EXPECT_EQ(r.graph[r.at(0, 3, 0)], "<--");
    for (std::int32_t i = 1; i < 3; ++i) {
        EXPECT_EQ(r.graph[r.at(i, 0, 0)], "");
        EXPECT_EQ(r.p_matrix[r.at(i, 0, 0)], 1.0);
    }
}

TEST(PcmciPlus, BadSettingsAreOneLineErrors) {
    Settings s;
    s.tau_max = 2;
    EXPECT_NO_THROW(check_pcmciplus_settings(s, 3, 300));
    s.contemp_collider_rule = ColliderRule::None;
    s.max_conds_px_lagged = -2;
    EXPECT_THROW(check_pcmciplus_settings(s, 3, 300), InputError);
    s.max_conds_px_lagged = 0;
    s.tau_max = 150;
    EXPECT_THROW(check_pcmciplus_settings(s, 3, 300), InputError);
}
