// SPDX-License-Identifier: Apache-2.0
#include "pcmci/pcmci.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace cudag::pcmci {
namespace {

bool lagged_out(const std::string& type) { return type == "<--" || type == "<?-"; }

/// tigramite's _reverse_link.
std::string reverse_link(const std::string& t) {
    if (t.empty()) return t;
    const char left = t[2] == '>' ? '<' : t[2];
    const char right = t[0] == '<' ? '>' : t[0];
    return std::string{left, t[1], right};
}

std::string node_text(Node n) { return "(" + std::to_string(n.var) + ", -" + std::to_string(n.lag) + ")"; }

/// The candidate parents of j: its links of a type other than '<--'/'<?-', but (j, 0).
std::vector<Node> candidates(const LinkAssumptions& la, std::int32_t j) {
    std::vector<Node> out;
    for (const auto& [node, type] : la.links[static_cast<std::size_t>(j)])
        if (!(node == Node{j, 0}) && !lagged_out(type)) out.push_back(node);
    return out;
}

/// Queries of one batch, with where each answer goes.
struct Batch {
    ci::QueryList queries;
    std::vector<double> statistic, p;
    /// Every query, in slices whose size doubles while a slice takes under half a second (a
    /// GPU gets large slices, a slow test small ones), `progress` told after each slice: the
    /// answers do not depend on the slicing (each test is a function of its query alone).
    void run(ci::BatchTest& tests, const char* phase, std::int64_t done_before, std::int64_t planned,
             const ProgressFn& progress) {
        statistic.assign(queries.size(), 0.0);
        p.assign(queries.size(), 0.0);
        const ci::Queries all = queries.view();
        std::size_t slice = 16;  // small first: a slow test (CMIknn) shows progress within seconds
        for (std::size_t begin = 0; begin < all.size();) {
            const std::size_t end = std::min(all.size(), begin + slice);
            const auto t0 = std::chrono::steady_clock::now();
            tests.run(all.slice(begin, end), std::span<double>(statistic).subspan(begin, end - begin),
                      std::span<double>(p).subspan(begin, end - begin));
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 0.5 &&
                slice < (std::size_t{1} << 22))
                slice *= 2;
            begin = end;
            if (progress) progress(phase, done_before + static_cast<std::int64_t>(end), planned);
        }
    }
};

/// The lagged table's columns of a node list.
void add_query(ci::QueryList& q, const LaggedData& lagged, Node x, Node y, const std::vector<Node>& z) {
    std::vector<std::int32_t> s;
    s.reserve(z.size());
    for (Node n : z) s.push_back(lagged.column(n));
    q.add(lagged.column(x), lagged.column(y), s);
}

/// PC1's state for one variable.
struct Pc1 {
    std::vector<Node> parents;
    /// val_min in insertion order (Python dict order): the parents still in, and their minimum |value|.
    std::vector<std::pair<Node, double>> val_min;
    bool done = false;
};

/// The combination after `c` (indices into a list of m, increasing) in itertools order; false at the end.
bool next_combination(std::vector<int>& c, int m) {
    const int k = static_cast<int>(c.size());
    int i = k - 1;
    while (i >= 0 && c[static_cast<std::size_t>(i)] == m - k + i) --i;
    if (i < 0) return false;
    ++c[static_cast<std::size_t>(i)];
    for (int t = i + 1; t < k; ++t) c[static_cast<std::size_t>(t)] = c[static_cast<std::size_t>(t - 1)] + 1;
    return true;
}

}  // namespace

bool is_link_type(const std::string& t) {
    return t == "o-o" || t == "o?o" || t == "-->" || t == "-?>" || t == "<--" || t == "<?-";
}

const std::string* LinkAssumptions::find(std::int32_t j, Node node) const {
    const auto& list = links[static_cast<std::size_t>(j)];
    if (static_cast<std::size_t>(j) < at_.size() && indexed_size_[static_cast<std::size_t>(j)] == list.size() &&
        node.lag >= 0 && node.lag < lags_ && node.var >= 0 &&
        static_cast<std::size_t>(node.var) < at_[static_cast<std::size_t>(j)].size() / static_cast<std::size_t>(lags_)) {
        const std::int32_t k =
            at_[static_cast<std::size_t>(j)][static_cast<std::size_t>(node.var) * static_cast<std::size_t>(lags_) +
                                             static_cast<std::size_t>(node.lag)];
        if (k < 0) return nullptr;
        if (list[static_cast<std::size_t>(k)].first == node) return &list[static_cast<std::size_t>(k)].second;
    }
    for (const auto& [n, type] : list)
        if (n == node) return &type;
    return nullptr;
}

void LinkAssumptions::index(std::int32_t max_lag) {
    lags_ = max_lag + 1;
    const std::size_t n = links.size();
    indexed_size_.assign(n, 0);
    at_.assign(n, std::vector<std::int32_t>(n * static_cast<std::size_t>(lags_), -1));
    for (std::size_t j = 0; j < n; ++j) {
        indexed_size_[j] = links[j].size();
        for (std::size_t k = 0; k < links[j].size(); ++k) {
            const Node node = links[j][k].first;
            if (node.var < 0 || static_cast<std::size_t>(node.var) >= n || node.lag < 0 || node.lag >= lags_) continue;
            std::int32_t& slot = at_[j][static_cast<std::size_t>(node.var) * static_cast<std::size_t>(lags_) +
                                        static_cast<std::size_t>(node.lag)];
            if (slot < 0) slot = static_cast<std::int32_t>(k);  // the first, as the scan finds it
        }
    }
}

LinkAssumptions default_links(std::int32_t n_vars, std::int32_t tau_min, std::int32_t tau_max) {
    LinkAssumptions la;
    la.links.resize(static_cast<std::size_t>(n_vars));
    for (std::int32_t j = 0; j < n_vars; ++j)
        for (std::int32_t i = 0; i < n_vars; ++i)
            for (std::int32_t lag = tau_min; lag <= tau_max; ++lag)
                if (!(i == j && lag == 0))
                    la.links[static_cast<std::size_t>(j)].push_back({{i, lag}, lag == 0 ? "o?o" : "-?>"});
    la.index(tau_max);
    return la;
}

LinkAssumptions normalise_links(LinkAssumptions la, std::int32_t n_vars, std::int32_t tau_min, std::int32_t tau_max,
                                bool remove_contemp) {
    if (static_cast<std::int32_t>(la.links.size()) != n_vars)
        throw InputError("link assumptions must list every variable 0.." + std::to_string(n_vars - 1) +
                         " (an empty list for none)");
    // tigramite drops the lag-0 links first (run_pc_stable's remove_contemp), then checks the rest.
    if (remove_contemp)
        for (auto& links : la.links)
            links.erase(std::remove_if(links.begin(), links.end(), [](const auto& l) { return l.first.lag == 0; }),
                        links.end());
    for (std::int32_t j = 0; j < n_vars; ++j)
        for (const auto& [node, type] : la.links[static_cast<std::size_t>(j)]) {
            if (node.var < 0 || node.var >= n_vars || node.lag < tau_min || node.lag > tau_max)
                throw InputError("link assumption " + node_text(node) + " -> " + std::to_string(j) +
                                 " is outside the variables 0.." + std::to_string(n_vars - 1) + " and lags " +
                                 std::to_string(tau_min) + ".." + std::to_string(tau_max));
            if (!is_link_type(type))
                throw InputError("link assumption " + node_text(node) + " -> " + std::to_string(j) + " has type '" +
                                 type + "': the types are o-o, o?o, -->, -?>, <--, <?-");
        }
    la.index(tau_max);
    for (std::int32_t j = 0; j < n_vars; ++j) {
        auto& links = la.links[static_cast<std::size_t>(j)];
        for (std::size_t k = 0; k < links.size(); ++k) {
            const Node node = links[k].first;
            std::string& type = links[k].second;
            if (node.lag == 0) {
                if (node.var == j) throw InputError("link assumption (" + std::to_string(j) + ", 0) -> itself");
                const std::string* back = la.find(node.var, {j, 0});
                if (back) {
                    if (type != reverse_link(*back))
                        throw InputError("inconsistent link assumptions for " + std::to_string(node.var) + " - " +
                                         std::to_string(j) + " at lag 0 ('" + type + "' and '" + *back + "')");
                } else {
                    la.links[static_cast<std::size_t>(node.var)].push_back({{j, 0}, reverse_link(type)});
                }
            } else {
                type = std::string{'-', type[1], '>'};
            }
        }
    }
    // Contemporaneous cycles of '-->'/'-?>' links (tigramite's _check_cyclic).
    std::vector<int> state(static_cast<std::size_t>(n_vars), 0);  // 0 new, 1 on the path, 2 done
    const std::function<bool(std::int32_t)> cyclic = [&](std::int32_t v) {
        state[static_cast<std::size_t>(v)] = 1;
        for (const auto& [node, type] : la.links[static_cast<std::size_t>(v)])
            if (node.lag == 0 && (type == "-->" || type == "-?>")) {
                const int s = state[static_cast<std::size_t>(node.var)];
                if (s == 1 || (s == 0 && cyclic(node.var))) return true;
            }
        state[static_cast<std::size_t>(v)] = 2;
        return false;
    };
    for (std::int32_t v = 0; v < n_vars; ++v)
        if (state[static_cast<std::size_t>(v)] == 0 && cyclic(v))
            throw InputError("the link assumptions have a contemporaneous cycle");
    la.index(tau_max);
    return la;
}

void check_settings(const Settings& s, std::int32_t n_vars, std::int64_t length) {
    if (!(0 <= s.tau_min && s.tau_min <= s.tau_max))
        throw InputError("tau_max = " + std::to_string(s.tau_max) + ", tau_min = " + std::to_string(s.tau_min) +
                         ", but 0 <= tau_min <= tau_max is required");
    if (2 * static_cast<std::int64_t>(s.tau_max) >= length)
        throw InputError("tau_max " + std::to_string(s.tau_max) + " leaves no samples: PCMCI tests on time steps " +
                         "2*tau_max..T-1 and the series have T = " + std::to_string(length) +
                         " (tau_max must be below T/2)");
    if (!(s.pc_alpha >= 0.0 && s.pc_alpha <= 1.0)) throw InputError("pc_alpha must lie in [0, 1]");
    if (!(s.alpha_level >= 0.0 && s.alpha_level <= 1.0)) throw InputError("alpha_level must lie in [0, 1]");
    if (s.max_combinations <= 0) throw InputError("max_combinations must be > 0");
    if (s.max_conds_dim < -1 || s.max_conds_py < -1 || s.max_conds_px < -1)
        throw InputError("the maximum condition dimensions must be >= 0");
    if (n_vars < 1) throw InputError("no series to analyse");
}

std::vector<std::vector<Node>> run_pc_stable(const LaggedData& lagged, const Settings& s, ci::BatchTest& tests,
                                             std::int64_t* n_tests, const ProgressFn& progress, Pc1Matrices* matrices) {
    const std::int32_t n = lagged.n_vars;
    const std::int32_t tau_min = std::max(1, s.tau_min);
    const LinkAssumptions la = s.link_assumptions ? normalise_links(*s.link_assumptions, n, tau_min, s.tau_max, true)
                                                  : default_links(n, tau_min, s.tau_max);
    const std::int64_t max_dim =
        s.max_conds_dim >= 0 ? s.max_conds_dim : static_cast<std::int64_t>(n) * (s.tau_max - tau_min + 1);
    std::vector<Pc1> st(static_cast<std::size_t>(n));
    for (std::int32_t j = 0; j < n; ++j) st[static_cast<std::size_t>(j)].parents = candidates(la, j);
    std::int64_t done_tests = 0, planned = 0;
    // PC1's matrices (for run_pcmciplus): pval_max starts as None, so the first test sets it.
    const std::size_t lags = static_cast<std::size_t>(s.tau_max + 1);
    // Where (j, node)'s entry is in st[j].val_min (−1: none): a flat table, as the lists grow long
    // (N·tau_max candidates a variable) and every test looks its parent up.
    const std::size_t per_j = static_cast<std::size_t>(n) * lags;
    std::vector<std::int32_t> slot(static_cast<std::size_t>(n) * per_j, -1);
    const auto slot_of = [&](std::int32_t j, Node node) -> std::int32_t& {
        return slot[static_cast<std::size_t>(j) * per_j + static_cast<std::size_t>(node.var) * lags +
                    static_cast<std::size_t>(node.lag)];
    };
    std::vector<char> tested;
    if (matrices) {
        const std::size_t cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * lags;
        matrices->val_matrix.assign(cells, 0.0);
        matrices->p_matrix.assign(cells, 1.0);
        tested.assign(cells, 0);
    }
    for (std::int64_t dim = 0; dim <= max_dim; ++dim) {
        // One entry per (j, parent) of this level that still has subsets to test.
        struct Item {
            std::int32_t j;
            std::size_t parent;
            std::vector<int> comb;  // indices into the other parents
            bool nonsig = false, live = true;
        };
        std::vector<Item> items;
        for (std::int32_t j = 0; j < n; ++j) {
            Pc1& p = st[static_cast<std::size_t>(j)];
            if (p.done) continue;
            if (static_cast<std::int64_t>(p.parents.size()) - 1 < dim) {
                p.done = true;
                continue;
            }
            for (std::size_t k = 0; k < p.parents.size(); ++k) {
                Item it{j, k, std::vector<int>(static_cast<std::size_t>(dim)), false, true};
                std::iota(it.comb.begin(), it.comb.end(), 0);
                items.push_back(std::move(it));
            }
        }
        if (items.empty()) break;
        for (std::int32_t round = 0; round < s.max_combinations; ++round) {
            Batch batch;
            std::vector<std::size_t> asked;  // items with a test in this batch
            std::vector<std::size_t> fixed;  // items whose link is '-->' (no test)
            for (std::size_t q = 0; q < items.size(); ++q) {
                Item& it = items[q];
                if (!it.live) continue;
                const Pc1& p = st[static_cast<std::size_t>(it.j)];
                const Node parent = p.parents[it.parent];
                if (*la.find(it.j, parent) == "-->") {
                    fixed.push_back(q);
                    continue;
                }
                std::vector<Node> z;
                z.reserve(it.comb.size());
                for (int c : it.comb) {
                    const std::size_t k =
                        static_cast<std::size_t>(c) + (static_cast<std::size_t>(c) >= it.parent ? 1 : 0);
                    z.push_back(p.parents[k]);
                }
                add_query(batch.queries, lagged, parent, {it.j, 0}, z);
                asked.push_back(q);
            }
            planned += static_cast<std::int64_t>(asked.size());
            batch.run(tests, "condition selection", done_tests, planned, progress);
            done_tests += static_cast<std::int64_t>(asked.size());
            // Record in tigramite's order: items are in (j, parent) order, each its own state.
            std::vector<double> val(items.size(), 0.0), pv(items.size(), 0.0);
            std::vector<char> has(items.size(), 0);
            for (std::size_t a = 0; a < asked.size(); ++a) {
                val[asked[a]] = batch.statistic[a];
                pv[asked[a]] = batch.p[a];
                has[asked[a]] = 1;
            }
            for (std::size_t q : fixed) {
                val[q] = 1.0;
                pv[q] = 0.0;
                has[q] = 1;
            }
            for (std::size_t q = 0; q < items.size(); ++q) {
                if (!has[q]) continue;
                Item& it = items[q];
                Pc1& p = st[static_cast<std::size_t>(it.j)];
                const Node parent = p.parents[it.parent];
                const double a = std::fabs(val[q]);
                std::int32_t& at = slot_of(it.j, parent);
                // Python's min(|val|, old): the old value only where it is smaller.
                if (at < 0) {
                    at = static_cast<std::int32_t>(p.val_min.size());
                    p.val_min.push_back({parent, a});
                } else if (!(p.val_min[static_cast<std::size_t>(at)].second < a)) {
                    p.val_min[static_cast<std::size_t>(at)].second = a;
                }
                if (matrices) {
                    const std::size_t cell = (static_cast<std::size_t>(parent.var) * static_cast<std::size_t>(n) +
                                              static_cast<std::size_t>(it.j)) *
                                                 lags +
                                             static_cast<std::size_t>(parent.lag);
                    if (!tested[cell] || pv[q] > matrices->p_matrix[cell]) {
                        tested[cell] = 1;
                        matrices->p_matrix[cell] = pv[q];
                        matrices->val_matrix[cell] = val[q];
                    }
                }
                const bool dependent = pv[q] <= s.pc_alpha;
                if (!dependent) {
                    it.nonsig = true;
                    it.live = false;
                } else if (!next_combination(it.comb, static_cast<int>(p.parents.size()) - 1)) {
                    it.live = false;
                }
            }
        }
        // Drop the non-significant parents, then sort the rest by val_min, largest first (stable).
        std::vector<char> erased(static_cast<std::size_t>(n), 0);
        for (const Item& it : items)
            if (it.nonsig) {
                Pc1& p = st[static_cast<std::size_t>(it.j)];
                std::int32_t& at = slot_of(it.j, p.parents[it.parent]);
                p.val_min[static_cast<std::size_t>(at)].first.var = -1;  // erased below, order kept
                at = -1;
                erased[static_cast<std::size_t>(it.j)] = 1;
            }
        for (std::int32_t j = 0; j < n; ++j) {
            if (!erased[static_cast<std::size_t>(j)]) continue;
            auto& vm = st[static_cast<std::size_t>(j)].val_min;
            vm.erase(std::remove_if(vm.begin(), vm.end(), [](const auto& e) { return e.first.var < 0; }), vm.end());
            for (std::size_t k = 0; k < vm.size(); ++k) slot_of(j, vm[k].first) = static_cast<std::int32_t>(k);
        }
        for (std::int32_t j = 0; j < n; ++j) {
            Pc1& p = st[static_cast<std::size_t>(j)];
            if (p.done) continue;
            std::vector<std::pair<Node, double>> sorted = p.val_min;
            std::stable_sort(sorted.begin(), sorted.end(),
                             [](const auto& a, const auto& b) { return a.second > b.second; });
            p.parents.clear();
            for (const auto& e : sorted) p.parents.push_back(e.first);
        }
    }
    if (n_tests) *n_tests = done_tests;
    std::vector<std::vector<Node>> out(static_cast<std::size_t>(n));
    for (std::int32_t j = 0; j < n; ++j) out[static_cast<std::size_t>(j)] = st[static_cast<std::size_t>(j)].parents;
    return out;
}

std::vector<double> fdr_bh(const std::vector<double>& p) {
    const std::size_t m = p.size();
    std::vector<std::size_t> order(m);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
    std::vector<double> corrected(m);
    for (std::size_t k = 0; k < m; ++k) {
        const double ecdf = static_cast<double>(k + 1) / static_cast<double>(m);
        corrected[k] = p[order[k]] / ecdf;
    }
    for (std::size_t k = m; k-- > 1;) corrected[k - 1] = std::min(corrected[k - 1], corrected[k]);
    std::vector<double> q(m);
    for (std::size_t k = 0; k < m; ++k) q[order[k]] = corrected[k] > 1.0 ? 1.0 : corrected[k];
    return q;
}

Result run_pcmci(const LaggedData& lagged, const Settings& s, ci::BatchTest& tests, const ProgressFn& progress) {
    check_settings(s, lagged.n_vars, lagged.length);
    // The rows are the time steps 2·tau_max..T − 1 only when the table stops at lag 2·tau_max.
    if (lagged.max_lag != 2 * s.tau_max)
        throw std::logic_error("run_pcmci: the lagged table must hold lags 0..2*tau_max");
    Result r;
    r.n_vars = lagged.n_vars;
    r.tau_max = s.tau_max;
    r.samples = lagged.data.n_samples;
    r.parents = run_pc_stable(lagged, s, tests, &r.pc1_tests, progress);

    const std::int32_t n = lagged.n_vars;
    const LinkAssumptions la = s.link_assumptions ? normalise_links(*s.link_assumptions, n, s.tau_min, s.tau_max, false)
                                                  : default_links(n, s.tau_min, s.tau_max);
    const std::int64_t dim_default = static_cast<std::int64_t>(n) * (s.tau_max - s.tau_min + 1);
    const std::size_t max_py = static_cast<std::size_t>(s.max_conds_py >= 0 ? s.max_conds_py : dim_default);
    const std::size_t max_px = static_cast<std::size_t>(s.max_conds_px >= 0 ? s.max_conds_px : dim_default);
    const std::size_t cells =
        static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * static_cast<std::size_t>(s.tau_max + 1);
    r.val_matrix.assign(cells, 0.0);
    r.p_matrix.assign(cells, 1.0);

    Batch batch;
    std::vector<std::size_t> where;  // the cell of each query
    for (std::int32_t j = 0; j < n; ++j) {
        const std::vector<Node>& pj = r.parents[static_cast<std::size_t>(j)];
        const std::vector<Node> conds_y(pj.begin(),
                                        pj.begin() + static_cast<std::ptrdiff_t>(std::min(max_py, pj.size())));
        for (Node x : candidates(la, j)) {
            const std::size_t cell = r.at(x.var, j, x.lag);
            const std::string* type = la.find(j, x);
            if (type && (*type == "-->" || *type == "o-o")) {
                r.val_matrix[cell] = 1.0;
                r.p_matrix[cell] = 0.0;
                continue;
            }
            const std::vector<Node>& pi = r.parents[static_cast<std::size_t>(x.var)];
            std::vector<Node> z;
            for (Node c : conds_y)
                if (!(c == x)) z.push_back(c);
            const std::size_t n_y = z.size();
            for (std::size_t k = 0; k < std::min(max_px, pi.size()); ++k) {
                const Node shifted{pi[k].var, pi[k].lag + x.lag};
                if (std::find(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(n_y), shifted) ==
                    z.begin() + static_cast<std::ptrdiff_t>(n_y))
                    z.push_back(shifted);
            }
            // construct_array: duplicates kept once (first place), X and Y themselves dropped.
            std::vector<Node> clean;
            for (Node c : z)
                if (!(c == x) && !(c == Node{j, 0}) && std::find(clean.begin(), clean.end(), c) == clean.end())
                    clean.push_back(c);
            add_query(batch.queries, lagged, x, {j, 0}, clean);
            where.push_back(cell);
        }
    }
    r.mci_tests = static_cast<std::int64_t>(where.size());
    batch.run(tests, "MCI", 0, r.mci_tests, progress);
    for (std::size_t q = 0; q < where.size(); ++q) {
        r.val_matrix[where[q]] = batch.statistic[q];
        r.p_matrix[where[q]] = batch.p[q];
    }

    if (s.fdr_bh) {
        // tigramite's mask: the links the assumptions allow, lagged ones only, in C order (i, j, lag).
        std::vector<char> mask(cells, 0);
        for (std::int32_t j = 0; j < n; ++j)
            for (const auto& [node, type] : la.links[static_cast<std::size_t>(j)])
                if (!lagged_out(type) && node.lag > 0) mask[r.at(node.var, j, node.lag)] = 1;
        std::vector<double> pv;
        for (std::size_t c = 0; c < cells; ++c)
            if (mask[c]) pv.push_back(r.p_matrix[c]);
        const std::vector<double> q = fdr_bh(pv);
        for (std::size_t c = 0, k = 0; c < cells; ++c)
            if (mask[c]) r.p_matrix[c] = q[k++];
    }

    r.graph.assign(cells, "");
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j = 0; j < n; ++j) {
            for (std::int32_t lag = 1; lag <= s.tau_max; ++lag)
                if (r.p_matrix[r.at(i, j, lag)] <= s.alpha_level) r.graph[r.at(i, j, lag)] = "-->";
            const bool ij = r.p_matrix[r.at(i, j, 0)] <= s.alpha_level;
            const bool ji = r.p_matrix[r.at(j, i, 0)] <= s.alpha_level;
            if (ij && ji)
                r.graph[r.at(i, j, 0)] = "o-o";
            else if (ij) {
                r.graph[r.at(i, j, 0)] = "-->";
                r.graph[r.at(j, i, 0)] = "<--";
            }
        }
    // symmetrize_p_and_val_matrix, in tigramite's loop order (it updates in place).
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j = 0; j < n; ++j) {
            const std::string* type = la.find(j, {i, 0});
            if (!type) continue;
            const std::size_t ij = r.at(i, j, 0), ji = r.at(j, i, 0);
            if (*type == "o-o" || *type == "o?o") {
                if (r.p_matrix[ij] >= r.p_matrix[ji]) {
                    r.p_matrix[ji] = r.p_matrix[ij];
                    r.val_matrix[ji] = r.val_matrix[ij];
                }
            } else if (*type == "-->" || *type == "-?>") {
                r.p_matrix[ji] = r.p_matrix[ij];
                r.val_matrix[ji] = r.val_matrix[ij];
            }
        }
    return r;
}

}  // namespace cudag::pcmci
