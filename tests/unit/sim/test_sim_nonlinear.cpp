// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/error.hpp"
#include "sim/gaussian.hpp"
#include "sim/nonlinear.hpp"

namespace cudag::sim {
namespace {

TEST(NonlinearSim, IdenticalOnAnyThreadCount) {
    const GaussianSimSpec spec{30, 2500, 0.15, 9};
    const NonlinearSim a = simulate_nonlinear(spec, 1);
    for (int threads : {2, 3}) {
        const NonlinearSim b = simulate_nonlinear(spec, threads);
        EXPECT_EQ(a.data.values, b.data.values) << threads << " threads";
        EXPECT_EQ(a.dag_edges(), b.dag_edges());
    }
    const NonlinearSim c = simulate_nonlinear({30, 2500, 0.15, 10}, 2);
    EXPECT_NE(a.data.values, c.data.values);
}

TEST(NonlinearSim, SameDagAsTheGaussianSimulator) {
    const GaussianSimSpec spec{40, 10, 0.1, 4};
    const NonlinearSim n = simulate_nonlinear(spec, 1);
    const GaussianSim g = simulate_gaussian(spec, 1);
    ASSERT_EQ(n.edges.size(), g.dag_edges.size());
    for (std::size_t k = 0; k < n.edges.size(); ++k) {
        EXPECT_EQ(n.edges[k].parent, std::get<0>(g.dag_edges[k]));
        EXPECT_EQ(n.edges[k].child, std::get<1>(g.dag_edges[k]));
    }
}

TEST(NonlinearSim, FunctionsAndBetasAsSpecified) {
    const NonlinearSim s = simulate_nonlinear({200, 50, 0.1, 2}, 2);
    std::map<EdgeFunction, int> count;
    for (const NonlinearEdge& e : s.edges) {
        ++count[e.function];
        EXPECT_GE(std::fabs(e.beta), 0.5);
        EXPECT_LE(std::fabs(e.beta), 1.0);
        EXPECT_LT(e.parent, e.child);
    }
    const double quarter = s.edges.size() / 4.0;  // about 1990 edges: ±4 sd is ±78
    for (int f = 0; f < 4; ++f)
        EXPECT_NEAR(count[static_cast<EdgeFunction>(f)], quarter, 4 * std::sqrt(quarter * 0.75))
            << to_string(static_cast<EdgeFunction>(f));
    for (double v : s.data.values) ASSERT_TRUE(std::isfinite(v));
}

TEST(NonlinearSim, ChildFollowsItsParentsExactly) {
    const GaussianSimSpec spec{6, 400, 0.6, 3};
    const NonlinearSim s = simulate_nonlinear(spec, 1);
    const std::int64_t m = spec.n_samples;
    std::vector<double> mean(6), sd(6);
    for (int v = 0; v < 6; ++v) {
        const double* c = s.data.column(v);
        double a = 0.0, q = 0.0;
        for (std::int64_t t = 0; t < m; ++t) a += c[t];
        mean[v] = a / m;
        for (std::int64_t t = 0; t < m; ++t) q += (c[t] - mean[v]) * (c[t] - mean[v]);
        sd[v] = std::sqrt(q / m);
    }
    for (std::int64_t t = 0; t < m; t += 37)
        for (int i = 0; i < 6; ++i) {
            double want = gaussian_noise(spec.seed, t, i);
            for (const NonlinearEdge& e : s.edges) {
                if (e.child != i) continue;
                const double z = (s.data.column(e.parent)[t] - mean[e.parent]) / sd[e.parent];
                const double f = e.function == EdgeFunction::Linear      ? z
                                 : e.function == EdgeFunction::Quadratic ? z * z
                                 : e.function == EdgeFunction::Tanh      ? std::tanh(z)
                                                                         : std::sin(z);
                want += e.beta * f;
            }
            EXPECT_NEAR(s.data.column(i)[t], want, 1e-9) << "sample " << t << " var " << i;
        }
}

TEST(NonlinearSim, BadSpecIsAnInputError) {
    EXPECT_THROW(simulate_nonlinear({0, 10, 0.1, 1}), InputError);
    EXPECT_THROW(simulate_nonlinear({5, 10, 1.5, 1}), InputError);
}

}  // namespace
}  // namespace cudag::sim
