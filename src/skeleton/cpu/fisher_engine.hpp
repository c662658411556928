// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <vector>

#include "core/dataset.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::skeleton {

/// Multithreaded CPU skeleton engine for Gaussian data (Fisher-z). Rows are dealt
/// to threads; within a row, one factorisation of C[S,S] per conditioning set S
/// serves every neighbour j ∉ S (cuPC-S's sharing).
class CpuFisherEngine final : public SkeletonEngine {
public:
    /// Computes the correlation matrix of `data` (throws on constant columns).
    CpuFisherEngine(const Dataset& data, const TestPolicy& policy, int threads);
    /// Use a given n×n correlation matrix (row-major, unit diagonal).
    CpuFisherEngine(std::vector<double> corr, std::int64_t n, std::int64_t n_samples, const TestPolicy& policy,
                    int threads);
    /// The same, sharing the matrix (pc::PcConfig::correlation: no copy of n² doubles);
    /// `symmetric`: the caller found it bitwise symmetric (no pass over it here).
    CpuFisherEngine(std::shared_ptr<const std::vector<double>> corr, std::int64_t n, std::int64_t n_samples,
                    const TestPolicy& policy, int threads, bool symmetric = false);

    std::string name() const override { return "cpu"; }
    std::int64_t n_vars() const override { return n_; }
    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) override;
    void run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) override;
    bool splits_rows() const override { return true; }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override;
    /// Partial correlation of i and j given s (the r whose Fisher z p_value() tests).
    double partial_correlation(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) const;
    /// Whether the correlation block of s, i and j is singular: a pivot of its Cholesky
    /// factorisation at or below ci::kPivotTolerance.
    bool singular(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) const;

    const std::vector<double>& correlation() const { return *corr_; }
    /// Whether C[a, b] and C[b, a] have the same bits for every pair (then a level reads
    /// C[j, S] from the rows of S).
    static bool bitwise_symmetric(const double* c, std::int64_t n, int threads);

private:
    std::shared_ptr<const std::vector<double>> corr_;
    const double* c_ = nullptr;  ///< corr_->data()
    bool symmetric_ = false;     ///< bitwise_symmetric(c_)
    std::int64_t n_ = 0;
    std::int64_t m_ = 0;
    TestPolicy policy_;
    int threads_ = 1;
};

}  // namespace cudag::skeleton
