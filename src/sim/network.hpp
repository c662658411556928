// SPDX-License-Identifier: Apache-2.0
// Linear Gaussian data on realistic networks (`cudag simulate gaussian --graph er|scale-free`):
// Erdős–Rényi or scale-free (preferential attachment, hubs) DAGs, weights of both signs,
// each node's parent signal scaled to a bounded signal-to-noise ratio (so variances stay
// near 1–3 at any size, unlike cuPC's generator), columns in a random order.
#pragma once

#include <cstdint>
#include <string>

#include "sim/gaussian.hpp"

namespace cudag::sim {

enum class GraphKind {
    Cupc,      ///< cuPC's generator (simulate_gaussian): density per pair, weights in [0.1, 1]
    Er,        ///< Erdős–Rényi: each pair an edge with probability degree / (n - 1)
    ScaleFree  ///< preferential attachment: node t takes round(degree / 2) earlier parents
};

/// "cupc", "er", "scale-free"; anything else is an InputError.
GraphKind parse_graph_kind(const std::string& name);
std::string to_string(GraphKind k);

struct NetworkSimSpec {
    GraphKind graph = GraphKind::Er;
    /// Expected neighbours per variable (Er: degree / (n - 1) per pair; ScaleFree: each
    /// node after the first takes min(t, round(degree / 2)) parents, at least one).
    double degree = 4.0;
    /// ScaleFree: an earlier node is chosen with probability proportional to
    /// (its degree + 1)^hub_exponent (1: linear preferential attachment, degree tail ~k^-3;
    /// larger: fewer, bigger hubs). In [0, 4].
    double hub_exponent = 1.0;
};

/// Throws InputError naming the first field out of range (base: as validate(GaussianSimSpec);
/// degree in [0, n - 1]; hub_exponent in [0, 4]).
void validate(const GaussianSimSpec& base, const NetworkSimSpec& net);

/// Data on an Er or ScaleFree network (base.density is not used). In the causal order t
/// (node 0 first), each edge has a weight of random sign and magnitude Uniform[0.5, 1],
/// node t's parent signal P_t = Σ w V_parent is scaled to a signal-to-noise ratio drawn from
/// Uniform[0.5, 2] (on its sample variance), V_t = c_t P_t + N_t with N_t standard normal
/// (gaussian_noise(seed, s, t)). Column k of the data holds node order[k] for a random
/// permutation, named Xk+1; dag_edges are in column indices with the scaled weights c_t w.
/// Everything is drawn from counter-based streams keyed by the seed and the node, so the
/// result depends on the specs only.
GaussianSim simulate_network(const GaussianSimSpec& base, const NetworkSimSpec& net);

}  // namespace cudag::sim
