// SPDX-License-Identifier: Apache-2.0
#include "sim/network.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace cudag::sim {

namespace {

using Edge = std::tuple<std::int32_t, std::int32_t, double>;

/// Philox stream ids (16-bit tags beside graph_stream's "GR" and noise_stream's "NZ").
constexpr std::uint64_t weight_stream(std::int64_t t) { return 0x5754000000000000ull | static_cast<std::uint64_t>(t); }
constexpr std::uint64_t kOrderStream = 0x4f52000000000000ull;   // "OR"
constexpr std::uint64_t kAttachStream = 0x5041000000000000ull;  // "PA"

/// Prefix sums over node weights for sampling proportionally to them (a Fenwick tree).
class WeightTree {
public:
    explicit WeightTree(std::int64_t n)
        : tree_(static_cast<std::size_t>(n) + 1, 0.0), w_(static_cast<std::size_t>(n), 0.0) {}
    void set(std::int64_t i, double w) {
        const double delta = w - w_[static_cast<std::size_t>(i)];
        w_[static_cast<std::size_t>(i)] = w;
        for (std::int64_t k = i + 1; k < static_cast<std::int64_t>(tree_.size()); k += k & -k)
            tree_[static_cast<std::size_t>(k)] += delta;
    }
    double weight(std::int64_t i) const { return w_[static_cast<std::size_t>(i)]; }
    /// The node whose cumulative weight interval holds `x` (0 <= x < total over [0, limit)).
    std::int64_t find(double x, std::int64_t limit) const {
        std::int64_t pos = 0;
        std::int64_t step = 1;
        while (step * 2 < static_cast<std::int64_t>(tree_.size())) step *= 2;
        for (; step > 0; step /= 2) {
            const std::int64_t next = pos + step;
            if (next < static_cast<std::int64_t>(tree_.size()) && tree_[static_cast<std::size_t>(next)] <= x) {
                pos = next;
                x -= tree_[static_cast<std::size_t>(next)];
            }
        }
        return std::min(pos, limit - 1);
    }
    double total(std::int64_t limit) const {
        double s = 0.0;
        for (std::int64_t k = limit; k > 0; k -= k & -k) s += tree_[static_cast<std::size_t>(k)];
        return s;
    }

private:
    std::vector<double> tree_, w_;
};

/// Parents (in causal order) of every node.
std::vector<std::vector<std::int32_t>> draw_structure(const GaussianSimSpec& base, const NetworkSimSpec& net) {
    const std::int64_t n = base.n_vars;
    std::vector<std::vector<std::int32_t>> parents(static_cast<std::size_t>(n));
    if (net.graph == GraphKind::Er) {
        const double p = n > 1 ? std::min(1.0, net.degree / static_cast<double>(n - 1)) : 0.0;
        for (std::int64_t t = 0; t < n; ++t) parents[static_cast<std::size_t>(t)] = draw_parents(base.seed, t, p).nodes;
        return parents;
    }
    // Preferential attachment, node by node: each draw from node t's own stream.
    const auto per_node = static_cast<std::int64_t>(std::max(1.0, std::round(net.degree / 2.0)));
    if (net.degree <= 0.0) return parents;
    WeightTree tree(n);
    std::vector<std::int64_t> degree(static_cast<std::size_t>(n), 0);
    const auto weight_of = [&](std::int64_t d) { return std::pow(static_cast<double>(d + 1), net.hub_exponent); };
    for (std::int64_t t = 0; t < n; ++t) {
        std::vector<std::int32_t>& pa = parents[static_cast<std::size_t>(t)];
        const std::int64_t k = std::min(t, per_node);
        if (k > 0) {
            CounterRng rng(base.seed, kAttachStream | static_cast<std::uint64_t>(t));
            const double total = tree.total(t);
            while (static_cast<std::int64_t>(pa.size()) < k) {
                const auto j = static_cast<std::int32_t>(tree.find(rng.uniform() * total, t));
                if (std::find(pa.begin(), pa.end(), j) == pa.end()) pa.push_back(j);
            }
            std::sort(pa.begin(), pa.end());
            for (std::int32_t j : pa) {
                ++degree[static_cast<std::size_t>(j)];
                tree.set(j, weight_of(degree[static_cast<std::size_t>(j)]));
            }
            degree[static_cast<std::size_t>(t)] = k;
        }
        tree.set(t, weight_of(degree[static_cast<std::size_t>(t)]));
    }
    return parents;
}

}  // namespace

GraphKind parse_graph_kind(const std::string& name) {
    if (name == "cupc") return GraphKind::Cupc;
    if (name == "er") return GraphKind::Er;
    if (name == "scale-free") return GraphKind::ScaleFree;
    throw InputError("unknown --graph '" + name + "' (expected cupc, er or scale-free)");
}

std::string to_string(GraphKind k) {
    switch (k) {
        case GraphKind::Cupc:
            return "cupc";
        case GraphKind::Er:
            return "er";
        case GraphKind::ScaleFree:
            return "scale-free";
    }
    return "?";
}

void validate(const GaussianSimSpec& base, const NetworkSimSpec& net) {
    GaussianSimSpec b = base;
    b.density = 0.0;
    validate(b);
    CUDAG_EXPECTS(net.degree >= 0.0 && net.degree <= static_cast<double>(base.n_vars - 1),
                  "simulate: --degree must lie in [0, n_vars - 1 = " + std::to_string(base.n_vars - 1) + "], got " +
                      std::to_string(net.degree));
    CUDAG_EXPECTS(net.hub_exponent >= 0.0 && net.hub_exponent <= 4.0,
                  "simulate: --hub-exponent must lie in [0, 4], got " + std::to_string(net.hub_exponent));
}

GaussianSim simulate_network(const GaussianSimSpec& base, const NetworkSimSpec& net) {
    validate(base, net);
    const std::int64_t n = base.n_vars;
    const std::int64_t m = base.n_samples;
    const std::vector<std::vector<std::int32_t>> parents = draw_structure(base, net);

    // Column of each node: a Fisher–Yates permutation from its own stream.
    std::vector<std::int32_t> column(static_cast<std::size_t>(n));
    std::iota(column.begin(), column.end(), 0);
    {
        CounterRng rng(base.seed, kOrderStream);
        for (std::int64_t k = n - 1; k > 0; --k) {
            const auto r = static_cast<std::int64_t>(rng.uniform() * static_cast<double>(k + 1));
            std::swap(column[static_cast<std::size_t>(k)], column[static_cast<std::size_t>(std::min(r, k))]);
        }
    }

    GaussianSimSpec named = base;
    named.density = n > 1 ? net.degree / static_cast<double>(n - 1) : 0.0;
    GaussianSim sim;
    sim.data = simulated_dataset(named, to_string(net.graph) + " gaussian");
    sim.data.source += " degree=" + std::to_string(net.degree) +
                       (net.graph == GraphKind::ScaleFree ? " hub_exponent=" + std::to_string(net.hub_exponent) : "");
    double* values = sim.data.values.data();
    std::vector<double> signal(static_cast<std::size_t>(m));
    for (std::int64_t t = 0; t < n; ++t) {
        const std::vector<std::int32_t>& pa = parents[static_cast<std::size_t>(t)];
        double* col = values + static_cast<std::int64_t>(column[static_cast<std::size_t>(t)]) * m;
        std::vector<double> w(pa.size());
        CounterRng rng(base.seed, weight_stream(t));
        for (double& x : w) {
            const double sign = rng.uniform() < 0.5 ? -1.0 : 1.0;
            x = sign * (0.5 + 0.5 * rng.uniform());
        }
        const double snr = 0.5 + 1.5 * rng.uniform();
        std::fill(signal.begin(), signal.end(), 0.0);
        for (std::size_t k = 0; k < pa.size(); ++k) {
            const double* src = values + static_cast<std::int64_t>(column[static_cast<std::size_t>(pa[k])]) * m;
            for (std::int64_t s = 0; s < m; ++s) signal[static_cast<std::size_t>(s)] += w[k] * src[s];
        }
        double scale = 0.0;
        if (!pa.empty() && m > 1) {
            double mean = 0.0;
            for (double v : signal) mean += v;
            mean /= static_cast<double>(m);
            double var = 0.0;
            for (double v : signal) var += (v - mean) * (v - mean);
            var /= static_cast<double>(m - 1);
            if (var > 0.0) scale = std::sqrt(snr / var);
        }
        for (std::int64_t s = 0; s < m; ++s)
            col[s] = scale * signal[static_cast<std::size_t>(s)] + gaussian_noise(base.seed, s, t);
        for (std::size_t k = 0; k < pa.size(); ++k)
            if (scale != 0.0)
                sim.dag_edges.emplace_back(column[static_cast<std::size_t>(pa[k])], column[static_cast<std::size_t>(t)],
                                           scale * w[k]);
    }
    std::sort(sim.dag_edges.begin(), sim.dag_edges.end());
    return sim;
}

}  // namespace cudag::sim
