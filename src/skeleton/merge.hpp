// SPDX-License-Identifier: Apache-2.0
// Flat per-rank accumulators of the skeleton search: pMax by pair slot and separating
// sets as an append-only log. Both are O(1) per update, so the per-level merge costs
// O(entries of the rank's rows + removals); sorting and uniting happen once, at the end
// or at a checkpoint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/bulk_vector.hpp"
#include "core/graph.hpp"
#include "core/sepsets.hpp"
#include "mpi/communicator.hpp"
#include "skeleton/types.hpp"

namespace cudag::skeleton {

/// pMax of pairs (i < j) in a fixed slot space: dense (every pair, upper triangle row by
/// row, slot pair_index(i, j, n), the layout of Level0Output::dense_p) or sparse
/// (the pairs adjacent after level 0, in CSR order). Values start at -1 (no test seen);
/// raising takes the maximum, so partial tables of several ranks merge exactly by an
/// element-wise max (allreduce Max on values()).
class PmaxTable {
public:
    PmaxTable() = default;
    /// Every pair of n nodes, values -1 (filled on `threads` threads).
    static PmaxTable dense(std::int64_t n, int threads = 1);
    /// The pairs adjacent in `g`, values -1 (rows on `threads` threads).
    static PmaxTable sparse(const Graph& g, int threads = 1);
    /// A sparse table over the pairs of an upper-triangle CSR (row i's j > i at
    /// [offsets[i], offsets[i+1]) of cols, increasing) with those values; takes the arrays.
    static PmaxTable from_upper_csr(std::int64_t n, BulkVector<std::int64_t>&& offsets, BulkVector<std::int32_t>&& cols,
                                    BulkVector<double>&& values);
    /// A dense or sparse table holding exactly `pairs` (sorted by (i, j)) and their values.
    static PmaxTable from_pairs(std::int64_t n, bool dense, std::span<const PairP> pairs, int threads = 1);

    bool is_dense() const { return dense_; }
    /// Slot of pair (i, j), i < j; -1 when the table does not hold it.
    std::int64_t slot(std::int32_t i, std::int32_t j) const;
    void raise(std::int32_t i, std::int32_t j, double p) { raise_slot(slot(i, j), p); }
    /// raise() every pair of `pairs` (each held by the table, no pair twice), walking
    /// rows instead of searching them when the pairs are sorted.
    void raise_all(PairPList pairs, int threads = 1);
    /// The values by slot (for the merging allreduce, and as Level0Output::dense_p).
    BulkVector<double>& values() { return values_; }
    const BulkVector<double>& values() const { return values_; }
    /// The pairs with a value (>= 0), sorted by (i, j); rows split over `threads`. Only
    /// those of the rows i in [row_begin, row_end) when given (row_end < 0: to the last).
    PairPList pairs(int threads = 1, std::int64_t row_begin = 0, std::int64_t row_end = -1) const;
    /// Sparse: row i's pairs are slots [row_offsets()[i], row_offsets()[i + 1]) holding
    /// j = cols()[slot], increasing (for callers that walk a row instead of searching it).
    const std::int64_t* row_offsets() const { return offsets_.data(); }
    const std::int32_t* cols() const { return cols_.data(); }
    void raise_slot(std::int64_t s, double p) {
        if (p > values_[static_cast<std::size_t>(s)]) values_[static_cast<std::size_t>(s)] = p;
    }

private:
    std::int64_t n_ = 0;
    bool dense_ = false;
    BulkVector<std::int64_t> offsets_;  ///< sparse: n + 1 row starts into cols_
    BulkVector<std::int32_t> cols_;     ///< sparse: j > i of row i, increasing
    BulkVector<double> values_;
};

/// Records [first, last) of `from_table` (read on rank `from` only) as a table on rank
/// `to`: sizes, then the pairs, offsets and nodes, by Communicator::transfer (point to
/// point: only `from` and `to` communicate; any other rank returns at once). The result is
/// empty except on `to` (and when from == to, a copy).
SepSets transfer_sepsets(mpi::Communicator& comm, const SepSets* from_table, std::size_t first, std::size_t last,
                         int from, int to, int threads = 1);

/// Separating sets recorded by one rank: (i < j, sorted set) appended in any order.
class SepSetLog {
public:
    SepSetLog() { offsets_.push_back(0); }

    void add(std::int32_t i, std::int32_t j, std::span<const std::int32_t> set);
    void add(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& set) {
        add(i, j, std::span<const std::int32_t>(set));
    }
    std::size_t size() const { return pairs_.size() / 2; }
    void clear();
    /// Append every record of `other`.
    void append(const SepSetLog& other);
    /// Append every record of `parts`, in order, copying on `threads` threads.
    void append(std::span<const SepSetLog> parts, int threads);
    /// Room for `count` records of `set_size` nodes each, appended at the end: the
    /// caller fills record k's pair at pairs[2k], pairs[2k + 1] and its set at
    /// nodes[k * set_size ..] (e.g. by a device download); the offsets are set here.
    struct Slots {
        std::int32_t* pairs;
        std::int32_t* nodes;
    };
    Slots append_uniform(std::size_t count, int set_size, int threads = 1);

    /// Flat bytes for Communicator::gatherv; deserialize() reverses it.
    std::vector<std::byte> serialize() const;
    static SepSetLog deserialize(std::span<const std::byte> bytes);

    /// The records as SepSets: sorted by pair, the sets of a pair recorded more than once
    /// (both endpoints, causal-learn's exhaustive mode) united. The same table for any
    /// record order and any `threads`.
    SepSets to_sepsets(int threads = 1) const;
    static SepSetLog from_sepsets(const SepSets& s);

private:
    BulkVector<std::int32_t> pairs_;    ///< (i, j) per record
    BulkVector<std::int64_t> offsets_;  ///< record k's set is nodes_[offsets_[k] .. offsets_[k+1])
    BulkVector<std::int32_t> nodes_;
};

}  // namespace cudag::skeleton
