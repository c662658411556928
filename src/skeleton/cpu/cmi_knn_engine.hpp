// SPDX-License-Identifier: Apache-2.0
// The CPU skeleton engine of the nonlinear PC: every CI test is ci::CmiKnn's (tigramite's
// CMIknn with a local-permutation p-value). The CUDA engine (GPU-CMIknn, DIGEST.md §2.4)
// will implement the same interface with the same test ids and must give the same results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ci/cmi_knn.hpp"
#include "core/dataset.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::skeleton {

/// The id of test x ⟂ y | s as every CMIknn engine forms it (docs/cmiknn.md "Test ids"):
/// the pair ordered (min, max) and the key of the sorted conditioning set, so that a test
/// draws the same random numbers whichever endpoint's row runs it, on any thread, rank or
/// device. `s` must be sorted; the pair is returned ordered in (x, y).
std::uint64_t cmi_pc_test_id(std::int32_t& x, std::int32_t& y, std::span<const std::int32_t> s);

/// The setup note of every CMIknn engine: names the constant columns of `data` (their tests
/// give statistic 0, p = 1, as tigramite's); empty when there are none.
std::string cmi_constant_note(const Dataset& data, const ci::CmiKnn& cmi);

/// Multithreaded CPU engine for CMIknn. Level 0 deals the pairs to threads one at a time and
/// levels ≥ 1 the rows (a row's tests run in the canonical order of search_row); each
/// thread owns one ci::CmiKnnWorkspace, so no test allocates once the buffers have grown. Every
/// random number is keyed by (spec.seed, cmi_pc_test_id, surrogate), so results do not
/// depend on the thread or rank count.
///
/// With spec.early_stop, a test stops drawing surrogates once independence at
/// (alpha, strict) is certain; its p-value (in pMax) is then a lower bound. p_value() (the
/// orientation rules' calls) always runs the whole test: the same decision, the exact p.
class CpuCmiKnnEngine final : public SkeletonEngine {
public:
    /// `data` (continuous) must outlive the engine. max_level (-1: none) only decides
    /// whether the spec is validated for conditioning sets.
    CpuCmiKnnEngine(const Dataset& data, const TestPolicy& policy, const ci::CmiKnnSpec& spec, int max_level,
                    int threads);

    std::string name() const override { return "cpu"; }
    std::int64_t n_vars() const override { return cmi_.n_vars(); }
    /// Names the constant columns (their tests give statistic 0, p = 1, as tigramite's).
    std::string setup_note() const override { return note_; }
    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) override;
    void run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) override;
    bool splits_rows() const override { return true; }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override;

    const ci::CmiKnn& test() const { return cmi_; }

private:
    ci::CmiKnn cmi_;
    TestPolicy policy_;
    int threads_ = 1;
    std::vector<ci::CmiKnnWorkspace> ws_;  ///< one per thread
    std::string note_;
};

}  // namespace cudag::skeleton
