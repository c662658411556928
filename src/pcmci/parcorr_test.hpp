// SPDX-License-Identifier: Apache-2.0
// tigramite's ParCorr for PCMCI's batches (pcmci/pcmci.hpp): the Fisher-z engines' partial
// correlations with ParCorr's Student-t p-value.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/dataset.hpp"
#include "pcmci/lagged.hpp"

namespace cudag::pcmci {

/// The smallest eigenvalue of a series' lag block (the correlation matrix of its columns at
/// lags 0..L) below which its tests leave the correlation matrix for least squares
/// (ParCorrBatch): a partial correlation formed from correlations loses about eps/λ of its
/// digits, least squares on the rows (tigramite's) about the square root of that.
constexpr double kLeastSquaresEigenvalue = 1e-3;

/// Per column of the lagged table: 1 where its series' lag block has its smallest eigenvalue
/// below `min_eigenvalue` (a trend, a unit root: the series' lags nearly collinear), on the
/// rows complete in the block. Columns of other series 0.
std::vector<char> ill_conditioned_columns(const LaggedData& lagged, double min_eigenvalue = kLeastSquaresEigenvalue,
                                          int threads = 1);

/// ParCorr for PCMCI's batches, on the CPU or a GPU alike: the partial correlation of a
/// Fisher-z BatchTest (`fisher`: the project's Fisher-z engines, whose statistic is the partial
/// correlation from the correlation matrix, CPU and GPU bit for bit) with ParCorr's p-value,
/// ci::parcorr_p_value(r, n, |S| + 2). The value equals tigramite's (least squares on
/// residuals; tests/support/parcorr_residuals.hpp) to rounding: a few 1e-13 on the reference cases. Columns constant
/// over the rows must not be asked (the job refuses them: tigramite would drop them).
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
    /// Over the lagged table (referenced), as the job runs it: a query touching a column of
    /// ill_conditioned_columns(lagged) (in X, Y or Z) is answered by ci::parcorr, least squares
    /// on its rows as tigramite's (its complete rows where cells are missing), on the CPU; the
    /// others by `fisher`. Which queries go where depends on the data only: the same answers
    /// on every backend and rank.
    ParCorrBatch(std::unique_ptr<ci::BatchTest> fisher, const LaggedData& lagged, int threads = 1);
    std::string name() const override { return "parcorr"; }
    std::string where() const override { return fisher_->where(); }
    void run(const ci::Queries& queries, std::span<double> statistic, std::span<double> p) override;

    /// How many queries least squares answered (ill-conditioned columns).
    std::int64_t least_squares_tests() const { return least_squares_tests_; }
    /// Per column of the table: 1 where its queries go to least squares (empty: none).
    const std::vector<char>& least_squares_columns() const { return exact_; }

private:
    /// Queries touching an ill-conditioned column: ci::parcorr's value on their rows.
    void run_least_squares(const ci::Queries& queries, std::span<const std::size_t> which,
                           std::span<double> statistic);

    std::unique_ptr<ci::BatchTest> fisher_;
    std::int64_t n_;
    const Dataset* data_ = nullptr;   ///< with missing cells: the rows are counted per query
    const Dataset* table_ = nullptr;  ///< the lagged table, for least squares
    std::vector<char> exact_;         ///< per column: queries touching it go to least squares
    int threads_ = 1;
    std::int64_t least_squares_tests_ = 0;
};

}  // namespace cudag::pcmci
