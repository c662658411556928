// SPDX-License-Identifier: Apache-2.0
#include "bn/order_mcmc.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"

namespace cudag::bn {

namespace {

/// floor(u * k) for u in [0, 1), kept below k against rounding up.
std::int64_t scaled_index(double u, std::int64_t k) {
    return std::min(k - 1, static_cast<std::int64_t>(u * static_cast<double>(k)));
}

/// The pair i < j of index `k` among the n(n-1)/2 pairs listed by i, then j.
std::pair<std::int64_t, std::int64_t> unrank_pair(std::int64_t k, std::int64_t n) {
    std::int64_t i = 0;
    while (k >= n - 1 - i) k -= n - 1 - i, ++i;
    return {i, i + 1 + k};
}

/// One chain. edge_acc (sum mode, n × n like edge_prob) receives the sum over kept
/// iterations of P(p --> v | current order).
OrderChainResult run_chain(const ScoreTable& table, const OrderMcmcOptions& opts, std::int64_t chain,
                           std::vector<double>& edge_acc) {
    const std::int64_t n = table.n_nodes();
    const auto un = static_cast<std::size_t>(n);
    const bool sum_mode = opts.mode == OrderScoreMode::Sum;
    const auto stream = static_cast<std::uint64_t>(chain) * 2;

    // Starting order: Fisher–Yates over stream 2c.
    std::vector<std::int32_t> order(un);
    for (std::int32_t v = 0; v < n; ++v) order[v] = v;
    CounterRng init(opts.seed, stream, 0);
    for (std::int64_t i = n - 1; i > 0; --i) std::swap(order[i], order[scaled_index(init.uniform(), i + 1)]);
    std::vector<std::int64_t> pos_of(un);
    for (std::int64_t i = 0; i < n; ++i) pos_of[order[i]] = i;

    // Per-node scores of the current order and, in sum mode, its edge probabilities
    // stored by child: edge[v * n + p] = P(p --> v | order).
    std::vector<double> node(un), edge(sum_mode ? un * un : 0);
    auto rescore = [&](std::int32_t v, const std::vector<std::int64_t>& places, double* column) {
        return sum_mode ? node_score_sum(table, v, places, std::span<double>(column, column ? un : 0))
                        : node_score_max(table, v, places);
    };
    for (std::int32_t v = 0; v < n; ++v) node[v] = rescore(v, pos_of, sum_mode ? &edge[v * un] : nullptr);
    // Totals are summed over v = 0..n-1, as order_score_sum/max do, so they match a full rescoring.
    auto total_of = [&](const std::vector<double>& scores) {
        double t = 0.0;
        for (const double s : scores) t += s;
        return t;
    };
    double current = total_of(node);

    OrderChainResult r;
    r.best_order = order;
    r.best_score = current;
    if (opts.iterations > opts.burn_in) r.trace.reserve(static_cast<std::size_t>((opts.iterations - opts.burn_in) / opts.thin));

    std::vector<double> prop_node(un), prop_edge(sum_mode ? un * un : 0);
    std::vector<std::int64_t> prop_pos(un);
    const std::int64_t pairs = n * (n - 1) / 2;
    std::int64_t accepted = 0;
    for (std::int64_t t = 1; t <= opts.iterations; ++t) {
        if (pairs > 0) {
            CounterRng rng(opts.seed, stream + 1, static_cast<std::uint64_t>(t));
            const auto [i, j] = unrank_pair(scaled_index(rng.uniform(), pairs), n);
            const double u = rng.uniform();
            const std::int32_t a = order[i], b = order[j];
            prop_pos = pos_of;
            prop_pos[a] = j;
            prop_pos[b] = i;
            prop_node = node;
            // Nodes at positions i..j of the proposed order: b, order[i+1..j-1], a.
            for (std::int64_t q = i; q <= j; ++q) {
                const std::int32_t v = q == i ? b : q == j ? a : order[q];
                prop_node[v] = rescore(v, prop_pos, sum_mode ? &prop_edge[v * un] : nullptr);
            }
            const double proposed = total_of(prop_node);
            // Accept with probability min(1, exp(proposed - current)); u < 1 always.
            if (std::log(u) < proposed - current) {
                std::swap(order[i], order[j]);
                pos_of.swap(prop_pos);
                node.swap(prop_node);
                if (sum_mode)
                    for (std::int64_t q = i; q <= j; ++q) {
                        const auto v = static_cast<std::size_t>(order[q]);
                        std::copy_n(&prop_edge[v * un], un, &edge[v * un]);
                    }
                current = proposed;
                ++accepted;
                if (current > r.best_score) {
                    r.best_score = current;
                    r.best_order = order;
                }
            }
        }
        if (t > opts.burn_in && (t - opts.burn_in) % opts.thin == 0) {
            r.trace.push_back(current);
            if (sum_mode)
                for (std::size_t v = 0; v < un; ++v)
                    for (std::size_t p = 0; p < un; ++p) edge_acc[p * un + v] += edge[v * un + p];
        }
    }
    r.acceptance_rate = opts.iterations > 0 && pairs > 0
                            ? static_cast<double>(accepted) / static_cast<double>(opts.iterations)
                            : 0.0;
    if (!sum_mode) r.best_parents = order_score_max(table, r.best_order).parents;
    r.final_order = std::move(order);
    r.final_score = current;
    return r;
}

}  // namespace

OrderMcmcResult run_order_mcmc(const ScoreTable& table, const OrderMcmcOptions& opts) {
    CUDAG_EXPECTS(opts.chains >= 1, "order MCMC needs at least one chain, not " + std::to_string(opts.chains));
    CUDAG_EXPECTS(opts.iterations >= 0, "order MCMC iterations must be >= 0, not " + std::to_string(opts.iterations));
    CUDAG_EXPECTS(opts.burn_in >= 0 && opts.burn_in <= opts.iterations,
                  "order MCMC burn-in must lie in [0, iterations = " + std::to_string(opts.iterations) + "], not " +
                      std::to_string(opts.burn_in));
    CUDAG_EXPECTS(opts.thin >= 1, "order MCMC thinning must be >= 1, not " + std::to_string(opts.thin));
    const std::int64_t n = table.n_nodes();
    const auto un = static_cast<std::size_t>(n);
    const bool sum_mode = opts.mode == OrderScoreMode::Sum;

    OrderMcmcResult result;
    result.chains.resize(static_cast<std::size_t>(opts.chains));
    std::vector<std::vector<double>> edge_acc(static_cast<std::size_t>(opts.chains),
                                              std::vector<double>(sum_mode ? un * un : 0, 0.0));
    parallel_for(0, opts.chains, resolve_threads(opts.threads), 1, [&](std::int64_t c, int) {
        result.chains[c] = run_chain(table, opts, c, edge_acc[c]);
    });

    // Combine in chain order so the estimate does not depend on the thread count.
    const std::int64_t kept = (opts.iterations - opts.burn_in) / opts.thin * opts.chains;
    if (sum_mode && kept > 0) {
        result.edge_prob.assign(un * un, 0.0);
        for (const auto& acc : edge_acc)
            for (std::size_t e = 0; e < acc.size(); ++e) result.edge_prob[e] += acc[e];
        for (double& e : result.edge_prob) e /= static_cast<double>(kept);
    }
    return result;
}

}  // namespace cudag::bn
