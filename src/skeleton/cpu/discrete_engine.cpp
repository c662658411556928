// SPDX-License-Identifier: Apache-2.0
#include "skeleton/cpu/discrete_engine.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "skeleton/cpu/row_search.hpp"

namespace cudag::skeleton {

using ci::cell_term;
using ci::discrete_pvalue;
using ci::DiscreteCodes;
using ci::DiscreteStat;
using ci::DiscreteTestSpec;
using ci::DofRule;
using ci::encode_discrete;
using ci::expected_count;

/// One thread's working memory: the strata of the current conditioning set and the
/// tables of the current test. Sized once; reused by every test the thread runs.
class CpuDiscreteEngine::Scratch {
public:
    /// `cells`: the most cells a test's table has (rx·ry; 256² serves every pair).
    explicit Scratch(std::int64_t m, std::size_t cells = 256 * 256)
        : m_(m), table_(cells, 0), nx_(256, 0), ny_(256, 0) {
        touched_.reserve(cells);
    }

    /// Strata of S (l variables) and the row variable x's codes in stratum order.
    void build(const DiscreteCodes& d, const std::int32_t* s, int l, const std::uint8_t* x) {
        prod_s_ = 1.0;
        l_ = l;
        if (l == 0) {
            k_ = 1;
            offsets_.assign({0, static_cast<std::int32_t>(m_)});
            perm_.clear();
            xs_ = x;
            return;
        }
        key_.assign(static_cast<std::size_t>(m_), 0);
        std::int64_t k = 1;
        for (int t = 0; t < l; ++t) {
            const std::int32_t r = d.cards[s[t]];
            const std::uint8_t* col = d.column(s[t]);
            prod_s_ *= r;
            for (std::int64_t q = 0; q < m_; ++q) key_[q] = key_[q] * r + col[q];
            k *= r;
            // Renumber densely (in key order) whenever the key range outgrows the sample
            // count, so keys never overflow, and at the end, so every stratum is non-empty.
            if (k > m_ || t == l - 1) k = renumber(k);
        }
        k_ = k;
        // Bucket the samples by stratum (stable counting sort).
        offsets_.assign(static_cast<std::size_t>(k + 1), 0);
        for (std::int64_t q = 0; q < m_; ++q) ++offsets_[key_[q] + 1];
        for (std::int64_t t = 0; t < k; ++t) offsets_[t + 1] += offsets_[t];
        perm_.resize(static_cast<std::size_t>(m_));
        xs_buf_.resize(static_cast<std::size_t>(m_));
        cursor_.assign(offsets_.begin(), offsets_.end() - 1);
        for (std::int64_t q = 0; q < m_; ++q) {
            const std::int32_t at = cursor_[key_[q]]++;
            perm_[at] = static_cast<std::int32_t>(q);
            xs_buf_[at] = x[q];
        }
        xs_ = xs_buf_.data();
    }

    /// The test of x (rx levels) against y (codes, ry levels) given the built strata.
    TestResult test(const DiscreteTestSpec& spec, int rx, const std::uint8_t* y, int ry) {
        double sum = 0.0;
        double df_seen = 0.0;
        double nonzero = 0.0;
        const bool chi = spec.stat == DiscreteStat::ChiSquare;
        for (std::int64_t t = 0; t < k_; ++t) {
            const std::int32_t b = offsets_[t];
            const std::int32_t e = offsets_[t + 1];
            if (b == e) continue;
            int seen_x = 0;
            int seen_y = 0;
            touched_.clear();
            for (std::int32_t q = b; q < e; ++q) {
                const int xv = xs_[q];
                const int yv = perm_.empty() ? y[q] : y[perm_[q]];
                const int cell = xv * ry + yv;
                if (table_[cell]++ == 0) touched_.push_back(cell);
                if (nx_[xv]++ == 0) ++seen_x;
                if (ny_[yv]++ == 0) ++seen_y;
            }
            df_seen += static_cast<double>(seen_x - 1) * (seen_y - 1);
            nonzero += static_cast<double>(touched_.size());
            // Only the observed cells are visited: O(samples) per test whatever rx·ry·|S|.
            // A χ² cell with N = 0 contributes E; those E sum to N++s − Σ_observed E.
            const double ns = e - b;
            double e_seen = 0.0;
            for (int cell : touched_) {
                const double ex = expected_count(nx_[cell / ry], ny_[cell % ry], ns);
                sum += cell_term(spec.stat, table_[cell], ex);
                e_seen += ex;
            }
            if (chi) sum += ns - e_seen;
            for (int cell : touched_) {
                table_[cell] = 0;
                nx_[cell / ry] = 0;
                ny_[cell % ry] = 0;
            }
        }
        TestResult r;
        ci::DiscreteTable t;
        t.df_full = static_cast<double>(rx - 1) * (ry - 1) * prod_s_;
        t.df_seen = df_seen;
        t.cells = static_cast<double>(rx) * ry * prod_s_;
        t.nonzero = nonzero;
        t.prod_s = prod_s_;
        t.l = l_;
        t.n = m_;
        r.statistic = ci::discrete_statistic(spec.dof, sum, t);
        r.dof = ci::discrete_dof(spec.dof, t);
        r.p = discrete_pvalue(spec.dof, sum, t);
        return r;
    }

private:
    /// Replace the keys (range [0, k)) by dense ids in increasing key order; returns the
    /// number of distinct keys.
    std::int64_t renumber(std::int64_t k) {
        if (k <= 8 * m_ + 4096) {
            lookup_.assign(static_cast<std::size_t>(k), 0);
            for (std::int64_t q = 0; q < m_; ++q) lookup_[key_[q]] = 1;
            std::int32_t next = 0;
            for (std::int64_t c = 0; c < k; ++c)
                if (lookup_[c]) lookup_[c] = ++next;
            for (std::int64_t q = 0; q < m_; ++q) key_[q] = lookup_[key_[q]] - 1;
            return next;
        }
        sorted_.assign(key_.begin(), key_.end());
        std::sort(sorted_.begin(), sorted_.end());
        sorted_.erase(std::unique(sorted_.begin(), sorted_.end()), sorted_.end());
        for (std::int64_t q = 0; q < m_; ++q)
            key_[q] = std::lower_bound(sorted_.begin(), sorted_.end(), key_[q]) - sorted_.begin();
        return static_cast<std::int64_t>(sorted_.size());
    }

    std::int64_t m_;
    std::int64_t k_ = 1;
    double prod_s_ = 1.0;
    int l_ = 0;  ///< variables in S
    std::vector<std::int64_t> key_, sorted_;
    std::vector<std::int32_t> lookup_, offsets_, cursor_, perm_;
    std::vector<std::uint8_t> xs_buf_;
    const std::uint8_t* xs_ = nullptr;
    std::vector<std::uint32_t> table_, nx_, ny_;
    std::vector<int> touched_;
};

CpuDiscreteEngine::CpuDiscreteEngine(const Dataset& data, const TestPolicy& policy, const DiscreteTestSpec& test,
                                     int threads)
    : CpuDiscreteEngine(encode_discrete(data, test.dof == DofRule::CausalLearn), policy, test, threads) {}

CpuDiscreteEngine::CpuDiscreteEngine(DiscreteCodes codes, const TestPolicy& policy, const DiscreteTestSpec& test,
                                     int threads)
    : data_(std::move(codes)), policy_(policy), test_(test), threads_(resolve_threads(threads)) {
    CUDAG_EXPECTS(data_.n_samples < (std::int64_t{1} << 31), "discrete data: at most 2^31 - 1 samples are supported");
}

void CpuDiscreteEngine::make_scratch() {
    // on the first level: a single test (test(), p_value()) builds a scratch of its own size
    if (scratch_.empty())
        for (int w = 0; w < threads_; ++w) scratch_.emplace_back(data_.n_samples);
}

CpuDiscreteEngine::~CpuDiscreteEngine() = default;

void CpuDiscreteEngine::level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) {
    make_scratch();
    std::vector<std::int64_t> built(static_cast<std::size_t>(threads_), -1);
    level0_rows(data_.n_vars, row_begin, row_end, dense, policy_, threads_, g, out,
                [&](std::int64_t i, std::int64_t j, int w) {
                    Scratch& sc = scratch_[w];
                    if (built[w] != i) {
                        sc.build(data_, nullptr, 0, data_.column(i));
                        built[w] = i;
                    }
                    return sc.test(test_, data_.cards[i], data_.column(j), data_.cards[j]).p;
                });
}

namespace {

/// One row's tests at level l: the strata of each S serve every neighbour j ∉ S.
struct DiscreteRowTester {
    const DiscreteCodes& data;
    const DiscreteTestSpec& spec;
    CpuDiscreteEngine::Scratch& scratch;
    std::int32_t i;

    void prepare(const std::int32_t* s, int l) { scratch.build(data, s, l, data.column(i)); }
    double test(std::int32_t j) { return scratch.test(spec, data.cards[i], data.column(j), data.cards[j]).p; }
};

}  // namespace

void CpuDiscreteEngine::run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) {
    make_scratch();
    std::vector<std::int64_t> tests(static_cast<std::size_t>(threads_), 0);
    parallel_for(block.row_begin, block.row_end, threads_, 1, [&](std::int64_t i, int w) {
        const auto [qb, qe] = block.positions(snap, i);
        DiscreteRowTester tester{data_, test_, scratch_[w], static_cast<std::int32_t>(i)};
        tests[w] += search_row(level, snap, i, policy_, out, tester, qb, qe);
    });
    for (std::int64_t t : tests) out.tests += t;
}

CpuDiscreteEngine::TestResult CpuDiscreteEngine::test(std::int32_t i, std::int32_t j,
                                                      const std::vector<std::int32_t>& s) {
    // one test: a table of its own pair's cells only (zeroing 256² cells would dominate)
    Scratch sc(data_.n_samples, static_cast<std::size_t>(data_.cards[i]) * static_cast<std::size_t>(data_.cards[j]));
    sc.build(data_, s.data(), static_cast<int>(s.size()), data_.column(i));
    return sc.test(test_, data_.cards[i], data_.column(j), data_.cards[j]);
}

double CpuDiscreteEngine::p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) {
    return test(i, j, s).p;
}

}  // namespace cudag::skeleton
