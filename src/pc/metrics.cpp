// SPDX-License-Identifier: Apache-2.0
#include "pc/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>
#include <vector>

#include "core/error.hpp"

namespace cudag::pc {

namespace {

/// Parent lists (increasing) of a graph whose edges are all directed, or the first edge that
/// is not directed as (i, j).
struct DirectedView {
    std::vector<std::vector<std::int32_t>> parents;
    std::vector<std::vector<std::int32_t>> children;
    std::optional<std::pair<std::int32_t, std::int32_t>> not_directed;
};

DirectedView directed_view(const Pdag& g) {
    const auto n = static_cast<std::int32_t>(g.n());
    DirectedView v;
    v.parents.resize(static_cast<std::size_t>(n));
    v.children.resize(static_cast<std::size_t>(n));
    for (std::int32_t i = 0; i < n; ++i) {
        for (std::int32_t j : g.neighbours(i)) {
            if (g.is_directed(i, j)) {
                v.children[i].push_back(j);
            } else if (g.is_directed(j, i)) {
                v.parents[i].push_back(j);
            } else if (!v.not_directed) {
                v.not_directed = std::make_pair(std::min(i, j), std::max(i, j));
            }
        }
    }
    return v;
}

/// Kahn's algorithm; the order is empty when the graph has a directed cycle.
std::vector<std::int32_t> topological_order(const DirectedView& v) {
    const auto n = static_cast<std::int32_t>(v.parents.size());
    std::vector<std::int64_t> indegree(static_cast<std::size_t>(n));
    std::vector<std::int32_t> order;
    order.reserve(static_cast<std::size_t>(n));
    for (std::int32_t i = 0; i < n; ++i) {
        indegree[i] = static_cast<std::int64_t>(v.parents[i].size());
        if (indegree[i] == 0) order.push_back(i);
    }
    for (std::size_t head = 0; head < order.size(); ++head)
        for (std::int32_t c : v.children[order[head]])
            if (--indegree[c] == 0) order.push_back(c);
    if (static_cast<std::int32_t>(order.size()) != n) order.clear();
    return order;
}

bool contains(const std::vector<std::int32_t>& sorted, std::int32_t x) {
    return std::binary_search(sorted.begin(), sorted.end(), x);
}

std::string format_real(double x) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, res.ptr);
}

}  // namespace

bool is_dag(const Pdag& g) {
    const DirectedView v = directed_view(g);
    if (v.not_directed) return false;
    return g.n() == 0 || !topological_order(v).empty();
}

Pdag dag_to_cpdag(const Pdag& dag) {
    const DirectedView v = directed_view(dag);
    if (v.not_directed)
        throw InputError("dag_to_cpdag: the edge between nodes " + std::to_string(v.not_directed->first) + " and " +
                         std::to_string(v.not_directed->second) + " is not directed, so the graph is not a DAG");
    const std::vector<std::int32_t> order = topological_order(v);
    CUDAG_EXPECTS(dag.n() == 0 || !order.empty(), "dag_to_cpdag: the graph has a directed cycle, so it is not a DAG");

    const auto n = static_cast<std::int32_t>(dag.n());
    std::vector<std::int32_t> rank(static_cast<std::size_t>(n));
    for (std::int32_t r = 0; r < n; ++r) rank[order[r]] = r;

    // label[y][k] for the edge parents[y][k] -> y.
    enum class Label : std::int8_t { Unknown, Compelled, Reversible };
    std::vector<std::vector<Label>> label(static_cast<std::size_t>(n));
    for (std::int32_t y = 0; y < n; ++y) label[y].assign(v.parents[y].size(), Label::Unknown);
    auto label_of = [&](std::int32_t from, std::int32_t to) -> Label& {
        const auto& p = v.parents[to];
        return label[to][std::lower_bound(p.begin(), p.end(), from) - p.begin()];
    };
    auto label_unknown_into = [&](std::int32_t y, Label l) {
        for (Label& e : label[y])
            if (e == Label::Unknown) e = l;
    };

    // Order-Edges sorts edges by child rank ascending, then parent rank descending. The first
    // edge into y that Find-Compelled takes (x -> y, x the highest-ranked parent) labels every
    // edge into y, and every edge into x was labelled before, since x precedes y. So
    // Find-Compelled reduces to one step per child in topological order.
    for (std::int32_t y : order) {
        const auto& py = v.parents[y];
        if (py.empty()) continue;
        const std::int32_t x =
            *std::max_element(py.begin(), py.end(), [&](std::int32_t a, std::int32_t b) { return rank[a] < rank[b]; });
        bool done = false;
        for (std::size_t k = 0; k < v.parents[x].size() && !done; ++k) {
            if (label[x][k] != Label::Compelled) continue;
            const std::int32_t w = v.parents[x][k];
            if (!contains(py, w)) {
                label_unknown_into(y, Label::Compelled);
                done = true;
            } else {
                label_of(w, y) = Label::Compelled;
            }
        }
        if (done) continue;
        // Any other parent z of y precedes x, so "z is not a parent of x" means z and x are
        // not adjacent: x -> y <- z is a v-structure.
        bool has_v_structure = false;
        for (std::int32_t z : py)
            if (z != x && !contains(v.parents[x], z)) has_v_structure = true;
        label_unknown_into(y, has_v_structure ? Label::Compelled : Label::Reversible);
    }

    Pdag cpdag{Graph(dag.n())};
    for (std::int32_t y = 0; y < n; ++y)
        for (std::size_t k = 0; k < v.parents[y].size(); ++k) {
            const std::int32_t x = v.parents[y][k];
            if (label[y][k] == Label::Compelled)
                cpdag.orient(x, y);
            else
                cpdag.make_undirected(x, y);
        }
    return cpdag;
}

Comparison compare_graphs(const Pdag& truth, const Pdag& estimate) {
    CUDAG_EXPECTS(truth.n() == estimate.n(), "compare: the true graph has " + std::to_string(truth.n()) +
                                                 " nodes but the estimate has " + std::to_string(estimate.n()));
    Comparison c;
    const auto n = static_cast<std::int32_t>(truth.n());
    for (std::int32_t i = 0; i < n; ++i) {
        const std::vector<std::int32_t> a = truth.neighbours(i);
        const std::vector<std::int32_t> b = estimate.neighbours(i);
        std::size_t p = 0;
        std::size_t q = 0;
        // Merge the two increasing neighbour lists, counting each pair once (at i < j).
        while (p < a.size() || q < b.size()) {
            const std::int32_t ja = p < a.size() ? a[p] : n;
            const std::int32_t jb = q < b.size() ? b[q] : n;
            const std::int32_t j = std::min(ja, jb);
            if (ja == j) ++p;
            if (jb == j) ++q;
            if (j <= i) continue;
            if (ja == jb) {
                ++c.tp;
                if (truth.end(i, j) != estimate.end(i, j) || truth.end(j, i) != estimate.end(j, i)) ++c.shd;
            } else if (ja == j) {
                ++c.fn;
                ++c.shd;
            } else {
                ++c.fp;
                ++c.shd;
            }
        }
    }
    c.n_true_edges = c.tp + c.fn;
    c.n_est_edges = c.tp + c.fp;
    c.precision = c.n_est_edges > 0 ? static_cast<double>(c.tp) / c.n_est_edges : 0.0;
    c.recall = c.n_true_edges > 0 ? static_cast<double>(c.tp) / c.n_true_edges : 0.0;
    c.f1 = c.precision + c.recall > 0.0 ? 2.0 * c.precision * c.recall / (c.precision + c.recall) : 0.0;
    return c;
}

std::string comparison_table(const Comparison& c) {
    std::string out;
    auto row_int = [&](const char* name, std::int64_t v) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%-16s %lld\n", name, static_cast<long long>(v));
        out += buf;
    };
    auto row_real = [&](const char* name, double v) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%-16s %.4f\n", name, v);
        out += buf;
    };
    row_int("true edges", c.n_true_edges);
    row_int("estimated edges", c.n_est_edges);
    row_int("TP", c.tp);
    row_int("FP", c.fp);
    row_int("FN", c.fn);
    row_real("precision", c.precision);
    row_real("recall", c.recall);
    row_real("F1", c.f1);
    row_int("SHD", c.shd);
    return out;
}

std::string comparison_json(const Comparison& c) {
    auto i = [](std::int64_t v) { return std::to_string(v); };
    return "{\"n_true_edges\": " + i(c.n_true_edges) + ", \"n_est_edges\": " + i(c.n_est_edges) +
           ", \"tp\": " + i(c.tp) + ", \"fp\": " + i(c.fp) + ", \"fn\": " + i(c.fn) +
           ", \"precision\": " + format_real(c.precision) + ", \"recall\": " + format_real(c.recall) +
           ", \"f1\": " + format_real(c.f1) + ", \"shd\": " + i(c.shd) + "}";
}

}  // namespace cudag::pc
