// SPDX-License-Identifier: Apache-2.0
// BIF parsing, random discrete networks and forward sampling.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "core/error.hpp"
#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"

using namespace cudag;
using namespace cudag::sim;

namespace {
const std::string kSprinkler = std::string(CUDAG_SOURCE_DIR) + "/tests/data/sprinkler.bif";

std::string error_of(const std::string& bif) {
    try {
        parse_bif(bif, "net.bif");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(Bif, ParsesVariablesParentsAndTables) {
    const BayesNet net = read_bif(kSprinkler);
    ASSERT_EQ(net.size(), 4);
    EXPECT_EQ(net.names[3], "WetGrass");
    EXPECT_EQ(net.states[3], (std::vector<std::string>{"dry", "damp", "soaked"}));
    EXPECT_EQ(net.parents[3], (std::vector<std::int32_t>{1, 2}));
    EXPECT_EQ(net.cpt[0], (std::vector<double>{0.5, 0.5}));
    EXPECT_EQ(net.cpt[1], (std::vector<double>{0.5, 0.5, 0.9, 0.1}));
    // Rows in mixed radix, last parent fastest: (off,dry) (off,rainy) (on,dry) (on,rainy).
    const std::vector<double> wet = {1.0, 0.0, 0.0, 0.05, 0.15, 0.8, 0.1, 0.6, 0.3, 0.05, 0.15, 0.8};
    ASSERT_EQ(net.cpt[3].size(), wet.size());
    for (std::size_t k = 0; k < wet.size(); ++k) EXPECT_NEAR(net.cpt[3][k], wet[k], 1e-15) << k;
    EXPECT_EQ(net.arcs().size(), 4u);
}

TEST(Bif, ErrorsNameTheLine) {
    const std::string head = "variable A {\n type discrete [ 2 ] { a, b };\n}\n";
    EXPECT_NE(error_of(head + "probability ( A ) {\n table 0.5, 0.6;\n}\n").find("net.bif:4:"), std::string::npos);
    EXPECT_NE(error_of(head + "variable B {\n type discrete [ 2 ] { x, y };\n}\n"
                              "probability ( A ) { table 0.5, 0.5; }\n"
                              "probability ( B | A ) {\n (c) 0.5, 0.5;\n (a) 0.5, 0.5; }\n")
                  .find("net.bif:9: 'c' is not a state of 'A'"),
              std::string::npos);
    EXPECT_NE(error_of(head + "variable B {\n type discrete [ 2 ] { x, y };\n}\n"
                              "probability ( A | B ) { (x) 0.5, 0.5; (y) 0.5, 0.5; }\n"
                              "probability ( B | A ) { (a) 0.5, 0.5; (b) 0.5, 0.5; }\n")
                  .find("cycle"),
              std::string::npos);
    EXPECT_NE(error_of(head).find("no probability block"), std::string::npos);
}

TEST(ForwardSample, DeterministicForASeedAndThreadCount) {
    const BayesNet net = read_bif(kSprinkler);
    const Dataset a = forward_sample(net, 5000, 11, 1);
    const Dataset b = forward_sample(net, 5000, 11, 4);
    const Dataset c = forward_sample(net, 5000, 12, 2);
    EXPECT_EQ(a.values, b.values);
    EXPECT_NE(a.values, c.values);
    EXPECT_EQ(a.levels[3], (std::vector<std::string>{"dry", "damp", "soaked"}));
}

TEST(ForwardSample, FrequenciesFollowTheCpts) {
    const BayesNet net = read_bif(kSprinkler);
    const std::int64_t m = 200000;
    const Dataset d = forward_sample(net, m, 5, 0);
    double cloudy = 0, rain_given_cloudy = 0, n_cloudy = 0, wet_dry_off_dry = 0, n_off_dry = 0;
    for (std::int64_t s = 0; s < m; ++s) {
        const double c = d.values[s], sp = d.values[m + s], r = d.values[2 * m + s], w = d.values[3 * m + s];
        cloudy += c;
        if (c == 1) {
            ++n_cloudy;
            rain_given_cloudy += r;
        }
        if (sp == 0 && r == 0) {
            ++n_off_dry;
            wet_dry_off_dry += w == 0;
        }
    }
    EXPECT_NEAR(cloudy / m, 0.5, 0.005);
    EXPECT_NEAR(rain_given_cloudy / n_cloudy, 0.8, 0.005);
    EXPECT_EQ(wet_dry_off_dry, n_off_dry);  // P(dry | off, dry) = 1
}

TEST(RandomNetwork, SameArcsAsTheGaussianDagAndStatesInRange) {
    const DiscreteSimSpec spec{60, 10, 0.1, 5, 9};
    const BayesNet a = random_network(spec);
    const BayesNet b = random_network(spec);
    EXPECT_EQ(a.cpt, b.cpt);
    const GaussianSim g = simulate_gaussian(GaussianSimSpec{60, 1, 0.1, 9});
    ASSERT_EQ(a.arcs().size(), g.dag_edges.size());
    for (std::size_t k = 0; k < g.dag_edges.size(); ++k) {
        EXPECT_EQ(std::get<0>(a.arcs()[k]), std::get<0>(g.dag_edges[k]));
        EXPECT_EQ(std::get<1>(a.arcs()[k]), std::get<1>(g.dag_edges[k]));
    }
    std::set<std::size_t> cards;
    for (const auto& st : a.states) cards.insert(st.size());
    EXPECT_EQ(*cards.begin(), 2u);
    EXPECT_EQ(*cards.rbegin(), 5u);
    for (const auto& cpt : a.cpt)
        for (double p : cpt) EXPECT_TRUE(p > 0 && p < 1);
}

TEST(RandomNetwork, MaxParentsKeepsTheNearestParents) {
    DiscreteSimSpec spec{40, 10, 0.15, 2, 4};
    const BayesNet full = random_network(spec);
    spec.max_parents = 2;
    const BayesNet capped = random_network(spec);
    std::size_t trimmed = 0;
    for (std::size_t v = 0; v < full.parents.size(); ++v) {
        std::vector<std::int32_t> want = full.parents[v];
        std::sort(want.begin(), want.end());
        if (want.size() > 2) {
            want.erase(want.begin(), want.end() - 2);
            ++trimmed;
        }
        std::vector<std::int32_t> got = capped.parents[v];
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got, want) << "variable " << v;
        EXPECT_EQ(capped.states[v], full.states[v]);
    }
    EXPECT_GT(trimmed, 5u);  // density 0.15 over 40 variables: many have more than 2
}
