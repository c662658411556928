// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/graph.hpp"
#include "core/sepsets.hpp"
#include "mpi/communicator.hpp"
#include "skeleton/skeleton_engine.hpp"
#include "skeleton/types.hpp"

namespace cudag::skeleton {

struct SkeletonOptions {
    TestPolicy policy;
    int max_level = -1;  ///< -1: no cap
    /// Highest level the test can run (Fisher-z: m - 4); reaching a higher one is
    /// an input error naming supported_level_reason. -1: unlimited.
    int max_supported_level = -1;
    std::string supported_level_reason;
    /// pMax is kept for every pair when n <= this, else for the pairs adjacent after
    /// level 0. A knob for tests of the sparse table on small data.
    std::int64_t dense_pmax_limit = skeleton::dense_pmax_limit;
    /// Host threads for each level's bookkeeping (merging an engine's output, removals,
    /// the next snapshot); results do not depend on it.
    int threads = 1;
    /// Several ranks: run level 0 on every rank instead of splitting its rows and
    /// sharing the kept pairs. -1: as the engine prefers (level0_on_every_rank());
    /// 0 / 1 force it (tests of both paths with any engine). The result is the same.
    int level0_on_every_rank = -1;
    /// Once a rank has logged at least this many separating sets, they are sorted into
    /// a table on a worker thread while the later levels run, and merged with the later
    /// ones at the end (same result). 0: never. A knob for tests.
    std::size_t early_sort_records = std::size_t{1} << 18;
    /// Several ranks: keep the separating sets and pMax distributed instead of gathering
    /// them on rank 0. Each rank ends (and checkpoints) with the records of one contiguous
    /// block of rows (RecordRows; the blocks balance the pairs i < j per rank), which it
    /// writes to the result or checkpoint file itself (collective HDF5). Checkpoint hooks
    /// are then called on every rank. The records laid end to end are the same as a
    /// gathered run's.
    bool distributed_records = false;
    /// One rank, not distributed: false leaves SkeletonResult::pmax empty, neither listed
    /// from the host table nor from the engine's (a bootstrap replicate, whose graph alone
    /// counts). The skeleton and separating sets do not change.
    bool keep_pmax = true;
    /// bnlearn's pc.stable (its pc.heuristic) examines a pair a < b at level 2 only when, in
    /// the graph level 1 started from, adj(a) \ {b} or adj(b) \ {a} \ adj(a) holds two nodes
    /// (it sizes the pair's next level after dropping from b's side the nodes a's side tested
    /// at level 1); the others it never tests again. With this set, those pairs stay adjacent
    /// after level 1 (no separating set), as bnlearn's; every later level is what it would be
    /// (a pair too small for level 2 by that count is too small for any later level by both).
    bool bnlearn_pairs = false;
    /// Background knowledge (pcalg's fixedGaps / fixedEdges), pairs (i < j) sorted and
    /// unique. Forbidden pairs are absent from level 1 on (whatever level 0 found: never
    /// separated, no pMax); required pairs stay adjacent at every level (added after level 0
    /// when it removed them; a separation an engine finds at a later level is dropped) and
    /// get no separating set and no pMax, as pcalg gives pairs it never tests.
    std::vector<std::pair<std::int32_t, std::int32_t>> forbidden_pairs;
    std::vector<std::pair<std::int32_t, std::int32_t>> required_pairs;
};

/// Called after each level (for progress reports), on every rank.
using LevelCallback = std::function<void(const LevelStats&)>;

/// Skeleton, separating sets, pMax and per-level statistics of a PC-stable run.
struct SkeletonResult {
    Graph skeleton;
    SepSets sepsets;  ///< complete on rank 0 only (empty on other ranks), or record_rows'
    /// pMax for every pair tested at level >= 1 and, when n <= dense_pmax_limit, for every
    /// pair; sorted by (i, j) (pairs missing were removed at level 0). Rank 0 only, or
    /// record_rows'.
    PairPList pmax;
    RecordRows record_rows;  ///< distributed_records: this rank's rows; else every row
    std::vector<LevelStats> levels;
};

/// The search at a level boundary: what a checkpoint holds and a resumed run starts from.
struct SkeletonState {
    Graph skeleton;                  ///< adjacency after the last finished level
    int next_level = 0;              ///< the level to run next
    std::vector<LevelStats> levels;  ///< statistics of the finished levels
    PairPList pmax;                  ///< merged pMax so far (every pair when n is small)
    SepSets sepsets;                 ///< merged separating sets so far
    /// Distributed records: the rows whose pMax and separating sets this rank's state
    /// holds (written collectively); else every row. A resumed state holds every row.
    RecordRows record_rows;
};

/// Thrown on every rank after the level named by SkeletonHooks::stop_after_level (and
/// its checkpoint): a simulated kill, for resume tests.
class StoppedAfterLevel : public Error {
public:
    explicit StoppedAfterLevel(int level)
        : Error("stopped after level " + std::to_string(level) + " as asked (--stop-after-level)"), level_(level) {}
    int level() const { return level_; }

private:
    int level_;
};

/// Optional behaviour of a distributed run. Must be set alike on every rank (only
/// `resume` differs: rank 0 holds the state).
struct SkeletonHooks {
    /// Rank 0: the state to continue from; other ranks receive it. Empty on rank 0:
    /// start at level 0.
    std::optional<SkeletonState> resume;
    /// When set, called on rank 0 after every level with the merged state (write a
    /// checkpoint). Separating sets and pMax are gathered for it at every level. With
    /// distributed records: called on every rank with its rows' records (collective write;
    /// the callback agrees on failures itself).
    std::function<void(const SkeletonState&)> on_checkpoint;
    /// Throw StoppedAfterLevel after this level (and its checkpoint); -1: never.
    int stop_after_level = -1;
    /// When set, called on rank 0 before each level l >= 1 runs.
    std::function<void(const LevelPlan&)> on_level_start;
};

/// PC-stable adjacency search (cuPC Algorithm 1, pcalg skeleton(method="stable")):
/// per-level snapshot, each edge tested from both endpoints, removals applied at
/// the level end, canonical separating sets (DESIGN.md determinism rule).
///
/// Distributed over `comm` (every rank holds the engine's statistics): at each level
/// the rows are cut into contiguous blocks of equal estimated work (mpi::partition_rows,
/// the same cut on every rank); each rank runs its block; the bit-packed removal map of
/// the row blocks is merged by one allgatherv and applied symmetrically. Separating sets
/// and pMax stay on the rank that found them and are gathered to rank 0 at the end (and
/// at checkpoints). The result is identical for any number of ranks.
SkeletonResult learn_skeleton(SkeletonEngine& engine, const SkeletonOptions& opt, mpi::Communicator& comm,
                              const LevelCallback& on_level = {}, const SkeletonHooks& hooks = {});

/// Single-process form.
SkeletonResult learn_skeleton(SkeletonEngine& engine, const SkeletonOptions& opt, const LevelCallback& on_level = {});

}  // namespace cudag::skeleton
