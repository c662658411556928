// SPDX-License-Identifier: Apache-2.0
// The order-MCMC learner as one library call (issue 34), shaped as PC's pc::run_pc: the
// parent space, the local-score table split over the ranks (bn/table_split.hpp), the
// score-sorted lists, the chains run in checkpointed segments (bn/mcmc_run.hpp) and the
// combined result, with the engines (CPU or GPU, bn/engines.hpp) picked once. The command
// line (cli/mcmc.cpp) and Python read options and write outputs around it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bn/mcmc_run.hpp"
#include "bn/order_mcmc.hpp"
#include "bn/prior.hpp"
#include "bn/score.hpp"
#include "bn/space.hpp"
#include "bn/table_split.hpp"
#include "core/digest.hpp"
#include "io/checkpoint_file.hpp"
#include "mpi/communicator.hpp"

namespace cudag::bn {

/// Everything that decides a run (with the scorer and the prior).
struct McmcConfig {
    OrderMcmcOptions opts;  ///< chains, iterations, burn-in, thin, seed, mode, moves, threads
    int max_parents = 4;
    ParentSpace space;  ///< every other node by default
    /// Max mode scores only the sets the pruning bounds cannot rule out (ScoreTable::
    /// set_pruning; the same lists and chains). `--tune table-prune=off` times the full table.
    bool table_prune = true;
    /// BiDAG's iterative search space (--space iterative): `space` (a plus1 space) grown by
    /// rounds of max-mode chains before the run samples on it; hard_limit caps each node's
    /// candidates.
    bool iterative = false;
    int hard_limit = 14;
    /// The space's name as the command gives it (all, pc, iterative, a file; --space auto as
    /// it resolved), recorded in a checkpoint's settings (not its digest: the space itself
    /// is) so that a resume without --space takes it; empty: not recorded.
    std::string space_name;
    /// Sum mode's pruning (--tune sum-prune, ScoreTable::prune_sum; experimental: the chains
    /// still walk every entry, a pruned one weighing 0); < 0: off.
    double sum_prune = -1.0;
    /// Sum mode's subset rows (ScoreTable::build_subset_rows): their memory budget in bytes,
    /// `--tune sum-rows=GiB` (0: every node enumerates its sets).
    double sum_rows_bytes = kDefaultRowBudgetBytes;
    bool gpu = false;  ///< GPU engines where they apply (pick_mcmc_engines), on `device`
    int device = 0;
    // Checkpoints (McmcRunConfig's fields of the same names).
    std::string checkpoint;
    bool resume = false;
    std::int64_t checkpoint_every = 0;
    double checkpoint_seconds = 0.0;
    std::optional<std::int64_t> stop_after;
    bool collective_checkpoints = false;
    /// What the scores were computed from (the data as scored, the score and its
    /// parameters), by digest and by name: a checkpoint holds them with the rest of this
    /// config (digest()), and a resume under another one is refused naming what differs.
    Digest scored;
    io::CheckpointSettings scored_settings;

    /// The checkpoint digest of this config over `table` (its space) and `prior`, and
    /// the same values by name.
    std::string digest(const ScoreTable& table, const StructurePrior& prior) const;
    io::CheckpointSettings settings(const ScoreTable& table, const StructurePrior& prior) const;
};

/// What a caller hears while it runs (every call optional; on every rank, the caller
/// decides who prints).
struct McmcObserver {
    std::function<void(const std::string&)> note;          ///< a phase's one-line report
    /// A one-line warning (the score table's estimate above kSlowTableSeconds), before it.
    std::function<void(const std::string&)> warning;
    std::function<void()> on_chains_start;                 ///< the table and lists are ready
    std::function<void(const McmcProgress&)> on_progress;  ///< after each segment of the chains
    /// While the table is filled and its lists sorted (ScoreTable::Progress; may throw).
    ScoreTable::Progress on_table_progress;
    std::function<void(std::int64_t done)> on_checkpoint;
    std::function<void(std::int64_t done)> on_resume;
};

/// The score table's estimate above this many seconds warns before the table is built.
inline constexpr double kSlowTableSeconds = 60.0;

/// The score table's estimate, before its fill (estimate_table): the entries this rank
/// fills, the table's bytes, and the seconds: a timed calibration of the scorer on the run's
/// own data (`calls` local scores of sets of the table's largest size, each `per_call`
/// seconds) times the entries over the threads. An upper estimate in max mode, whose pruning
/// skips the sets it proves dominated; 0 seconds when a GPU fills the table (not calibrated).
struct TableEstimate {
    std::int64_t entries = 0;
    double bytes = 0.0, seconds = 0.0, per_call = 0.0;
    int calls = 0, threads = 1;
    bool gpu = false;
};
/// The estimate of `table` (laid out, not filled) over `scorer` on `threads` threads (<= 0:
/// all), `share` of its entries on this rank (1: all); `bounded`: the fill prunes (each set
/// timed with its superset bound, LocalScorer::local_bounded). Scores at most 65 sets and
/// about 20 ms; changes nothing.
TableEstimate estimate_table(const ScoreTable& table, const LocalScorer& scorer, int threads, double share, bool gpu,
                             bool bounded);

/// A finished run (the result on rank 0; the other ranks' is empty).
struct McmcOutcome {
    OrderMcmcResult result;
    std::int64_t best_chain = 0;     ///< rank 0: the chain whose best DAG scored highest (the first on ties)
    std::vector<double> best_local;  ///< rank 0: that DAG's local score of each node
    TableShare share;                ///< what this rank computed of the table
    std::int64_t table_entries = 0;
    /// By node: the table's entries scored (all but the pruned and required-lacking ones)
    /// and the sets kept in the score-sorted lists (empty when they were not built).
    std::vector<std::int64_t> scored, kept;
    std::int64_t sum_pruned = -1;       ///< entries --sum-prune left out (-1: not asked for)
    std::int64_t subset_row_nodes = 0;  ///< sum mode: nodes whose log-sums come from subset rows
    double seconds_table = 0.0, seconds_sort = 0.0, seconds_chains = 0.0;
    double seconds_space = 0.0;  ///< the iterative search space's rounds (0 without)
    ParentSpace space;           ///< the space sampled (cfg.space, or where the iterative search ended)
    /// Where chain 0 started: the iterative search's MAP order (empty: drawn at random).
    std::vector<std::int32_t> start_order;
    std::string engines;  ///< e.g. "table cuda, chains cuda"
};

/// Collective over `comm`: the run of `cfg` over PriorScorer(scorer, prior). Failures
/// agreed across ranks; StoppedAtIteration after cfg.stop_after's checkpoint.
McmcOutcome run_order_mcmc(const LocalScorer& scorer, const StructurePrior& prior, const McmcConfig& cfg,
                           mpi::Communicator& comm, const McmcObserver& observer = {});

}  // namespace cudag::bn
