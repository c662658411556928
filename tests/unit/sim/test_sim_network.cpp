// SPDX-License-Identifier: Apache-2.0
// simulate gaussian --graph er|scale-free: structure, weights, bounded variances, determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "sim/network.hpp"

using namespace cudag;

namespace {

std::vector<std::int64_t> degrees(const sim::GaussianSim& s, std::int64_t n) {
    std::vector<std::int64_t> d(static_cast<std::size_t>(n), 0);
    for (const auto& [a, b, w] : s.dag_edges) {
        ++d[static_cast<std::size_t>(a)];
        ++d[static_cast<std::size_t>(b)];
    }
    return d;
}

double column_variance(const Dataset& data, std::int64_t v) {
    const double* x = data.values.data() + v * data.n_samples;
    double mean = 0.0;
    for (std::int64_t s = 0; s < data.n_samples; ++s) mean += x[s];
    mean /= static_cast<double>(data.n_samples);
    double var = 0.0;
    for (std::int64_t s = 0; s < data.n_samples; ++s) var += (x[s] - mean) * (x[s] - mean);
    return var / static_cast<double>(data.n_samples - 1);
}

}  // namespace

TEST(SimNetwork, ScaleFreeHasHubsAndTheAskedDegree) {
    const sim::GaussianSimSpec base{3000, 400, 0.0, 7};
    sim::NetworkSimSpec net;
    net.graph = sim::GraphKind::ScaleFree;
    net.degree = 4;
    const sim::GaussianSim s = sim::simulate_network(base, net);
    // Every node after the first takes 2 parents (the second node 1): 2n - 3 edges.
    EXPECT_EQ(s.dag_edges.size(), 2u * 3000 - 3);
    const std::vector<std::int64_t> d = degrees(s, 3000);
    const std::int64_t max_degree = *std::max_element(d.begin(), d.end());
    EXPECT_GT(max_degree, 40);  // preferential attachment: hubs far above the mean of 4
    net.graph = sim::GraphKind::Er;
    const std::vector<std::int64_t> de = degrees(sim::simulate_network(base, net), 3000);
    EXPECT_LT(*std::max_element(de.begin(), de.end()), 20);  // Poisson(4) tail
    // Stronger attachment: bigger hubs.
    net.graph = sim::GraphKind::ScaleFree;
    net.hub_exponent = 1.5;
    const std::vector<std::int64_t> dh = degrees(sim::simulate_network(base, net), 3000);
    EXPECT_GT(*std::max_element(dh.begin(), dh.end()), max_degree);
}

TEST(SimNetwork, WeightsOfBothSignsAndBoundedVariances) {
    const sim::GaussianSimSpec base{1500, 2000, 0.0, 3};
    sim::NetworkSimSpec net;
    net.graph = sim::GraphKind::Er;
    net.degree = 8;
    const sim::GaussianSim s = sim::simulate_network(base, net);
    std::int64_t negative = 0;
    for (const auto& [a, b, w] : s.dag_edges) {
        EXPECT_NE(a, b);
        negative += w < 0.0;
    }
    const auto e = static_cast<std::int64_t>(s.dag_edges.size());
    EXPECT_GT(e, 5000);
    EXPECT_GT(negative, e / 3);
    EXPECT_LT(negative, 2 * e / 3);
    // Signal-to-noise in [0.5, 2] on top of unit noise: variances within about [1, 3]
    // at any size (cuPC's generator grows them geometrically along the order).
    for (std::int64_t v = 0; v < base.n_vars; ++v) {
        const double var = column_variance(s.data, v);
        EXPECT_GT(var, 0.75) << v;
        EXPECT_LT(var, 3.6) << v;
    }
    // Columns are shuffled: edges do not all go from lower to higher columns.
    std::int64_t backwards = 0;
    for (const auto& [a, b, w] : s.dag_edges) backwards += a > b;
    EXPECT_GT(backwards, e / 4);
}

TEST(SimNetwork, SameSpecSameBitsAndBadSpecsAreErrors) {
    const sim::GaussianSimSpec base{400, 100, 0.0, 11};
    sim::NetworkSimSpec net;
    net.graph = sim::GraphKind::ScaleFree;
    const sim::GaussianSim a = sim::simulate_network(base, net);
    const sim::GaussianSim b = sim::simulate_network(base, net);
    EXPECT_EQ(a.data.values, b.data.values);
    EXPECT_EQ(a.dag_edges, b.dag_edges);
    const sim::GaussianSim c = sim::simulate_network({400, 100, 0.0, 12}, net);
    EXPECT_NE(a.data.values, c.data.values);
    net.degree = 400;
    EXPECT_THROW(sim::simulate_network(base, net), InputError);
    net.degree = 4;
    net.hub_exponent = 5;
    EXPECT_THROW(sim::simulate_network(base, net), InputError);
    EXPECT_THROW(sim::parse_graph_kind("small-world"), InputError);
    EXPECT_EQ(sim::parse_graph_kind("scale-free"), sim::GraphKind::ScaleFree);
}
