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
#include "ci/parcorr.hpp"
#include "core/combinations.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "skeleton/cpu/row_search.hpp"

namespace cudag::skeleton {

using ci::ConditioningBlock;
using ci::correlation_matrix;
using ci::fisher_z_pvalue;
using ci::partial_correlation;

namespace {

/// The p-value of partial correlation r given l conditions from m samples under `policy`:
/// Fisher's z (root = ci::fisher_z_root(m, l); pcalg's or causal-learn's arithmetic) or the
/// exact Student-t test (bnlearn's cor: tigramite's ParCorr p-value, df = m − l − 2).
double policy_pvalue(double r, std::int64_t m, int l, double root, const TestPolicy& policy) {
    if (!policy.student_t) return ci::fisher_z_pvalue_root(r, root, policy.causal_learn_pvalue);
    if (!(r == r)) r = 0.0;  // NaN (degenerate residual) counts as r = 0, as Fisher-z's
    return ci::parcorr_p_value(r, m, l + 2);
}

}  // namespace

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
    const double* c = c_;
    const std::int64_t n = n_;
    const double root = ci::fisher_z_root(m_, 0);
    const TestPolicy policy = policy_;
    const std::int64_t m = m_;
    level0_rows(n_, row_begin, row_end, dense, policy_, threads_, g, out,
                [=](std::int64_t i, std::int64_t j, int) { return policy_pvalue(c[i * n + j], m, 0, root, policy); });
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
    double root;  ///< ci::fisher_z_root(m, l)
    std::int32_t i;
    const std::int32_t* nb;  ///< the row's neighbours (snapshot)
    std::int64_t degree;
    TestPolicy policy;
    bool symmetric;
    ci::Decision decision;
    int l = 0;
    std::vector<int> s;
    std::vector<double> lmat, scratch, yi, yj;
    std::vector<double> bound;  ///< per row position: |r| above which p <= the entry's p_ref (+inf: none)
    std::vector<double> rs, ys, acc22, acc12;  ///< batch(): r per test, y_j (l rows of tests), the forms
    std::vector<std::int32_t> cols;            ///< batch(): j per test
    ConditioningBlock block;

    FisherRowTester(const double* c, std::int64_t n_vars, std::int64_t m_samples, std::int32_t row, int level,
                    const TestPolicy& policy, const std::int32_t* neighbours, std::int64_t d, bool sym)
        : corr(c),
          n(n_vars),
          m(m_samples),
          root(ci::fisher_z_root(m_samples, level)),
          i(row),
          nb(neighbours),
          degree(d),
          policy(policy),
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
        return p_of(partial_correlation(block, corr[i * n + j], yi.data(), yj.data()), q);
    }

    /// The partial correlations of the set's tests at row positions q[0..count), computed
    /// test by test as test() computes one (the same operations in the same order: the same
    /// bits) but each step across all of them, without a branch between them: the divisions
    /// and square roots of different tests overlap instead of waiting on each other.
    void batch(const std::int64_t* q, std::int64_t count) {
        const auto cn = static_cast<std::size_t>(count);
        rs.resize(cn);
        if (!block.chol) {  // the pseudo-inverse's form: test by test
            for (std::size_t t = 0; t < cn; ++t) {
                const std::int32_t j = nb[q[t]];
                block.project(corr, n, s.data(), j, yj.data());
                rs[t] = partial_correlation(block, corr[i * n + j], yi.data(), yj.data());
            }
            return;
        }
        ys.resize(static_cast<std::size_t>(l) * cn);
        acc22.resize(cn);
        acc12.resize(cn);
        cols.resize(cn);
        for (std::size_t t = 0; t < cn; ++t) cols[t] = nb[q[t]];
        const double* lm = lmat.data();
        // forward_solve of every y_j = C[j, S]: row r of L for all j at once.
        for (int r = 0; r < l; ++r) {
            double* yr = ys.data() + static_cast<std::size_t>(r) * cn;
            const std::int64_t sr = s[static_cast<std::size_t>(r)];
            if (symmetric) {
                const double* crow = corr + sr * n;
                for (std::size_t t = 0; t < cn; ++t) yr[t] = crow[cols[t]];
            } else {
                for (std::size_t t = 0; t < cn; ++t) yr[t] = corr[static_cast<std::int64_t>(cols[t]) * n + sr];
            }
            for (int k = 0; k < r; ++k) {
                const double lk = lm[r * l + k];
                const double* yk = ys.data() + static_cast<std::size_t>(k) * cn;
                for (std::size_t t = 0; t < cn; ++t) yr[t] -= lk * yk[t];
            }
            const double diag = lm[r * l + r];
            for (std::size_t t = 0; t < cn; ++t) yr[t] = yr[t] / diag;
        }
        // form(yj, yj) and form(yi, yj), term by term as ConditioningBlock::form sums them.
        std::fill(acc22.begin(), acc22.end(), 0.0);
        std::fill(acc12.begin(), acc12.end(), 0.0);
        for (int r = 0; r < l; ++r) {
            const double* yr = ys.data() + static_cast<std::size_t>(r) * cn;
            const double yir = yi[static_cast<std::size_t>(r)];
            for (std::size_t t = 0; t < cn; ++t) acc22[t] += yr[t] * yr[t];
            for (std::size_t t = 0; t < cn; ++t) acc12[t] += yir * yr[t];
        }
        const double h11 = 1.0 - block.form(yi.data(), yi.data());
        const double* ci = corr + i * n;
        for (std::size_t t = 0; t < cn; ++t) {
            const double h22 = 1.0 - acc22[t];
            const double h12 = ci[cols[t]] - acc12[t];
            rs[t] = ci::partial_from_residual(h11, h12, h22);
        }
    }

    /// The p-value of the t-th test of batch() (row position q), or -1 as test() gives it.
    double batched(std::int64_t t, std::int64_t q) { return p_of(rs[static_cast<std::size_t>(t)], q); }

    /// The p-value of partial correlation r at row position q, or -1 (the bound).
    double p_of(double r, std::int64_t q) {
        double& b = bound[static_cast<std::size_t>(q)];
        if (std::fabs(r) > b) return -1.0;
        const double p = policy_pvalue(r, m, l, root, policy);
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
    const int l = static_cast<int>(s.size());
    return policy_pvalue(partial_correlation(i, j, s), m_, l, ci::fisher_z_root(m_, l), policy_);
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
