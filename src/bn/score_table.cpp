// SPDX-License-Identifier: Apache-2.0
#include "bn/score_table.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "bn/fixed_sum.hpp"
#include "core/combinations.hpp"
#include "core/exact_math.hpp"
#include "core/format.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"

namespace cudag::bn {

namespace {

/// C(a, b) for a <= rows - 1 and b <= cols - 1, so that the pruning ranks sets quickly.
class BinomialTable {
public:
    BinomialTable(std::int64_t rows, int cols) : cols_(cols), t_(static_cast<std::size_t>(rows * cols)) {
        for (std::int64_t a = 0; a < rows; ++a)
            for (int b = 0; b < cols; ++b) t_[static_cast<std::size_t>(a * cols + b)] = binomial(a, b);
    }
    std::int64_t operator()(std::int64_t a, int b) const {
        return b < 0 || a < b ? 0 : t_[static_cast<std::size_t>(a * cols_ + b)];
    }

private:
    int cols_;
    std::vector<std::int64_t> t_;
};

/// The pruned table's margin, relative to the best subset's score (at least 1): a set is
/// closed only when its bound lies this far below, far beyond the rounding of the scores
/// (about 1e-13 relative) and of the bound.
constexpr double kPruneMargin = 1e-9;

/// Sum over k = 0..s of C(m, k) as a double (no overflow).
double sets_up_to(std::int64_t m, int s) {
    double total = 0.0;
    for (int k = 0; k <= s && k <= m; ++k) {
        double c = 1.0;  // C(m, k) by the product formula, in floating point
        for (int i = 1; i <= k; ++i) c = c * static_cast<double>(m - k + i) / i;
        total += std::round(c);
    }
    return total;
}

/// Call fn(k, rank, positions) for every k-subset (k <= s) of the candidate positions
/// `pred` (increasing) among m candidates: sizes increasing, then subsets in lexicographic
/// order; rank is the subset's combination rank among the m candidates.
template <class Fn>
void for_each_subset(const std::vector<int>& pred, std::int64_t m, int s, Fn&& fn) {
    const int np = static_cast<int>(pred.size());
    std::vector<int> c(static_cast<std::size_t>(std::max(s, 0))), pos(c.size());
    for (int k = 0; k <= s && k <= np; ++k) {
        for (int t = 0; t < k; ++t) c[t] = t;
        do {
            for (int t = 0; t < k; ++t) pos[t] = pred[c[t]];
            fn(k, combination_rank(pos.data(), k, static_cast<int>(m)), pos.data());
        } while (k > 0 && next_combination(c.data(), k, np));
    }
}

/// v's allowed parents that precede it in the order (pos_of[node] = its place): candidate
/// positions and extra indices, both increasing.
struct Predecessors {
    std::vector<int> candidates;
    std::vector<std::int64_t> extras;
};

Predecessors predecessors(const ScoreTable& table, std::int32_t v, std::span<const std::int64_t> pos_of) {
    Predecessors pred;
    const auto cands = table.candidates(v);
    for (std::size_t i = 0; i < cands.size(); ++i)
        if (pos_of[cands[i]] < pos_of[v]) pred.candidates.push_back(static_cast<int>(i));
    const auto extras = table.extras(v);
    for (std::size_t e = 0; e < extras.size(); ++e)
        if (pos_of[extras[e]] < pos_of[v]) pred.extras.push_back(static_cast<std::int64_t>(e));
    return pred;
}

/// Call fn(e, k, rank, positions, score) for every parent set of v consistent with `pred`:
/// the candidates' sets (e = -1) first, then each preceding extra's (e its index).
template <class Fn>
void for_each_consistent(const ScoreTable& table, std::int32_t v, const Predecessors& pred, Fn&& fn) {
    const auto m = static_cast<std::int64_t>(table.candidates(v).size());
    const int s = table.max_parents();
    for_each_subset(pred.candidates, m, s, [&](int k, std::int64_t rank, const int* pos) {
        fn(std::int64_t{-1}, k, rank, pos, table.score(v, k, rank));
    });
    for (const std::int64_t e : pred.extras)
        for_each_subset(pred.candidates, m, s - 1, [&](int k, std::int64_t rank, const int* pos) {
            fn(e, k, rank, pos, table.extra_score(v, e, k, rank));
        });
}

/// Work done by any worker of a parallel_for, reported through `progress` on worker 0 (the
/// calling thread, where an interrupt raised by the callback belongs) at most every quarter
/// of a second, and once at the end (finish).
class Ticker {
public:
    Ticker(const ScoreTable::Progress& progress, const char* what, std::int64_t total)
        : progress_(progress), what_(what), total_(total) {}
    void add(std::int64_t count, int worker) {
        done_.fetch_add(count, std::memory_order_relaxed);
        if (worker != 0 || !progress_) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < std::chrono::milliseconds(250)) return;
        last_ = now;
        progress_(what_, done_.load(std::memory_order_relaxed), total_);
    }
    /// After the parallel_for, on the calling thread: the phase's last report (its end),
    /// however short the phase.
    void finish() {
        if (progress_) progress_(what_, done_.load(std::memory_order_relaxed), total_);
    }

private:
    const ScoreTable::Progress& progress_;
    const char* what_;
    std::int64_t total_;
    std::atomic<std::int64_t> done_{0};
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

/// Place of each node in `order`, checking that it is a permutation of n nodes.
std::vector<std::int64_t> places(std::span<const std::int32_t> order, std::int64_t n) {
    CUDAG_EXPECTS(static_cast<std::int64_t>(order.size()) == n,
                  "an order must list all " + std::to_string(n) + " nodes, not " + std::to_string(order.size()));
    std::vector<std::int64_t> pos_of(static_cast<std::size_t>(n), -1);
    for (std::size_t i = 0; i < order.size(); ++i) {
        const std::int32_t v = order[i];
        CUDAG_EXPECTS(v >= 0 && v < n && pos_of[v] < 0, "an order must be a permutation of the nodes (node " +
                                                            std::to_string(v) + " is out of range or repeated)");
        pos_of[v] = static_cast<std::int64_t>(i);
    }
    return pos_of;
}

/// OutOfMemory in one line, before anything is allocated, when the table will not fit.
void require_table_memory(const std::vector<std::int64_t>& counts, int max_parents,
                          const std::vector<std::int64_t>& extra_counts = {}) {
    double entries = 0.0;
    for (std::size_t v = 0; v < counts.size(); ++v)
        entries += sets_up_to(counts[v], max_parents) +
                   (extra_counts.empty() || max_parents < 1
                        ? 0.0
                        : static_cast<double>(extra_counts[v]) * sets_up_to(counts[v], max_parents - 1));
    char sets[32];
    std::snprintf(sets, sizeof sets, "%.3g", entries);
    require_host_memory(
        ScoreTable::estimate_bytes(counts, max_parents, extra_counts), "the local-score table",
        std::to_string(counts.size()) + " nodes, " + sets + " parent sets of size <= " + std::to_string(max_parents),
        "lower the parent limit or restrict the parent space");
    CUDAG_EXPECTS(entries < 9.0e18, "the local-score table has too many entries to index");
}

}  // namespace

double ScoreTable::estimate_bytes(std::span<const std::int64_t> candidate_counts, int max_parents,
                                  std::span<const std::int64_t> extra_counts) {
    double bytes = 0.0;
    for (std::size_t v = 0; v < candidate_counts.size(); ++v) {
        const std::int64_t m = candidate_counts[v];
        const double x = extra_counts.empty() ? 0.0 : static_cast<double>(extra_counts[v]);
        bytes += 8.0 * sets_up_to(m, max_parents) + 8.0 * (2 * max_parents + 4) + 4.0 * (static_cast<double>(m) + x);
        if (max_parents >= 1) bytes += 8.0 * x * sets_up_to(m, max_parents - 1);
    }
    return bytes;
}

ScoreTable ScoreTable::build(const LocalScorer& scorer, int max_parents, int threads, const Filler& filler) {
    ScoreTable t = layout(scorer.n_vars(), max_parents);
    t.fill_nodes(scorer, t.all_nodes(), threads, filler);
    return t;
}

ScoreTable ScoreTable::build(const LocalScorer& scorer, std::vector<std::vector<std::int32_t>> candidates,
                             int max_parents, int threads, std::vector<std::vector<std::int32_t>> extras,
                             const Filler& filler) {
    ScoreTable t = layout(scorer.n_vars(), std::move(candidates), max_parents, std::move(extras));
    t.fill_nodes(scorer, t.all_nodes(), threads, filler);
    return t;
}

ScoreTable ScoreTable::layout(std::int64_t n, int max_parents) {
    CUDAG_EXPECTS(max_parents >= 0, "the parent limit must be >= 0, not " + std::to_string(max_parents));
    // Check the size before building the candidate lists, which are large themselves.
    const std::vector<std::int64_t> counts(static_cast<std::size_t>(n), std::max<std::int64_t>(n - 1, 0));
    require_table_memory(counts, max_parents);
    std::vector<std::vector<std::int32_t>> candidates(static_cast<std::size_t>(n));
    for (std::int32_t v = 0; v < n; ++v)
        for (std::int32_t u = 0; u < n; ++u)
            if (u != v) candidates[v].push_back(u);
    return layout(n, std::move(candidates), max_parents);
}

ScoreTable ScoreTable::layout(std::int64_t n, std::vector<std::vector<std::int32_t>> candidates, int max_parents,
                              std::vector<std::vector<std::int32_t>> extras) {
    CUDAG_EXPECTS(max_parents >= 0, "the parent limit must be >= 0, not " + std::to_string(max_parents));
    CUDAG_EXPECTS(static_cast<std::int64_t>(candidates.size()) == n,
                  "the parent space needs one candidate list per node (" + std::to_string(n) + "), not " +
                      std::to_string(candidates.size()));
    std::vector<std::int64_t> counts;
    for (std::int32_t v = 0; v < n; ++v) {
        auto& c = candidates[v];
        std::sort(c.begin(), c.end());
        for (std::size_t i = 0; i < c.size(); ++i)
            CUDAG_EXPECTS(c[i] >= 0 && c[i] < n && c[i] != v && (i == 0 || c[i] != c[i - 1]),
                          "candidate parents of node " + std::to_string(v) +
                              " must be distinct other nodes (bad entry " + std::to_string(c[i]) + ")");
        counts.push_back(static_cast<std::int64_t>(c.size()));
    }
    std::vector<std::int64_t> extra_counts;
    if (!extras.empty()) {
        CUDAG_EXPECTS(static_cast<std::int64_t>(extras.size()) == n, "the extra parents need one list per node (" +
                                                                         std::to_string(n) + "), not " +
                                                                         std::to_string(extras.size()));
        for (std::int32_t v = 0; v < n; ++v) {
            auto& x = extras[v];
            std::sort(x.begin(), x.end());
            const auto& c = candidates[v];
            for (std::size_t i = 0; i < x.size(); ++i)
                CUDAG_EXPECTS(x[i] >= 0 && x[i] < n && x[i] != v && (i == 0 || x[i] != x[i - 1]) &&
                                  !std::binary_search(c.begin(), c.end(), x[i]),
                              "extra parents of node " + std::to_string(v) +
                                  " must be distinct other nodes that are not candidates (bad entry " +
                                  std::to_string(x[i]) + ")");
            extra_counts.push_back(max_parents >= 1 ? static_cast<std::int64_t>(x.size()) : 0);
            if (max_parents < 1) x.clear();  // no room for an extra parent
        }
    }
    require_table_memory(counts, max_parents, extra_counts);

    ScoreTable t;
    t.max_parents_ = max_parents;
    t.candidates_ = std::move(candidates);
    t.extras_ = std::move(extras);
    t.node_offset_.assign(static_cast<std::size_t>(n) + 1, 0);
    t.size_offset_.resize(static_cast<std::size_t>(n));
    t.extra_offset_.resize(static_cast<std::size_t>(n));
    for (std::int32_t v = 0; v < n; ++v) {
        auto& so = t.size_offset_[v];
        so.assign(static_cast<std::size_t>(max_parents) + 2, 0);
        for (int k = 0; k <= max_parents; ++k) so[k + 1] = so[k] + t.count(v, k);
        auto& xo = t.extra_offset_[v];
        xo.assign(static_cast<std::size_t>(max_parents) + 1, 0);
        for (int k = 0; k < max_parents; ++k) xo[k + 1] = xo[k] + t.extra_count(v, k);
        t.node_offset_[v + 1] =
            t.node_offset_[v] + so.back() + static_cast<std::int64_t>(t.extras(v).size()) * xo.back();
    }
    t.scores_.resize(static_cast<std::size_t>(t.node_offset_.back()));  // fill_nodes writes them
    t.scored_.assign(static_cast<std::size_t>(n), 0);
    t.reused_.assign(static_cast<std::size_t>(n), 0);
    t.closed_.resize(static_cast<std::size_t>(n));
    t.node_fill_.assign(static_cast<std::size_t>(n), NodeFill::None);
    return t;
}

void ScoreTable::fill_nodes(const LocalScorer& scorer, NodeRange nodes, int threads, const Filler& filler) {
    CUDAG_EXPECTS(scorer.n_vars() == n_nodes(), "the scorer has " + std::to_string(scorer.n_vars()) +
                                                    " variables, the table " + std::to_string(n_nodes()) + " nodes");
    CUDAG_ASSERT(nodes.begin >= 0 && nodes.begin <= nodes.end && nodes.end <= n_nodes());
    if (nodes.empty()) return;
    const auto since = [](std::chrono::steady_clock::time_point t0) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    // No entry is written before the filler: it reports what it wrote (a GPU engine writes
    // every entry of its nodes, NaN where it leaves one to the CPU, and checks them itself;
    // or, with sort_on_fill, builds their lists and writes none).
    for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
        if (node_fill_[v] == NodeFill::Sorted) --sorted_on_fill_nodes_;
        node_fill_[v] = NodeFill::None;
    }
    if (!filler) {
        const auto t0 = std::chrono::steady_clock::now();
        fill(scorer, nodes, threads, false);
        fill_times_.host_pass += since(t0);
        fill_times_.host_nodes += nodes.end - nodes.begin;
        return;
    }
    filling_ = nodes;
    fill_threads_ = resolve_threads(threads);
    const auto t0 = std::chrono::steady_clock::now();
    try {
        filler(*this, nodes);
    } catch (...) {
        filling_ = {};
        throw;
    }
    filling_ = {};
    fill_times_.filler += since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    fill(scorer, nodes, threads, true);
    fill_times_.host_pass += since(t1);
    for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
        scored_[v] = node_entries(v);
        if (node_fill_[v] == NodeFill::Sorted) {
            ++fill_times_.sorted_nodes;
            ++sorted_on_fill_nodes_;
            continue;
        }
        fill_times_.host_nodes += node_fill_[v] != NodeFill::Finite || !required(v).empty() ? 1 : 0;
    }
}

void ScoreTable::set_sort_on_fill(bool on) {
    sort_on_fill_ = on;
    if (!on) return;
    // The lists the Filler builds land here; build_sorted keeps them.
    const auto n = static_cast<std::size_t>(n_nodes());
    sorted_off_.assign(n, {});
    sorted_par_.assign(n, {});
    sorted_score_.assign(n, {});
}

bool ScoreTable::sortable() const {
    if (n_nodes() > 65535) return false;
    for (std::int32_t v = 0; v < n_nodes(); ++v)
        if (node_entries(v) >= (std::int64_t{1} << 32)) return false;
    return true;
}

std::int64_t ScoreTable::reused_entries() const {
    return std::accumulate(reused_.begin(), reused_.end(), std::int64_t{0});
}

std::int64_t ScoreTable::scored_entries() const {
    std::int64_t total = 0;
    for (const std::int64_t c : scored_) total += c;
    return total;
}

void ScoreTable::require_parents(std::vector<std::vector<std::int32_t>> required) {
    const std::int64_t n = n_nodes();
    if (required.empty()) {
        required_.clear();
        return;
    }
    CUDAG_EXPECTS(static_cast<std::int64_t>(required.size()) == n, "the required parents need one list per node (" +
                                                                       std::to_string(n) + "), not " +
                                                                       std::to_string(required.size()));
    bool any = false;
    for (std::int32_t v = 0; v < n; ++v) {
        auto& r = required[v];
        std::sort(r.begin(), r.end());
        r.erase(std::unique(r.begin(), r.end()), r.end());
        const auto& c = candidates_[v];
        for (const std::int32_t p : r)
            CUDAG_EXPECTS(std::binary_search(c.begin(), c.end(), p), "required parent " + std::to_string(p) +
                                                                         " of node " + std::to_string(v) +
                                                                         " is not one of its candidate parents");
        CUDAG_EXPECTS(static_cast<int>(r.size()) <= max_parents_,
                      "node " + std::to_string(v) + " has " + std::to_string(r.size()) +
                          " required parents, more than the parent limit " + std::to_string(max_parents_));
        any = any || !r.empty();
    }
    CUDAG_EXPECTS(find_cycle(Dag{required}).empty(), "the required parents form a directed cycle");
    if (any)
        required_ = std::move(required);
    else
        required_.clear();
}

std::int64_t ScoreTable::count(std::int32_t v, int k) const {
    if (k < 0 || k > max_parents_) return 0;
    return binomial(static_cast<std::int64_t>(candidates_[v].size()), k);
}

std::int64_t ScoreTable::extra_count(std::int32_t v, int k) const {
    if (k < 0 || k > max_parents_ - 1) return 0;
    return binomial(static_cast<std::int64_t>(candidates_[v].size()), k);
}

namespace {

/// The one-line InputError for a local score that is NaN or infinite.
[[noreturn]] void throw_non_finite_score(std::int32_t v, std::span<const std::int32_t> parents, double value) {
    std::string set = "{";
    for (std::size_t i = 0; i < parents.size(); ++i) set += (i ? ", " : "") + std::to_string(parents[i] + 1);
    set += "}";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", value);
    throw InputError("the local score of variable " + std::to_string(v + 1) + " (data column, from 1) with parents " +
                     set + " is " + buf + ", not finite: the data or the score's prior is out of range");
}

}  // namespace

void ScoreTable::fill(const LocalScorer& scorer, NodeRange nodes, int threads, bool after_filler) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const bool prune = prune_ && !after_filler;  // with a filler (a GPU), every entry is scored
    Ticker ticker(progress_, "local-score table", block_entries(nodes));
    // One node per work item: each writes only its own slice, so the entries do not depend
    // on the schedule.
    parallel_for(nodes.begin, nodes.end, resolve_threads(threads), 1, [&](std::int64_t node, int worker) {
        const auto v = static_cast<std::int32_t>(node);
        const NodeFill how = after_filler ? node_fill_[v] : NodeFill::None;
        // Entries never written here (their lists were built where the filler ran).
        if (how == NodeFill::Sorted) return ticker.add(node_entries(v), worker);
        // Every entry written and finite: nothing to compute or check, unless the sets
        // lacking a mandatory parent are to be set to -inf.
        if (how == NodeFill::Finite && required(v).empty()) return ticker.add(node_entries(v), worker);
        std::int64_t pending = 0;  // entries visited since the last report
        const bool only_missing = how != NodeFill::None;
        const auto& cands = candidates_[v];
        const auto extras = this->extras(v);
        const int m = static_cast<int>(cands.size());
        double* out = scores_.data() + node_offset_[v];
        std::vector<int> c(static_cast<std::size_t>(max_parents_)), sub(c.size());
        std::vector<std::int32_t> parents;
        // The candidate positions of v's mandatory parents: a set lacking one scores -inf.
        std::vector<int> req;
        for (const std::int32_t p : required(v))
            req.push_back(static_cast<int>(std::lower_bound(cands.begin(), cands.end(), p) - cands.begin()));
        const auto lacks_required = [&](int k) {
            for (const int r : req)
                if (std::find(c.begin(), c.begin() + k, r) == c.begin() + k) return true;
            return false;
        };
        // Pruning (max mode): closed[i] when entry i or one of its subsets is "closed" (no
        // strict superset can score above the best of its subsets: the scorer's bound), and
        // best[i] the best entry of i's subsets, i included (as dominated_sets computes it).
        std::vector<char> closed(prune ? static_cast<std::size_t>(node_entries(v)) : 0);
        std::vector<double> best(closed.size(), -kInf);
        const BinomialTable C(prune ? m + 1 : 0, max_parents_ + 2);
        std::int64_t scored = 0, reused = 0;
        // The previous table's entries of v (reuse_from): where each of v's candidates and
        // extras sits among its candidates (position) or extras (-2 - index), -1 if neither.
        const ScoreTable* prev = reuse_;
        if (prev != nullptr &&
            (!prev->holds(v) || prev->max_parents_ != max_parents_ || (prune && prev->closed_[v].empty()) ||
             !std::ranges::equal(prev->required(v), required(v))))
            prev = nullptr;
        std::vector<std::int64_t> old_c, old_x;
        if (prev != nullptr) {
            const auto& pc = prev->candidates_[v];
            const auto px = prev->extras(v);
            const auto where = [&](std::int32_t u) -> std::int64_t {
                const auto it = std::lower_bound(pc.begin(), pc.end(), u);
                if (it != pc.end() && *it == u) return it - pc.begin();
                const auto xt = std::lower_bound(px.begin(), px.end(), u);
                return xt != px.end() && *xt == u ? -2 - (xt - px.begin()) : -1;
            };
            for (const std::int32_t u : cands) old_c.push_back(where(u));
            for (const std::int32_t u : extras) old_x.push_back(where(u));
        }
        const int m_old = prev != nullptr ? static_cast<int>(prev->candidates_[v].size()) : 0;
        const BinomialTable C_old(prev != nullptr ? m_old + 1 : 0, max_parents_ + 2);
        std::vector<int> pos_old(static_cast<std::size_t>(max_parents_));
        // The offset in prev's node_scores(v) of the set c[0, k) (with extras[e] when e >= 0),
        // or -1 where prev's layout lacks it: at most one member outside prev's candidates,
        // and that one among its extras.
        const auto old_offset = [&](int k, std::int64_t e) -> std::int64_t {
            int kc = 0;
            std::int64_t extra = -1;
            const auto take = [&](std::int64_t w) {
                if (w >= 0) {
                    pos_old[static_cast<std::size_t>(kc++)] = static_cast<int>(w);
                    return true;
                }
                if (w == -1 || extra >= 0) return false;
                extra = -2 - w;
                return true;
            };
            // Candidate positions rise with node ids in both layouts; an extra joins the set
            // wherever its id falls, which does not move the candidates' order.
            for (int t = 0; t < k; ++t)
                if (!take(old_c[static_cast<std::size_t>(c[t])])) return -1;
            if (e >= 0 && !take(old_x[static_cast<std::size_t>(e)])) return -1;
            const std::int64_t rank = combination_rank_by(C_old, pos_old.data(), kc, m_old);
            if (extra < 0) return prev->size_offset_[v][kc] + rank;
            if (kc > max_parents_ - 1) return -1;
            return prev->size_offset_[v].back() + extra * prev->extra_offset_[v].back() + prev->extra_offset_[v][kc] +
                   rank;
        };
        // Block -1: the candidates' sets; block e: extras[e] joining up to s - 1 candidates.
        for (std::int64_t e = -1; e < static_cast<std::int64_t>(extras.size()); ++e) {
            const int limit = e < 0 ? max_parents_ : max_parents_ - 1;
            const std::int64_t base = e < 0 ? 0 : size_offset_[v].back() + e * extra_offset_[v].back();
            const auto& offsets = e < 0 ? size_offset_[v] : extra_offset_[v];
            for (int k = 0; k <= std::min(limit, m); ++k) {
                for (int t = 0; t < k; ++t) c[t] = t;
                std::int64_t rank = 0;
                do {
                    if (++pending == 4096) {
                        ticker.add(pending, worker);
                        pending = 0;
                    }
                    const std::int64_t at = base + offsets[k] + rank;
                    double& entry = out[at];
                    double below = -kInf;  // the best entry of the strict subsets (pruning)
                    if (prune) {
                        // Immediate subsets: with the extra, the candidates alone; then each
                        // one candidate less (dominated_sets' rule).
                        bool pruned = false;
                        const auto visit = [&](std::int64_t i) {
                            pruned = pruned || closed[i] != 0;
                            below = std::max(below, best[i]);
                        };
                        if (e >= 0) visit(size_offset_[v][k] + rank);
                        for (int drop = 0; drop < k; ++drop) {
                            int w = 0;
                            for (int t = 0; t < k; ++t)
                                if (t != drop) sub[w++] = c[t];
                            visit(base + offsets[k - 1] + combination_rank_by(C, sub.data(), k - 1, m));
                        }
                        if (pruned) {  // a subset is closed: never a best set, not scored
                            entry = -kInf;
                            closed[at] = 1;
                            ++rank;
                            continue;
                        }
                    }
                    ++rank;
                    if (!req.empty() && lacks_required(k)) {
                        entry = -kInf;
                        if (prune) best[at] = below;
                        continue;
                    }
                    const bool compute = !only_missing || std::isnan(entry);
                    if (compute || !std::isfinite(entry)) {
                        parents.assign(static_cast<std::size_t>(k), 0);
                        for (int t = 0; t < k; ++t) parents[t] = cands[c[t]];
                        if (e >= 0)
                            parents.insert(std::upper_bound(parents.begin(), parents.end(), extras[e]), extras[e]);
                    }
                    const int size = k + (e >= 0 ? 1 : 0);
                    if (compute && prev != nullptr) {
                        const std::int64_t at_old = old_offset(k, e);
                        const double old = at_old < 0 ? kInf : prev->node_scores(v)[static_cast<std::size_t>(at_old)];
                        if (std::isfinite(old)) {  // scored there: the same bits, and its closure
                            entry = old;
                            if (prune) {
                                best[at] = std::max(below, entry);
                                closed[at] = prev->closed_[v][static_cast<std::size_t>(at_old)];
                            }
                            ++scored, ++reused;
                            continue;
                        }
                    }
                    if (prune && size < max_parents_) {
                        double bound = kInf;
                        entry = scorer.local_bounded(v, parents, max_parents_, below, &bound);
                        best[at] = std::max(below, entry);
                        // Closed when no strict superset can beat this set's best subset;
                        // the margin covers the rounding of the scores and of the bound.
                        closed[at] = bound + kPruneMargin * std::max(1.0, std::abs(best[at])) <= best[at];
                    } else if (compute) {
                        entry = scorer.local(v, parents);
                        if (prune) best[at] = std::max(below, entry);
                    }
                    scored += compute ? 1 : 0;
                    // A NaN or infinite entry would make every order through it NaN or -inf
                    // and the run report it as its best score (issue 33 item 7); entries a
                    // filler (a GPU) wrote are checked here too.
                    if (!std::isfinite(entry)) throw_non_finite_score(v, parents, entry);
                } while (k > 0 && next_combination(c.data(), k, m));
                CUDAG_ASSERT(rank == binomial(m, k));
            }
        }
        ticker.add(pending, worker);
        if (!after_filler) scored_[v] = scored;
        reused_[v] = reused;
        closed_[v] = prune && keep_closed_ ? std::move(closed) : std::vector<char>{};
    });
    ticker.finish();
}

double ScoreTable::lookup(std::int32_t v, std::span<const std::int32_t> parents) const {
    CUDAG_EXPECTS(v >= 0 && v < n_nodes(), "node " + std::to_string(v) + " is not in the score table");
    CUDAG_ASSERT(holds(v));
    const int k = static_cast<int>(parents.size());
    CUDAG_EXPECTS(k <= max_parents_, "node " + std::to_string(v) + " has " + std::to_string(k) +
                                         " parents, above the table's limit of " + std::to_string(max_parents_));
    const auto& cands = candidates_[v];
    const auto extras = this->extras(v);
    std::vector<int> pos;
    std::int64_t extra = -1;
    for (const std::int32_t p : parents) {
        const auto it = std::lower_bound(cands.begin(), cands.end(), p);
        if (it != cands.end() && *it == p) {
            pos.push_back(static_cast<int>(it - cands.begin()));
            continue;
        }
        const auto xt = std::lower_bound(extras.begin(), extras.end(), p);
        CUDAG_EXPECTS(xt != extras.end() && *xt == p,
                      std::to_string(p) + " is not a candidate parent of node " + std::to_string(v));
        CUDAG_EXPECTS(extra < 0, "node " + std::to_string(v) + " may take one extra parent, not both " +
                                     std::to_string(extras[static_cast<std::size_t>(extra)]) + " and " +
                                     std::to_string(p));
        extra = xt - extras.begin();
    }
    std::sort(pos.begin(), pos.end());
    CUDAG_EXPECTS(std::adjacent_find(pos.begin(), pos.end()) == pos.end(),
                  "a parent set of node " + std::to_string(v) + " repeats a parent");
    const int kc = static_cast<int>(pos.size());
    const std::int64_t rank = combination_rank(pos.data(), kc, static_cast<int>(cands.size()));
    return extra < 0 ? score(v, kc, rank) : extra_score(v, extra, kc, rank);
}

std::vector<std::int32_t> ScoreTable::parent_set(std::int32_t v, int k, std::int64_t rank) const {
    const auto& cands = candidates_[v];
    std::vector<int> pos(static_cast<std::size_t>(k));
    combination_unrank(rank, k, static_cast<int>(cands.size()), pos.data());
    std::vector<std::int32_t> parents;
    for (const int i : pos) parents.push_back(cands[i]);
    return parents;
}

std::vector<std::int32_t> ScoreTable::extra_parent_set(std::int32_t v, std::int64_t e, int k, std::int64_t rank) const {
    std::vector<std::int32_t> parents = parent_set(v, k, rank);
    const std::int32_t x = extras(v)[static_cast<std::size_t>(e)];
    parents.insert(std::upper_bound(parents.begin(), parents.end(), x), x);
    return parents;
}

std::vector<std::int32_t> ScoreTable::entry_parents(std::int32_t v, std::int64_t offset) const {
    const std::int64_t core = size_offset_[v].back();
    if (offset < core) {
        const auto& so = size_offset_[v];
        const int k = static_cast<int>(std::upper_bound(so.begin(), so.end(), offset) - so.begin()) - 1;
        return parent_set(v, k, offset - so[k]);
    }
    const std::int64_t block = extra_offset_[v].back();
    const std::int64_t e = (offset - core) / block, within = (offset - core) % block;
    const auto& xo = extra_offset_[v];
    const int k = static_cast<int>(std::upper_bound(xo.begin(), xo.end(), within) - xo.begin()) - 1;
    return extra_parent_set(v, e, k, within - xo[k]);
}

std::vector<double> best_proper_subsets(const ScoreTable& t, std::int32_t v) {
    const std::span<const double> sc = t.node_scores(v);
    const int s = t.max_parents();
    const auto m = static_cast<int>(t.candidates(v).size());
    const auto nx = static_cast<std::int64_t>(t.extras(v).size());
    const BinomialTable C(m + 1, s + 2);
    std::vector<double> best(sc.size(), -std::numeric_limits<double>::infinity());
    std::vector<int> c(static_cast<std::size_t>(std::max(s, 1))), sub(c.size());
    const std::int64_t core = t.size_offset(v, s + 1), block = t.extra_offset(v, s);
    auto take = [&](double& b, std::int64_t i) { b = std::max(b, std::max(sc[i], best[i])); };
    // Sizes increasing, so every immediate subset is settled first; in each block the k-sets
    // in rank order (next_combination's order).
    for (int k = 0; k <= s && k <= m; ++k) {
        for (int i = 0; i < k; ++i) c[i] = i;
        std::int64_t rank = 0;
        do {
            // S = c (core) and, for each extra e, S + e.
            auto subset_rank = [&](int drop) {
                int at = 0;
                for (int i = 0; i < k; ++i)
                    if (i != drop) sub[at++] = c[i];
                return combination_rank_by(C, sub.data(), k - 1, m);
            };
            const std::int64_t self = t.size_offset(v, k) + rank;
            double b = -std::numeric_limits<double>::infinity();
            for (int drop = 0; drop < k; ++drop) take(b, t.size_offset(v, k - 1) + subset_rank(drop));
            best[self] = b;
            if (k <= s - 1)
                for (std::int64_t e = 0; e < nx; ++e) {
                    const std::int64_t base = core + e * block;
                    const std::int64_t me = base + t.extra_offset(v, k) + rank;
                    double bx = -std::numeric_limits<double>::infinity();
                    take(bx, self);  // without the extra
                    for (int drop = 0; drop < k; ++drop) take(bx, base + t.extra_offset(v, k - 1) + subset_rank(drop));
                    best[me] = bx;
                }
            ++rank;
        } while (k > 0 && next_combination(c.data(), k, m));
    }
    return best;
}

std::vector<char> dominated_sets(const ScoreTable& t, std::int32_t v) {
    const std::span<const double> sc = t.node_scores(v);
    const std::vector<double> best = best_proper_subsets(t, v);
    std::vector<char> out(sc.size(), 0);
    for (std::size_t i = 0; i < sc.size(); ++i) out[i] = best[i] >= sc[i];
    // The empty set is never dominated (even at -inf, lacking a mandatory parent): every
    // list ends with a set every order allows.
    if (!out.empty()) out[static_cast<std::size_t>(t.size_offset(v, 0))] = 0;
    return out;
}

std::int64_t ScoreTable::prune_sum(double delta, int threads) {
    if (!(delta >= 0.0) || !std::isfinite(delta))
        throw InputError("the sum-mode pruning threshold must be a finite number >= 0, not " + exact_number(delta));
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const std::int64_t n = n_nodes();
    std::vector<std::int64_t> dropped(static_cast<std::size_t>(n), 0);
    parallel_for(0, n, resolve_threads(threads), 1, [&](std::int64_t node, int) {
        const auto v = static_cast<std::int32_t>(node);
        if (!holds(v)) return;
        const std::vector<double> best = best_proper_subsets(*this, v);
        const std::span<double> sc = mutable_node_scores(v);
        std::int64_t k = 0;
        for (std::size_t i = 0; i < sc.size(); ++i)
            if (sc[i] > -kInf && sc[i] < best[i] - delta) {
                sc[i] = -kInf;
                ++k;
            }
        dropped[static_cast<std::size_t>(v)] = k;
    });
    sum_pruned_ = dropped;
    return std::accumulate(dropped.begin(), dropped.end(), std::int64_t{0});
}

bool ScoreTable::build_sorted(int threads, double budget_bytes, const Filler& sorter, std::optional<NodeRange> nodes) {
    const std::int64_t n = n_nodes();
    // Whether the lists are built depends on the whole table alone, never on `nodes`, so
    // that every rank of a split build answers alike.
    if (!sortable()) {
        // set_sort_on_fill's caller checks sortable() first: no list was built on the fill.
        CUDAG_ASSERT(sorted_on_fill_nodes_ == 0);
        return false;
    }
    // The lists are at most this large; most sets are dominated and dropped. With
    // sort_on_fill the caller decided before the fill (set_sort_on_fill).
    if (!sort_on_fill_ && budget_bytes >= 0.0 && sorted_bytes() > budget_bytes) return false;
    const NodeRange mine = nodes.value_or(all_nodes());
    CUDAG_ASSERT(mine.begin >= 0 && mine.begin <= mine.end && mine.end <= n);
    if (sort_on_fill_) {
        // The lists of the nodes sorted on the fill stay; every other node's is built anew.
        CUDAG_ASSERT(static_cast<std::int64_t>(sorted_off_.size()) == n);
        for (std::int32_t v = 0; v < n; ++v)
            if (!sorted_on_fill(v)) sorted_off_[v].clear(), sorted_par_[v].clear(), sorted_score_[v].clear();
    } else {
        sorted_off_.assign(static_cast<std::size_t>(n), {});
        sorted_par_.assign(static_cast<std::size_t>(n), {});
        sorted_score_.assign(static_cast<std::size_t>(n), {});
    }
    has_sorted_ = true;
    if (mine.empty()) return true;
    if (sorter) {
        // Runs of consecutive nodes whose lists are still to build (all of `mine` without
        // sort_on_fill).
        for (std::int32_t v = mine.begin; v < mine.end;) {
            if (sorted_on_fill(v)) {
                ++v;
                continue;
            }
            std::int32_t end = v + 1;
            while (end < mine.end && !sorted_on_fill(end)) ++end;
            sorter(*this, {v, end});
            v = end;
        }
        return true;
    }
    const auto w = static_cast<std::size_t>(std::max(max_parents_, 1));
    Ticker ticker(progress_, "score-sorted lists", block_entries(mine));
    parallel_for(mine.begin, mine.end, resolve_threads(threads), 1, [&](std::int64_t node, int worker) {
        const auto v = static_cast<std::int32_t>(node);
        ticker.add(node_entries(v), worker);
        if (sorted_on_fill(v)) return;
        const std::span<const double> sc = node_scores(v);
        const std::vector<char> dominated = dominated_sets(*this, v);
        std::vector<std::uint32_t> order;
        for (std::size_t i = 0; i < sc.size(); ++i)
            if (!dominated[i]) order.push_back(static_cast<std::uint32_t>(i));
        std::sort(order.begin(), order.end(),
                  [&](std::uint32_t a, std::uint32_t b) { return sc[a] > sc[b] || (sc[a] == sc[b] && a < b); });
        std::vector<std::uint16_t> par(order.size() * w, kNoParent);
        std::vector<double> score(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            const std::vector<std::int32_t> ps = entry_parents(v, order[i]);
            for (std::size_t t = 0; t < ps.size(); ++t) par[i * w + t] = static_cast<std::uint16_t>(ps[t]);
            score[i] = sc[order[i]];
        }
        set_sorted(v, std::move(order), std::move(par), std::move(score));
    });
    ticker.finish();
    return true;
}

void ScoreTable::set_sorted(std::int32_t v, std::vector<std::uint32_t> offsets, std::vector<std::uint16_t> parents,
                            std::vector<double> scores) {
    CUDAG_ASSERT(parents.size() == offsets.size() * static_cast<std::size_t>(std::max(max_parents_, 1)));
    CUDAG_ASSERT(scores.size() == offsets.size());
    sorted_off_[v] = std::move(offsets);
    sorted_par_[v] = std::move(parents);
    sorted_score_[v] = std::move(scores);
}

std::int64_t ScoreTable::sorted_entries() const {
    std::int64_t total = 0;
    for (const auto& o : sorted_off_) total += static_cast<std::int64_t>(o.size());
    return total;
}

double node_score_max(const ScoreTable& table, std::int32_t v, std::span<const std::int64_t> pos_of,
                      std::vector<std::int32_t>* parents) {
    if (table.has_sorted()) {
        // The first consistent set of the score-sorted undominated sets is the best one
        // (a dominated set's better subset is consistent whenever it is); the empty set is
        // never dominated, so the walk always ends.
        const auto offsets = table.sorted_offsets(v);
        const auto ps = table.sorted_parents(v);
        const auto w = static_cast<std::size_t>(std::max(table.max_parents(), 1));
        const std::int64_t here = pos_of[v];
        for (std::size_t i = 0; i < offsets.size(); ++i) {
            const std::uint16_t* set = ps.data() + i * w;
            bool ok = true;
            for (std::size_t t = 0; t < w && set[t] != ScoreTable::kNoParent; ++t)
                if (pos_of[set[t]] >= here) {
                    ok = false;
                    break;
                }
            if (!ok) continue;
            if (parents) {  // the entry's parents are right here, increasing
                parents->clear();
                for (std::size_t t = 0; t < w && set[t] != ScoreTable::kNoParent; ++t) parents->push_back(set[t]);
            }
            return table.sorted_scores(v)[i];
        }
        CUDAG_ASSERT(false);  // unreachable: the empty set is in every list
    }
    const Predecessors pred = predecessors(table, v, pos_of);
    double best = -std::numeric_limits<double>::infinity();
    std::int64_t best_e = -1, best_rank = 0;
    int best_k = 0;
    for_each_consistent(table, v, pred, [&](std::int64_t e, int k, std::int64_t rank, const int*, double s) {
        if (s > best) best = s, best_e = e, best_k = k, best_rank = rank;
    });
    if (parents)
        *parents =
            best_e < 0 ? table.parent_set(v, best_k, best_rank) : table.extra_parent_set(v, best_e, best_k, best_rank);
    return best;
}

std::int64_t ScoreTable::build_subset_rows(int threads, double budget_bytes) {
    CUDAG_EXPECTS(holds_all(), "the subset rows need the whole score table");
    const std::int64_t n = n_nodes();
    row_offset_.assign(static_cast<std::size_t>(n), -1);
    rows_.clear();
    rows_.shrink_to_fit();
    // The plan: the nodes within kMaxRowBits candidates, the smallest rows first (ties by
    // node), while the total stays within the budget.
    std::vector<std::pair<double, std::int32_t>> fit;
    for (std::int32_t v = 0; v < n; ++v) {
        const auto m = static_cast<int>(candidates(v).size());
        if (m <= kMaxRowBits) fit.emplace_back(std::ldexp(static_cast<double>(row_width(v)), m), v);
    }
    std::sort(fit.begin(), fit.end());
    double total = 0.0;
    std::vector<char> chosen(static_cast<std::size_t>(n), 0);
    for (const auto& [values, v] : fit) {
        if ((total + values) * 8.0 > budget_bytes) break;
        total += values;
        chosen[static_cast<std::size_t>(v)] = 1;
    }
    std::int64_t at = 0, given = 0;
    for (std::int32_t v = 0; v < n; ++v)
        if (chosen[static_cast<std::size_t>(v)]) {
            row_offset_[v] = at;
            at += row_width(v) << candidates(v).size();
            ++given;
        }
    if (at == 0) {
        row_offset_.clear();
        return 0;
    }
    require_host_memory(8.0 * static_cast<double>(at), "the sum-mode subset rows",
                        std::to_string(given) + " nodes' rows", "lower --tune sum-rows (GiB; 0: none)");
    rows_.resize(static_cast<std::size_t>(at));
    const int s = max_parents_;
    const double ninf = -std::numeric_limits<double>::infinity();
    // One node: every value -inf, each set's score at its mask, then the zeta transform
    // dimension by dimension (each step reads masks without the bit and writes masks with
    // it, so the masks of a step are independent: `workers` split them).
    auto build_node = [&](std::int32_t v, int workers) {
        const auto m = static_cast<int>(candidates(v).size());
        const std::int64_t w = row_width(v), masks = std::int64_t{1} << m;
        double* r = rows_.data() + row_offset_[v];
        parallel_for(0, masks, workers, 4096, [&](std::int64_t mask, int) { std::fill_n(r + mask * w, w, ninf); });
        std::vector<int> all(static_cast<std::size_t>(m));
        for (int i = 0; i < m; ++i) all[static_cast<std::size_t>(i)] = i;
        auto mask_of = [](int k, const int* pos) {
            std::uint32_t mask = 0;
            for (int t = 0; t < k; ++t) mask |= std::uint32_t{1} << pos[t];
            return mask;
        };
        for_each_subset(all, m, s, [&](int k, std::int64_t rank, const int* pos) {
            r[static_cast<std::int64_t>(mask_of(k, pos)) * w] = score(v, k, rank);
        });
        for (std::int64_t e = 0; e + 1 < w; ++e)
            for_each_subset(all, m, s - 1, [&](int k, std::int64_t rank, const int* pos) {
                r[static_cast<std::int64_t>(mask_of(k, pos)) * w + 1 + e] = extra_score(v, e, k, rank);
            });
        for (int d = 0; d < m; ++d) {
            const std::int64_t bit = std::int64_t{1} << d;
            // The masks with bit d: mask = high part << (d + 1) | bit | low part.
            parallel_for(0, masks / 2, workers, 1024, [&](std::int64_t i, int) {
                const std::int64_t mask = ((i >> d) << (d + 1)) | bit | (i & (bit - 1));
                double* to = r + mask * w;
                const double* from = r + (mask ^ bit) * w;
                for (std::int64_t p = 0; p < w; ++p) to[p] = log_add(to[p], from[p]);
            });
        }
    };
    // Small nodes a thread each, large ones with every thread.
    constexpr std::int64_t kLarge = std::int64_t{1} << 18;
    std::vector<std::int32_t> small, large;
    for (std::int32_t v = 0; v < n; ++v)
        if (has_rows(v)) ((row_width(v) << candidates(v).size()) >= kLarge ? large : small).push_back(v);
    const int team = resolve_threads(threads);
    parallel_for(0, static_cast<std::int64_t>(small.size()), team, 1,
                 [&](std::int64_t i, int) { build_node(small[static_cast<std::size_t>(i)], 1); });
    for (const std::int32_t v : large) build_node(v, team);
    return given;
}

namespace {

/// node_score_sum from v's subset row (bn/subset_rows.hpp): the row of the mask of its
/// preceding candidates, read at the preceding extras.
double node_score_from_rows(const ScoreTable& table, std::int32_t v, const Predecessors& pred,
                            std::span<double> edge_prob) {
    std::uint32_t mask = 0;
    for (const int i : pred.candidates) mask |= std::uint32_t{1} << i;
    const double* r = table.subset_row(v, mask);
    double top = r[0];
    for (const std::int64_t e : pred.extras) top = std::max(top, r[1 + e]);
    if (std::isinf(top)) return top;  // nothing but -inf: no proportions to form
    auto weigh = [&](const double* row) {
        FixedSum sum;
        sum.add(to_fixed(xm::exp(row[0] - top)));
        for (const std::int64_t e : pred.extras) sum.add(to_fixed(xm::exp(row[1 + e] - top)));
        return sum;
    };
    const FixedSum total = weigh(r);
    const double all = total.value();
    if (!edge_prob.empty()) {
        const auto extras = table.extras(v);
        for (const std::int64_t e : pred.extras) {
            FixedSum one;
            one.add(to_fixed(xm::exp(r[1 + e] - top)));
            edge_prob[static_cast<std::size_t>(extras[e])] = one.value() / all;
        }
        const auto cands = table.candidates(v);
        for (const int i : pred.candidates) {
            const FixedSum without = weigh(table.subset_row(v, mask ^ (std::uint32_t{1} << i)));
            edge_prob[static_cast<std::size_t>(cands[i])] = total.minus_or_zero(without).value() / all;
        }
    }
    return top + xm::log(all);
}

}  // namespace

double node_score_sum(const ScoreTable& table, std::int32_t v, std::span<const std::int64_t> pos_of,
                      std::span<double> edge_prob) {
    const bool edge_probs = !edge_prob.empty();
    if (edge_probs) std::fill(edge_prob.begin(), edge_prob.end(), 0.0);
    const Predecessors pred = predecessors(table, v, pos_of);
    if (table.has_rows(v)) return node_score_from_rows(table, v, pred, edge_prob);
    // log sum exp = top + log sum exp(score - top), top the largest score.
    double top = -std::numeric_limits<double>::infinity();
    for_each_consistent(table, v, pred,
                        [&](std::int64_t, int, std::int64_t, const int*, double s) { top = std::max(top, s); });
    if (std::isinf(top)) return top;  // nothing but -inf (or +inf) scores: no proportions to form
    // The weights exp(score - top) in (0, 1] summed in fixed point (bn/fixed_sum.hpp), with
    // xm::exp and xm::log (core/exact_math.hpp): a kernel gets the same bits in any order.
    FixedSum sum;
    // Sums of the weights of the sets holding each candidate position / each extra.
    std::vector<FixedSum> weight_with, extra_with;
    if (edge_probs) {
        weight_with.resize(table.candidates(v).size());
        extra_with.resize(table.extras(v).size());
    }
    for_each_consistent(table, v, pred, [&](std::int64_t e, int k, std::int64_t, const int* pos, double s) {
        const std::uint64_t w = to_fixed(xm::exp(s - top));
        sum.add(w);
        if (edge_probs) {
            for (int t = 0; t < k; ++t) weight_with[pos[t]].add(w);
            if (e >= 0) extra_with[e].add(w);
        }
    });
    const double total = sum.value();
    if (edge_probs) {
        const auto cands = table.candidates(v);
        for (const int i : pred.candidates)
            edge_prob[static_cast<std::size_t>(cands[i])] = weight_with[i].value() / total;
        const auto extras = table.extras(v);
        for (const std::int64_t e : pred.extras)
            edge_prob[static_cast<std::size_t>(extras[e])] = extra_with[e].value() / total;
    }
    return top + xm::log(total);
}

OrderMaxResult order_score_max(const ScoreTable& table, std::span<const std::int32_t> order) {
    const std::int64_t n = table.n_nodes();
    const std::vector<std::int64_t> pos_of = places(order, n);
    OrderMaxResult r;
    r.node_score.assign(static_cast<std::size_t>(n), 0.0);
    r.parents.resize(static_cast<std::size_t>(n));
    for (std::int32_t v = 0; v < n; ++v) {
        r.node_score[v] = node_score_max(table, v, pos_of, &r.parents[v]);
        r.total += r.node_score[v];
    }
    return r;
}

OrderSumResult order_score_sum(const ScoreTable& table, std::span<const std::int32_t> order, bool edge_probs) {
    const std::int64_t n = table.n_nodes();
    const std::vector<std::int64_t> pos_of = places(order, n);
    OrderSumResult r;
    r.node_score.assign(static_cast<std::size_t>(n), 0.0);
    if (edge_probs) r.edge_prob.assign(static_cast<std::size_t>(n * n), 0.0);
    std::vector<double> column(edge_probs ? static_cast<std::size_t>(n) : 0);  // P(p --> v | order) by p
    for (std::int32_t v = 0; v < n; ++v) {
        r.node_score[v] = node_score_sum(table, v, pos_of, column);
        r.total += r.node_score[v];
        if (edge_probs)
            for (std::int64_t p = 0; p < n; ++p) r.edge_prob[static_cast<std::size_t>(p * n + v)] = column[p];
    }
    return r;
}

ExactPosterior exact_edge_posteriors(const ScoreTable& table) {
    const std::int64_t n = table.n_nodes();
    CUDAG_EXPECTS(n <= kMaxExactNodes, "exact edge posteriors enumerate every order: at most " +
                                           std::to_string(kMaxExactNodes) + " nodes, not " + std::to_string(n));
    std::vector<std::int32_t> order(static_cast<std::size_t>(n));
    for (std::int32_t v = 0; v < n; ++v) order[v] = v;
    // Running weighted sums relative to the largest order score seen so far.
    double top = -std::numeric_limits<double>::infinity(), weight = 0.0;
    std::vector<double> acc(static_cast<std::size_t>(n * n), 0.0);
    do {
        const OrderSumResult o = order_score_sum(table, order, true);
        if (o.total == -std::numeric_limits<double>::infinity()) continue;
        CUDAG_EXPECTS(std::isfinite(o.total), "an order score is not finite");
        if (o.total > top) {
            const double shrink = std::exp(top - o.total);  // 0 on the first order
            weight *= shrink;
            for (double& a : acc) a *= shrink;
            top = o.total;
        }
        const double w = std::exp(o.total - top);
        weight += w;
        for (std::size_t i = 0; i < acc.size(); ++i) acc[i] += w * o.edge_prob[i];
    } while (std::next_permutation(order.begin(), order.end()));
    ExactPosterior r;
    r.edge_prob.assign(acc.size(), 0.0);
    if (weight > 0.0)
        for (std::size_t i = 0; i < acc.size(); ++i) r.edge_prob[i] = acc[i] / weight;
    r.log_evidence = weight > 0.0 ? top + std::log(weight) : top;
    return r;
}

}  // namespace cudag::bn
