// SPDX-License-Identifier: Apache-2.0
// The order-MCMC sorter's kernels (bn_sort_kernels.cu): a node's dominated parent sets
// (bn::dominated_sets), the undominated ones compacted and sorted by score (CUB), and each
// sorted entry's parents; bn_table_engine.cu's sort_table calls them node by node. Device
// pointers; the stream last. `sms`: multiprocessors of the device (the grids are at most 8
// blocks of 256 threads per multiprocessor).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "bn_device.cuh"

namespace cudag::cuda {

/// bn::dominated_sets for the k-sets of node L.v: with extras < 0 the candidates' block,
/// else the blocks of all `extras` extras. d_best holds each settled set's best
/// proper-subset score, d_dom the flags (1: dominated). Sizes k must run increasing.
void launch_dominate(const NodeLayout& L, const Binomials& B, const double* d_scores, double* d_best,
                     std::uint8_t* d_dom, int k, std::int64_t extras, int sms, cudaStream_t stream);

/// d_dom[i] = 1 - d_dom[i] for i < count: the flags of the sets to keep.
void launch_flip(std::uint8_t* d_dom, std::int64_t count, int sms, cudaStream_t stream);

/// d_keys[i] = d_scores[d_offs[i]] for i < count, -0.0 as +0.0 (the CPU compares them equal).
void launch_sort_keys(const double* d_scores, const std::uint32_t* d_offs, std::int64_t count, double* d_keys, int sms,
                      cudaStream_t stream);

/// The parents of each sorted entry d_offs[i] of node L.v, w per entry (0xffff after the
/// last), into d_out.
void launch_sort_parents(const NodeLayout& L, const Binomials& B, const std::int32_t* d_cands,
                         const std::int32_t* d_extras, const std::uint32_t* d_offs, std::int64_t count, int w,
                         std::uint16_t* d_out, int sms, cudaStream_t stream);

/// d_out[i] = d_scores[d_offs[i]] for i < count: the sorted entries' scores, bit for bit.
void launch_gather_scores(const double* d_scores, const std::uint32_t* d_offs, std::int64_t count, double* d_out,
                          int sms, cudaStream_t stream);

/// Mandatory parents (bn::ScoreTable::require_parents): every entry of node L.v whose set
/// lacks one of the `n_required` node ids d_required set to -inf in d_scores (L.entries).
void launch_require_parents(const NodeLayout& L, const Binomials& B, const std::int32_t* d_cands,
                            const std::int32_t* d_extras, const std::int32_t* d_required, int n_required,
                            double* d_scores, int sms, cudaStream_t stream);

/// The offsets i < count with d_flags[i] != 0, increasing, into d_offs and their number into
/// *d_kept (device): CUB DeviceSelect::Flagged. With d_temp null, only sets temp_bytes.
void select_flagged(void* d_temp, std::size_t& temp_bytes, const std::uint8_t* d_flags, std::uint32_t* d_offs,
                    std::int64_t* d_kept, int count, cudaStream_t stream);

/// (keys, offsets) sorted by key, decreasing and stably: CUB DeviceRadixSort over all 64
/// bits. With d_temp null, only sets temp_bytes.
void sort_pairs_descending(void* d_temp, std::size_t& temp_bytes, const double* d_keys_in, double* d_keys_out,
                           const std::uint32_t* d_offs_in, std::uint32_t* d_offs_out, int count, cudaStream_t stream);

}  // namespace cudag::cuda
