// SPDX-License-Identifier: Apache-2.0
#include "pcmci/parcorr_test.hpp"

#include <algorithm>
#include <cmath>

#include "ci/parcorr.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag::pcmci {

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
    fisher_->run(queries, statistic, p);
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
