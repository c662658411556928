// SPDX-License-Identifier: Apache-2.0
#include "core/dsep.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"

namespace cudag {

void Dag::add_edge(std::int32_t from, std::int32_t to) {
    CUDAG_EXPECTS(from >= 0 && to >= 0 && from < n() && to < n() && from != to, "Dag::add_edge: bad endpoints");
    children[static_cast<std::size_t>(from)].push_back(to);
    parents[static_cast<std::size_t>(to)].push_back(from);
}

std::vector<std::int32_t> Dag::topological_order() const {
    // Kahn's algorithm, smallest ready node first (a deterministic order).
    std::vector<std::int64_t> missing(static_cast<std::size_t>(n()));
    std::vector<std::int32_t> ready, order;
    for (std::int32_t v = 0; v < n(); ++v) {
        missing[static_cast<std::size_t>(v)] = static_cast<std::int64_t>(parents[static_cast<std::size_t>(v)].size());
        if (missing[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
    }
    while (!ready.empty()) {
        const std::int32_t v = ready.back();
        ready.pop_back();
        order.push_back(v);
        for (const std::int32_t c : children[static_cast<std::size_t>(v)])
            if (--missing[static_cast<std::size_t>(c)] == 0) ready.push_back(c);
    }
    if (static_cast<std::int64_t>(order.size()) != n()) order.clear();
    return order;
}

bool d_separated(const Dag& dag, std::int32_t x, std::int32_t y, std::span<const std::int32_t> z) {
    const std::size_t n = static_cast<std::size_t>(dag.n());
    std::vector<char> in_z(n, 0), anc_z(n, 0);
    // Phase 1: Z and its ancestors (a collider passes the ball iff it is one of them).
    std::vector<std::int32_t> stack;
    for (const std::int32_t v : z) {
        in_z[static_cast<std::size_t>(v)] = 1;
        if (!anc_z[static_cast<std::size_t>(v)]) {
            anc_z[static_cast<std::size_t>(v)] = 1;
            stack.push_back(v);
        }
    }
    while (!stack.empty()) {
        const std::int32_t v = stack.back();
        stack.pop_back();
        for (const std::int32_t p : dag.parents[static_cast<std::size_t>(v)])
            if (!anc_z[static_cast<std::size_t>(p)]) {
                anc_z[static_cast<std::size_t>(p)] = 1;
                stack.push_back(p);
            }
    }
    // Phase 2: (node, direction) states reachable from x by active trails; `up` means the
    // trail arrived from a child (moving against the edge), `down` from a parent.
    enum : std::uint8_t { kUp = 1, kDown = 2 };
    std::vector<std::uint8_t> seen(n, 0);
    std::vector<std::pair<std::int32_t, std::uint8_t>> todo{{x, kUp}};
    while (!todo.empty()) {
        const auto [v, dir] = todo.back();
        todo.pop_back();
        const std::size_t vi = static_cast<std::size_t>(v);
        if (seen[vi] & dir) continue;
        seen[vi] |= dir;
        if (v == y) return false;  // y is not in z: an active trail reaches it
        if (dir == kUp) {
            if (in_z[vi]) continue;  // a non-collider in Z blocks
            for (const std::int32_t p : dag.parents[vi]) todo.emplace_back(p, kUp);
            for (const std::int32_t c : dag.children[vi]) todo.emplace_back(c, kDown);
        } else {
            if (!in_z[vi])  // a chain v -> child passes when v is not conditioned on
                for (const std::int32_t c : dag.children[vi]) todo.emplace_back(c, kDown);
            if (anc_z[vi])  // a collider passes when it or a descendant is in Z
                for (const std::int32_t p : dag.parents[vi]) todo.emplace_back(p, kUp);
        }
    }
    return true;
}

DsepOracle::DsepOracle(Dag dag, std::vector<std::string> names, const std::vector<std::string>& latent,
                       std::string source)
    : dag_(std::move(dag)), names_(std::move(names)), source_(std::move(source)) {
    CUDAG_EXPECTS(static_cast<std::int64_t>(names_.size()) == dag_.n(), "DsepOracle: one name per node");
    if (dag_.n() > 0 && dag_.topological_order().empty())
        throw InputError(source_ + ": the graph has a directed cycle; the d-separation oracle needs a DAG");
    std::unordered_map<std::string, std::int32_t> index;
    for (std::size_t v = 0; v < names_.size(); ++v) index.emplace(names_[v], static_cast<std::int32_t>(v));
    is_latent_.assign(names_.size(), 0);
    for (const std::string& name : latent) {
        const auto it = index.find(name);
        if (it == index.end()) throw InputError("--latent: '" + name + "' is not a node of " + source_);
        is_latent_[static_cast<std::size_t>(it->second)] = 1;
    }
    for (std::size_t v = 0; v < names_.size(); ++v)
        if (!is_latent_[v]) observed_.push_back(static_cast<std::int32_t>(v));
}

std::vector<std::string> DsepOracle::var_names() const {
    std::vector<std::string> out;
    for (const std::int32_t v : observed_) out.push_back(names_[static_cast<std::size_t>(v)]);
    return out;
}

std::vector<std::string> DsepOracle::latent_names() const {
    std::vector<std::string> out;
    for (std::size_t v = 0; v < names_.size(); ++v)
        if (is_latent_[v]) out.push_back(names_[v]);
    return out;
}

bool DsepOracle::independent(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) const {
    std::vector<std::int32_t> z(s.size());
    for (std::size_t k = 0; k < s.size(); ++k) z[k] = observed_[static_cast<std::size_t>(s[k])];
    return d_separated(dag_, observed_[static_cast<std::size_t>(x)], observed_[static_cast<std::size_t>(y)], z);
}

std::vector<std::string> DsepOracle::digest() const {
    std::vector<std::string> out;
    for (std::size_t v = 0; v < names_.size(); ++v)
        out.push_back(names_[v] + (is_latent_[v] ? " latent" : " observed"));
    for (std::size_t v = 0; v < names_.size(); ++v)
        for (const std::int32_t c : dag_.children[v])
            out.push_back(names_[v] + "-->" + names_[static_cast<std::size_t>(c)]);
    return out;
}

}  // namespace cudag
