// SPDX-License-Identifier: Apache-2.0
// χ²/G² tests given as a flat list (FCI's stages after the skeleton, citest's batches;
// SkeletonEngine::test_batch): each query's statistic and p-value bit for bit the CPU
// engine's (skeleton::CpuDiscreteEngine::test), for conditioning sets of any size whose
// strata keys fit in 64 bits.
//
// How the CPU's answer is kept: the CPU sums one running statistic over the strata of S
// in increasing mixed-radix order (S's first variable most significant), within a stratum
// over the observed cells in the order the stratum's samples (in index order) first touch
// them, and for χ² adds N++s − Σ E after each stratum. Here the samples of a query are
// sorted stably by their stratum key (a segmented stable sort, so the CPU's stratum order
// and, within a stratum, index order), then one warp per query walks the strata in that
// order, counting with atomics and listing the cells in first-touch order (warp-
// synchronous: the lowest lane of a cell's first chunk touches it first), and one lane adds
// the terms in the CPU's order with the CPU's expressions (compiled without FMA
// contraction). χ²'s terms use +, −, ×, ÷ only and are summed on the device; G²'s need a
// logarithm, whose last bits differ between CUDA's libm and the host's, so the device lists
// each cell's (N, E) in order and the host sums 2 N log(N / E). The p-values are the host's
// (ci::discrete_pvalue: lgamma, exp, log).
//
// Test-wise deletion (`--missing testwise`, DiscreteBatchData::d_present): each query is the
// CPU's test on the sub-table of x, y, S (S as given: the caller sorts it, as TestwiseTest does)
// on the rows present in all of them, its discrete levels recoded to those the rows hold. A row
// missing in one of the query's variables gets a key above every stratum's (sorted last, where
// the walk stops), so the strata, their order and their rows are the sub-table's; the statistic
// only counts (it does not depend on the codes' numbering, and the CPU's strata order, mixed-
// radix over the recoded levels, is the same lexicographic order over the original codes). What
// the recoding changes is the degrees of freedom: the levels of x, y and each variable of S are
// counted on the query's rows (one thread per variable and query) and df = (r_x − 1)(r_y − 1)
// Π r_s with those counts, the rows used as the sample size.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "ci/discrete_test.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::cuda {

/// The data a batch reads: codes on the device (variable-major, n × m bytes), the levels per
/// variable on the host.
struct DiscreteBatchData {
    const std::uint8_t* d_codes = nullptr;
    std::span<const std::int32_t> cards;
    std::int64_t m = 0;
    /// Test-wise deletion: per variable, (m + 63) / 64 words on the device, bit r % 64 of word
    /// r / 64 set where row r is present (a missing cell's code may be anything). Null: every
    /// row present, each query on all m rows.
    const std::uint64_t* d_present = nullptr;
};

/// What a test-wise batch (DiscreteBatchData::d_present) also reports, per query (host spans
/// indexed as statistic): the rows the query used, and the fewest levels one of x, y, S holds
/// on them (the CPU's test refuses a variable of one level unless its dof rule is causal-
/// learn's). Empty spans without d_present.
struct TestwiseCounts {
    std::span<std::int64_t> rows;
    std::span<std::int32_t> fewest_levels;
};

/// Whether the device path takes query x ⟂ y | s: its strata keys (the product of the
/// levels of s) fit in 62 bits. Others are for the CPU test.
bool discrete_batch_fits(std::span<const std::int32_t> cards, std::span<const std::int32_t> s);

/// statistic[k] and p[k] of the queries `which` (indices into `q`, each fitting
/// discrete_batch_fits) with the statistic `stat` and the dof rule `dof`, on `stream`
/// (host spans in and out; waits for the results); with data.d_present also `testwise`'s
/// counts. Queries are taken in launches whose device scratch stays within about
/// `scratch_bytes`.
void discrete_batch_tests(const DiscreteBatchData& data, ci::DiscreteStat stat, ci::DofRule dof,
                          const skeleton::FlatQueries& q, std::span<const std::size_t> which,
                          std::span<double> statistic, std::span<double> p, const TestwiseCounts& testwise,
                          cudaStream_t stream, std::size_t scratch_bytes = std::size_t{1} << 30);

}  // namespace cudag::cuda
