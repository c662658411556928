// SPDX-License-Identifier: Apache-2.0
#include "bn/prior.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"

namespace cudag::bn {

double pairwise_prior_term(double belief) {
    const double d = belief - 0.5;
    return 100.0 * d * d * d;
}

PriorScorer::PriorScorer(const LocalScorer& base, StructurePrior prior) : base_(base) {
    CUDAG_EXPECTS(prior.edge_penalty > 0.0 && std::isfinite(prior.edge_penalty),
                  "the edge penalty must be a positive number, not " + std::to_string(prior.edge_penalty));
    per_parent_ = -std::log(prior.edge_penalty);
    const std::int64_t n = base.n_vars();
    if (!prior.belief.empty()) {
        CUDAG_EXPECTS(static_cast<std::int64_t>(prior.belief.size()) == n * n,
                      "the prior matrix must be " + std::to_string(n) + " x " + std::to_string(n));
        term_.resize(prior.belief.size());
        for (std::size_t i = 0; i < prior.belief.size(); ++i) {
            const double r = prior.belief[i];
            CUDAG_EXPECTS(r >= 0.0 && r <= 1.0,
                          "prior beliefs lie in [0, 1]; entry (" + std::to_string(i / static_cast<std::size_t>(n) + 1) +
                              ", " + std::to_string(i % static_cast<std::size_t>(n) + 1) + ") is " + std::to_string(r));
            term_[i] = pairwise_prior_term(r);
        }
    }
}

double PriorScorer::local(std::int32_t node, std::span<const std::int32_t> parents) const {
    double s = base_.local(node, parents);
    const auto n = static_cast<std::size_t>(base_.n_vars());
    for (const std::int32_t p : parents) {
        s += per_parent_;
        if (!term_.empty()) s += term_[static_cast<std::size_t>(p) * n + static_cast<std::size_t>(node)];
    }
    return s;
}

}  // namespace cudag::bn
