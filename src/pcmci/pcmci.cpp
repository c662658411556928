// SPDX-License-Identifier: Apache-2.0
#include "pcmci/pcmci.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>

#include "ci/regression_core.hpp"
#include "core/choice.hpp"
#include "core/error.hpp"
#include "core/exact_math.hpp"
#include "core/format.hpp"
#include "pcmci/batch.hpp"

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

std::string node_text(Node n) {
    return "(" + std::to_string(n.var) + ", " + std::to_string(-static_cast<std::int64_t>(n.lag)) + ")";  // tigramite's
}

/// The candidate parents of j: its links of a type other than '<--'/'<?-', but (j, 0).
std::vector<Node> candidates(const LinkAssumptions& la, std::int32_t j) {
    std::vector<Node> out;
    for (const auto& [node, type] : la.links[static_cast<std::size_t>(j)])
        if (!(node == Node{j, 0}) && !lagged_out(type)) out.push_back(node);
    return out;
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
        static_cast<std::size_t>(node.var) <
            at_[static_cast<std::size_t>(j)].size() / static_cast<std::size_t>(lags_)) {
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

std::vector<double> default_pc_alpha_list(bool pcmciplus) {
    if (pcmciplus) return {0.001, 0.005, 0.01, 0.025, 0.05};
    return {0.05, 0.1, 0.2, 0.3, 0.4, 0.5};
}

namespace {
constexpr Choice<ColliderRule> kColliderRules[] = {
    {"majority", ColliderRule::Majority}, {"conservative", ColliderRule::Conservative}, {"none", ColliderRule::None}};
}  // namespace

ColliderRule parse_collider_rule(const std::string& name) {
    // tigramite's keyword and words (cudag.pcmci's and --contemp-collider-rule's alike).
    if (const std::optional<ColliderRule> rule = find_choice(kColliderRules, name)) return *rule;
    throw InputError("contemp_collider_rule '" + name + "': the rules are majority, conservative and none");
}

std::string to_string(ColliderRule r) { return choice_word(kColliderRules, r); }

void check_settings(const Settings& s, std::int32_t n_vars, std::int64_t length) {
    if (!(0 <= s.tau_min && s.tau_min <= s.tau_max))
        throw InputError("tau_max = " + std::to_string(s.tau_max) + ", tau_min = " + std::to_string(s.tau_min) +
                         ", but 0 <= tau_min <= tau_max is required");
    if (2 * static_cast<std::int64_t>(s.tau_max) >= length)
        throw InputError("tau_max " + std::to_string(s.tau_max) + " leaves no samples: PCMCI tests on time steps " +
                         "2*tau_max..T-1 and the series have T = " + std::to_string(length) +
                         " (tau_max must be below T/2)");
    if (!(s.pc_alpha >= 0.0 && s.pc_alpha <= 1.0)) throw InputError("pc_alpha must lie in [0, 1]");
    for (const double a : s.pc_alpha_list)
        if (!(a >= 0.0 && a <= 1.0))
            throw InputError("pc_alpha must lie in [0, 1], and the list holds " + exact_number(a));
    if (!(s.alpha_level >= 0.0 && s.alpha_level <= 1.0)) throw InputError("alpha_level must lie in [0, 1]");
    if (s.max_combinations <= 0) throw InputError("max_combinations must be > 0");
    if (s.max_conds_dim < -1 || s.max_conds_py < -1 || s.max_conds_px < -1)
        throw InputError("the maximum condition dimensions must be >= 0");
    if (n_vars < 1) throw InputError("no series to analyse");
}

double model_selection_criterion(const LaggedData& lagged, std::int32_t j, const std::vector<Node>& parents) {
    namespace core = ci::regression_core;
    // construct_array's Z: duplicates kept once, (j, 0) (X and Y) left out; here in (var, lag) order.
    std::vector<Node> z;
    for (Node p : parents)
        if (!(p == Node{j, 0}) && std::find(z.begin(), z.end(), p) == z.end()) z.push_back(p);
    std::sort(z.begin(), z.end(), [](Node a, Node b) { return a.var != b.var ? a.var < b.var : a.lag < b.lag; });
    const std::int64_t t = lagged.data.n_samples;
    std::vector<core::DesignVar> vars(z.size());
    for (std::size_t k = 0; k < z.size(); ++k) vars[k].col = lagged.data.column(lagged.column(z[k]));
    core::Design design;
    design.n = t;
    design.vars = vars.data();
    design.n_vars = static_cast<int>(vars.size());
    design.p = static_cast<int>(vars.size());
    const double* y = lagged.data.column(lagged.column(Node{j, 0}));
    std::vector<double> work(static_cast<std::size_t>(core::linear_doubles(t, design.p)));
    std::vector<std::int32_t> perm(std::max<std::size_t>(1, vars.size()));
    const double rss_raw = core::residual_sum_of_squares(design, y, work.data(), perm.data());
    std::vector<double> centred(y, y + t);
    const double norm = core::centre(core::SerialRows{}, centred.data(), t);
    // tigramite's RSS is that of y / sd(y), sd² = Σ(y − ȳ)² / T.
    const double rss = static_cast<double>(t) * (rss_raw / (norm * norm));
    return static_cast<double>(t) * xm::log(rss) + 2.0 * static_cast<double>(z.size() + 1);
}

std::vector<std::vector<Node>> run_pc_stable(const LaggedData& lagged, const Settings& s, ci::BatchTest& tests,
                                             std::int64_t* n_tests, const ProgressFn& progress, Pc1Matrices* matrices,
                                             Pc1Selection* selection) {
    const std::int32_t n = lagged.n_vars;
    const std::int32_t tau_min = std::max(1, s.tau_min);
    const LinkAssumptions la = s.link_assumptions ? normalise_links(*s.link_assumptions, n, tau_min, s.tau_max, true)
                                                  : default_links(n, tau_min, s.tau_max);
    const std::int64_t max_dim =
        s.max_conds_dim >= 0 ? s.max_conds_dim : static_cast<std::int64_t>(n) * (s.tau_max - tau_min + 1);
    // One lane per pc_alpha: lane a's PC1 of variable j is st[a·N + j].
    const bool select = !s.pc_alpha_list.empty();
    const std::vector<double> alphas = select ? s.pc_alpha_list : std::vector<double>{s.pc_alpha};
    const std::size_t n_lanes = alphas.size();
    const std::size_t un = static_cast<std::size_t>(n);
    std::vector<Pc1> st(n_lanes * un);
    for (std::size_t l = 0; l < n_lanes; ++l)
        for (std::int32_t j = 0; j < n; ++j) st[l * un + static_cast<std::size_t>(j)].parents = candidates(la, j);
    std::int64_t done_tests = 0, planned = 0;
    SliceSize slice;
    // PC1's matrices (for run_pcmciplus), per lane: pval_max starts as None, so the first test sets it.
    const std::size_t lags = static_cast<std::size_t>(s.tau_max + 1);
    // Where (lane·N + j, node)'s entry is in its val_min (−1: none): a flat table, as the lists
    // grow long (N·tau_max candidates a variable) and every test looks its parent up.
    const std::size_t per_j = un * lags;
    std::vector<std::int32_t> slot(n_lanes * un * per_j, -1);
    const auto slot_of = [&](std::size_t lane_j, Node node) -> std::int32_t& {
        return slot[lane_j * per_j + static_cast<std::size_t>(node.var) * lags + static_cast<std::size_t>(node.lag)];
    };
    const std::size_t cells = un * un * lags;
    std::vector<Pc1Matrices> lane_matrices;
    std::vector<std::vector<char>> tested;
    if (matrices) {
        lane_matrices.resize(n_lanes);
        tested.assign(n_lanes, std::vector<char>(cells, 0));
        for (Pc1Matrices& m : lane_matrices) {
            m.val_matrix.assign(cells, 0.0);
            m.p_matrix.assign(cells, 1.0);
        }
    }
    for (std::int64_t dim = 0; dim <= max_dim; ++dim) {
        // One entry per (lane, j, parent) of this level that still has subsets to test.
        struct Item {
            std::size_t lane;
            std::int32_t j;
            std::size_t parent;
            std::vector<int> comb;  // indices into the other parents
            bool nonsig = false, live = true;
        };
        std::vector<Item> items;
        for (std::size_t l = 0; l < n_lanes; ++l)
            for (std::int32_t j = 0; j < n; ++j) {
                Pc1& p = st[l * un + static_cast<std::size_t>(j)];
                if (p.done) continue;
                if (static_cast<std::int64_t>(p.parents.size()) - 1 < dim) {
                    p.done = true;
                    continue;
                }
                for (std::size_t k = 0; k < p.parents.size(); ++k) {
                    Item it{l, j, k, std::vector<int>(static_cast<std::size_t>(dim)), false, true};
                    std::iota(it.comb.begin(), it.comb.end(), 0);
                    items.push_back(std::move(it));
                }
            }
        if (items.empty()) break;
        for (std::int32_t round = 0; round < s.max_combinations; ++round) {
            Batch batch;
            std::vector<std::size_t> answer(items.size(), 0);  // the query that answers each asked item
            std::vector<char> asked(items.size(), 0);          // items with a test in this batch
            std::vector<std::size_t> fixed;                    // items whose link is '-->' (no test)
            // Lanes ask the same tests (all of them at level 0): each distinct query once.
            std::map<std::vector<std::int32_t>, std::size_t> seen;
            for (std::size_t q = 0; q < items.size(); ++q) {
                Item& it = items[q];
                if (!it.live) continue;
                const Pc1& p = st[it.lane * un + static_cast<std::size_t>(it.j)];
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
                asked[q] = 1;
                if (n_lanes > 1) {
                    std::vector<std::int32_t> key{lagged.column(parent), lagged.column(Node{it.j, 0})};
                    for (Node c : z) key.push_back(lagged.column(c));
                    const auto [where, added] = seen.emplace(std::move(key), batch.queries.size());
                    answer[q] = where->second;
                    if (!added) continue;
                } else {
                    answer[q] = batch.queries.size();
                }
                batch.add(lagged, parent, {it.j, 0}, z);
            }
            const auto n_asked = static_cast<std::int64_t>(batch.queries.size());
            planned += n_asked;
            batch.run(tests, slice, "condition selection", done_tests, planned, progress);
            done_tests += n_asked;
            // Record in tigramite's order: items are in (lane, j, parent) order, each its own state.
            std::vector<double> val(items.size(), 0.0), pv(items.size(), 0.0);
            std::vector<char> has(items.size(), 0);
            for (std::size_t q = 0; q < items.size(); ++q)
                if (asked[q]) {
                    val[q] = batch.statistic[answer[q]];
                    pv[q] = batch.p[answer[q]];
                    has[q] = 1;
                }
            for (std::size_t q : fixed) {
                val[q] = 1.0;
                pv[q] = 0.0;
                has[q] = 1;
            }
            for (std::size_t q = 0; q < items.size(); ++q) {
                if (!has[q]) continue;
                Item& it = items[q];
                Pc1& p = st[it.lane * un + static_cast<std::size_t>(it.j)];
                const Node parent = p.parents[it.parent];
                const double a = std::fabs(val[q]);
                std::int32_t& at = slot_of(it.lane * un + static_cast<std::size_t>(it.j), parent);
                // Python's min(|val|, old): the old value only where it is smaller.
                if (at < 0) {
                    at = static_cast<std::int32_t>(p.val_min.size());
                    p.val_min.push_back({parent, a});
                } else if (!(p.val_min[static_cast<std::size_t>(at)].second < a)) {
                    p.val_min[static_cast<std::size_t>(at)].second = a;
                }
                if (matrices) {
                    const std::size_t cell =
                        (static_cast<std::size_t>(parent.var) * un + static_cast<std::size_t>(it.j)) * lags +
                        static_cast<std::size_t>(parent.lag);
                    Pc1Matrices& m = lane_matrices[it.lane];
                    if (!tested[it.lane][cell] || pv[q] > m.p_matrix[cell]) {
                        tested[it.lane][cell] = 1;
                        m.p_matrix[cell] = pv[q];
                        m.val_matrix[cell] = val[q];
                    }
                }
                const bool dependent = pv[q] <= alphas[it.lane];
                if (!dependent) {
                    it.nonsig = true;
                    it.live = false;
                } else if (!next_combination(it.comb, static_cast<int>(p.parents.size()) - 1)) {
                    it.live = false;
                }
            }
        }
        // Drop the non-significant parents, then sort the rest by val_min, largest first (stable).
        std::vector<char> erased(st.size(), 0);
        for (const Item& it : items)
            if (it.nonsig) {
                const std::size_t lane_j = it.lane * un + static_cast<std::size_t>(it.j);
                Pc1& p = st[lane_j];
                std::int32_t& at = slot_of(lane_j, p.parents[it.parent]);
                p.val_min[static_cast<std::size_t>(at)].first.var = -1;  // erased below, order kept
                at = -1;
                erased[lane_j] = 1;
            }
        for (std::size_t lane_j = 0; lane_j < st.size(); ++lane_j) {
            if (!erased[lane_j]) continue;
            auto& vm = st[lane_j].val_min;
            vm.erase(std::remove_if(vm.begin(), vm.end(), [](const auto& e) { return e.first.var < 0; }), vm.end());
            for (std::size_t k = 0; k < vm.size(); ++k) slot_of(lane_j, vm[k].first) = static_cast<std::int32_t>(k);
        }
        for (Pc1& p : st) {
            if (p.done) continue;
            std::vector<std::pair<Node, double>> sorted = p.val_min;
            std::stable_sort(sorted.begin(), sorted.end(),
                             [](const auto& a, const auto& b) { return a.second > b.second; });
            p.parents.clear();
            for (const auto& e : sorted) p.parents.push_back(e.first);
        }
    }
    if (n_tests) *n_tests = done_tests;
    // Each variable's lane: the only one, or the lowest score (numpy's argmin: the first of equal ones).
    std::vector<std::size_t> chosen(un, 0);
    if (select) {
        Pc1Selection sel;
        sel.candidates = alphas;
        sel.scores.resize(un * n_lanes);
        for (std::int32_t j = 0; j < n; ++j) {
            const std::size_t uj = static_cast<std::size_t>(j);
            for (std::size_t l = 0; l < n_lanes; ++l) {
                const std::vector<Node>& parents = st[l * un + uj].parents;
                // The same parents (as lanes often end) score the same: computed once.
                std::size_t same = l;
                for (std::size_t k = 0; k < l; ++k)
                    if (st[k * un + uj].parents == parents) {
                        same = k;
                        break;
                    }
                sel.scores[uj * n_lanes + l] =
                    same < l ? sel.scores[uj * n_lanes + same] : model_selection_criterion(lagged, j, parents);
                // numpy's argmin takes the first NaN, else the first minimum.
                const double score = sel.scores[uj * n_lanes + l], best = sel.scores[uj * n_lanes + chosen[uj]];
                if (!std::isnan(best) && (std::isnan(score) || score < best)) chosen[uj] = l;
            }
            sel.optimal.push_back(alphas[chosen[uj]]);
        }
        if (selection) *selection = std::move(sel);
    }
    if (matrices) {
        matrices->val_matrix.assign(cells, 0.0);
        matrices->p_matrix.assign(cells, 1.0);
        for (std::size_t i = 0; i < un; ++i)
            for (std::size_t j = 0; j < un; ++j)
                for (std::size_t lag = 0; lag < lags; ++lag) {
                    const std::size_t cell = (i * un + j) * lags + lag;
                    matrices->val_matrix[cell] = lane_matrices[chosen[j]].val_matrix[cell];
                    matrices->p_matrix[cell] = lane_matrices[chosen[j]].p_matrix[cell];
                }
    }
    std::vector<std::vector<Node>> out(un);
    for (std::size_t j = 0; j < un; ++j) out[j] = std::move(st[chosen[j] * un + j].parents);
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
    Pc1Selection selection;
    r.parents = run_pc_stable(lagged, s, tests, &r.pc1_tests, progress, nullptr, &selection);
    r.pc_alpha_candidates = std::move(selection.candidates);
    r.optimal_pc_alpha = std::move(selection.optimal);
    r.pc_alpha_scores = std::move(selection.scores);

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
            batch.add(lagged, x, {j, 0}, clean);
            where.push_back(cell);
        }
    }
    r.mci_tests = static_cast<std::int64_t>(where.size());
    SliceSize slice;
    batch.run(tests, slice, "MCI", 0, r.mci_tests, progress);
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
