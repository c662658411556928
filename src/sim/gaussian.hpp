// SPDX-License-Identifier: Apache-2.0
// cuPC's synthetic linear Gaussian generator (Zarebavani et al., TPDS 2020, §5.6; see
// shared/seeds/DIGEST.md §1.6), made deterministic for a seed with counter-based noise.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/dataset.hpp"
#include "core/pdag.hpp"

namespace cudag::sim {

/// What to simulate: a random DAG on n_vars nodes and n_samples draws from it.
struct GaussianSimSpec {
    std::int64_t n_vars;     ///< number of variables n (>= 1)
    std::int64_t n_samples;  ///< number of samples m (>= 1)
    double density;          ///< d: probability of each edge j -> i, j < i (0 <= d <= 1)
    std::uint64_t seed;      ///< key of every random draw
};

/// Throws InputError naming the first field of `spec` out of range (n_vars, n_samples,
/// density, n_vars * n_samples).
void validate(const GaussianSimSpec& spec);

/// A validated spec's data set before its values are drawn: n_vars × n_samples zeros
/// (OutOfMemory when they cannot be allocated), variables named X1..Xn, and the source
/// "simulated <kind> (n_vars=..., n_samples=..., density=..., seed=...)".
Dataset simulated_dataset(const GaussianSimSpec& spec, const std::string& kind);

/// A simulated data set and the DAG that generated it.
struct GaussianSim {
    Dataset data;  ///< variable-major (values[v * n_samples + s]), variables named X1..Xn
    /// True DAG as (parent, child, weight), parent < child, sorted by (parent, child);
    /// weight is the coefficient A[child, parent] in [0.1, 1].
    std::vector<std::tuple<std::int32_t, std::int32_t, double>> dag_edges;
};

/// Parents of one variable with their weights, in increasing parent order.
struct Parents {
    std::vector<std::int32_t> nodes;
    std::vector<double> weights;
};

/// Row i of A: each j < i is a parent with probability d, with a Uniform[0.1, 1] weight,
/// drawn from the Philox stream (seed, graph_stream(i)).
Parents draw_parents(std::uint64_t seed, std::int64_t i, double d);

/// Simulates cuPC's generator. A is lower triangular: A[i, j] for j < i is nonzero with
/// probability d, independently per pair, and then holds a Uniform[0.1, 1] weight (j -> i).
/// Each sample is V_i = N_i + Σ_{j<i} A[i, j] V_j for i = 0..n-1 (parents added in increasing
/// j), with N_i standard normal.
///
/// Determinism: row i of A is drawn from the Philox stream (seed, graph_stream(i)) and the
/// noise N_i of sample s is gaussian_noise(seed, s, i), so the result depends on the spec
/// only, not on the thread count. Edges per row are found by geometric gaps between
/// successes, which is the same Bernoulli(d) process in O(edges) time.
/// Throws InputError for an invalid spec and OutOfMemory when n_vars * n_samples doubles
/// cannot be allocated.
/// Expected number of DAG edges of `spec`: density * n (n - 1) / 2.
double expected_edges(const GaussianSimSpec& spec);

/// Host memory simulate_gaussian and the writers need for `spec`, in bytes (values twice:
/// the data and a writer's transposed copy; about 64 bytes per expected edge for the
/// parent lists, the edge list and the truth file's text).
double simulation_bytes(const GaussianSimSpec& spec);

GaussianSim simulate_gaussian(const GaussianSimSpec& spec);

/// As simulate_gaussian(spec), on `n_threads` threads (0: all hardware threads). The result
/// is bit-identical for every thread count.
GaussianSim simulate_gaussian(const GaussianSimSpec& spec, int n_threads);

/// Philox stream id of row i of A (the parents of variable i).
constexpr std::uint64_t graph_stream(std::int64_t i) {
    return 0x4752000000000000ull | static_cast<std::uint64_t>(i);  // "GR" tag
}

/// Philox stream id of the noise of sample s.
constexpr std::uint64_t noise_stream(std::int64_t s) {
    return 0x4e5a000000000000ull | static_cast<std::uint64_t>(s);  // "NZ" tag
}

/// The noise N_i of sample s: Box–Muller value (i mod 2) of block i / 2 of stream
/// noise_stream(s) under `seed` (see normal_pair in core/rng.hpp).
double gaussian_noise(std::uint64_t seed, std::int64_t sample, std::int64_t var);

/// The DAG on n nodes with the given (parent, child, weight) edges as a Pdag (all directed).
/// Throws InputError for an endpoint outside [0, n) or a self loop.
Pdag edges_to_pdag(std::int64_t n, const std::vector<std::tuple<std::int32_t, std::int32_t, double>>& edges);

}  // namespace cudag::sim
