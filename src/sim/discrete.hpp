// SPDX-License-Identifier: Apache-2.0
// Discrete Bayesian networks: random ones (cudag simulate discrete), BIF files (cudag
// simulate bif) and forward sampling, deterministic for a seed with counter-based draws.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/dataset.hpp"

namespace cudag::sim {

/// A discrete Bayesian network. Variable v has states[v].size() states and the parents
/// parents[v] (in its CPT's order); cpt[v][row * r_v + k] = P(v = k | parents in row), where
/// row numbers the parent configurations in mixed radix with the last parent fastest.
struct BayesNet {
    std::vector<std::string> names;
    std::vector<std::vector<std::string>> states;
    std::vector<std::vector<std::int32_t>> parents;
    std::vector<std::vector<double>> cpt;

    std::int64_t size() const { return static_cast<std::int64_t>(names.size()); }
    /// (parent, child, 1.0) for every arc, sorted.
    std::vector<std::tuple<std::int32_t, std::int32_t, double>> arcs() const;
};

/// What `cudag simulate discrete` draws.
struct DiscreteSimSpec {
    std::int64_t n_vars;     ///< variables (>= 1)
    std::int64_t n_samples;  ///< samples (>= 1)
    double density;          ///< probability of each arc j -> i, j < i (as simulate gaussian)
    int max_states;          ///< each variable gets 2..max_states states, uniformly (2..256)
    std::uint64_t seed;
    int max_parents = 0;  ///< > 0: a variable keeps only its max_parents nearest parents
};

/// A random network: the arcs of simulate_gaussian's DAG for the same seed and density
/// (draw_parents; with max_parents > 0 each variable keeps only the parents with the
/// largest indices, as real networks bound in-degree), state counts uniform in 2..max_states (Philox stream
/// states_stream(i)), and CPT rows drawn from a flat Dirichlet(1, ..., 1) (normalised Exp(1) draws from stream
/// cpt_stream(i)). Throws InputError for a bad spec or a CPT above 2^26 entries.
BayesNet random_network(const DiscreteSimSpec& spec);

/// Parse a network in the BIF format (`network`, `variable ... type discrete [ k ] { ... };`,
/// `probability ( child | p1, p2 ) { (s1, s2) q1, ..., qk; default ...; table ...; }`,
/// `property` lines, // and /* */ comments). A `table` lists the CPT rows in the order
/// above. Rows are normalised when they sum to 1 within 1e-3; any other problem (unknown
/// variable or state, missing row, bad number, cycle) is an InputError "path:line: ...".
BayesNet parse_bif(std::string_view text, const std::string& path);
BayesNet read_bif(const std::string& path);

/// n_samples forward samples of `net` as discrete data (levels = state names). Sample s of
/// variable v uses the uniform of Philox block v of stream sample_stream(s) under `seed`, so
/// the data depend on (net, n_samples, seed) only, not on `threads`.
Dataset forward_sample(const BayesNet& net, std::int64_t n_samples, std::uint64_t seed, int threads);

constexpr std::uint64_t states_stream(std::int64_t i) {
    return 0x534b000000000000ull | static_cast<std::uint64_t>(i);  // "SK"
}
constexpr std::uint64_t cpt_stream(std::int64_t i) {
    return 0x4350000000000000ull | static_cast<std::uint64_t>(i);  // "CP"
}
constexpr std::uint64_t sample_stream(std::int64_t s) {
    return 0x4453000000000000ull | static_cast<std::uint64_t>(s);  // "DS"
}

}  // namespace cudag::sim
