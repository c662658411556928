// SPDX-License-Identifier: Apache-2.0
#include "bn/space.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"

namespace cudag::bn {

ParentSpace space_from_graph(const Pdag& g, std::string description) {
    ParentSpace s;
    s.all = false;
    s.candidates.resize(static_cast<std::size_t>(g.n()));
    for (std::int32_t v = 0; v < g.n(); ++v)
        for (const std::int32_t u : g.neighbours(v))
            if (!g.is_directed(v, u)) s.candidates[static_cast<std::size_t>(v)].push_back(u);  // u --> v or u --- v
    s.description = std::move(description);
    return s;
}

ParentSpace space_from_skeleton(std::int64_t n, std::span<const SkeletonEdge> edges, int hard_limit,
                                const std::string& what) {
    std::vector<std::vector<std::pair<double, std::int32_t>>> nb(static_cast<std::size_t>(n));
    for (const SkeletonEdge& e : edges) {
        nb[static_cast<std::size_t>(e.a)].push_back({e.p, e.b});
        nb[static_cast<std::size_t>(e.b)].push_back({e.p, e.a});
    }
    ParentSpace s;
    s.all = false;
    s.candidates.resize(static_cast<std::size_t>(n));
    s.extras.resize(static_cast<std::size_t>(n));
    std::int64_t trimmed = 0;
    std::vector<char> in(static_cast<std::size_t>(n), 0);
    for (std::int32_t v = 0; v < n; ++v) {
        auto& list = nb[static_cast<std::size_t>(v)];
        std::sort(list.begin(), list.end());  // the smallest p first, ties by node id
        if (static_cast<std::int64_t>(list.size()) > hard_limit) {
            trimmed += static_cast<std::int64_t>(list.size()) - hard_limit;
            list.resize(static_cast<std::size_t>(hard_limit));
        }
        std::fill(in.begin(), in.end(), 0);
        for (const auto& [p, u] : list)
            s.candidates[static_cast<std::size_t>(v)].push_back(u), in[static_cast<std::size_t>(u)] = 1;
        for (std::int32_t u = 0; u < n; ++u)
            if (u != v && !in[static_cast<std::size_t>(u)]) s.extras[static_cast<std::size_t>(v)].push_back(u);
    }
    s.description = what + ", " + std::to_string(edges.size()) + " skeleton edges" +
                    (trimmed ? ", " + std::to_string(trimmed) + " neighbours over the hard limit dropped" : "") +
                    ", plus1)";
    return s;
}

ParentSpace restrict_space(ParentSpace s, const Knowledge& k, std::int64_t n, const std::vector<std::string>& names) {
    const auto name = [&](std::int32_t v) {
        return static_cast<std::size_t>(v) < names.size() ? "'" + names[v] + "'" : "node " + std::to_string(v);
    };
    if (!k.undirected_required_pairs().empty()) {
        const auto [a, b] = *k.undirected_required_pairs().begin();
        throw InputError("cudag mcmc: --require " + name(a) + " -- " + name(b) +
                         " gives no direction, and order MCMC makes a required edge a mandatory parent: write " +
                         name(a) + " -> " + name(b) + " or " + name(b) + " -> " + name(a));
    }
    if (s.all) {
        s.candidates.assign(static_cast<std::size_t>(n), {});
        for (std::int32_t v = 0; v < n; ++v)
            for (std::int32_t u = 0; u < n; ++u)
                if (u != v) s.candidates[static_cast<std::size_t>(v)].push_back(u);
        s.extras.clear();
        s.all = false;
        s.description = "all";
    }
    std::int64_t dropped = 0;
    const auto drop = [&](std::vector<std::int32_t>& list, std::int32_t v) {
        const auto before = list.size();
        std::erase_if(list, [&](std::int32_t u) { return k.forbidden(u, v); });
        dropped += static_cast<std::int64_t>(before - list.size());
    };
    for (std::size_t v = 0; v < s.candidates.size(); ++v) drop(s.candidates[v], static_cast<std::int32_t>(v));
    for (std::size_t v = 0; v < s.extras.size(); ++v) drop(s.extras[v], static_cast<std::int32_t>(v));
    s.description += " less " + std::to_string(dropped) + " parents forbidden by background knowledge";
    if (!k.required_directions().empty()) {
        // Knowledge::validate has refused a required direction that is forbidden.
        s.required.assign(static_cast<std::size_t>(n), {});
        for (const auto& [a, b] : k.required_directions()) {
            auto& cands = s.candidates[static_cast<std::size_t>(b)];
            if (std::find(cands.begin(), cands.end(), a) == cands.end()) cands.push_back(a);
            if (!s.extras.empty()) std::erase(s.extras[static_cast<std::size_t>(b)], a);
            s.required[static_cast<std::size_t>(b)].push_back(a);
        }
        s.description += ", " + std::to_string(k.required_directions().size()) + " required parents";
    }
    return s;
}

}  // namespace cudag::bn
