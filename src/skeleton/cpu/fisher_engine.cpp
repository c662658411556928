// SPDX-License-Identifier: Apache-2.0
#include "skeleton/cpu/fisher_engine.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

#include "ci/correlation.hpp"
#include "ci/fisher_z.hpp"
#include "core/combinations.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "skeleton/cpu/row_search.hpp"

namespace cudag::skeleton {

using ci::ConditioningBlock;
using ci::correlation_matrix;
using ci::fisher_z_pvalue;
using ci::partial_correlation;

CpuFisherEngine::CpuFisherEngine(const Dataset& data, const TestPolicy& policy, int threads)
    : CpuFisherEngine(correlation_matrix(data, resolve_threads(threads)), data.n_vars, data.n_samples, policy,
                      threads) {}

CpuFisherEngine::CpuFisherEngine(std::vector<double> corr, std::int64_t n, std::int64_t n_samples,
                                 const TestPolicy& policy, int threads)
    : CpuFisherEngine(std::make_shared<const std::vector<double>>(std::move(corr)), n, n_samples, policy, threads) {}

CpuFisherEngine::CpuFisherEngine(std::shared_ptr<const std::vector<double>> corr, std::int64_t n,
                                 std::int64_t n_samples, const TestPolicy& policy, int threads, bool symmetric)
    : corr_(std::move(corr)), n_(n), m_(n_samples), policy_(policy), threads_(resolve_threads(threads)) {
    CUDAG_ASSERT(corr_ && static_cast<std::int64_t>(corr_->size()) == n_ * n_);
    c_ = corr_->data();
    symmetric_ = symmetric || bitwise_symmetric(c_, n_, threads_);
}

bool CpuFisherEngine::bitwise_symmetric(const double* c, std::int64_t n, int threads) {
    // Blocks of rows against the mirrored blocks of columns (an element-wise pass strides n).
    constexpr std::int64_t kBlock = 64;
    const std::int64_t blocks = (n + kBlock - 1) / kBlock;
    std::atomic<bool> same{true};
    parallel_for(0, blocks, threads, 1, [&](std::int64_t ib, int) {
        for (std::int64_t jb = ib; jb < blocks && same.load(std::memory_order_relaxed); ++jb)
            for (std::int64_t i = ib * kBlock; i < std::min(n, (ib + 1) * kBlock); ++i)
                for (std::int64_t j = std::max(i + 1, jb * kBlock); j < std::min(n, (jb + 1) * kBlock); ++j)
                    if (std::bit_cast<std::uint64_t>(c[i * n + j]) != std::bit_cast<std::uint64_t>(c[j * n + i])) {
                        same.store(false, std::memory_order_relaxed);
                        return;
                    }
    });
    return same.load();
}

void CpuFisherEngine::level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) {
    level0_rows(n_, row_begin, row_end, dense, policy_, threads_, g, out, [this](std::int64_t i, std::int64_t j, int) {
        return fisher_z_pvalue(c_[i * n_ + j], m_, 0, policy_.causal_learn_pvalue);
    });
}

namespace {

/// One row's tests at level l: a factorisation of C[S,S] per conditioning set S serves
/// every neighbour j ∉ S (cuPC-S's sharing).
///
/// A test whose p-value cannot change anything is not finished: within a level (m and l
/// fixed) p falls as |r| grows, so once an entry's test gave p_ref (dependent, p_ref <= 0.3)
/// from |r_ref| < 0.99, a later test of that entry with |r| > |r_ref| (1 + 1e-9) has
/// p <= p_ref, bit for bit: the margin moves z, and erfc's value at z >= 1, by far more than
/// the few ulps of rounding in log1p and erfc (faithfully rounded), so the computed p-values
/// keep their order. Such a test returns -1 (search_row: counted and marked tested; pMax
/// and the separation unchanged, as with the p it would have had). The sets, pMax and test
/// counts are those of computing every p.
struct FisherRowTester {
    static constexpr double kMargin = 1.0 + 1e-9;
    static constexpr double kMaxRef = 0.99, kMaxRefP = 0.3;
    const double* corr;
    std::int64_t n, m;
    std::int32_t i;
    const std::int32_t* nb;  ///< the row's neighbours (snapshot)
    std::int64_t degree;
    bool causal_learn, symmetric;
    ci::Decision decision;
    int l = 0;
    std::vector<int> s;
    std::vector<double> lmat, scratch, yi, yj;
    std::vector<double> bound;  ///< per row position: |r| above which p <= the entry's p_ref (+inf: none)
    ConditioningBlock block;

    FisherRowTester(const double* c, std::int64_t n_vars, std::int64_t m_samples, std::int32_t row, int level,
                    const TestPolicy& policy, const std::int32_t* neighbours, std::int64_t d, bool sym)
        : corr(c),
          n(n_vars),
          m(m_samples),
          i(row),
          nb(neighbours),
          degree(d),
          causal_learn(policy.causal_learn_pvalue),
          symmetric(sym),
          decision(policy.decision()),
          l(level),
          s(static_cast<std::size_t>(level)),
          lmat(static_cast<std::size_t>(level) * level),
          scratch(2 * static_cast<std::size_t>(level) * level),
          yi(level),
          yj(level),
          bound(static_cast<std::size_t>(d), std::numeric_limits<double>::infinity()) {
        block.lmat = lmat.data();
    }
    void prepare(const std::int32_t* set, int) {
        std::copy(set, set + l, s.begin());
        // The set's tests read C[S, j] for the row's neighbours j: their cache lines asked
        // for now, while the set is factorised (one miss per test otherwise, in turn).
        if (symmetric)
            for (int r = 0; r < l; ++r)
                for (std::int64_t q = 0; q < degree; ++q)
                    __builtin_prefetch(corr + static_cast<std::int64_t>(set[r]) * n + nb[q]);
        block.factorise(corr, n, s.data(), l, scratch.data());
        block.project(corr, n, s.data(), i, yi.data());
    }
    /// The p-value of i ⟂ j | S, or -1 where it is at most the p_ref of row position q.
    double test(std::int32_t j, std::int64_t q) {
        // C[j, S] of a bitwise symmetric C read as C[S, j]: the same values, from the rows of
        // S (shared by every j of the set) rather than a row of C per j.
        if (symmetric)
            block.project_with([this](int x, int k) { return corr[static_cast<std::int64_t>(k) * n + x]; }, s.data(), j,
                               yj.data());
        else
            block.project(corr, n, s.data(), j, yj.data());
        const double r = partial_correlation(block, corr[i * n + j], yi.data(), yj.data());
        double& b = bound[static_cast<std::size_t>(q)];
        if (std::fabs(r) > b) return -1.0;
        const double p = fisher_z_pvalue(r, m, l, causal_learn);
        const double a = std::fabs(r);
        if (a < kMaxRef && p <= kMaxRefP && !decision.independent(p)) b = std::min(b, a * kMargin);
        return p;
    }
};
}  // namespace

void CpuFisherEngine::run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) {
    std::vector<std::int64_t> tests(static_cast<std::size_t>(threads_), 0);
    parallel_for(block.row_begin, block.row_end, threads_, 1, [&](std::int64_t i, int w) {
        const auto [qb, qe] = block.positions(snap, i);
        if (snap.degree(i) - 1 < level) return;
        FisherRowTester tester(c_, n_, m_, static_cast<std::int32_t>(i), level, policy_, snap.row(i), snap.degree(i),
                               symmetric_);
        tests[w] += search_row(level, snap, i, policy_, out, tester, qb, qe);
    });
    for (std::int64_t t : tests) out.tests += t;
}

double CpuFisherEngine::p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) {
    return fisher_z_pvalue(partial_correlation(i, j, s), m_, static_cast<int>(s.size()), policy_.causal_learn_pvalue);
}

double CpuFisherEngine::partial_correlation(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) const {
    const int l = static_cast<int>(s.size());
    if (l == 0) return c_[static_cast<std::int64_t>(i) * n_ + j];
    std::vector<int> si(s.begin(), s.end());
    std::vector<double> lmat(static_cast<std::size_t>(l) * l), scratch(2 * static_cast<std::size_t>(l) * l), yi(l),
        yj(l);
    ConditioningBlock block;
    block.lmat = lmat.data();
    block.factorise(c_, n_, si.data(), l, scratch.data());
    block.project(c_, n_, si.data(), i, yi.data());
    block.project(c_, n_, si.data(), j, yj.data());
    return ci::partial_correlation(block, c_[static_cast<std::int64_t>(i) * n_ + j], yi.data(), yj.data());
}

bool CpuFisherEngine::singular(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) const {
    std::vector<std::int32_t> vars(s.begin(), s.end());
    vars.push_back(i);
    vars.push_back(j);
    const int k = static_cast<int>(vars.size());
    std::vector<double> a(static_cast<std::size_t>(k) * static_cast<std::size_t>(k));
    for (int r = 0; r < k; ++r)
        for (int c = 0; c < k; ++c)
            a[static_cast<std::size_t>(r) * static_cast<std::size_t>(k) + static_cast<std::size_t>(c)] =
                c_[static_cast<std::int64_t>(vars[static_cast<std::size_t>(r)]) * n_ +
                   vars[static_cast<std::size_t>(c)]];
    return !ci::cholesky(a.data(), k);
}

}  // namespace cudag::skeleton
