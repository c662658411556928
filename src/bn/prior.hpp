// SPDX-License-Identifier: Apache-2.0
// Structure priors added to local scores (issue 21): BiDAG's edge penalty and the pairwise
// prior of Wang et al. ("artificial interventions", digest §4.3). Both add a term per
// parent, so they fold into the local-score table.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bn/score.hpp"

namespace cudag::bn {

struct StructurePrior {
    /// BiDAG's edgepf: each parent adds -log(edge_penalty) to the local score (1: none).
    double edge_penalty = 1.0;
    /// n × n, belief[p * n + v] in [0, 1]: the belief in the edge p --> v (0.5 none, 1 sure,
    /// 0 sure not); each parent p of v adds 100 (belief - 0.5)^3 (Eq. 10 of the paper, whose
    /// matrix R is the transpose: R[v, p]). Empty: no pairwise prior.
    std::vector<double> belief;

    bool empty() const { return edge_penalty == 1.0 && belief.empty(); }
};

/// The paper's per-parent prior term for a belief r: 100 (r - 0.5)^3.
double pairwise_prior_term(double belief);

/// A local scorer plus a structure prior. Keeps a reference to `base`, which must outlive it.
/// InputError when edge_penalty is not a positive finite number, or belief is not n × n
/// with every entry in [0, 1].
class PriorScorer final : public LocalScorer {
public:
    PriorScorer(const LocalScorer& base, StructurePrior prior);

    std::int64_t n_vars() const override { return base_.n_vars(); }
    double local(std::int32_t node, std::span<const std::int32_t> parents) const override;
    /// The base's bound plus the prior of `parents` and the most that the parents a
    /// superset adds (at least one, at most max_size - |parents|) can add.
    double local_bounded(std::int32_t node, std::span<const std::int32_t> parents, int max_size, double floor,
                         double* bound) const override;

    /// What each parent adds: -log(edge_penalty), then terms()[p * n + v] when not empty.
    double per_parent() const { return per_parent_; }
    std::span<const double> terms() const { return term_; }
    const LocalScorer& base() const { return base_; }

private:
    const LocalScorer& base_;
    double per_parent_;         ///< -log(edge_penalty)
    std::vector<double> term_;  ///< pairwise_prior_term of belief, same layout; empty: none
};

}  // namespace cudag::bn
