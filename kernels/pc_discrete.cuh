// SPDX-License-Identifier: Apache-2.0
// Discrete (χ²/G²) PC-stable levels on the GPU, gpuPC scheme (Hagedorn & Huegle, SDM'21 §3;
// shared/seeds/DIGEST.md §3.4): one block per work item, γ groups of δ threads in a block,
// each group building one contingency table at a time.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cudag::cuda {

/// One launch of the discrete level kernel. Device pointers unless noted.
struct DiscreteLevelArgs {
    const std::uint8_t* codes = nullptr;  ///< variable-major codes, n × m
    const std::int32_t* cards = nullptr;  ///< levels per variable
    std::int64_t m = 0;                   ///< samples
    int l = 0;                            ///< conditioning-set size (0: level 0)
    /// Level >= 1: the snapshot (compacted adjacency); items are (row i, position q).
    /// Level 0: items are pairs (i, j) and entry k is the item index.
    const std::int64_t* offsets = nullptr;
    const std::int32_t* nbrs = nullptr;
    const int2* items = nullptr;
    std::int64_t n_items = 0;
    int stat = 0;  ///< ci::DiscreteStat
    int dof = 0;   ///< ci::DofRule
    double alpha = 0.05;
    bool strict = false;
    /// Winner pass: test only the rank best[e] of each item and write its p to p_out[e].
    bool winner_pass = false;
    unsigned long long* best = nullptr;  ///< per entry: smallest separating rank (level >= 1)
    unsigned long long* pmax = nullptr;  ///< per entry: max dependent p, as bits (level >= 1)
    double* p_out = nullptr;             ///< level 0: p per item; winner pass: p per entry
    unsigned long long* tests = nullptr;
    /// Per group table: cells = table_cap contingency cells plus marginals (words each).
    std::int64_t group_words = 0;
    std::uint32_t* scratch = nullptr;  ///< global tables, group_words per group in flight
    bool shared_tables = false;        ///< tables in dynamic shared memory instead
};

/// Launch shape: δ threads per table, γ tables (tests) per block; `blocks` bounds the
/// grid so that blocks·γ·group_words words of global scratch suffice.
struct DiscreteLaunch {
    int delta = 64;
    int gamma = 2;
    std::int64_t blocks = 1;
};

/// Bytes of dynamic shared memory one block needs for its γ tables and partial sums.
std::size_t discrete_shared_bytes(const DiscreteLevelArgs& a, const DiscreteLaunch& s);

void launch_discrete_level(const DiscreteLevelArgs& a, const DiscreteLaunch& s, cudaStream_t stream);

/// Loads this file's kernel (kernel_preload.cuh); returns 1 when it did.
int preload_discrete_level_kernels();

}  // namespace cudag::cuda
