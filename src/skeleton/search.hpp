// SPDX-License-Identifier: Apache-2.0
// The level loop behind learn_skeleton (skeleton/skeleton.hpp), internal to it: one Search
// per call, its state living across levels on every rank. Its parts, by concern:
//   skeleton.cpp         the loop (run), the entry points
//   search_level0.cpp    level 0 (split over the ranks or run on each) and background knowledge
//   search_levels.cpp    a level l >= 1: engine, removal map, next snapshot
//   partition.cpp        a level's rank partition and removal-map layout (cut_level)
//   search_records.cpp   separating sets and pMax: checkpoints, gathers, the distributed
//                        records' exchange, resume, the result
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <utility>
#include <vector>

#include "core/graph.hpp"
#include "core/sepsets.hpp"
#include "core/trace.hpp"
#include "mpi/communicator.hpp"
#include "mpi/partition.hpp"
#include "skeleton/level_results.hpp"
#include "skeleton/merge.hpp"
#include "skeleton/skeleton.hpp"

namespace cudag::skeleton::detail {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The distributed search: state that lives across levels on every rank.
class Search {
public:
    /// Every reference must outlive the search.
    Search(SkeletonEngine& engine, const SkeletonOptions& opt, mpi::Communicator& comm, const LevelCallback& on_level,
           const SkeletonHooks& hooks);

    /// The levels from 0 (or from hooks.resume) until max_level or no row has enough
    /// neighbours; then finish().
    SkeletonResult run();

private:
    struct TestCount {
        std::int64_t total = 0;
        double imbalance = 1.0;  ///< busiest rank over the mean
    };
    /// Every rank's test count of the level (one allgather): the sum and the imbalance.
    TestCount count_tests(std::int64_t mine);

    // ---- level 0 (search_level0.cpp) ------------------------------------------------
    /// Add the pairs (i, j) listed by an upper-triangle CSR (row i's j at
    /// [start[i], start[i + 1]) of cols) to g_ in both directions, rows on the threads.
    void add_upper_pairs(const std::int64_t* start, const std::int32_t* cols);

    /// Level 0 split over the ranks: each rank's rows hold the pairs (i, j > i) it kept;
    /// share those upper halves as neighbour lists (the graph after level 0 is sparse: this
    /// moves 4 bytes per kept pair, not n²/8 bytes of bit map) and build the graph from
    /// them. From an engine that lists its rows (`csr`) with a sparse pMax table, the table
    /// is made from the shared lists too, with this rank's p-values in its rows (returns
    /// true); otherwise the caller fills it.
    bool share_level0_rows(const mpi::RowPartition& part, std::int64_t rb, std::int64_t re, bool csr,
                           Level0Output& out);

    /// Level 0 (every pair, no conditioning set): on every rank when the engine finds that
    /// cheaper than sharing, else rows split over the ranks and the kept pairs shared;
    /// then pMax's table, the knowledge applied, and end_level.
    void level0();

    // ---- background knowledge (search_level0.cpp) -------------------------------------
    bool has_knowledge() const { return !opt_.forbidden_pairs.empty() || !opt_.required_pairs.empty(); }
    /// Pairs kept adjacent whatever a level finds: required pairs, and bnlearn's frozen ones.
    bool has_kept_pairs() const { return has_knowledge() || opt_.bnlearn_pairs; }
    static bool listed(const std::vector<std::pair<std::int32_t, std::int32_t>>& pairs, std::int32_t i, std::int32_t j);
    bool knowledge_pair(std::int32_t i, std::int32_t j) const;

    /// After level 0 (every rank alike): forbidden pairs out of the graph, required pairs
    /// in, the next level's snapshot from the graph, and a sparse pMax table over the
    /// pairs now adjacent (the knowledge pairs' values are dropped at the end). Returns
    /// the edges left.
    std::int64_t apply_knowledge_level0();

    /// A level's outcome on this rank's rows, before the merge: no entry of a required
    /// pair counts as separated (nor, with host results, as tested).
    void keep_required(const LevelFrame& f);
    /// After level 1 with SkeletonOptions::bnlearn_pairs: the pairs bnlearn examines no more
    /// (from level 1's snapshot `snap` and the next one), kept adjacent from now on.
    void freeze_bnlearn_pairs(const Adjacency& snap);
    std::vector<std::pair<std::int32_t, std::int32_t>> frozen_;

    /// The final tables without the knowledge pairs (an engine that keeps its own results
    /// may have logged or raised them).
    void drop_knowledge_pairs(SkeletonResult& res) const;

    // ---- level l >= 1 (search_levels.cpp; the rank partition: partition.hpp) ---------
    // The host work of a level is O(entries) and runs on opt_.threads threads, in passes
    // over runs of rows with about equal entry counts; every pass writes disjoint data, so
    // the outcome is the same for any thread count.

    /// Row boundaries cutting [rb, re) of `a` into runs of about equal entry counts.
    std::vector<std::int64_t> runs_of(const Adjacency& a, std::int64_t rb, std::int64_t re) const;
    /// fn(first row, end row, worker) for every run of `cut`, on the worker threads.
    template <class Fn>
    void for_runs(const std::vector<std::int64_t>& cut, Fn&& fn) const;

    /// Level l >= 1: the snapshot, the rank partition (cut_level), the engine's run of this
    /// rank's block, the removal map merged over the ranks, pMax and separating sets
    /// settled, the next snapshot, end_level.
    void level(int l);

    /// Levels from l run by the engine by itself (SkeletonEngine::run_levels) where the search
    /// allows it (one rank, results with the engine, no knowledge, checkpoint or stop): their
    /// records logged, their statistics ended as level() ends a level, the snapshot after
    /// them next. Returns the levels run (0: the engine declined; level(l) runs it).
    int engine_levels(int l);

    /// Apply a level's removals to the graph (both bits of a pair; every rank alike) and
    /// build the next snapshot from `snap` less them; returns the pairs removed.
    template <class Separated>
    std::int64_t host_next_snapshot(const Adjacency& snap, const Separated& separated);

    /// next_ = the entries e of rows a of `snap` for which keep(a, e) holds (rows in the runs `all`).
    template <class Keep>
    void filter_into_next(const Adjacency& snap, const std::vector<std::int64_t>& all, const Keep& keep);

    /// host_next_snapshot for a graph held sparse: a pair goes when either of its entries
    /// was separated (the mirror entry found by a search of its row); the next snapshot is
    /// `snap` less those pairs, and the graph follows it (every rank alike).
    template <class Separated>
    std::int64_t sparse_next_snapshot(const Adjacency& snap, const std::vector<std::int64_t>& all,
                                      const Separated& separated);

    /// Bring g_ up to the snapshot `a` (after levels whose next snapshot the engine built).
    void sync_graph(const Adjacency& a);

    // ---- records: checkpoints, gathers, resume, the end (search_records.cpp) ------------
    /// After every level: its statistics kept and reported (on_level), and a checkpoint
    /// when asked (hooks_.on_checkpoint: the records gathered, or exchanged when
    /// distributed); throws StoppedAfterLevel after the level hooks_.stop_after_level.
    void end_level(const LevelStats& st);

    /// The records logged so far sorted into a table on a worker thread while the next
    /// levels run (their kernels leave the host idle), once, when there are many; finish()
    /// merges that table with the later records. Every rank (each sends rank 0 its records
    /// sorted), but not with checkpoints (they gather every level).
    void sort_early();

    /// pMax by an element-wise max over ranks (LevelResults::gather_pmax, the host table
    /// holding it when `take_pmax`); separating sets to rank 0.
    void gather(bool take_pmax = true);

    /// Distributed records: this rank's records since the last exchange (its log and
    /// early table) sent to the ranks owning their rows, and merged with the records this
    /// rank owns (owned_). Each rank then holds every record of its rows_, in one table.
    void exchange();

    /// Continue from hooks.resume (rank 0's state, broadcast): true and the next level
    /// in `first`; false when starting afresh.
    bool resume(int& first);

    /// This rank's records sorted into tables: the part sorted early (if any), then the rest.
    std::vector<SepSets> own_tables();

    /// The tables' records in one table: one merge by pair while no pair is in two of
    /// them; otherwise united as to_sepsets does (exhaustive runs on several ranks log
    /// both endpoints' sets of a pair, from different ranks' rows).
    SepSets merge_tables(std::vector<SepSets> tables) const;

    /// Every rank's separating sets in one table on rank 0 (empty elsewhere). Each rank
    /// sorts its own records (most of them early, beside the GPU levels); rank 0 receives
    /// the others' sorted arrays straight into the tables they become (no serialised
    /// copy) and merges all tables by pair in one pass.
    SepSets collect_sepsets();

    /// Distributed records: each rank keeps its rows' separating sets and pMax.
    SkeletonResult finish_distributed();

    /// The result after the last level: pMax gathered (or listed by the engine), the
    /// separating sets collected on rank 0, the knowledge pairs' records dropped.
    SkeletonResult finish();

    SkeletonEngine& engine_;
    const SkeletonOptions& opt_;
    const TestPolicy& pol_;
    mpi::Communicator& comm_;
    const LevelCallback& on_level_;
    const SkeletonHooks& hooks_;
    const std::int64_t n_;
    const bool dense_;
    Graph g_;         ///< current adjacency (same on every rank)
    Adjacency next_;  ///< the next level's snapshot, when have_next_
    bool have_next_ = false;
    bool graph_stale_ = false;          ///< g_ lags behind next_ (the engine built the snapshots)
    std::int64_t next_max_degree_ = 0;  ///< next_'s largest degree
    const int threads_;                 ///< host threads for a level's bookkeeping
    int lt_ = 1;                        ///< the threads the current level uses
    static constexpr std::int64_t kEntriesPerThread = 1 << 15;
    /// Pairs of variables up to which finish() lists the engine's pMax table on the calling
    /// thread, after the separating sets, rather than on a second thread beside them.
    static constexpr std::int64_t kPairsListedInline = std::int64_t{1} << 18;
    std::vector<std::byte> removal_;  ///< levels >= 1: the removal map over adjacency entries
    LevelOutput out_;
    StepTrace trace_;             ///< CUDAG_TRACE: where a level's host time goes
    PmaxTable pmax_;              ///< this rank's pMax contributions (merged at gather())
    SepSetLog log_;               ///< this rank's separating sets since the last gather()
    SepSetLog gathered_;          ///< rank 0: every rank's sets up to the last gather()
    std::future<SepSets> early_;  ///< this rank's records up to a heavy level, sorted (sort_early)
    std::vector<LevelStats> levels_;
    /// How level results reach pMax and the separating sets: host results, or device-
    /// resident results for an engine with DeviceResults (not exhaustive). Set once.
    std::unique_ptr<LevelResults> results_;
    bool distributed_ = false;              ///< SkeletonOptions::distributed_records on several ranks
    std::vector<std::int64_t> record_cut_;  ///< distributed: rank r's rows [cut[r], cut[r + 1])
    RecordRows rows_;                       ///< distributed: this rank's record rows
    SepSets owned_;                         ///< distributed: every record of rows_ up to the last exchange()
};

}  // namespace cudag::skeleton::detail
