// SPDX-License-Identifier: Apache-2.0
// Nonlinear additive-noise data on a random DAG, the GPU-CMIknn paper's MANM-CS setup
// (Huegle et al., WHY-21 @ NeurIPS 2021; shared/seeds/DIGEST.md §2.6) with continuous
// variables only, deterministic for a seed with counter-based random numbers.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/dataset.hpp"
#include "sim/gaussian.hpp"

namespace cudag::sim {

/// The function of one edge (MANM-CS's names: linear, quadratic, tanh, sin).
enum class EdgeFunction : int { Linear = 0, Quadratic = 1, Tanh = 2, Sine = 3 };

std::string to_string(EdgeFunction f);

/// One edge of the true DAG: child gets beta · f(standardised parent).
struct NonlinearEdge {
    std::int32_t parent = 0;
    std::int32_t child = 0;
    EdgeFunction function = EdgeFunction::Linear;
    double beta = 0.0;
};

/// A simulated data set and the DAG (with its edge functions) that generated it.
struct NonlinearSim {
    Dataset data;                      ///< variable-major, variables named X1..Xn
    std::vector<NonlinearEdge> edges;  ///< sorted by (parent, child)

    /// The edges as (parent, child, beta), for io::write_truth_tsv.
    std::vector<std::tuple<std::int32_t, std::int32_t, double>> dag_edges() const;
};

/// Simulates V_i = Σ_{j ∈ pa(i)} β_ij · f_ij(z_j) + N_i for i = 0..n−1, where
///  - the DAG is simulate_gaussian's for the same spec (draw_parents: each j < i is a
///    parent with probability `density`), so both simulators give one graph for a seed;
///  - f_ij is linear, quadratic (x²), tanh or sine with probability 1/4 each, and β_ij is
///    uniform on [−1, −0.5] ∪ [0.5, 1] (MANM-CS's default betas), drawn from the Philox
///    stream (seed, function_stream(i)) in parent order;
///  - z_j is V_j standardised over the samples (mean 0, population sd 1; 0 when constant),
///    which keeps quadratic chains from growing without bound (MANM-CS applies f to the
///    raw parent and normalises afterwards);
///  - N_i is standard normal: gaussian_noise(seed, sample, i), simulate_gaussian's noise.
/// Variables are computed in index order, each over all samples on `n_threads` threads
/// (0: all); the result is bit-identical for every thread count.
NonlinearSim simulate_nonlinear(const GaussianSimSpec& spec, int n_threads = 0);

/// Philox stream id of the edge functions and betas of variable i.
constexpr std::uint64_t function_stream(std::int64_t i) {
    return 0x464e000000000000ull | static_cast<std::uint64_t>(i);  // "FN" tag
}

}  // namespace cudag::sim
