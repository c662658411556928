// SPDX-License-Identifier: Apache-2.0
// The replicate scheduler, for any learner's replicates: replicate r runs on one rank,
// whole, in rounds (rank p runs round k's block k·size + p), a rank's replicates on a team
// of workers that runs ahead of the rounds (bootstrap/pipeline.hpp); the calling thread
// alone talks to the other ranks (error agreement, progress, checkpoints), counting each
// round's graphs in replicate order. The counts are integer sums, so neither the GPUs,
// the workers nor the ranks change them; with a checkpoint, the totals are saved at round
// boundaries and a resumed run counts what an uninterrupted one does.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bootstrap/pipeline.hpp"
#include "bootstrap/resample.hpp"
#include "bootstrap/table.hpp"
#include "io/checkpoint_file.hpp"
#include "mpi/communicator.hpp"

namespace cudag::bootstrap {

/// Key/value provenance strings, as a result file's /config keeps them.
using Provenance = std::vector<std::pair<std::string, std::string>>;

/// Replicate `replicate`'s counted edges (edges_of its graph over all the data's
/// variables), run by worker `worker` (0 .. Schedule::concurrent - 1: which GPU it runs on
/// follows from it) on `threads` host threads. May throw; the ranks agree on it per round.
using ReplicateFn = WorkerFn<ReplicateEdges>;

/// Called on rank 0 after each round: replicates done of B over all ranks.
using RoundCallback = std::function<void(std::int64_t done, std::int64_t total)>;

/// How a rank runs its replicates.
struct Schedule {
    int per_round = 1;   ///< a rank's replicates between two agreements: the same on every rank
    int concurrent = 1;  ///< of them at once (workers 0 .. concurrent - 1); this rank's own
    int threads = 1;     ///< host threads in all (threads / concurrent a worker, at least 1)
};

/// A schedule whose per_round is the least of `per_round` over the ranks (so that their
/// rounds match); `concurrent` (at least 1) and `threads` are this rank's.
Schedule agree_schedule(mpi::Communicator& comm, int per_round, int concurrent, int threads);

/// The checkpoints of count_replicates: the totals at round boundaries (every 30 s) under
/// `hash` (what decides the counts) and `settings` (named, to say which differs on a
/// refused resume), in the format of the table's kind (checkpoint_format).
struct Checkpoint {
    std::string path;
    std::string hash;
    io::CheckpointSettings settings;
    bool resume = false;      ///< continue from `path`'s totals (any rank count)
    bool keep = false;        ///< --keep-checkpoint: the finished run's totals saved too (done = B)
    std::int64_t n_vars = 0;  ///< the data's variables (the checkpoint's pairs are checked)
    /// Testing: stop (skeleton::StoppedAfterLevel, its level the replicates done) after a
    /// checkpoint of this many replicates or more; unset (or negative): never.
    std::optional<std::int64_t> stop_after;
    /// Rank 0, at each write: the provenance the file keeps.
    std::function<Provenance()> provenance;
    /// Every rank, after each checkpoint: the replicates it holds.
    std::function<void(int done)> on_checkpoint;
    /// Every rank, after a resume: the replicates the checkpoint held and (rank 0; empty
    /// elsewhere) the provenance it kept.
    std::function<void(int done, Provenance kept)> on_resume;
};

/// The checkpoint format of a table's kind: "cudag-pc-bootstrap-checkpoint-1" for a CPDAG
/// table (cudag pc's and cudag mcmc's), "cudag-pag-bootstrap-checkpoint-1" for a PAG's.
/// Layout below the root (io/checkpoint_file.hpp): /bootstrap/{done (int64), pairs (int32
/// K x 2), adjacent (int32 K x (columns - 1): the kinds but "none")} and the provenance
/// /provenance/{keys, values}.
const io::CheckpointFormat& checkpoint_format(TableKind kind);

/// The bootstrap's counting: B = b.replicates replicates, `schedule.per_round` of a rank's
/// in each round (rank p of round k: the block k·size + p after those resumed),
/// `schedule.concurrent` at once (a team of workers running ahead of the rounds; on this
/// thread when 1), errors agreed per round, the counts summed on rank 0, which gets the
/// table (sorted by pair; elsewhere the options only); with `ckpt` (and a path), its
/// checkpoints and resume (the counts equal an uninterrupted run's, whatever the ranks and
/// workers). The options are checked (validate) first.
Table count_replicates(const Options& b, TableKind kind, mpi::Communicator& comm, const ReplicateFn& replicate,
                       const Schedule& schedule, const RoundCallback& on_round = {}, const Checkpoint* ckpt = nullptr);

}  // namespace cudag::bootstrap
