// SPDX-License-Identifier: Apache-2.0
#include "sim/gaussian.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"

namespace cudag::sim {

namespace {
using Edge = std::tuple<std::int32_t, std::int32_t, double>;
}  // namespace

void validate(const GaussianSimSpec& spec) {
    CUDAG_EXPECTS(spec.n_vars >= 1, "simulate: n_vars must be at least 1, got " + std::to_string(spec.n_vars));
    CUDAG_EXPECTS(spec.n_vars <= std::numeric_limits<std::int32_t>::max(),
                  "simulate: n_vars must fit in 32 bits, got " + std::to_string(spec.n_vars));
    CUDAG_EXPECTS(spec.n_samples >= 1, "simulate: n_samples must be at least 1, got " + std::to_string(spec.n_samples));
    // Sample ids share a 64-bit stream id with a 16-bit tag.
    CUDAG_EXPECTS(spec.n_samples < (std::int64_t{1} << 48),
                  "simulate: n_samples must be below 2^48, got " + std::to_string(spec.n_samples));
    CUDAG_EXPECTS(spec.density >= 0.0 && spec.density <= 1.0,
                  "simulate: density must lie in [0, 1], got " + std::to_string(spec.density));
    CUDAG_EXPECTS(spec.n_vars <= std::numeric_limits<std::int64_t>::max() / 8 / spec.n_samples,
                  "simulate: n_vars * n_samples is too large");
}

namespace {

/// Fills samples [s0, s1) of every variable, variable by variable so that parent columns are
/// read as contiguous runs of the block.
void simulate_block(const GaussianSimSpec& spec, const std::vector<Parents>& parents, std::int64_t s0, std::int64_t s1,
                    double* values) {
    const std::int64_t n = spec.n_vars;
    const std::int64_t m = spec.n_samples;
    const std::int64_t len = s1 - s0;
    std::vector<double> odd(static_cast<std::size_t>(len));
    auto add_parents = [&](std::int64_t i) {
        double* col = values + i * m + s0;
        const Parents& p = parents[static_cast<std::size_t>(i)];
        for (std::size_t k = 0; k < p.nodes.size(); ++k) {
            const double* src = values + static_cast<std::int64_t>(p.nodes[k]) * m + s0;
            const double w = p.weights[k];
            for (std::int64_t s = 0; s < len; ++s) col[s] += w * src[s];
        }
        // Var(V_i) grows by about (1 + 0.37 d) per variable (E[w^2] = 0.37), so dense large
        // graphs overflow; refuse rather than return infinities and NaNs.
        if (!p.nodes.empty() && !std::all_of(col, col + len, [](double v) { return std::isfinite(v); }))
            throw InputError(
                "simulate: values overflow double precision (the variance grows by about "
                "1 + 0.37 * density per variable); lower the density or the number of variables");
    };
    for (std::int64_t i = 0; i < n; i += 2) {
        // One Philox block per sample carries the noise of variables i and i + 1.
        double* col = values + i * m + s0;
        for (std::int64_t s = 0; s < len; ++s) {
            const Philox4x32Block b = philox_block(spec.seed, noise_stream(s0 + s), static_cast<std::uint64_t>(i / 2));
            normal_pair(b, col[s], odd[static_cast<std::size_t>(s)]);
        }
        add_parents(i);
        if (i + 1 < n) {
            std::copy(odd.begin(), odd.end(), values + (i + 1) * m + s0);
            add_parents(i + 1);
        }
    }
}

}  // namespace

double expected_edges(const GaussianSimSpec& spec) {
    const double n = static_cast<double>(spec.n_vars);
    return spec.density * n * (n - 1.0) / 2.0;
}

double simulation_bytes(const GaussianSimSpec& spec) {
    const double n = static_cast<double>(spec.n_vars);
    return 16.0 * n * static_cast<double>(spec.n_samples) + 64.0 * expected_edges(spec) + 64.0 * n;
}

Dataset simulated_dataset(const GaussianSimSpec& spec, const std::string& kind) {
    const std::int64_t n = spec.n_vars;
    const std::int64_t m = spec.n_samples;
    Dataset data;
    data.n_vars = n;
    data.n_samples = m;
    try {
        data.values.resize(static_cast<std::size_t>(n * m));
    } catch (const std::bad_alloc&) {
        throw OutOfMemory("simulate: cannot allocate " + std::to_string(n * m * 8 / (1 << 20)) + " MiB for " +
                          std::to_string(n) + " x " + std::to_string(m) + " values");
    }
    data.names.reserve(static_cast<std::size_t>(n));
    // append() rather than "X" + ...: GCC 12 raises a false -Wrestrict on the latter.
    for (std::int64_t i = 0; i < n; ++i) data.names.push_back(std::string("X").append(std::to_string(i + 1)));
    data.source = "simulated " + kind + " (n_vars=" + std::to_string(n) + ", n_samples=" + std::to_string(m) +
                  ", density=" + std::to_string(spec.density) + ", seed=" + std::to_string(spec.seed) + ")";
    return data;
}

// Successes of a Bernoulli(d) sequence are separated by Geometric(d) gaps: P(gap >= k) =
// (1-d)^k, drawn as floor(ln(1-u) / ln(1-d)), so a sparse row costs O(parents), not O(i).
Parents draw_parents(std::uint64_t seed, std::int64_t i, double d) {
    Parents p;
    if (d <= 0.0 || i == 0) return p;
    CounterRng rng(seed, graph_stream(i));
    const double log_q = std::log1p(-d);  // -inf when d == 1: every gap is 0
    std::int64_t j = -1;
    for (;;) {
        if (d >= 1.0) {
            ++j;
        } else {
            const double gap = std::floor(std::log1p(-rng.uniform()) / log_q);
            if (gap >= static_cast<double>(i - 1 - j)) break;
            j += 1 + static_cast<std::int64_t>(gap);
        }
        if (j >= i) break;
        p.nodes.push_back(static_cast<std::int32_t>(j));
        p.weights.push_back(0.1 + 0.9 * rng.uniform());
    }
    return p;
}

double gaussian_noise(std::uint64_t seed, std::int64_t sample, std::int64_t var) {
    double z0 = 0.0;
    double z1 = 0.0;
    normal_pair(philox_block(seed, noise_stream(sample), static_cast<std::uint64_t>(var / 2)), z0, z1);
    return var % 2 == 0 ? z0 : z1;
}

GaussianSim simulate_gaussian(const GaussianSimSpec& spec) { return simulate_gaussian(spec, 0); }

GaussianSim simulate_gaussian(const GaussianSimSpec& spec, int n_threads) {
    validate(spec);
    const int threads = resolve_threads(n_threads);
    const std::int64_t n = spec.n_vars;
    const std::int64_t m = spec.n_samples;

    std::vector<Parents> parents(static_cast<std::size_t>(n));
    parallel_for(0, n, threads, 256, [&](std::int64_t i, int) {
        parents[static_cast<std::size_t>(i)] = draw_parents(spec.seed, i, spec.density);
    });

    GaussianSim sim;
    for (std::int64_t i = 0; i < n; ++i) {
        const Parents& p = parents[static_cast<std::size_t>(i)];
        for (std::size_t k = 0; k < p.nodes.size(); ++k)
            sim.dag_edges.emplace_back(p.nodes[k], static_cast<std::int32_t>(i), p.weights[k]);
    }
    std::sort(sim.dag_edges.begin(), sim.dag_edges.end());

    Dataset& data = sim.data;
    data = simulated_dataset(spec, "gaussian");

    // Long blocks make each parent's run long enough for the hardware prefetcher (the random
    // parent reads dominate otherwise); short blocks feed more threads. Each sample is computed
    // the same way in any block, so the block size does not change the result.
    const std::int64_t per_thread = (m + threads - 1) / threads;
    const std::int64_t block = std::clamp<std::int64_t>((per_thread + 63) / 64 * 64, 64, 1024);
    const std::int64_t n_blocks = (m + block - 1) / block;
    double* values = data.values.data();
    parallel_for(0, n_blocks, threads, 1, [&](std::int64_t b, int) {
        simulate_block(spec, parents, b * block, std::min(m, (b + 1) * block), values);
    });
    return sim;
}

Pdag edges_to_pdag(std::int64_t n, const std::vector<Edge>& edges) {
    Pdag g{Graph(n)};
    for (const auto& [from, to, w] : edges) {
        CUDAG_EXPECTS(from >= 0 && from < n && to >= 0 && to < n,
                      "DAG edge " + std::to_string(from) + " -> " + std::to_string(to) +
                          " has an endpoint outside [0, " + std::to_string(n) + ")");
        CUDAG_EXPECTS(from != to, "DAG edge " + std::to_string(from) + " -> " + std::to_string(to) + " is a self loop");
        g.orient(from, to);
    }
    return g;
}

}  // namespace cudag::sim
