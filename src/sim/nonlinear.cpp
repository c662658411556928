// SPDX-License-Identifier: Apache-2.0
#include "sim/nonlinear.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"

namespace cudag::sim {

std::string to_string(EdgeFunction f) {
    switch (f) {
        case EdgeFunction::Linear:
            return "linear";
        case EdgeFunction::Quadratic:
            return "quadratic";
        case EdgeFunction::Tanh:
            return "tanh";
        case EdgeFunction::Sine:
            return "sine";
    }
    return "?";
}

std::vector<std::tuple<std::int32_t, std::int32_t, double>> NonlinearSim::dag_edges() const {
    std::vector<std::tuple<std::int32_t, std::int32_t, double>> out;
    out.reserve(edges.size());
    for (const NonlinearEdge& e : edges) out.emplace_back(e.parent, e.child, e.beta);
    return out;
}

namespace {

double apply(EdgeFunction f, double x) {
    switch (f) {
        case EdgeFunction::Linear:
            return x;
        case EdgeFunction::Quadratic:
            return x * x;
        case EdgeFunction::Tanh:
            return std::tanh(x);
        case EdgeFunction::Sine:
            return std::sin(x);
    }
    return x;
}

}  // namespace

NonlinearSim simulate_nonlinear(const GaussianSimSpec& spec, int n_threads) {
    validate(spec);
    const int threads = resolve_threads(n_threads);
    const std::int64_t n = spec.n_vars;
    const std::int64_t m = spec.n_samples;

    // Parents (simulate_gaussian's DAG), then each edge's function and beta.
    std::vector<std::vector<NonlinearEdge>> in(static_cast<std::size_t>(n));
    parallel_for(0, n, threads, 256, [&](std::int64_t i, int) {
        const Parents p = draw_parents(spec.seed, i, spec.density);
        CounterRng rng(spec.seed, function_stream(i));
        auto& row = in[static_cast<std::size_t>(i)];
        for (const std::int32_t j : p.nodes) {
            NonlinearEdge e;
            e.parent = j;
            e.child = static_cast<std::int32_t>(i);
            e.function = static_cast<EdgeFunction>(std::min(3.0, std::floor(4.0 * rng.uniform())));
            const double magnitude = 0.5 + 0.5 * rng.uniform();
            e.beta = rng.uniform() < 0.5 ? -magnitude : magnitude;
            row.push_back(e);
        }
    });

    NonlinearSim sim;
    for (const auto& row : in) sim.edges.insert(sim.edges.end(), row.begin(), row.end());
    std::sort(sim.edges.begin(), sim.edges.end(), [](const NonlinearEdge& a, const NonlinearEdge& b) {
        return a.parent < b.parent || (a.parent == b.parent && a.child < b.child);
    });

    Dataset& data = sim.data;
    data = simulated_dataset(spec, "nonlinear");

    // Column i needs its parents' whole columns (their standardisation), so variables run
    // in index order and each one's samples in parallel; mean and sd are summed in sample
    // order on one thread, so no thread count changes a bit.
    std::vector<double> mean(static_cast<std::size_t>(n), 0.0), inv_sd(static_cast<std::size_t>(n), 0.0);
    constexpr std::int64_t kBlock = 1024;
    double* values = data.values.data();
    for (std::int64_t i = 0; i < n; ++i) {
        const auto& row = in[static_cast<std::size_t>(i)];
        double* col = values + i * m;
        parallel_for(0, (m + kBlock - 1) / kBlock, threads, 1, [&](std::int64_t b, int) {
            for (std::int64_t s = b * kBlock; s < std::min(m, (b + 1) * kBlock); ++s) {
                double v = gaussian_noise(spec.seed, s, i);
                for (const NonlinearEdge& e : row) {
                    const std::int64_t j = e.parent;
                    const double z = (values[j * m + s] - mean[j]) * inv_sd[j];
                    v += e.beta * apply(e.function, z);
                }
                col[s] = v;
            }
        });
        double sum = 0.0;
        for (std::int64_t s = 0; s < m; ++s) sum += col[s];
        const double mu = sum / static_cast<double>(m);
        double sq = 0.0;
        for (std::int64_t s = 0; s < m; ++s) sq += (col[s] - mu) * (col[s] - mu);
        const double sd = std::sqrt(sq / static_cast<double>(m));
        mean[static_cast<std::size_t>(i)] = mu;
        inv_sd[static_cast<std::size_t>(i)] = sd > 0.0 ? 1.0 / sd : 0.0;
    }
    return sim;
}

}  // namespace cudag::sim
