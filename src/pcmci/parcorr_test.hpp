// SPDX-License-Identifier: Apache-2.0
// tigramite's ParCorr as a CI test on a data set's columns, as tigramite's CondIndTest.run_test
// asks it of a test's array (tigramite 5.2.10.1): columns constant over the rows are left out
// first (run_test's remove_constant_data: X or Y constant gives value 0 and p-value 1; a
// constant condition is dropped, so it counts in neither the regression nor the degrees of
// freedom), then ci::parcorr on X, Y and the other conditions in the order given (value: the
// partial correlation; p-value: two-sided Student t with T − dim degrees of freedom).
//
// "Constant" is "all values equal". tigramite tests numpy's std == 0, which is the same except
// where numpy's pairwise mean of equal values rounds away from them (e.g. 0.1 repeated): its
// std is then ~1e-17, the column is kept and standardised by it. Such a column carries no
// information either way; cudag drops it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ci/ci_test.hpp"
#include "core/dataset.hpp"

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

}  // namespace cudag::pcmci
