// SPDX-License-Identifier: Apache-2.0
// Serial references for skeleton tests: a random linear SEM and pcalg's
// skeleton(method = "stable"), with fixedGaps / fixedEdges, written out plainly here,
// independently of the library's level loop.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "core/combinations.hpp"
#include "core/dataset.hpp"
#include "skeleton/skeleton_engine.hpp"
#include "support/names.hpp"

namespace cudag::test {

/// n variables, m samples of a linear SEM over a random DAG (edge j -> i, j < i, with
/// probability `density`, weight in [0.3, 1)), standard normal noise.
inline Dataset random_sem(int n, int m, double density, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> unif(0.0, 1.0);
    std::vector<std::vector<double>> w(n, std::vector<double>(n, 0.0));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j)
            if (unif(rng) < density) w[i][j] = 0.3 + 0.7 * unif(rng);
    Dataset d;
    d.n_vars = n;
    d.n_samples = m;
    d.values.assign(static_cast<std::size_t>(n) * m, 0.0);
    for (int s = 0; s < m; ++s)
        for (int i = 0; i < n; ++i) {
            double v = normal(rng);
            for (int j = 0; j < i; ++j) v += w[i][j] * d.values[j * m + s];
            d.values[i * m + s] = v;
        }
    for (int i = 0; i < n; ++i) d.names.push_back(indexed_name("V", i));
    d.source = "random_sem";
    return d;
}

struct Reference {
    std::vector<std::vector<char>> adj;
    std::map<std::pair<int, int>, std::vector<int>> sepsets;
    std::map<std::pair<int, int>, double> pmax;  ///< the pairs tested at least once
};

/// pcalg skeleton(method = "stable", fixedGaps, fixedEdges): ordered pairs by x, u-side
/// first, stop at the first separating set, skip (y, x) once removed in this level. G
/// starts as !fixedGaps (`gaps`); a pair of fixedEdges (`fixed`, i < j) is never tested.
inline Reference pcalg_stable(skeleton::SkeletonEngine& eng, int n, double alpha, int max_level,
                              const std::set<std::pair<int, int>>& gaps = {},
                              const std::set<std::pair<int, int>>& fixed = {}) {
    Reference r;
    r.adj.assign(n, std::vector<char>(n, 1));
    for (int i = 0; i < n; ++i) r.adj[i][i] = 0;
    for (auto [i, j] : gaps) r.adj[i][j] = r.adj[j][i] = 0;
    const auto is_fixed = [&](int x, int y) { return fixed.count({std::min(x, y), std::max(x, y)}) != 0; };
    std::vector<std::vector<double>> pm(n, std::vector<double>(n, -1.0));
    for (int l = 0;; ++l) {
        if (max_level >= 0 && l > max_level) break;
        int maxdeg = 0;
        for (int i = 0; i < n; ++i) maxdeg = std::max<int>(maxdeg, std::count(r.adj[i].begin(), r.adj[i].end(), 1));
        if (l > 0 && maxdeg - 1 < l) break;
        const auto snap = r.adj;
        for (int x = 0; x < n; ++x)
            for (int y = 0; y < n; ++y) {
                if (!snap[x][y] || !r.adj[y][x] || is_fixed(x, y)) continue;
                std::vector<int> nb;
                for (int k = 0; k < n; ++k)
                    if (snap[x][k] && k != y) nb.push_back(k);
                if (static_cast<int>(nb.size()) < l) continue;
                std::vector<int> c(l);
                for (int t = 0; t < l; ++t) c[t] = t;
                do {
                    std::vector<std::int32_t> s;
                    for (int t = 0; t < l; ++t) s.push_back(nb[c[t]]);
                    const double p = eng.p_value(x, y, s);
                    pm[x][y] = std::max(pm[x][y], p);
                    if (p >= alpha) {
                        r.adj[x][y] = r.adj[y][x] = 0;
                        r.sepsets[{std::min(x, y), std::max(x, y)}] = std::vector<int>(s.begin(), s.end());
                        break;
                    }
                } while (l > 0 && next_combination(c.data(), l, static_cast<int>(nb.size())));
            }
    }
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            const double p = std::max(pm[i][j], pm[j][i]);
            if (p >= 0) r.pmax[{i, j}] = p;
        }
    return r;
}

}  // namespace cudag::test
