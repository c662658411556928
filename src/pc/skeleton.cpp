// SPDX-License-Identifier: Apache-2.0
#include "pc/skeleton.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "core/error.hpp"

namespace cudag::pc {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::uint64_t pair_key(std::int32_t i, std::int32_t j) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 32) |
           static_cast<std::uint32_t>(j);
}

std::vector<std::int32_t> set_union(const std::vector<std::int32_t>& a,
                                    const std::vector<std::int32_t>& b) {
    std::vector<std::int32_t> u;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(u));
    return u;
}

}  // namespace

SkeletonResult learn_skeleton(SkeletonEngine& engine, const SkeletonOptions& opt,
                              const LevelCallback& on_level) {
    const std::int64_t n = engine.n_vars();
    const TestPolicy& pol = opt.policy;
    SkeletonResult res;
    res.skeleton = Graph(n);
    Graph& g = res.skeleton;

    // pMax: dense upper triangle for small n, else a map over level-0 survivors.
    const bool dense = n <= PcResult::dense_pmax_limit;
    std::unordered_map<std::uint64_t, double> pmax_map;

    // ---- level 0 -------------------------------------------------------------
    {
        const auto t0 = std::chrono::steady_clock::now();
        Level0Output out;
        if (dense) out.dense_p.assign(static_cast<std::size_t>(n * (n - 1) / 2), 0.0);
        const std::int64_t before = n * (n - 1) / 2;
        engine.level0(0, n, dense, g, out);
        LevelStats st;
        st.level = 0;
        st.tests = out.tests;
        st.edges_after = g.n_edges();
        st.removed = before - st.edges_after;
        st.seconds = seconds_since(t0);
        res.levels.push_back(st);
        if (on_level) on_level(st);
        if (dense) {
            res.pmax.reserve(out.dense_p.size());
            std::size_t k = 0;
            for (std::int32_t i = 0; i < n; ++i)
                for (std::int32_t j = i + 1; j < n; ++j) res.pmax.push_back({i, j, out.dense_p[k++]});
        } else {
            for (const PairP& q : out.kept_p) pmax_map[pair_key(q.i, q.j)] = q.p;
        }
    }
    auto raise_pmax = [&](std::int32_t i, std::int32_t j, double p) {
        if (dense) {
            const std::int64_t k = static_cast<std::int64_t>(i) * n -
                                   static_cast<std::int64_t>(i) * (i + 1) / 2 + (j - i - 1);
            res.pmax[k].p = std::max(res.pmax[k].p, p);
        } else {
            double& v = pmax_map[pair_key(i, j)];
            v = std::max(v, p);
        }
    };

    // ---- levels l >= 1 -----------------------------------------------------------
    LevelOutput out;
    for (int l = 1;; ++l) {
        if (opt.max_level >= 0 && l > opt.max_level) break;
        if (g.max_degree() - 1 < l) break;
        if (opt.max_supported_level >= 0 && l > opt.max_supported_level)
            throw InputError("level " + std::to_string(l) + " needs more than " +
                             std::to_string(l + 3) + " samples (" + opt.supported_level_reason +
                             "); rerun with --max-level " + std::to_string(l - 1));
        const auto t0 = std::chrono::steady_clock::now();
        const Adjacency snap = Adjacency::from_graph(g);
        out.reset(snap.nbrs.size());
        engine.run_level(l, snap, 0, n, out);

        // Merge both endpoints' outcomes: the lower-index side's separating set
        // wins (pcalg tests the u-side first and skips the v-side once removed).
        std::int64_t removed = 0;
        for (std::int32_t a = 0; a < n; ++a) {
            for (std::int64_t e = snap.offsets[a]; e < snap.offsets[a + 1]; ++e) {
                const std::int32_t b = snap.nbrs[e];
                if (b < a) continue;
                const std::int64_t f = snap.find(b, a);
                CUDAG_ASSERT(f >= 0);
                const bool sep_a = out.flags[e] & kSeparated;
                const bool sep_b = out.flags[f] & kSeparated;
                double p = (out.flags[e] & kTested) ? out.pmax[e] : -1.0;
                if ((!sep_a || pol.exhaustive) && (out.flags[f] & kTested))
                    p = std::max(p, out.pmax[f]);
                if (p >= 0.0) raise_pmax(a, b, p);
                if (!sep_a && !sep_b) continue;
                g.remove(a, b);
                ++removed;
                if (pol.exhaustive)
                    res.sepsets.set(a, b, set_union(out.sets[e], out.sets[f]));
                else
                    res.sepsets.set(a, b, sep_a ? out.sets[e] : out.sets[f]);
            }
        }
        LevelStats st;
        st.level = l;
        st.tests = out.tests;
        st.removed = removed;
        st.edges_after = g.n_edges();
        st.seconds = seconds_since(t0);
        res.levels.push_back(st);
        if (on_level) on_level(st);
    }

    if (!dense) {
        res.pmax.reserve(pmax_map.size());
        for (const auto& [k, p] : pmax_map)
            res.pmax.push_back({static_cast<std::int32_t>(k >> 32),
                                static_cast<std::int32_t>(k & 0xffffffffu), p});
        std::sort(res.pmax.begin(), res.pmax.end(), [](const PairP& x, const PairP& y) {
            return x.i != y.i ? x.i < y.i : x.j < y.j;
        });
    }
    return res;
}

}  // namespace cudag::pc
