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

#include <memory>

#include "ci/batch.hpp"
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

/// ParCorr for PCMCI's batches, on the CPU or a GPU alike: the partial correlation of a
/// Fisher-z BatchTest (`fisher`: the project's Fisher-z engines, whose statistic is the partial
/// correlation from the correlation matrix, CPU and GPU bit for bit) with ParCorr's p-value,
/// ci::parcorr_p_value(r, n, |S| + 2). The value equals ParCorrTest's (least squares on
/// residuals) to rounding: a few 1e-13 on the reference cases. Columns constant over the rows
/// must not be asked (the job refuses them: tigramite would drop them).
///
/// With missing values (tigramite's missing_flag) the Fisher-z engine is the test-wise one: each
/// query's partial correlation on the rows complete in its columns; the p-value then takes that
/// query's row count, as tigramite's ParCorr takes its array's (ParCorrBatch(fisher, data)).
class ParCorrBatch final : public ci::BatchTest {
public:
    ParCorrBatch(std::unique_ptr<ci::BatchTest> fisher, std::int64_t n_samples)
        : fisher_(std::move(fisher)), n_(n_samples) {}
    /// Over `data` (referenced; it must outlive the batch): its row count, or, when it has
    /// missing cells, each query's complete rows, counted on `threads` CPU threads.
    ParCorrBatch(std::unique_ptr<ci::BatchTest> fisher, const Dataset& data, int threads = 1)
        : fisher_(std::move(fisher)),
          n_(data.n_samples),
          data_(data.missing > 0 ? &data : nullptr),
          threads_(threads) {}
    std::string name() const override { return "parcorr"; }
    std::string where() const override { return fisher_->where(); }
    void run(const ci::Queries& queries, std::span<double> statistic, std::span<double> p) override;

private:
    std::unique_ptr<ci::BatchTest> fisher_;
    std::int64_t n_;
    const Dataset* data_ = nullptr;  ///< with missing cells: the rows are counted per query
    int threads_ = 1;
};

}  // namespace cudag::pcmci
