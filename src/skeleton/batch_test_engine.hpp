// SPDX-License-Identifier: Apache-2.0
// A skeleton engine over any ci::BatchTest (a GPU's batch path, one query per thread, or the
// CPU's workers): the levels' tests are handed over in large batches, and each row's answers
// are replayed in search_row's order, so that the outcome is search_row's to the bit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/bulk_vector.hpp"
#include "skeleton/skeleton_engine.hpp"

namespace cudag::skeleton {

/// The skeleton engine of a ci::BatchTest. Every level gives exactly what search_row gives
/// (skeleton/cpu/row_search.hpp: flags, pMax, the lexicographically smallest separating set,
/// or the union of them all when exhaustive, and the number of tests), with the tests asked
/// in batches of about `batch_queries`:
///  - level 0: the pairs (i, j > i) of the block's rows, row by row, as many rows a batch as
///    fill it;
///  - level l >= 1: each row walks its l-subsets of adj(i) in lexicographic order in chunks of
///    consecutive sets; a chunk queues (i, j, S) for every S of the chunk and every position j
///    of the block not in S (and, unless exhaustive, not separated before the chunk); the
///    chunks of many rows go in one batch, and then each row's answers are replayed set by
///    set, j by j, as search_row would have met them: a test queued after its entry's first
///    separating set (of the same chunk) is dropped, neither counted nor in pMax. A row's
///    chunk holds its share of the batch (the batch over the rows still walking, so that a
///    batch fills, with many rows or one) and, unless exhaustive, at most 4 times the queries
///    of its last chunk (at first, one set's), so that few tests are dropped; sets that queue
///    nothing (every open entry in them) are walked past. A batch holds at most
///    `batch_queries` plus one set's tests, whatever the number of sets of a row: sets are
///    never laid out ahead of their chunk.
/// Rows may be cut between ranks (splits_rows()).
class BatchTestEngine final : public SkeletonEngine {
public:
    /// Queries a batch aims at: enough for a GPU (one query per thread) to be saturated,
    /// few enough that the batch's arrays stay some tens of MB.
    static constexpr std::int64_t kBatchQueries = std::int64_t{1} << 20;

    /// `batch`: where the tests run (not null); `threads`: the host threads that lay the
    /// batches out and replay them (0: all); `batch_queries` (hidden, >= 1): the batch size
    /// aimed at (tests use tiny ones to exercise the chunking).
    BatchTestEngine(std::int64_t n_vars, std::unique_ptr<ci::BatchTest> batch, const TestPolicy& policy, int threads,
                    std::int64_t batch_queries = kBatchQueries);

    std::string name() const override { return name_; }
    /// The engine's name in notes and the result file's config ("batch" unless set: "cuda"
    /// over a GPU batch).
    void set_name(std::string name) { name_ = std::move(name); }
    std::int64_t n_vars() const override { return n_vars_; }
    std::string setup_note() const override;
    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) override;
    void run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) override;
    bool splits_rows() const override { return true; }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override;
    bool test_batch(const FlatQueries& queries, std::span<double> statistic, std::span<double> p) override;

    /// Batches run so far (all levels and single tests): for tests of the chunking.
    std::int64_t batches() const { return batches_; }

private:
    /// Runs the queries laid out in x_, y_, offsets_ (size + 1 entries) and nodes_ into p_.
    void run_batch(std::size_t size);

    std::int64_t n_vars_ = 0;
    std::unique_ptr<ci::BatchTest> batch_;
    TestPolicy policy_;
    int threads_ = 1;
    std::int64_t batch_queries_ = kBatchQueries;
    std::int64_t batches_ = 0;
    std::string name_ = "batch";
    // One batch, reused: query k is x_[k] ⟂ y_[k] | nodes_[offsets_[k] .. offsets_[k + 1]),
    // pos_[k] its entry's position in its row (levels >= 1).
    BulkVector<std::int32_t> x_, y_, nodes_, pos_;
    BulkVector<std::int64_t> offsets_;
    BulkVector<double> stat_, p_;
};

/// The BatchTestEngine of `batch` (see there).
/// `name`: SkeletonEngine::name() ("cuda" for a GPU batch).
std::unique_ptr<SkeletonEngine> make_batch_test_engine(std::int64_t n_vars, std::unique_ptr<ci::BatchTest> batch,
                                                       const TestPolicy& policy, int threads,
                                                       std::string name = "batch");

}  // namespace cudag::skeleton
