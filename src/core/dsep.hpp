// SPDX-License-Identifier: Apache-2.0
// d-separation in a DAG, and the CI oracle over a DAG's observed nodes built on it (pcalg's
// dsepTest): the exact answers a learner's logic is checked against (issue 54).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cudag {

/// A directed graph over n nodes as parent and child lists (host memory).
struct Dag {
    std::vector<std::vector<std::int32_t>> parents;   ///< parents[v]: v's parents, in insertion order
    std::vector<std::vector<std::int32_t>> children;  ///< children[v]: v's children, in insertion order

    explicit Dag(std::int64_t n = 0) : parents(static_cast<std::size_t>(n)), children(static_cast<std::size_t>(n)) {}
    std::int64_t n() const { return static_cast<std::int64_t>(parents.size()); }
    /// Adds the edge from --> to (no check for repeats or cycles).
    void add_edge(std::int32_t from, std::int32_t to);
    /// A topological order (parents first), or empty when the graph has a directed cycle
    /// (and n() > 0).
    std::vector<std::int32_t> topological_order() const;
};

/// Whether x and y are d-separated given z in `dag` (x != y, neither in z; z in any order,
/// no repeats). The reachability ("Bayes ball") search of Koller & Friedman, Probabilistic
/// Graphical Models, Algorithm 3.1: linear in the nodes and edges; allocates its own
/// scratch, so concurrent calls are safe.
bool d_separated(const Dag& dag, std::int32_t x, std::int32_t y, std::span<const std::int32_t> z);

/// The CI oracle of a DAG with latent nodes: its variables are the DAG's nodes not named
/// latent, in the DAG's node order, and x ⟂ y | S holds iff x and y are d-separated given
/// S in the DAG (pcalg's dsepTest: p = 1 when d-separated, else p = 0).
class DsepOracle {
public:
    /// `names[v]` names DAG node v; `latent` lists nodes by name (each must be a node, or
    /// InputError naming it; repeats are harmless). The DAG must be acyclic (InputError).
    /// `source` names the DAG's file in messages and the result's provenance.
    DsepOracle(Dag dag, std::vector<std::string> names, const std::vector<std::string>& latent, std::string source);

    /// The observed variables, in the DAG's node order.
    std::int64_t n_vars() const { return static_cast<std::int64_t>(observed_.size()); }
    /// Their names.
    std::vector<std::string> var_names() const;
    /// The latent nodes' names, in the DAG's node order.
    std::vector<std::string> latent_names() const;
    const std::string& source() const { return source_; }
    const Dag& dag() const { return dag_; }

    /// Whether observed variables x and y are d-separated given the observed variables s.
    bool independent(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) const;
    /// pcalg's dsepTest: 1 when independent(x, y, s), else 0.
    double p_value(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) const {
        return independent(x, y, s) ? 1.0 : 0.0;
    }
    /// What decides the answers, for a checkpoint digest: every node's name with "latent"
    /// or "observed", then every edge as "a-->b".
    std::vector<std::string> digest() const;

private:
    Dag dag_;
    std::vector<std::string> names_;
    std::vector<std::int32_t> observed_;  ///< variable k is DAG node observed_[k]
    std::vector<char> is_latent_;
    std::string source_;
};

}  // namespace cudag
