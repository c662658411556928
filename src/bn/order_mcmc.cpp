// SPDX-License-Identifier: Apache-2.0
#include "bn/order_mcmc.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <string>
#include <utility>

#include "bn/proposal.hpp"
#include "core/choice.hpp"
#include "core/error.hpp"
#include "core/exact_math.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"

namespace cudag::bn {

namespace {

/// A chain's working set: its state plus the per-node scores and edge columns of its
/// current order (col[v * n + p] = the value of p --> v), rebuilt from the order.
class Walker {
public:
    Walker(const ScoreTable& table, const OrderMcmcOptions& opts, ChainState& st)
        : table_(table), opts_(opts), st_(st), n_(table.n_nodes()), un_(static_cast<std::size_t>(n_)) {
        pos_of_.resize(un_);
        for (std::int64_t i = 0; i < n_; ++i) pos_of_[st_.order[i]] = i;
        node_.resize(un_);
        col_.assign(un_ * un_, 0.0);
        for (std::int32_t v = 0; v < n_; ++v) node_[v] = rescore(v, pos_of_, &col_[v * un_]);
    }

    void run(std::int64_t until) {
        const std::int64_t pairs = n_ * (n_ - 1) / 2;
        std::vector<double> prop_node, prop_col(un_ * un_);
        std::vector<std::int64_t> prop_pos;
        for (std::int64_t t = st_.done + 1; t <= until; ++t) {
            if (pairs > 0) {
                const SwapProposal prop = swap_proposal(opts_.seed, st_.chain, t, n_, opts_.moves);
                const std::int64_t i = prop.i, j = prop.j;
                const double u = prop.u;
                const std::int32_t a = st_.order[i], b = st_.order[j];
                prop_pos = pos_of_;
                prop_pos[a] = j;
                prop_pos[b] = i;
                prop_node = node_;
                // Nodes at positions i..j of the proposed order: b, order[i+1..j-1], a.
                for (std::int64_t q = i; q <= j; ++q) {
                    const std::int32_t v = q == i ? b : q == j ? a : st_.order[q];
                    prop_node[v] = rescore(v, prop_pos, &prop_col[v * un_]);
                }
                const double proposed = total_of(prop_node);
                // Accept with probability min(1, exp(proposed - current)); u < 1 always.
                if (xm::log(u) < proposed - st_.score) {
                    std::swap(st_.order[i], st_.order[j]);
                    pos_of_.swap(prop_pos);
                    node_.swap(prop_node);
                    for (std::int64_t q = i; q <= j; ++q) {
                        const auto v = static_cast<std::size_t>(st_.order[q]);
                        if (!std::equal(&prop_col[v * un_], &prop_col[v * un_] + un_, &col_[v * un_])) {
                            settle(v);
                            std::copy_n(&prop_col[v * un_], un_, &col_[v * un_]);
                        }
                    }
                    st_.score = proposed;
                    ++st_.accepted;
                    if (st_.score > st_.best_score) {
                        st_.best_score = st_.score;
                        st_.best_order = st_.order;
                    }
                }
            }
            st_.done = t;
            if (t > opts_.burn_in && (t - opts_.burn_in) % opts_.thin == 0) {
                st_.trace.push_back(st_.score);
                ++st_.kept;
            }
        }
    }

    /// Add every column's pending kept iterations (the end of the run).
    void settle_all() {
        for (std::size_t v = 0; v < un_; ++v) settle(v);
    }

private:
    double rescore(std::int32_t v, const std::vector<std::int64_t>& places, double* column) {
        if (opts_.mode == OrderScoreMode::Sum) return node_score_sum(table_, v, places, std::span<double>(column, un_));
        const double s = node_score_max(table_, v, places, &parents_);
        std::fill_n(column, un_, 0.0);
        for (const std::int32_t p : parents_) column[p] = 1.0;
        return s;
    }

    /// Totals are summed over v = 0..n-1, as order_score_sum/max do, so they match a full rescoring.
    static double total_of(const std::vector<double>& scores) {
        double t = 0.0;
        for (const double s : scores) t += s;
        return t;
    }

    /// Add v's current column for the kept iterations since it was last added.
    void settle(std::size_t v) {
        const std::int64_t count = st_.kept - st_.since[v];
        if (count == 0) return;
        const auto c = static_cast<double>(count);
        for (std::size_t p = 0; p < un_; ++p) {
            const double x = col_[v * un_ + p];
            if (x == 0.0) continue;
            st_.edge_sum[p * un_ + v] += x * c;
            st_.edge_sumsq[p * un_ + v] += x * x * c;
        }
        st_.since[v] = st_.kept;
    }

    const ScoreTable& table_;
    const OrderMcmcOptions& opts_;
    ChainState& st_;
    std::int64_t n_;
    std::size_t un_;
    std::vector<std::int64_t> pos_of_;
    std::vector<double> node_, col_;
    std::vector<std::int32_t> parents_;
};

/// `drawn` made to respect the table's mandatory parents (each before its child): Kahn's
/// algorithm over the required edges, taking among the nodes ready the earliest in `drawn`.
/// An order that already respects them is returned unchanged.
std::vector<std::int32_t> respect_required(const ScoreTable& table, const std::vector<std::int32_t>& drawn) {
    const std::int64_t n = table.n_nodes();
    const auto un = static_cast<std::size_t>(n);
    std::vector<std::int64_t> place(un), indegree(un, 0);
    for (std::size_t i = 0; i < un; ++i) place[drawn[i]] = static_cast<std::int64_t>(i);
    std::vector<std::vector<std::int32_t>> children(un);
    for (std::int32_t v = 0; v < n; ++v)
        for (const std::int32_t p : table.required(v)) ++indegree[v], children[p].push_back(v);
    // Ready nodes by their place in `drawn`, the earliest first.
    std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<>> ready;
    for (std::int32_t v = 0; v < n; ++v)
        if (indegree[v] == 0) ready.push(place[v]);
    std::vector<std::int32_t> order;
    order.reserve(un);
    while (!ready.empty()) {
        const std::int32_t v = drawn[static_cast<std::size_t>(ready.top())];
        ready.pop();
        order.push_back(v);
        for (const std::int32_t c : children[v])
            if (--indegree[c] == 0) ready.push(place[c]);
    }
    CUDAG_ASSERT(order.size() == un);  // require_parents refuses cycles
    return order;
}

}  // namespace

namespace {
constexpr Choice<OrderScoreMode> kOrderScores[] = {{"max", OrderScoreMode::Max}, {"sum", OrderScoreMode::Sum}};
constexpr Choice<MoveSet> kMoveSets[] = {{"swap", MoveSet::Swap}, {"bidag", MoveSet::Bidag}};
}  // namespace

OrderScoreMode parse_order_score(const std::string& name) { return parse_choice(kOrderScores, "--order-score", name); }
std::string to_string(OrderScoreMode m) { return choice_word(kOrderScores, m); }
MoveSet parse_moves(const std::string& name) { return parse_choice(kMoveSets, "--moves", name); }
std::string to_string(MoveSet m) { return choice_word(kMoveSets, m); }

void check_options(const OrderMcmcOptions& opts) {
    CUDAG_EXPECTS(opts.chains >= 1, "order MCMC needs at least one chain, not " + std::to_string(opts.chains));
    CUDAG_EXPECTS(opts.iterations >= 0, "order MCMC iterations must be >= 0, not " + std::to_string(opts.iterations));
    CUDAG_EXPECTS(opts.burn_in >= 0 && opts.burn_in <= opts.iterations,
                  "order MCMC burn-in must lie in [0, iterations = " + std::to_string(opts.iterations) + "], not " +
                      std::to_string(opts.burn_in));
    CUDAG_EXPECTS(opts.thin >= 1, "order MCMC thinning must be >= 1, not " + std::to_string(opts.thin));
}

ChainState start_chain(const ScoreTable& table, const OrderMcmcOptions& opts, std::int64_t chain) {
    const std::int64_t n = table.n_nodes();
    const auto un = static_cast<std::size_t>(n);
    ChainState st;
    st.chain = chain;
    // Starting order: Fisher–Yates over stream 2c.
    st.order.resize(un);
    for (std::int32_t v = 0; v < n; ++v) st.order[v] = v;
    CounterRng init(opts.seed, static_cast<std::uint64_t>(chain) * 2, 0);
    for (std::int64_t i = n - 1; i > 0; --i) std::swap(st.order[i], st.order[scaled_index(init.uniform(), i + 1)]);
    if (chain == 0 && !opts.start_order.empty()) {
        st.order = opts.start_order;  // scoring it below checks that it is a permutation
    }
    // With mandatory parents, the first order respecting them (every other scores -inf).
    if (table.has_required()) st.order = respect_required(table, st.order);
    st.score = opts.mode == OrderScoreMode::Sum ? order_score_sum(table, st.order, false).total
                                                : order_score_max(table, st.order).total;
    st.best_order = st.order;
    st.best_score = st.score;
    st.edge_sum.assign(un * un, 0.0);
    st.edge_sumsq.assign(un * un, 0.0);
    st.since.assign(un, 0);
    if (opts.iterations > opts.burn_in)
        st.trace.reserve(static_cast<std::size_t>((opts.iterations - opts.burn_in) / opts.thin));
    return st;
}

void advance_chains(const ScoreTable& table, const OrderMcmcOptions& opts, std::span<ChainState> states,
                    std::int64_t until) {
    parallel_for(0, static_cast<std::int64_t>(states.size()), resolve_threads(opts.threads), 1,
                 [&](std::int64_t c, int) {
                     if (states[c].done >= until) return;
                     Walker(table, opts, states[c]).run(until);
                 });
}

OrderMcmcResult finish_chains(const ScoreTable& table, const OrderMcmcOptions& opts, std::vector<ChainState> states) {
    const std::int64_t n = table.n_nodes();
    const auto un = static_cast<std::size_t>(n);
    OrderMcmcResult result;
    result.chains.resize(states.size());
    result.kept_per_chain = opts.iterations >= opts.burn_in ? (opts.iterations - opts.burn_in) / opts.thin : 0;
    parallel_for(0, static_cast<std::int64_t>(states.size()), resolve_threads(opts.threads), 1,
                 [&](std::int64_t c, int) {
                     ChainState& st = states[c];
                     CUDAG_ASSERT(st.done == opts.iterations && st.chain == c);
                     Walker(table, opts, st).settle_all();
                     OrderChainResult& r = result.chains[c];
                     r.trace = std::move(st.trace);
                     r.acceptance_rate = opts.iterations > 0 && n >= 2
                                             ? static_cast<double>(st.accepted) / static_cast<double>(opts.iterations)
                                             : 0.0;
                     OrderMaxResult best = order_score_max(table, st.best_order);
                     r.best_parents = std::move(best.parents);
                     r.best_dag_score = best.total;
                     r.best_order = std::move(st.best_order);
                     r.best_score = st.best_score;
                     r.final_order = std::move(st.order);
                     r.final_score = st.score;
                     r.edge_sum = std::move(st.edge_sum);
                     r.edge_sumsq = std::move(st.edge_sumsq);
                 });
    // Combine in chain order so the estimate does not depend on the thread count.
    const std::int64_t kept = result.kept_per_chain * static_cast<std::int64_t>(states.size());
    if (kept > 0) {
        result.edge_prob.assign(un * un, 0.0);
        for (const auto& c : result.chains)
            for (std::size_t e = 0; e < un * un; ++e) result.edge_prob[e] += c.edge_sum[e];
        for (double& e : result.edge_prob) e /= static_cast<double>(kept);
    }
    return result;
}

OrderMcmcResult run_order_mcmc(const ScoreTable& table, const OrderMcmcOptions& opts) {
    check_options(opts);
    std::vector<ChainState> states(static_cast<std::size_t>(opts.chains));
    parallel_for(0, opts.chains, resolve_threads(opts.threads), 1,
                 [&](std::int64_t c, int) { states[c] = start_chain(table, opts, c); });
    advance_chains(table, opts, states, opts.iterations);
    return finish_chains(table, opts, std::move(states));
}

}  // namespace cudag::bn
