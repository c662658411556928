// SPDX-License-Identifier: Apache-2.0
#include "pcmci/parcorr_test.hpp"

#include <algorithm>
#include <cmath>

#include "ci/fisher_z.hpp"
#include "ci/parcorr.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag::pcmci {

namespace {

/// The smallest eigenvalue of the symmetric k x k matrix `a` (row-major, destroyed).
double smallest_eigenvalue(std::vector<double>& a, int k) {
    std::vector<double> v(a.size());
    ci::jacobi_eigen_sym(a.data(), k, v.data());
    double least = a[0];
    for (int r = 1; r < k; ++r) least = std::min(least, a[static_cast<std::size_t>(r) * k + r]);
    return least;
}

}  // namespace

std::vector<char> ill_conditioned_columns(const LaggedData& lagged, double min_eigenvalue, int threads) {
    const Dataset& d = lagged.data;
    const int k = lagged.max_lag + 1;
    std::vector<char> out(static_cast<std::size_t>(d.n_vars), 0);
    if (k < 2) return out;
    parallel_for(0, lagged.n_vars, std::max(1, threads), 1, [&](std::int64_t v, int) {
        std::vector<const double*> col(static_cast<std::size_t>(k));
        for (int lag = 0; lag < k; ++lag)
            col[static_cast<std::size_t>(lag)] = d.column(lagged.column(static_cast<std::int32_t>(v), lag));
        // The rows complete in the block, each column standardised on them.
        std::vector<std::int64_t> rows;
        for (std::int64_t r = 0; r < d.n_samples; ++r) {
            bool complete = true;
            for (int lag = 0; lag < k && complete; ++lag) complete = !std::isnan(col[static_cast<std::size_t>(lag)][r]);
            if (complete) rows.push_back(r);
        }
        const auto m = static_cast<std::int64_t>(rows.size());
        if (m < 2) return;
        std::vector<double> z(static_cast<std::size_t>(m * k));
        for (int lag = 0; lag < k; ++lag) {
            const double* c = col[static_cast<std::size_t>(lag)];
            double mean = 0.0;
            for (const std::int64_t r : rows) mean += c[r];
            mean /= static_cast<double>(m);
            double ss = 0.0;
            for (const std::int64_t r : rows) ss += (c[r] - mean) * (c[r] - mean);
            const double sd = std::sqrt(ss / static_cast<double>(m));
            if (!(sd > 0.0)) return;  // constant on these rows: no block to judge
            for (std::int64_t q = 0; q < m; ++q) z[static_cast<std::size_t>(lag * m + q)] = (c[rows[q]] - mean) / sd;
        }
        std::vector<double> corr(static_cast<std::size_t>(k * k));
        for (int a = 0; a < k; ++a)
            for (int b = a; b < k; ++b) {
                double s = 0.0;
                for (std::int64_t q = 0; q < m; ++q)
                    s += z[static_cast<std::size_t>(a * m + q)] * z[static_cast<std::size_t>(b * m + q)];
                corr[static_cast<std::size_t>(a * k + b)] = corr[static_cast<std::size_t>(b * k + a)] =
                    s / static_cast<double>(m);
            }
        if (smallest_eigenvalue(corr, k) < min_eigenvalue)
            for (int lag = 0; lag < k; ++lag)
                out[static_cast<std::size_t>(lagged.column(static_cast<std::int32_t>(v), lag))] = 1;
    });
    return out;
}

ParCorrBatch::ParCorrBatch(std::unique_ptr<ci::BatchTest> fisher, const LaggedData& lagged, int threads)
    : ParCorrBatch(std::move(fisher), lagged.data, threads) {
    table_ = &lagged.data;
    exact_ = ill_conditioned_columns(lagged, kLeastSquaresEigenvalue, threads);
    if (std::find(exact_.begin(), exact_.end(), 1) == exact_.end()) exact_.clear();
}

void ParCorrBatch::run_least_squares(const ci::Queries& queries, std::span<const std::size_t> which,
                                     std::span<double> statistic) {
    const Dataset& d = *table_;
    const int workers = std::max(1, threads_);
    std::vector<std::vector<const double*>> cols(static_cast<std::size_t>(workers));  // per worker, reused
    std::vector<std::vector<double>> values(static_cast<std::size_t>(workers));
    parallel_for(0, static_cast<std::int64_t>(which.size()), workers, 1, [&](std::int64_t w, int worker) {
        const std::size_t q = which[static_cast<std::size_t>(w)];
        std::vector<const double*>& c = cols[static_cast<std::size_t>(worker)];
        std::vector<double>& v = values[static_cast<std::size_t>(worker)];
        c.assign({d.column(queries.x[q]), d.column(queries.y[q])});
        for (const std::int32_t s : queries.set(q)) c.push_back(d.column(s));
        v.clear();
        std::int64_t t = 0;
        for (std::int64_t r = 0; r < d.n_samples; ++r) {
            bool complete = true;
            for (std::size_t k = 0; complete && k < c.size(); ++k) complete = !std::isnan(c[k][r]);
            if (!complete) continue;
            for (const double* col : c) v.push_back(col[r]);
            ++t;
        }
        // its p-value is parcorr_p_value(value, t, dim), as run() forms every query's
        statistic[q] = ci::parcorr(v.data(), t, static_cast<int>(c.size())).value;
    });
}

void ParCorrBatch::run(const ci::Queries& queries, std::span<double> statistic, std::span<double> p) {
    // With missing cells, each query's rows: those complete in x, y and every condition.
    std::vector<std::int64_t> rows;
    if (data_) {
        rows.resize(queries.size());
        const Dataset& d = *data_;
        parallel_for(0, static_cast<std::int64_t>(queries.size()), std::max(1, threads_), 64, [&](std::int64_t q, int) {
            const auto k = static_cast<std::size_t>(q);
            const std::span<const std::int32_t> s = queries.set(k);
            const double* x = d.column(queries.x[k]);
            const double* y = d.column(queries.y[k]);
            std::int64_t n = 0;
            for (std::int64_t r = 0; r < d.n_samples; ++r) {
                bool complete = !std::isnan(x[r]) && !std::isnan(y[r]);
                for (std::size_t c = 0; complete && c < s.size(); ++c) complete = !std::isnan(d.column(s[c])[r]);
                n += complete ? 1 : 0;
            }
            rows[k] = n;
        });
    }
    // Too few rows for a query's conditions is its error, before the Fisher-z engine (whose
    // statistic needs more rows still) meets it.
    for (std::size_t q = 0; q < queries.size(); ++q) {
        const int dim = static_cast<int>(queries.set(q).size()) + 2;
        const std::int64_t n = data_ ? rows[q] : n_;
        if (n - dim < 1)
            throw InputError("parcorr given " + std::to_string(dim - 2) + " conditions needs more than " +
                             std::to_string(dim) + " samples; there are " + std::to_string(n) +
                             (data_ ? " complete rows for query " + std::to_string(q + 1)
                                    : " rows after the lags (fewer lags or a longer series)"));
    }
    // Queries touching an ill-conditioned series go to least squares, the others to the engine.
    std::vector<std::size_t> exact, rest;
    if (!exact_.empty()) {
        const auto touches = [&](std::size_t q) {
            if (exact_[static_cast<std::size_t>(queries.x[q])] || exact_[static_cast<std::size_t>(queries.y[q])])
                return true;
            for (const std::int32_t c : queries.set(q))
                if (exact_[static_cast<std::size_t>(c)]) return true;
            return false;
        };
        for (std::size_t q = 0; q < queries.size(); ++q) (touches(q) ? exact : rest).push_back(q);
    }
    if (exact.empty()) {
        fisher_->run(queries, statistic, p);
    } else {
        least_squares_tests_ += static_cast<std::int64_t>(exact.size());
        if (!rest.empty()) {
            ci::QueryList sub;
            for (const std::size_t q : rest) sub.add(queries.x[q], queries.y[q], queries.set(q));
            std::vector<double> st(rest.size()), pp(rest.size());
            fisher_->run(sub.view(), st, pp);
            for (std::size_t k = 0; k < rest.size(); ++k) statistic[rest[k]] = st[k];
        }
        run_least_squares(queries, exact, statistic);
    }
    // The p-values on the threads (a batch holds millions of tests); the first bad query in
    // batch order is the error, whatever thread met it.
    std::vector<char> bad(queries.size(), 0);
    parallel_for(0, static_cast<std::int64_t>(queries.size()), std::max(1, threads_), 1024, [&](std::int64_t i, int) {
        const auto q = static_cast<std::size_t>(i);
        const int dim = static_cast<int>(queries.set(q).size()) + 2;
        const std::int64_t n = data_ ? rows[q] : n_;
        p[q] = ci::parcorr_p_value(statistic[q], n, dim);
        if (!ci::is_result(statistic[q], p[q])) bad[q] = 1;
    });
    const auto first = std::find_if(bad.begin(), bad.end(), [](char b) { return b != 0; });
    if (first == bad.end()) return;
    const auto q = static_cast<std::size_t>(first - bad.begin());
    throw InputError("parcorr: not a result for query " + std::to_string(q + 1) + " (r " +
                     std::to_string(statistic[q]) + ")");
}

}  // namespace cudag::pcmci
