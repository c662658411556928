// SPDX-License-Identifier: Apache-2.0
#include "bn/prior.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
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

double PriorScorer::local_bounded(std::int32_t node, std::span<const std::int32_t> parents, int max_size, double floor,
                                  double* bound) const {
    const auto n = static_cast<std::size_t>(base_.n_vars());
    const auto term = [&](std::int32_t p) {
        return per_parent_ +
               (term_.empty() ? 0.0 : term_[static_cast<std::size_t>(p) * n + static_cast<std::size_t>(node)]);
    };
    // The most the parents a strict superset adds (at least one, at most max_size - |parents|)
    // can add: the largest first, later ones only when positive.
    const int more = max_size - static_cast<int>(parents.size());
    double prior = 0.0, extra = 0.0;
    for (const std::int32_t p : parents) prior += term(p);
    if (term_.empty()) {
        extra = per_parent_ + std::max(0.0, per_parent_) * std::max(more - 1, 0);
    } else {
        std::vector<double> add;
        for (std::int32_t u = 0; u < static_cast<std::int32_t>(n); ++u)
            if (u != node && std::find(parents.begin(), parents.end(), u) == parents.end()) add.push_back(term(u));
        std::sort(add.begin(), add.end(), std::greater<>());
        for (int i = 0; i < more && i < static_cast<int>(add.size()); ++i)
            extra += i == 0 ? add[i] : std::max(0.0, add[i]);
    }
    double b = 0.0;
    // The base's floor: the table compares base bound + prior + extra with its own floor.
    double s = base_.local_bounded(node, parents, max_size, floor - prior - extra, &b);
    for (const std::int32_t p : parents) {  // as local() adds them, so the same bits
        s += per_parent_;
        if (!term_.empty()) s += term_[static_cast<std::size_t>(p) * n + static_cast<std::size_t>(node)];
    }
    *bound = b + prior + extra;
    return s;
}

}  // namespace cudag::bn
