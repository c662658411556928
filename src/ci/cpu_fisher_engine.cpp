// SPDX-License-Identifier: Apache-2.0
#include "ci/cpu_fisher_engine.hpp"

#include <algorithm>
#include <utility>

#include "ci/correlation.hpp"
#include "ci/fisher_z.hpp"
#include "core/combinations.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag::ci {

CpuFisherEngine::CpuFisherEngine(const Dataset& data, const pc::TestPolicy& policy, int threads)
    : CpuFisherEngine(correlation_matrix(data, resolve_threads(threads)), data.n_vars,
                      data.n_samples, policy, threads) {}

CpuFisherEngine::CpuFisherEngine(std::vector<double> corr, std::int64_t n, std::int64_t n_samples,
                                 const pc::TestPolicy& policy, int threads)
    : corr_(std::move(corr)), n_(n), m_(n_samples), policy_(policy),
      threads_(resolve_threads(threads)) {
    CUDAG_ASSERT(static_cast<std::int64_t>(corr_.size()) == n_ * n_);
}

void CpuFisherEngine::level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g,
                             pc::Level0Output& out) {
    const std::int64_t n = n_;
    std::vector<std::vector<pc::PairP>> kept(static_cast<std::size_t>(threads_));
    // Rows near the top have the most pairs: small chunks keep threads balanced.
    parallel_for(row_begin, row_end, threads_, 8, [&](std::int64_t i, int w) {
        const double* ci = corr_.data() + i * n;
        const std::int64_t base = i * n - i * (i + 1) / 2 - i - 1;
        for (std::int64_t j = i + 1; j < n; ++j) {
            const double p = fisher_z_pvalue(ci[j], m_, 0, policy_.causal_learn_pvalue);
            if (dense) out.dense_p[base + j] = p;
            if (!policy_.independent(p))
                kept[w].push_back({static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), p});
        }
    });
    for (const auto& k : kept) {
        for (const pc::PairP& q : k) g.add(q.i, q.j);
        if (!dense) out.kept_p.insert(out.kept_p.end(), k.begin(), k.end());
    }
    for (std::int64_t i = row_begin; i < row_end; ++i) out.tests += n - 1 - i;
}

void CpuFisherEngine::run_level(int level, const Adjacency& snap, std::int64_t row_begin,
                                std::int64_t row_end, pc::LevelOutput& out) {
    const int l = level;
    const std::int64_t n = n_;
    const bool exhaustive = policy_.exhaustive;
    std::vector<std::int64_t> tests(static_cast<std::size_t>(threads_), 0);

    parallel_for(row_begin, row_end, threads_, 1, [&](std::int64_t i, int w) {
        const std::int64_t d = snap.degree(i);
        if (d - 1 < l) return;
        const std::int32_t* nb = snap.row(i);
        const std::int64_t e0 = snap.offsets[i];
        // Per-row scratch: combination (indices into nb), its nodes, the block.
        std::vector<int> c(l), s(l);
        std::vector<double> lmat(static_cast<std::size_t>(l) * l),
            scratch(2 * static_cast<std::size_t>(l) * l), yi(l), yj(l);
        std::vector<char> in_set(static_cast<std::size_t>(d), 0);
        std::int64_t open = d;  // neighbours not yet separated from this side
        std::int64_t local_tests = 0;
        for (int t = 0; t < l; ++t) c[t] = t;
        ConditioningBlock block;
        block.lmat = lmat.data();
        do {
            for (int t = 0; t < l; ++t) {
                s[t] = nb[c[t]];
                in_set[c[t]] = 1;
            }
            bool factorised = false;
            for (std::int64_t q = 0; q < d; ++q) {
                if (in_set[q]) continue;
                const std::int64_t e = e0 + q;
                if (!exhaustive && (out.flags[e] & pc::kSeparated)) continue;
                if (!factorised) {
                    block.factorise(corr_.data(), n, s.data(), l, scratch.data());
                    block.project(corr_.data(), n, s.data(), static_cast<int>(i), yi.data());
                    factorised = true;
                }
                const std::int32_t j = nb[q];
                block.project(corr_.data(), n, s.data(), j, yj.data());
                const double r = partial_correlation(block, corr_[i * n + j], yi.data(), yj.data());
                const double p = fisher_z_pvalue(r, m_, l, policy_.causal_learn_pvalue);
                ++local_tests;
                out.flags[e] |= pc::kTested;
                out.pmax[e] = std::max(out.pmax[e], p);
                if (!policy_.independent(p)) continue;
                out.flags[e] |= pc::kSeparated;
                if (!exhaustive) {
                    out.sets[e].assign(s.begin(), s.end());
                    --open;
                } else {
                    std::vector<std::int32_t> u;
                    std::set_union(out.sets[e].begin(), out.sets[e].end(), s.begin(), s.end(),
                                   std::back_inserter(u));
                    out.sets[e].swap(u);
                }
            }
            for (int t = 0; t < l; ++t) in_set[c[t]] = 0;
            // Early termination (cuPC §4.1): every neighbour of the row is separated.
            if (!exhaustive && open == 0) break;
        } while (next_combination(c.data(), l, static_cast<int>(d)));
        tests[w] += local_tests;
    });
    for (std::int64_t t : tests) out.tests += t;
}

double CpuFisherEngine::p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) {
    const int l = static_cast<int>(s.size());
    if (l == 0) return fisher_z_pvalue(corr_[static_cast<std::int64_t>(i) * n_ + j], m_, 0, policy_.causal_learn_pvalue);
    std::vector<int> si(s.begin(), s.end());
    std::vector<double> lmat(static_cast<std::size_t>(l) * l), scratch(2 * static_cast<std::size_t>(l) * l),
        yi(l), yj(l);
    ConditioningBlock block;
    block.lmat = lmat.data();
    block.factorise(corr_.data(), n_, si.data(), l, scratch.data());
    block.project(corr_.data(), n_, si.data(), i, yi.data());
    block.project(corr_.data(), n_, si.data(), j, yj.data());
    const double r =
        partial_correlation(block, corr_[static_cast<std::int64_t>(i) * n_ + j], yi.data(), yj.data());
    return fisher_z_pvalue(r, m_, l, policy_.causal_learn_pvalue);
}

}  // namespace cudag::ci
