// SPDX-License-Identifier: Apache-2.0
#include "bn/score.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <utility>

#include "bn/local_score.hpp"
#include "core/error.hpp"
#include "io/table_reader.hpp"

namespace cudag::bn {

std::optional<ScoreKind> parse_score_kind(const std::string& name) {
    if (name == "bdeu") return ScoreKind::BDeu;
    if (name == "k2") return ScoreKind::K2;
    if (name == "bge") return ScoreKind::BGe;
    if (name == "cg-bic") return ScoreKind::CgBic;
    return std::nullopt;
}

ScoreKind parse_score(const std::string& name) {
    if (const std::optional<ScoreKind> kind = parse_score_kind(name)) return *kind;
    throw InputError("unknown --score '" + name + "' (available: bdeu, k2, bge, cg-bic)");
}

const char* score_name(ScoreKind kind) {
    switch (kind) {
        case ScoreKind::BDeu:
            return "bdeu";
        case ScoreKind::K2:
            return "k2";
        case ScoreKind::BGe:
            return "bge";
        case ScoreKind::CgBic:
            return "cg-bic";
    }
    return "?";
}

std::vector<std::int32_t> find_cycle(const Dag& dag) {
    const std::int64_t n = dag.n();
    // Kahn's algorithm on the parent lists: what it cannot remove has a parent left.
    std::vector<std::int64_t> missing(static_cast<std::size_t>(n));  // parents not yet removed
    std::vector<std::vector<std::int32_t>> children(static_cast<std::size_t>(n));
    for (std::int32_t v = 0; v < n; ++v) {
        missing[v] = static_cast<std::int64_t>(dag.parents[v].size());
        for (const std::int32_t p : dag.parents[v]) children[p].push_back(v);
    }
    std::vector<std::int32_t> ready;
    for (std::int32_t v = 0; v < n; ++v)
        if (missing[v] == 0) ready.push_back(v);
    std::int64_t removed = 0;
    while (!ready.empty()) {
        const std::int32_t v = ready.back();
        ready.pop_back();
        ++removed;
        for (const std::int32_t c : children[v])
            if (--missing[c] == 0) ready.push_back(c);
    }
    if (removed == n) return {};
    // Every node left has a parent left: walking up n steps from one lands on a cycle.
    auto parent_left = [&](std::int32_t v) {
        for (const std::int32_t p : dag.parents[v])
            if (missing[p] > 0) return p;
        CUDAG_ASSERT(false);
        return std::int32_t{-1};
    };
    std::int32_t v = 0;
    while (missing[v] == 0) ++v;
    for (std::int64_t s = 0; s < n; ++s) v = parent_left(v);
    std::vector<std::int32_t> cycle{v};
    for (std::int32_t u = parent_left(v); u != v; u = parent_left(u)) cycle.push_back(u);
    std::reverse(cycle.begin(), cycle.end());  // parents were followed: reverse to edge order
    // Start at the smallest id, for a stable message.
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    return cycle;
}

ci::DiscreteCodes discrete_codes_for_scoring(Dataset data) {
    io::check_integer_levels(
        data,
        "BDeu and K2 score discrete data, integer codes or labels (continuous data: --score bge, mixed "
        "data: --score cg-bic)");
    io::discretize(data, data.source);
    for (std::int64_t v = 0; v < data.n_vars; ++v)
        if (data.levels[static_cast<std::size_t>(v)].size() < 2)
            throw InputError(data.source + ": variable '" + data.names[v] + "' (column " + std::to_string(v + 1) +
                             ") has a single level" +
                             (data.levels[v].empty() ? std::string() : " '" + data.levels[v][0] + "'") +
                             "; BDeu and K2 need at least 2 levels per variable (drop the column)");
    return ci::encode_discrete(data);
}

std::vector<std::uint32_t> parent_counts(const ci::DiscreteCodes& codes, std::int32_t node,
                                         std::span<const std::int32_t> parents, std::int64_t& rows) {
    const std::int64_t m = codes.n_samples;
    // Configuration of each sample as a mixed-radix key, renumbered densely (in key order)
    // whenever the key range outgrows the sample count, so keys never overflow.
    std::vector<std::uint64_t> key(static_cast<std::size_t>(m), 0);
    std::uint64_t k = 1;
    std::vector<std::uint64_t> seen;
    for (std::size_t t = 0; t < parents.size(); ++t) {
        const std::int32_t p = parents[t];
        CUDAG_ASSERT(p >= 0 && p < codes.n_vars && p != node);
        const auto r = static_cast<std::uint64_t>(codes.cards[p]);
        const std::uint8_t* col = codes.column(p);
        for (std::int64_t s = 0; s < m; ++s) key[s] = key[s] * r + col[s];
        k *= r;
        if (k > static_cast<std::uint64_t>(m) || t + 1 == parents.size()) {
            seen.assign(key.begin(), key.end());
            std::sort(seen.begin(), seen.end());
            seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
            for (std::int64_t s = 0; s < m; ++s)
                key[s] = static_cast<std::uint64_t>(std::lower_bound(seen.begin(), seen.end(), key[s]) - seen.begin());
            k = seen.size();
        }
    }
    if (m == 0) k = 0;
    rows = static_cast<std::int64_t>(k);
    const std::int32_t r = codes.cards[node];
    std::vector<std::uint32_t> counts(static_cast<std::size_t>(k) * static_cast<std::size_t>(r), 0);
    const std::uint8_t* x = codes.column(node);
    for (std::int64_t s = 0; s < m; ++s) ++counts[key[s] * static_cast<std::uint64_t>(r) + x[s]];
    return counts;
}

DiscreteScorer::DiscreteScorer(ci::DiscreteCodes codes, const ScoreSpec& spec) : codes_(std::move(codes)), spec_(spec) {
    CUDAG_EXPECTS(spec_.kind != ScoreKind::BGe, "BGe scores continuous data (BgeScorer)");
    CUDAG_EXPECTS(spec_.kind != ScoreKind::CgBic, "cg-bic scores mixed data (CgBicScorer)");
    CUDAG_EXPECTS(spec_.kind != ScoreKind::BDeu || (spec_.iss >= kIssMin && spec_.iss <= kIssMax),
                  "the BDeu imaginary sample size must lie in [1e-6, 1e6]");
    CUDAG_EXPECTS(codes_.n_samples < (std::int64_t{1} << 32), "at most 2^32 - 1 samples are supported");
    by_levels_.resize(static_cast<std::size_t>(codes_.n_vars));
    std::iota(by_levels_.begin(), by_levels_.end(), 0);
    std::stable_sort(by_levels_.begin(), by_levels_.end(),
                     [&](std::int32_t a, std::int32_t b) { return codes_.cards[a] > codes_.cards[b]; });
    // The terms of every (q, r) with q r <= kTermCells, q a product of levels (smallest q
    // first, so that the budget keeps the common small tables).
    std::vector<std::int32_t> levels(codes_.cards.begin(), codes_.cards.end());
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    if (levels.empty()) return;
    std::vector<char> product(static_cast<std::size_t>(kTermCells) + 1, 0);
    product[1] = 1;
    for (std::int64_t q = 1; q <= kTermCells; ++q)
        if (product[static_cast<std::size_t>(q)])
            for (const std::int32_t c : levels)
                if (q * c <= kTermCells) product[static_cast<std::size_t>(q * c)] = 1;
    r_row_.assign(static_cast<std::size_t>(levels.back()) + 1, -1);
    for (std::size_t i = 0; i < levels.size(); ++i)
        r_row_[static_cast<std::size_t>(levels[i])] = static_cast<std::int32_t>(i);
    term_slot_.assign(levels.size() * static_cast<std::size_t>(kTermCells + 1), -1);
    const std::size_t per = 2 * static_cast<std::size_t>(codes_.n_samples + 1);
    const bool k2 = spec_.kind == ScoreKind::K2;
    for (std::int64_t q = 1; q <= kTermCells; ++q) {
        if (!product[static_cast<std::size_t>(q)]) continue;
        for (std::size_t i = 0; i < levels.size(); ++i) {
            const std::int32_t r = levels[i];
            if (q * r > kTermCells) continue;
            std::int32_t& slot = term_slot_[i * static_cast<std::size_t>(kTermCells + 1) + static_cast<std::size_t>(q)];
            if (k2 && q > 1) {  // a_jk = 1 whatever q
                slot = term_slot_[i * static_cast<std::size_t>(kTermCells + 1) + 1];
                continue;
            }
            if (terms_.size() + per > kTermBudget) continue;
            const double a_jk = k2 ? 1.0 : spec_.iss / (static_cast<double>(q) * static_cast<double>(r));
            slot = static_cast<std::int32_t>(terms_.size());
            terms_.resize(terms_.size() + per);
            bd_term_tables(a_jk, r, codes_.n_samples, terms_.data() + slot,
                           terms_.data() + slot + codes_.n_samples + 1);
        }
    }
}

const double* DiscreteScorer::term_table(double q, std::int32_t r) const {
    if (q * static_cast<double>(r) > static_cast<double>(kTermCells) || r >= static_cast<std::int32_t>(r_row_.size()))
        return nullptr;
    const std::int32_t i = r_row_[static_cast<std::size_t>(r)];
    if (i < 0) return nullptr;
    const std::int32_t slot = term_slot_[static_cast<std::size_t>(i) * static_cast<std::size_t>(kTermCells + 1) +
                                         static_cast<std::size_t>(q)];
    return slot < 0 ? nullptr : terms_.data() + slot;
}

namespace {

/// A thread's scratch for DiscreteScorer (issue 37: munin's sets have up to 10^5 parent
/// configurations and 1,000 samples, so nothing may cost O(q)): sample keys, a bitmap of the
/// observed configurations (all zero between calls), the observed configurations' rows, the
/// observed rows' counts, and memos of lgamma terms by count for one call (a stamp marks the
/// valid ones).
struct CountScratch {
    std::vector<std::uint32_t> key, row_of, counts;
    std::vector<std::uint64_t> bits;
    std::vector<double> memo[2];
    std::vector<std::uint32_t> stamp[2];
    std::uint32_t now = 0;

    /// A new call's memos over counts 0..samples.
    void fresh(std::int64_t samples) {
        const auto size = static_cast<std::size_t>(samples) + 1;
        for (int i = 0; i < 2; ++i)
            if (memo[i].size() < size) memo[i].resize(size), stamp[i].assign(size, 0), now = 0;
        if (++now == 0) {  // the stamps wrapped: start them over
            for (auto& st : stamp) std::fill(st.begin(), st.end(), 0u);
            now = 1;
        }
    }
    /// memo[which][n], computed by f(n) the first time this call asks.
    template <class F>
    double term(int which, std::uint32_t n, F&& f) {
        if (stamp[which][n] != now) memo[which][n] = f(n), stamp[which][n] = now;
        return memo[which][n];
    }
};

CountScratch& scratch() {
    thread_local CountScratch s;
    return s;
}

/// bd_local_score with each distinct count's lgamma terms computed once per call: the same
/// terms (one expression, the same operands), added in the same order, so the same bits.
double bd_local_score_memo(const std::uint32_t* counts, std::int64_t rows, std::int32_t r, double a_jk,
                           std::int64_t samples) {
    CountScratch& m = scratch();
    m.fresh(samples);
    const double a_j = a_jk * static_cast<double>(r);
    const double lg_a_j = xm::lgamma(a_j), lg_a_jk = xm::lgamma(a_jk);
    return bd_local_score_terms(
        counts, rows, r,
        [&](std::uint32_t n) {
            return m.term(0, n, [&](std::uint32_t c) { return bd_cell_term(a_jk, lg_a_jk, static_cast<double>(c)); });
        },
        [&](std::uint64_t n_j) {
            return m.term(1, static_cast<std::uint32_t>(n_j),
                          [&](std::uint32_t c) { return bd_row_term(a_j, lg_a_j, static_cast<double>(c)); });
        });
}

/// bd_superset_bound likewise (each distinct count's term once per call).
double bd_superset_bound_memo(const std::uint32_t* counts, std::int64_t rows, std::int32_t r, double a_min,
                              std::int64_t samples) {
    CountScratch& m = scratch();
    m.fresh(samples);
    return bd_superset_bound_terms(counts, rows, r, a_min, [&](std::uint32_t n, auto&& compute) {
        return m.term(0, n, [&](std::uint32_t) { return compute(); });
    });
}

}  // namespace

const std::uint32_t* DiscreteScorer::counts(std::int32_t node, std::span<const std::int32_t> parents,
                                            std::int64_t& rows, std::vector<std::uint32_t>& sparse) const {
    const std::int32_t r = codes_.cards[node];
    const std::int64_t m = codes_.n_samples;
    double q = 1.0;  // all parent configurations, observed or not
    for (const std::int32_t p : parents) q *= static_cast<double>(codes_.cards[p]);
    // The observed rows alone, in increasing configuration order: an unobserved row adds
    // exactly +0 to every score and bound here (bd_local_score), so they are the dense
    // table's sums bit for bit. Above kDenseCells cells and up to kBitmapConfigs
    // configurations, each sample's
    // configuration is a key, a bitmap marks the observed ones, a walk over its words in
    // order numbers them (their rows), and a pass over the samples counts: O(samples + q /
    // 64), with no O(q) clearing or scanning. Beyond, parent_counts sorts the keys.
    if (q > static_cast<double>(kBitmapConfigs)) {
        sparse = parent_counts(codes_, node, parents, rows);
        return sparse.data();
    }
    CountScratch& sc = scratch();
    if (q * r <= static_cast<double>(kDenseCells)) {
        // Small tables densely, every configuration's row (unobserved ones all zero) in one
        // pass: the same sums, as above.
        rows = static_cast<std::int64_t>(q);
        sc.counts.assign(static_cast<std::size_t>(rows) * static_cast<std::size_t>(r), 0);
        const std::uint8_t* x = codes_.column(node);
        for (std::int64_t s = 0; s < m; ++s) {
            std::uint32_t key = 0;
            for (const std::int32_t p : parents)
                key = key * static_cast<std::uint32_t>(codes_.cards[p]) + codes_.column(p)[s];
            ++sc.counts[static_cast<std::size_t>(key) * static_cast<std::size_t>(r) + x[s]];
        }
        return sc.counts.data();
    }
    const auto configs = static_cast<std::size_t>(q);
    const std::size_t words = (configs + 63) / 64;
    if (sc.bits.size() < words) sc.bits.resize(words, 0);
    if (sc.row_of.size() < configs) sc.row_of.resize(configs);  // a key's row, where observed
    sc.key.resize(static_cast<std::size_t>(m));
    std::uint32_t* key = sc.key.data();
    if (parents.empty()) std::fill(key, key + m, 0u);
    for (std::size_t t = 0; t < parents.size(); ++t) {
        const auto card = static_cast<std::uint32_t>(codes_.cards[parents[t]]);
        const std::uint8_t* col = codes_.column(parents[t]);
        if (t == 0) {
            for (std::int64_t s = 0; s < m; ++s) key[s] = col[s];
        } else {
            for (std::int64_t s = 0; s < m; ++s) key[s] = key[s] * card + col[s];
        }
    }
    std::uint64_t* bits = sc.bits.data();
    for (std::int64_t s = 0; s < m; ++s) bits[key[s] >> 6] |= std::uint64_t{1} << (key[s] & 63);
    std::uint32_t* row_of = sc.row_of.data();
    std::uint32_t seen = 0;
    for (std::size_t w = 0; w < words; ++w)
        for (std::uint64_t b = bits[w]; b != 0; b &= b - 1, ++seen)
            row_of[w * 64 + static_cast<std::size_t>(std::countr_zero(b))] = seen;
    rows = seen;
    sc.counts.assign(static_cast<std::size_t>(seen) * static_cast<std::size_t>(r), 0);
    const std::uint8_t* x = codes_.column(node);
    for (std::int64_t s = 0; s < m; ++s) {
        ++sc.counts[static_cast<std::size_t>(row_of[key[s]]) * static_cast<std::size_t>(r) + x[s]];
        bits[key[s] >> 6] = 0;
    }
    return sc.counts.data();
}

double DiscreteScorer::score(const std::uint32_t* counts, std::int64_t rows, std::int32_t node,
                             std::span<const std::int32_t> parents) const {
    const std::int32_t r = codes_.cards[node];
    double q = 1.0;
    for (const std::int32_t p : parents) q *= static_cast<double>(codes_.cards[p]);
    if (const double* cell = term_table(q, r))  // the same doubles, looked up
        return bd_local_score_tabulated(counts, rows, r, cell, cell + codes_.n_samples + 1);
    // bdeu_local_score and k2_local_score's a_jk, each distinct count's terms once.
    const double a_jk = spec_.kind == ScoreKind::K2 ? 1.0 : spec_.iss / (q * static_cast<double>(r));
    return bd_local_score_memo(counts, rows, r, a_jk, codes_.n_samples);
}

double DiscreteScorer::local(std::int32_t node, std::span<const std::int32_t> parents) const {
    std::int64_t rows = 0;
    std::vector<std::uint32_t> sparse;
    const std::uint32_t* c = counts(node, parents, rows, sparse);
    return score(c, rows, node, parents);
}

double DiscreteScorer::local_bounded(std::int32_t node, std::span<const std::int32_t> parents, int max_size,
                                     double floor, double* bound) const {
    std::int64_t rows = 0;
    std::vector<std::uint32_t> sparse;
    const std::uint32_t* c = counts(node, parents, rows, sparse);
    const std::int32_t r = codes_.cards[node];
    double a_min = 1.0;  // K2
    if (spec_.kind == ScoreKind::BDeu) {
        // The most configurations a superset of at most max_size parents can have.
        double q_max = 1.0;
        for (const std::int32_t p : parents) q_max *= static_cast<double>(codes_.cards[p]);
        int more = max_size - static_cast<int>(parents.size());
        for (std::size_t i = 0; i < by_levels_.size() && more > 0; ++i) {
            const std::int32_t u = by_levels_[i];
            if (u == node || std::find(parents.begin(), parents.end(), u) != parents.end()) continue;
            q_max *= static_cast<double>(codes_.cards[u]);
            --more;
        }
        a_min = spec_.iss / (q_max * static_cast<double>(r));
    }
    const double s = score(c, rows, node, parents);
    // The cheap lower bound on the bound: above the floor and the score, nothing to prune.
    std::int64_t cells = 0;
    for (std::int64_t i = 0; i < rows * r; ++i) cells += c[i] != 0;
    const double least = -static_cast<double>(cells) *
                         (xm::log(static_cast<double>(r)) +
                          static_cast<double>(r - 1) * a_min *
                              (1.0 + xm::log(static_cast<double>(std::max<std::int64_t>(codes_.n_samples, 1)))));
    *bound = least > std::max(floor, s) ? std::numeric_limits<double>::infinity()
                                        : bd_superset_bound_memo(c, rows, r, a_min, codes_.n_samples);
    return s;
}

double LocalScorer::local_bounded(std::int32_t node, std::span<const std::int32_t> parents, int, double,
                                  double* bound) const {
    *bound = std::numeric_limits<double>::infinity();
    return local(node, parents);
}

std::vector<double> LocalScorer::local_scores(const Dag& dag) const {
    CUDAG_EXPECTS(dag.n() == n_vars(), "the DAG and the data have different numbers of variables");
    std::vector<double> out(static_cast<std::size_t>(dag.n()));
    for (std::int32_t v = 0; v < dag.n(); ++v) out[v] = local(v, dag.parents[v]);
    return out;
}

double LocalScorer::dag_score(const Dag& dag) const {
    double total = 0.0;
    for (const double s : local_scores(dag)) total += s;
    return total;
}

}  // namespace cudag::bn
