// SPDX-License-Identifier: Apache-2.0
#include "pcmci/pcmciplus.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "pcmci/batch.hpp"

namespace cudag::pcmci {
namespace {

using Graph = std::vector<std::string>;

bool lagged_out(const std::string& type) { return type == "<--" || type == "<?-"; }

/// Result's layout: cell (i, j, lag) is the link (i, −lag) → j.
struct Cells {
    std::int32_t n = 0;
    std::int32_t lags = 0;  // tau_max + 1
    std::size_t at(std::int32_t i, std::int32_t j, std::int32_t lag) const {
        return (static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)) *
                   static_cast<std::size_t>(lags) +
               static_cast<std::size_t>(lag);
    }
    std::size_t size() const { return static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * lags; }
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

/// The conditions of an MCI test of PCMCI+ (tigramite's _run_pcalg_test): the contemporaneous
/// set S, then Y's first max_conds_py lagged parents but X and those in S, then X's first
/// max_conds_px (max_conds_px_lagged when X is lagged) parents shifted by X's lag but those
/// already there; construct_array then keeps each node once and drops X and Y.
struct MciConditions {
    const std::vector<std::vector<Node>>& parents;
    std::size_t max_py, max_px, max_px_lagged;

    std::vector<Node> operator()(std::int32_t i, std::int32_t lag, std::int32_t j,
                                 const std::vector<std::int32_t>& s) const {
        const Node x{i, lag}, y{j, 0};
        std::vector<Node> z;
        for (std::int32_t k : s) z.push_back({k, 0});
        const std::size_t n_s = z.size();
        const std::vector<Node>& pj = parents[static_cast<std::size_t>(j)];
        for (std::size_t k = 0; k < std::min(max_py, pj.size()); ++k)
            if (!(pj[k] == x) && std::find(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(n_s), pj[k]) ==
                                     z.begin() + static_cast<std::ptrdiff_t>(n_s))
                z.push_back(pj[k]);
        const std::size_t n_y = z.size();
        const std::vector<Node>& pi = parents[static_cast<std::size_t>(i)];
        const std::size_t max_x = lag == 0 ? max_px : max_px_lagged;
        for (std::size_t k = 0; k < std::min(max_x, pi.size()); ++k) {
            const Node shifted{pi[k].var, pi[k].lag + lag};
            if (std::find(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(n_y), shifted) ==
                z.begin() + static_cast<std::ptrdiff_t>(n_y))
                z.push_back(shifted);
        }
        std::vector<Node> clean;
        for (Node c : z)
            if (!(c == x) && !(c == y) && std::find(clean.begin(), clean.end(), c) == clean.end()) clean.push_back(c);
        return clean;
    }

    /// The lagged table's columns of the conditions that follow S (the parents' part) when
    /// every parent is lagged, as PCMCI+'s lagged parents are: S's nodes (k, 0) are then never
    /// a parent's, nor X's or Y's (S holds neither), so operator()(i, lag, j, S) is S followed by
    /// operator()(i, lag, j, {}) whatever S. Throws std::logic_error for a contemporaneous parent.
    std::vector<std::int32_t> tail_columns(const LaggedData& lagged, std::int32_t i, std::int32_t lag,
                                           std::int32_t j) const {
        for (const std::int32_t v : {i, j})
            for (const Node n : parents[static_cast<std::size_t>(v)])
                if (n.lag < 1) throw std::logic_error("pcmciplus: a contemporaneous parent in the MCI conditions");
        std::vector<std::int32_t> out;
        for (const Node n : (*this)(i, lag, j, {})) out.push_back(lagged.column(n));
        return out;
    }
};

/// S's columns (nodes (k, 0) for k in `vars`) then `tail` as one query of `batch`.
void add_mci_query(Batch& batch, const LaggedData& lagged, std::int32_t i, std::int32_t lag, std::int32_t j,
                   std::span<const std::int32_t> vars, const std::vector<std::int32_t>& tail) {
    ci::QueryList& q = batch.queries;
    q.x.push_back(lagged.column(i, lag));
    q.y.push_back(lagged.column(j, 0));
    for (const std::int32_t k : vars) q.nodes.push_back(lagged.column(k, 0));
    q.nodes.insert(q.nodes.end(), tail.begin(), tail.end());
    q.offsets.push_back(static_cast<std::int64_t>(q.nodes.size()));
}

/// The contemporaneous adjacencies of every j in variable order (graph[i, j, 0] non-empty).
std::vector<std::vector<std::int32_t>> contemp_adjacencies(const Graph& g, const Cells& c, bool include_conflicts) {
    std::vector<std::vector<std::int32_t>> adj(static_cast<std::size_t>(c.n));
    for (std::int32_t j = 0; j < c.n; ++j)
        for (std::int32_t i = 0; i < c.n; ++i) {
            const std::string& t = g[c.at(i, j, 0)];
            if (!t.empty() && (include_conflicts || (t != "x-x" && t != "x?x")))
                adj[static_cast<std::size_t>(j)].push_back(i);
        }
    return adj;
}

/// Every adjacency (i, −lag) of every j, i outer and lag inner (numpy's where), conflicts left out.
std::vector<std::vector<Node>> adjacencies_no_conflicts(const Graph& g, const Cells& c) {
    std::vector<std::vector<Node>> adj(static_cast<std::size_t>(c.n));
    for (std::int32_t j = 0; j < c.n; ++j)
        for (std::int32_t i = 0; i < c.n; ++i)
            for (std::int32_t lag = 0; lag < c.lags; ++lag) {
                const std::string& t = g[c.at(i, j, lag)];
                if (!t.empty() && t != "x-x" && t != "x?x") adj[static_cast<std::size_t>(j)].push_back({i, lag});
            }
    return adj;
}

/// symmetrize_p_and_val_matrix over `links`, in tigramite's loop order (in place).
void symmetrize(std::vector<double>& p, std::vector<double>& val, const LinkAssumptions& links, const Cells& c) {
    for (std::int32_t i = 0; i < c.n; ++i)
        for (std::int32_t j = 0; j < c.n; ++j) {
            const std::string* type = links.find(j, {i, 0});
            if (!type) continue;
            const std::size_t ij = c.at(i, j, 0), ji = c.at(j, i, 0);
            if (*type == "o-o" || *type == "o?o") {
                if (p[ij] >= p[ji]) {
                    p[ji] = p[ij];
                    val[ji] = val[ij];
                }
            } else if (*type == "-->" || *type == "-?>") {
                p[ji] = p[ij];
                val[ji] = val[ij];
            }
        }
}

struct Skeleton {
    Graph graph;
    std::vector<double> val, p;
    std::vector<std::vector<std::int32_t>> sepsets;  ///< per cell: S (contemporaneous variables)
    std::int64_t tests = 0;
};

/// One pair (i, j, lag) of a skeleton level and its tests.
struct Pair {
    enum class State { Waiting, Live, Done, Skipped };
    std::int32_t i = 0, j = 0, lag = 0;
    /// The conditions are adj(j) without (i, 0): adj(j) but its position `skip` (-1: none);
    /// not copied, since level 0 has a pair for every link.
    std::ptrdiff_t skip = -1;
    int n_conds = 0;
    std::vector<int> comb;  ///< the subset under test (indices into the conditions)
    State state = State::Waiting;
    bool fixed = false;                               ///< middle mark '-': value 1, p-value 0, no test
    std::vector<std::pair<double, double>> outcomes;  ///< (value, p-value) of each subset tested, in order
    bool removed = false;
    std::vector<std::int32_t> sepset;
    std::ptrdiff_t waiter = -1;  ///< the reverse lag-0 pair later in the level, waiting for this one
    std::vector<std::int32_t> tail;  ///< the conditions' columns after S (MciConditions::tail_columns)
    bool tail_ready = false;
    std::vector<std::int32_t> subset(const std::vector<std::int32_t>& adj_j) const {
        std::vector<std::int32_t> s;
        for (int k : comb) s.push_back(adj_j[static_cast<std::size_t>(k + (skip >= 0 && k >= skip ? 1 : 0))]);
        return s;
    }
};

/// tigramite's _pcalg_skeleton in mode 'contemp_conds' (see pcmciplus.hpp).
Skeleton mci_skeleton(const LaggedData& lagged, const Settings& s, const Graph& initial, const Cells& c,
                      const MciConditions& conditions, std::int64_t max_dim, ci::BatchTest& tests,
                      const ProgressFn& progress) {
    Skeleton sk;
    sk.graph = initial;
    for (std::int32_t v = 0; v < c.n; ++v) sk.graph[c.at(v, v, 0)].clear();
    const std::size_t cells = c.size();
    sk.val.assign(cells, 0.0);
    sk.p.assign(cells, 0.0);
    std::vector<double> val_min(cells, std::numeric_limits<double>::infinity());
    for (std::size_t q = 0; q < cells; ++q)
        if (sk.graph[q].empty()) sk.p[q] = 1.0;
    sk.sepsets.assign(cells, {});
    std::vector<std::vector<std::int32_t>> adj = contemp_adjacencies(sk.graph, c, true);
    std::int64_t planned = 0, run_tests = 0;  // the progress line counts the tests run, sk.tests those recorded
    SliceSize slice;

    for (std::int64_t dim = 0; dim <= max_dim; ++dim) {
        // The level's pairs in tigramite's order (_remaining_pairs), against adj at its start.
        std::vector<Pair> pairs;
        std::vector<std::ptrdiff_t> index(cells, -1);
        for (std::int32_t i = 0; i < c.n; ++i)
            for (std::int32_t j = 0; j < c.n; ++j)
                for (std::int32_t lag = s.tau_min; lag <= s.tau_max; ++lag) {
                    const std::size_t cell = c.at(i, j, lag);
                    if (sk.graph[cell].empty()) continue;
                    Pair pr;
                    pr.i = i;
                    pr.j = j;
                    pr.lag = lag;
                    const auto& adj_j = adj[static_cast<std::size_t>(j)];
                    if (lag == 0) {
                        const auto at = std::find(adj_j.begin(), adj_j.end(), i);
                        if (at != adj_j.end()) pr.skip = at - adj_j.begin();
                    }
                    pr.n_conds = static_cast<int>(adj_j.size()) - (pr.skip >= 0 ? 1 : 0);
                    if (pr.n_conds < dim) continue;
                    pr.comb.resize(static_cast<std::size_t>(dim));
                    std::iota(pr.comb.begin(), pr.comb.end(), 0);
                    pr.fixed = sk.graph[cell][1] == '-';
                    index[cell] = static_cast<std::ptrdiff_t>(pairs.size());
                    if (lag == 0 && index[c.at(j, i, 0)] >= 0)
                        pairs[static_cast<std::size_t>(index[c.at(j, i, 0)])].waiter =
                            static_cast<std::ptrdiff_t>(pairs.size());
                    pairs.push_back(std::move(pr));
                }
        if (pairs.empty()) break;

        // Tests in rounds: the next subset of every live pair; a pair ends at its first
        // independence or its last subset, which releases the reverse pair waiting for it.
        std::vector<std::size_t> released, activated;
        const auto activate = [&](std::size_t q) {
            Pair& pr = pairs[q];
            pr.state = Pair::State::Live;
            if (!pr.fixed) activated.push_back(q);
            if (pr.fixed) {
                // Every subset gives value 1 and p-value 0: recording it once changes nothing more.
                pr.outcomes.push_back({1.0, 0.0});
                pr.state = Pair::State::Done;
                released.push_back(q);
            }
        };
        const auto release_all = [&] {
            while (!released.empty()) {
                const std::size_t q = released.back();
                released.pop_back();
                const std::ptrdiff_t w = pairs[q].waiter;
                if (w < 0) continue;
                if (pairs[q].removed)
                    pairs[static_cast<std::size_t>(w)].state = Pair::State::Skipped;
                else
                    activate(static_cast<std::size_t>(w));
            }
        };
        std::vector<char> waits(pairs.size(), 0);
        for (const Pair& pr : pairs)
            if (pr.waiter >= 0) waits[static_cast<std::size_t>(pr.waiter)] = 1;
        for (std::size_t q = 0; q < pairs.size(); ++q)
            if (!waits[q]) activate(q);
        release_all();
        // A round tests the next subset of every live pair; when few pairs are live (a level's
        // tail: pairs with many subsets), the next several subsets of each, answers past a
        // pair's end dropped: fewer rounds, the same outcomes.
        constexpr std::size_t kRoundTests = 16384, kMaxAhead = 256;
        std::vector<std::size_t> live = std::move(activated);
        activated.clear();
        while (!live.empty()) {
            const std::size_t ahead = std::clamp<std::size_t>(kRoundTests / live.size(), 1, kMaxAhead);
            Batch batch;
            std::vector<std::size_t> asked;  // per live pair: the subsets it has in the batch
            std::vector<int> comb;
            std::vector<std::int32_t> sub;
            for (const std::size_t q : live) {
                Pair& pr = pairs[q];
                const auto& adj_j = adj[static_cast<std::size_t>(pr.j)];
                if (!pr.tail_ready) {
                    pr.tail = conditions.tail_columns(lagged, pr.i, pr.lag, pr.j);
                    pr.tail_ready = true;
                }
                comb = pr.comb;
                std::size_t k = 0;
                do {
                    sub.clear();
                    for (int e : comb)
                        sub.push_back(adj_j[static_cast<std::size_t>(e + (pr.skip >= 0 && e >= pr.skip ? 1 : 0))]);
                    add_mci_query(batch, lagged, pr.i, pr.lag, pr.j, sub, pr.tail);
                    ++k;
                } while (k < ahead && next_combination(comb, pr.n_conds));
                asked.push_back(k);
            }
            planned += static_cast<std::int64_t>(batch.queries.size());
            batch.run(tests, slice, "MCI skeleton", run_tests, planned, progress);
            run_tests += static_cast<std::int64_t>(batch.queries.size());
            std::size_t a = 0;
            std::vector<std::size_t> next;
            for (std::size_t e = 0; e < live.size(); ++e) {
                Pair& pr = pairs[live[e]];
                for (std::size_t k = 0; k < asked[e]; ++k) {
                    const double v = batch.statistic[a + k], pv = batch.p[a + k];
                    pr.outcomes.push_back({v, pv});
                    ++sk.tests;
                    if (!(pv <= s.pc_alpha)) {
                        pr.removed = true;
                        pr.sepset = pr.subset(adj[static_cast<std::size_t>(pr.j)]);
                        pr.state = Pair::State::Done;
                        break;
                    }
                    if (!next_combination(pr.comb, pr.n_conds)) {
                        pr.state = Pair::State::Done;
                        break;
                    }
                }
                a += asked[e];
                if (pr.state == Pair::State::Done)
                    released.push_back(live[e]);
                else
                    next.push_back(live[e]);
            }
            // The pairs the finished ones release join the next round (fixed ones finish at once).
            release_all();
            live = std::move(next);
            live.insert(live.end(), activated.begin(), activated.end());
            activated.clear();
        }

        // The outcomes in tigramite's sequential order.
        for (const Pair& pr : pairs) {
            const std::size_t cell = c.at(pr.i, pr.j, pr.lag);
            if (sk.graph[cell].empty()) {
                if (pr.state != Pair::State::Skipped) throw std::logic_error("pcmciplus skeleton: replay out of step");
                continue;
            }
            if (pr.state != Pair::State::Done) throw std::logic_error("pcmciplus skeleton: a pair left unfinished");
            for (const auto& [v, pv] : pr.outcomes) {
                const double a = std::fabs(v);
                if (!(val_min[cell] < a)) val_min[cell] = a;
                if (pv >= sk.p[cell]) {
                    sk.p[cell] = pv;
                    sk.val[cell] = v;
                }
            }
            if (!pr.removed) continue;
            if (pr.lag == 0) {
                const std::size_t back = c.at(pr.j, pr.i, 0);
                sk.graph[cell].clear();
                sk.graph[back].clear();
                sk.sepsets[cell] = pr.sepset;
                sk.sepsets[back] = pr.sepset;
                sk.p[back] = sk.p[cell];
            } else {
                sk.graph[cell].clear();
                sk.sepsets[cell] = pr.sepset;
            }
        }

        // adj(j) for the next level: by minimum |value|, largest first, stable on variable order.
        adj = contemp_adjacencies(sk.graph, c, true);
        for (std::int32_t j = 0; j < c.n; ++j) {
            auto& a = adj[static_cast<std::size_t>(j)];
            std::stable_sort(a.begin(), a.end(), [&](std::int32_t x, std::int32_t y) {
                return val_min[c.at(x, j, 0)] > val_min[c.at(y, j, 0)];
            });
        }
    }
    return sk;
}

/// An unshielded or rule triple ((i, −lag), k, j).
struct Triple {
    std::int32_t i, lag, k, j;
    auto key() const { return std::tie(i, lag, k, j); }
    bool operator<(const Triple& o) const { return key() < o.key(); }
    bool operator==(const Triple& o) const { return key() == o.key(); }
};

/// Calls fn(subset) for every subset of `s` (sizes 0..|s|, each in the order of s; none for an
/// empty s, as tigramite's) for which keep(subset) holds.
template <class Keep, class Fn>
void for_each_subset(const std::vector<std::int32_t>& s, std::vector<std::int32_t>& sub, Keep&& keep, Fn&& fn) {
    if (s.empty()) return;
    const int m = static_cast<int>(s.size());
    std::vector<int> comb;
    for (int size = 0; size <= m; ++size) {
        comb.resize(static_cast<std::size_t>(size));
        std::iota(comb.begin(), comb.end(), 0);
        do {
            sub.clear();
            for (int k : comb) sub.push_back(s[static_cast<std::size_t>(k)]);
            if (keep(sub)) fn(std::span<const std::int32_t>(sub));
        } while (next_combination(comb, m));
    }
}

/// The collider phase's subsets of a triple, in tigramite's order: every subset of nj (adj(j)
/// without (i, 0)), then those of ni (adj(i) without j; lag-0 triples) not already listed. The
/// lists are in variable order, so a subset of ni's is already listed exactly when nj is not
/// empty and all its members are in nj.
template <class Fn>
void for_each_collider_subset(const std::vector<std::int32_t>& nj, const std::vector<std::int32_t>& ni, Fn&& fn) {
    std::vector<std::int32_t> sub;
    for_each_subset(
        nj, sub, [](const std::vector<std::int32_t>&) { return true; }, fn);
    for_each_subset(
        ni, sub,
        [&](const std::vector<std::int32_t>& v) {
            return nj.empty() || !std::all_of(v.begin(), v.end(), [&](std::int32_t l) {
                       return std::find(nj.begin(), nj.end(), l) != nj.end();
                   });
        },
        fn);
}

struct Colliders {
    Graph graph;
    std::set<Triple> ambiguous;
    std::int64_t tests = 0;
};

/// tigramite's _pcalg_colliders in mode 'contemp_conds' (see pcmciplus.hpp).
Colliders colliders(const LaggedData& lagged, const Settings& s, const Skeleton& sk, const Cells& c,
                    const MciConditions& conditions, ci::BatchTest& tests, const ProgressFn& progress) {
    Colliders out;
    Graph& g = out.graph;
    g = sk.graph;
    for (std::string& t : g)
        if (t == "o?o")
            t = "o-o";
        else if (t == "-?>")
            t = "-->";
        else if (t == "<?-")
            t = "<--";

    // _find_unshielded_triples: (i, −lag) o-o/--> (k, 0) o-o (j, 0), (i, −lag) and (j, 0) not adjacent.
    std::vector<Triple> triples;
    {
        const auto adj = adjacencies_no_conflicts(g, c);
        for (std::int32_t j = 0; j < c.n; ++j)
            for (const Node kn : adj[static_cast<std::size_t>(j)]) {
                if (kn.lag != 0 || g[c.at(kn.var, j, 0)] != "o-o") continue;
                const std::int32_t k = kn.var;
                for (const Node in : adj[static_cast<std::size_t>(k)]) {
                    if (in == Node{j, 0} || !g[c.at(in.var, j, in.lag)].empty()) continue;
                    const std::string& ik = g[c.at(in.var, k, in.lag)];
                    if (ik == "o-o" || ik == "-->") triples.push_back({in.var, in.lag, k, j});
                }
            }
    }

    std::vector<Triple> v_structures;
    if (s.contemp_collider_rule == ColliderRule::None) {
        for (const Triple& t : triples) {
            const auto& sep = sk.sepsets[c.at(t.i, t.j, t.lag)];
            if (std::find(sep.begin(), sep.end(), t.k) == sep.end()) v_structures.push_back(t);
        }
    } else {
        // Every subset of the neighbours, tested as in the skeleton: subsets of adj(j) without
        // (i, 0), then for a lag-0 triple those of adj(i) without j not already listed
        // (for_each_collider_subset). A triple's tests depend on (i, −lag) and j alone (k only
        // decides which of them hold k), so the triples that share them share one group of
        // tests, asked once. The groups go in chunks of about kChunk tests (memory bounded),
        // their queries laid out on the threads; the tallies depend on neither.
        constexpr std::int64_t kChunk = std::int64_t{1} << 22;
        const auto adj = contemp_adjacencies(g, c, true);
        struct Group {
            std::int32_t i = 0, lag = 0, j = 0;
            std::vector<std::int32_t> nj, ni, tail;
            std::int64_t tests = 0, nodes = 0;
            std::vector<std::size_t> triples;  ///< in order
        };
        std::vector<Group> groups;
        std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t>, std::size_t> group_of;
        for (std::size_t q = 0; q < triples.size(); ++q) {
            const Triple& t = triples[q];
            const auto [at, added] = group_of.emplace(std::make_tuple(t.i, t.lag, t.j), groups.size());
            if (added) {
                Group gr;
                gr.i = t.i;
                gr.lag = t.lag;
                gr.j = t.j;
                for (std::int32_t l : adj[static_cast<std::size_t>(t.j)])
                    if (!(l == t.i && t.lag == 0)) gr.nj.push_back(l);
                if (t.lag == 0)
                    for (std::int32_t l : adj[static_cast<std::size_t>(t.i)])
                        if (l != t.j) gr.ni.push_back(l);
                if (gr.nj.size() >= 40 || gr.ni.size() >= 40)
                    throw InputError("the collider phase of PCMCI+ would test every subset of " +
                                     std::to_string(std::max(gr.nj.size(), gr.ni.size())) +
                                     " contemporaneous neighbours of one triple: too many (lower pc_alpha)");
                std::int64_t n = gr.nj.empty() ? 0 : std::int64_t{1} << gr.nj.size();
                if (!gr.ni.empty()) {
                    std::size_t common = 0;
                    for (std::int32_t l : gr.ni)
                        if (std::find(gr.nj.begin(), gr.nj.end(), l) != gr.nj.end()) ++common;
                    n += (std::int64_t{1} << gr.ni.size()) - (gr.nj.empty() ? 0 : std::int64_t{1} << common);
                }
                gr.tests = n;
                groups.push_back(std::move(gr));
            }
            groups[at->second].triples.push_back(q);
        }
        std::int64_t planned = 0;
        for (const Group& gr : groups) planned += gr.tests;
        out.tests = planned;
        const bool conservative = s.contemp_collider_rule == ColliderRule::Conservative;
        enum : char { kNone = 0, kCollider = 1, kAmbiguous = 2 };
        std::vector<char> decision(triples.size(), kNone);
        const int threads = std::max(1, s.threads);
        SliceSize slice;
        std::int64_t done = 0;
        for (std::size_t first = 0; first < groups.size();) {
            std::size_t last = first;
            std::int64_t size = 0;
            while (last < groups.size() && (last == first || size + groups[last].tests <= kChunk))
                size += groups[last++].tests;
            const auto n_groups = static_cast<std::int64_t>(last - first);
            // Each group's conditions after S, and its node count: the first pass of the layout.
            parallel_for(0, n_groups, threads, 16, [&](std::int64_t e, int) {
                Group& gr = groups[first + static_cast<std::size_t>(e)];
                gr.tail = conditions.tail_columns(lagged, gr.i, gr.lag, gr.j);
                std::int64_t nodes = 0;
                for_each_collider_subset(gr.nj, gr.ni, [&](std::span<const std::int32_t> sub) {
                    nodes += static_cast<std::int64_t>(sub.size() + gr.tail.size());
                });
                gr.nodes = nodes;
            });
            std::vector<std::int64_t> query_at(last - first + 1, 0), node_at(last - first + 1, 0);
            for (std::size_t e = 0; e < last - first; ++e) {
                query_at[e + 1] = query_at[e] + groups[first + e].tests;
                node_at[e + 1] = node_at[e] + groups[first + e].nodes;
            }
            Batch batch;
            ci::QueryList& ql = batch.queries;
            ql.x.resize(static_cast<std::size_t>(size));
            ql.y.resize(static_cast<std::size_t>(size));
            ql.offsets.resize(static_cast<std::size_t>(size) + 1);
            ql.nodes.resize(static_cast<std::size_t>(node_at.back()));
            parallel_for(0, n_groups, threads, 16, [&](std::int64_t e, int) {
                const Group& gr = groups[first + static_cast<std::size_t>(e)];
                const std::int32_t x = lagged.column(gr.i, gr.lag), y = lagged.column(gr.j, 0);
                auto q = static_cast<std::size_t>(query_at[static_cast<std::size_t>(e)]);
                auto at = node_at[static_cast<std::size_t>(e)];
                for_each_collider_subset(gr.nj, gr.ni, [&](std::span<const std::int32_t> sub) {
                    ql.x[q] = x;
                    ql.y[q] = y;
                    for (const std::int32_t k : sub) ql.nodes[static_cast<std::size_t>(at++)] = lagged.column(k, 0);
                    for (const std::int32_t v : gr.tail) ql.nodes[static_cast<std::size_t>(at++)] = v;
                    ql.offsets[++q] = at;
                });
                if (static_cast<std::int64_t>(q) != query_at[static_cast<std::size_t>(e) + 1] ||
                    at != node_at[static_cast<std::size_t>(e) + 1])
                    throw std::logic_error("pcmciplus colliders: subsets out of count");
            });
            batch.run(tests, slice, "collider tests", done, planned, progress);
            done += size;
            // Each triple's tally over its group's tests.
            parallel_for(0, n_groups, threads, 16, [&](std::int64_t e, int) {
                Group& gr = groups[first + static_cast<std::size_t>(e)];
                const auto q0 = static_cast<std::size_t>(query_at[static_cast<std::size_t>(e)]);
                for (const std::size_t tq : gr.triples) {
                    const std::int32_t k = triples[tq].k;
                    std::size_t separating = 0, with_k = 0, a = q0;
                    for_each_collider_subset(gr.nj, gr.ni, [&](std::span<const std::int32_t> sub) {
                        if (!(batch.p[a++] <= s.pc_alpha)) {
                            ++separating;
                            if (std::find(sub.begin(), sub.end(), k) != sub.end()) ++with_k;
                        }
                    });
                    char& d = decision[tq];
                    if (separating == 0)
                        d = kAmbiguous;
                    else if (conservative)
                        d = with_k == 0 ? kCollider : (with_k != separating ? kAmbiguous : kNone);
                    else
                        d = 2 * with_k == separating ? kAmbiguous : (2 * with_k < separating ? kCollider : kNone);
                }
                gr.tail = {};
            });
            first = last;
        }
        for (std::size_t q = 0; q < triples.size(); ++q) {
            if (decision[q] == kAmbiguous) out.ambiguous.insert(triples[q]);
            if (decision[q] == kCollider) v_structures.push_back(triples[q]);
        }
    }

    // Orient the colliders in order; with conflict_resolution a link oriented both ways is 'x-x'.
    std::set<std::pair<std::int32_t, std::int32_t>> oriented;
    const auto orient_into = [&](std::int32_t from, std::int32_t k) {
        if (!oriented.count({k, from}) && !oriented.count({from, k})) {
            g[c.at(k, from, 0)] = "<--";
            g[c.at(from, k, 0)] = "-->";
            oriented.insert({from, k});
        }
        if (s.conflict_resolution && oriented.count({k, from})) g[c.at(from, k, 0)] = g[c.at(k, from, 0)] = "x-x";
    };
    for (const Triple& t : v_structures) {
        orient_into(t.j, t.k);
        if (t.lag == 0) orient_into(t.i, t.k);
    }
    return out;
}

/// tigramite's _pcalg_rules_timeseries: R1–R3 until none applies.
Graph orientation_rules(Graph g, const std::set<Triple>& ambiguous, bool conflict_resolution, const Cells& c) {
    std::set<std::pair<std::int32_t, std::int32_t>> oriented;
    // Orient a o-o b as a --> b unless either way is taken; mark a conflict.
    const auto orient = [&](std::int32_t a, std::int32_t b) {
        if (!oriented.count({b, a}) && !oriented.count({a, b})) {
            g[c.at(a, b, 0)] = "-->";
            g[c.at(b, a, 0)] = "<--";
            oriented.insert({a, b});
        }
        if (conflict_resolution && oriented.count({b, a})) g[c.at(b, a, 0)] = g[c.at(a, b, 0)] = "x-x";
    };
    const auto rule1 = [&] {
        // (i, −lag) --> (k, 0) o-o (j, 0), (i, −lag) and j not adjacent: orient k --> j.
        std::vector<Triple> triples;
        const auto adj = adjacencies_no_conflicts(g, c);
        for (std::int32_t j = 0; j < c.n; ++j)
            for (const Node kn : adj[static_cast<std::size_t>(j)]) {
                if (kn.lag != 0 || g[c.at(j, kn.var, 0)] != "o-o") continue;
                for (const Node in : adj[static_cast<std::size_t>(kn.var)])
                    if (!(in == Node{j, 0}) && g[c.at(in.var, j, in.lag)].empty() &&
                        g[c.at(in.var, kn.var, in.lag)] == "-->")
                        triples.push_back({in.var, in.lag, kn.var, j});
            }
        bool left = false;
        for (const Triple& t : triples)
            if (!ambiguous.count(t)) {
                left = true;
                orient(t.k, t.j);
            }
        return left;
    };
    const auto rule2 = [&] {
        // i --> k --> j with i o-o j: orient i --> j.
        std::vector<Triple> triples;
        const auto adj = contemp_adjacencies(g, c, false);
        for (std::int32_t j = 0; j < c.n; ++j)
            for (std::int32_t k : adj[static_cast<std::size_t>(j)]) {
                if (g[c.at(k, j, 0)] != "-->") continue;
                for (std::int32_t i : adj[static_cast<std::size_t>(k)])
                    if (g[c.at(i, k, 0)] == "-->" && i != j && g[c.at(i, j, 0)] == "o-o" && g[c.at(j, i, 0)] == "o-o")
                        triples.push_back({i, 0, k, j});
            }
        bool left = false;
        for (const Triple& t : triples)
            if (!ambiguous.count(t)) {
                left = true;
                orient(t.i, t.j);
            }
        return left;
    };
    const auto rule3 = [&] {
        // i o-o k --> j and i o-o l --> j with i o-o j and k, l not adjacent: orient i --> j.
        std::vector<std::pair<Triple, Triple>> chains;
        const auto adj = contemp_adjacencies(g, c, false);
        for (std::int32_t j = 0; j < c.n; ++j) {
            const auto& aj = adj[static_cast<std::size_t>(j)];
            for (std::int32_t i : aj) {
                if (g[c.at(j, i, 0)] != "o-o") continue;
                for (std::int32_t k : aj)
                    for (std::int32_t l : aj)
                        if (k != l && k != i && l != i && g[c.at(k, j, 0)] == "-->" && g[c.at(l, j, 0)] == "-->" &&
                            g[c.at(k, i, 0)] == "o-o" && g[c.at(l, i, 0)] == "o-o" && g[c.at(k, l, 0)].empty())
                            chains.push_back({{i, 0, k, j}, {i, 0, l, j}});
            }
        }
        bool left = false;
        for (const auto& [a, b] : chains)
            if (!ambiguous.count(a) && !ambiguous.count(b)) {
                left = true;
                orient(a.i, a.j);
            }
        return left;
    };
    bool any1 = true, any2 = true, any3 = true;
    while (any1 || any2 || any3) {
        any1 = rule1();
        any2 = rule2();
        any3 = rule3();
    }
    return g;
}

}  // namespace

void check_pcmciplus_settings(const Settings& s, std::int32_t n_vars, std::int64_t length) {
    check_settings(s, n_vars, length);
    if (s.max_conds_px_lagged < -1) throw InputError("max_conds_px_lagged must be >= 0 (or -1: as max_conds_px)");
}

namespace {

/// run_pcmciplus with one pc_alpha.
Result run_one(const LaggedData& lagged, const Settings& s, ci::BatchTest& tests, const ProgressFn& progress) {
    if (lagged.max_lag != 2 * s.tau_max)
        throw std::logic_error("run_pcmciplus: the lagged table must hold lags 0..2*tau_max");
    const std::int32_t n = lagged.n_vars;
    const Cells c{n, s.tau_max + 1};
    Result r;
    r.n_vars = n;
    r.tau_max = s.tau_max;
    r.samples = lagged.data.n_samples;

    // 1. Condition selection.
    Pc1Matrices pc1;
    r.parents = run_pc_stable(lagged, s, tests, &r.pc1_tests, progress, &pc1);

    // 2. Skeleton on the lagged parents (or every lagged link) and every contemporaneous link.
    const LinkAssumptions la = s.link_assumptions ? normalise_links(*s.link_assumptions, n, s.tau_min, s.tau_max, false)
                                                  : default_links(n, s.tau_min, s.tau_max);
    LinkAssumptions for_pc;
    if (s.reset_lagged_links) {
        for_pc = la;
    } else {
        for_pc.links.resize(static_cast<std::size_t>(n));
        for (std::int32_t j = 0; j < n; ++j) {
            auto& links = for_pc.links[static_cast<std::size_t>(j)];
            for (const Node parent : r.parents[static_cast<std::size_t>(j)]) {
                const std::string* type = la.find(j, parent);
                if (type && (*type == "-?>" || *type == "-->")) links.push_back({parent, *type});
            }
            for (const auto& [node, type] : la.links[static_cast<std::size_t>(j)])
                if (node.lag == 0) links.push_back({node, type});
        }
    }
    Graph initial(c.size());
    for (std::int32_t j = 0; j < n; ++j)
        for (const auto& [node, type] : for_pc.links[static_cast<std::size_t>(j)])
            initial[c.at(node.var, j, node.lag)] = type;
    const std::int64_t dim_default = static_cast<std::int64_t>(n) * (s.tau_max - s.tau_min + 1);
    const std::size_t max_px = static_cast<std::size_t>(s.max_conds_px >= 0 ? s.max_conds_px : dim_default);
    const MciConditions conditions{
        r.parents, static_cast<std::size_t>(s.max_conds_py >= 0 ? s.max_conds_py : dim_default), max_px,
        s.max_conds_px_lagged >= 0 ? static_cast<std::size_t>(s.max_conds_px_lagged) : max_px};
    const std::int64_t max_dim = s.max_conds_dim >= 0 ? s.max_conds_dim : n;
    Skeleton sk = mci_skeleton(lagged, s, initial, c, conditions, max_dim, tests, progress);

    // Matrices: the skeleton's (symmetrised) at lag 0 and on its links, PC1's elsewhere.
    {
        std::vector<double> sp = sk.p, sv = sk.val;
        symmetrize(sp, sv, for_pc, c);
        r.p_matrix = pc1.p_matrix;
        r.val_matrix = pc1.val_matrix;
        for (std::int32_t i = 0; i < n; ++i)
            for (std::int32_t j = 0; j < n; ++j) {
                r.p_matrix[c.at(i, j, 0)] = sp[c.at(i, j, 0)];
                r.val_matrix[c.at(i, j, 0)] = sv[c.at(i, j, 0)];
            }
        for (std::int32_t j = 0; j < n; ++j)
            for (const auto& [node, type] : for_pc.links[static_cast<std::size_t>(j)])
                if (!lagged_out(type)) {
                    const std::size_t cell = c.at(node.var, j, node.lag);
                    r.p_matrix[cell] = sp[cell];
                    r.val_matrix[cell] = sv[cell];
                }
    }
    if (s.fdr_bh) {
        // get_corrected_pvalues: the lagged links the assumptions allow, in C order (i, j, lag).
        std::vector<char> mask(c.size(), 0);
        for (std::int32_t j = 0; j < n; ++j)
            for (const auto& [node, type] : la.links[static_cast<std::size_t>(j)])
                if (!lagged_out(type) && node.lag > 0) mask[c.at(node.var, j, node.lag)] = 1;
        std::vector<double> pv;
        for (std::size_t q = 0; q < c.size(); ++q)
            if (mask[q]) pv.push_back(r.p_matrix[q]);
        const std::vector<double> qv = fdr_bh(pv);
        for (std::size_t q = 0, k = 0; q < c.size(); ++q)
            if (mask[q]) r.p_matrix[q] = qv[k++];
    }

    // 3. Colliders, 4. orientation rules.
    Colliders col = colliders(lagged, s, sk, c, conditions, tests, progress);
    r.graph = orientation_rules(std::move(col.graph), col.ambiguous, s.conflict_resolution, c);
    r.mci_tests = sk.tests + col.tests;
    return r;
}

/// tigramite's _get_dag_from_cpdag: the lag-0 'o-o' links of the graph oriented into one
/// simplicial node after another (the first in `order` whose 'o-o' neighbours, at least one,
/// are pairwise linked at lag 0 in what is left: any mark but '-->' and 'x-x', which were
/// removed, counts as linked, '<--' too, as tigramite's test reads it).
Graph dag_from_cpdag(Graph dag, const Cells& c, const std::vector<std::int32_t>& order) {
    const std::int32_t n = c.n;
    std::vector<std::string> circle(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));  // lag 0 only
    const auto at0 = [&](std::int32_t i, std::int32_t j) {
        return static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j);
    };
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j = 0; j < n; ++j) {
            const std::string& g = dag[c.at(i, j, 0)];
            if (g != "x-x" && g != "-->") circle[at0(i, j)] = g;
        }
    for (;;) {
        bool found = false;
        for (const std::int32_t j : order) {
            std::vector<std::int32_t> adj;
            for (std::int32_t i = 0; i < n; ++i)
                if (circle[at0(i, j)] == "o-o" || circle[at0(i, j)] == "o?o") adj.push_back(i);
            bool simplicial = !adj.empty();
            for (std::size_t a = 0; a < adj.size() && simplicial; ++a)
                for (std::size_t b = a + 1; b < adj.size() && simplicial; ++b)
                    simplicial = !circle[at0(adj[a], adj[b])].empty();
            if (!simplicial) continue;
            for (const std::int32_t v : adj) {
                dag[c.at(v, j, 0)] = "-->";
                dag[c.at(j, v, 0)] = "<--";
                circle[at0(v, j)].clear();
                circle[at0(j, v)].clear();
            }
            found = true;
            break;
        }
        if (!found) return dag;
    }
}

/// _optimize_pcmciplus_alpha's score of one result: the mean over j of
/// model_selection_criterion(j, the parents of j in a DAG of the result's graph), the DAG's
/// simplicial order by Σ_{i,lag} |val(i, −lag → j)|, largest first (numpy's argsort reversed:
/// of equal sums the larger index first).
double pcmciplus_score(const LaggedData& lagged, const Result& r, const Cells& c) {
    const std::int32_t n = c.n;
    std::vector<double> sums(static_cast<std::size_t>(n), 0.0);
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j = 0; j < n; ++j)
            for (std::int32_t lag = 0; lag < c.lags; ++lag)
                sums[static_cast<std::size_t>(j)] += std::fabs(r.val_matrix[c.at(i, j, lag)]);
    std::vector<std::int32_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        return sums[static_cast<std::size_t>(a)] < sums[static_cast<std::size_t>(b)];
    });
    std::reverse(order.begin(), order.end());
    const Graph dag = dag_from_cpdag(r.graph, c, order);
    double score = 0.0;
    for (std::int32_t j = 0; j < n; ++j) {
        std::vector<Node> parents;
        for (std::int32_t i = 0; i < n; ++i)
            for (std::int32_t lag = 0; lag < c.lags; ++lag)
                if (dag[c.at(i, j, lag)] == "-->") parents.push_back({i, lag});
        score += model_selection_criterion(lagged, j, parents);
    }
    return score / static_cast<double>(n);
}

}  // namespace

Result run_pcmciplus(const LaggedData& lagged, const Settings& s, ci::BatchTest& tests, const ProgressFn& progress) {
    check_pcmciplus_settings(s, lagged.n_vars, lagged.length);
    if (s.pc_alpha_list.empty()) return run_one(lagged, s, tests, progress);
    // tigramite's _optimize_pcmciplus_alpha: the whole method per value, the lowest score kept
    // (numpy's argmin: the first NaN, else the first of equal scores).
    const Cells c{lagged.n_vars, s.tau_max + 1};
    Result best;
    std::vector<double> scores;
    std::size_t chosen = 0;
    std::int64_t pc1_tests = 0, mci_tests = 0;
    for (std::size_t k = 0; k < s.pc_alpha_list.size(); ++k) {
        Settings one = s;
        one.pc_alpha_list.clear();
        one.pc_alpha = s.pc_alpha_list[k];
        Result r = run_one(lagged, one, tests, progress);
        pc1_tests += r.pc1_tests;
        mci_tests += r.mci_tests;
        scores.push_back(pcmciplus_score(lagged, r, c));
        const double score = scores.back(), best_score = scores[chosen];
        if (k == 0 || (!std::isnan(best_score) && (std::isnan(score) || score < best_score))) {
            chosen = k;
            best = std::move(r);
        }
    }
    best.pc1_tests = pc1_tests;
    best.mci_tests = mci_tests;
    best.pc_alpha_candidates = s.pc_alpha_list;
    best.optimal_pc_alpha = {s.pc_alpha_list[chosen]};
    best.pc_alpha_scores = std::move(scores);
    return best;
}

}  // namespace cudag::pcmci
