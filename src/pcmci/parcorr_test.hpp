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

namespace cudag::pcmci {

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
