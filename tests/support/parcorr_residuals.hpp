// SPDX-License-Identifier: Apache-2.0
// The tests' reference for PCMCI's ParCorr (pcmci::ParCorrBatch, the product's, takes the
// partial correlation from the correlation matrix): tigramite's ParCorr as a CI test on a data
// set's columns, as tigramite's CondIndTest.run_test asks it of a test's array (tigramite
// 5.2.10.1): columns constant over the rows are left out first (run_test's
// remove_constant_data: X or Y constant gives value 0 and p-value 1; a constant condition is
// dropped, so it counts in neither the regression nor the degrees of freedom), then ci::parcorr
// (least squares on residuals) on X, Y and the other conditions in the order given (value: the
// partial correlation; p-value: two-sided Student t with T − dim degrees of freedom).
//
// "Constant" is "all values equal". tigramite tests numpy's std == 0, which is the same except
// where numpy's pairwise mean of equal values rounds away from them (e.g. 0.1 repeated): its
// std is then ~1e-17, the column is kept and standardised by it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ci/ci_test.hpp"
#include "ci/parcorr.hpp"
#include "core/dataset.hpp"
#include "core/error.hpp"

namespace cudag::pcmci {

class ParCorrTest final : public ci::CiTest {
public:
    /// The data are referenced, not copied, and must outlive the test (continuous, no missing cells).
    explicit ParCorrTest(const Dataset& data);
    std::string name() const override { return "parcorr"; }
    /// statistic: the partial correlation; extra: {"dof", T − dim}. Throws InputError naming the
    /// variables when T − dim < 1 (too few samples for the conditions).
    ci::CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override;
    std::vector<std::string> digest() const override { return {"parcorr"}; }

private:
    const Dataset& data_;
    std::vector<char> constant_;  ///< per column: all values equal
    std::vector<double> rows_;    ///< the test's array, row-major (scratch)
};

inline ParCorrTest::ParCorrTest(const Dataset& data)
    : data_(data), constant_(static_cast<std::size_t>(data.n_vars), 0) {
    for (std::int64_t v = 0; v < data.n_vars; ++v) {
        const double* c = data.column(v);
        constant_[static_cast<std::size_t>(v)] =
            static_cast<char>(std::all_of(c, c + data.n_samples, [&](double a) { return a == c[0]; }));
    }
}

inline ci::CiOutcome ParCorrTest::test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    ci::CiOutcome o;
    if (constant_[static_cast<std::size_t>(x)] || constant_[static_cast<std::size_t>(y)]) {
        o.statistic = 0.0;
        o.p = 1.0;
        return o;
    }
    std::vector<std::int32_t> cols{x, y};
    for (std::int32_t v : s)
        if (!constant_[static_cast<std::size_t>(v)]) cols.push_back(v);
    const int dim = static_cast<int>(cols.size());
    const std::int64_t t = data_.n_samples;
    if (t - dim < 1)
        throw InputError("parcorr of '" + data_.names[static_cast<std::size_t>(x)] + "' and '" +
                         data_.names[static_cast<std::size_t>(y)] + "' given " + std::to_string(dim - 2) +
                         " conditions needs more than " + std::to_string(dim) + " samples; there are " +
                         std::to_string(t));
    rows_.resize(static_cast<std::size_t>(t * dim));
    for (int k = 0; k < dim; ++k) {
        const double* c = data_.column(cols[static_cast<std::size_t>(k)]);
        for (std::int64_t r = 0; r < t; ++r) rows_[static_cast<std::size_t>(r * dim + k)] = c[r];
    }
    const ci::ParCorrResult r = ci::parcorr(rows_.data(), t, dim);
    o.statistic = r.value;
    o.p = r.p_value;
    o.extra.emplace_back("dof", std::to_string(r.degrees_of_freedom));
    return o;
}

}  // namespace cudag::pcmci
