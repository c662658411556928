// SPDX-License-Identifier: Apache-2.0
// An order-MCMC job as the command line and the Python module give it (issue 21): its
// settings (one struct, the defaults written once), the data, prior, space and knowledge
// read and checked, the chains split over the ranks, and the result with its optional files.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bn/mcmc_result.hpp"
#include "bn/order_mcmc.hpp"
#include "bootstrap/resample.hpp"
#include "bootstrap/result.hpp"
#include "core/backend.hpp"
#include "core/knowledge.hpp"
#include "core/pdag.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "run/common.hpp"
#include "run/score_inputs.hpp"

namespace cudag::bn {
struct McmcProgress;
}  // namespace cudag::bn

namespace cudag::run {

/// --space's kinds: auto (all when its table is small, else pc; resolve_space), all, pc,
/// iterative, or a graph file.
enum class SpaceKind { Auto, All, Pc, Iterative, File };

/// --space as a job holds it: its kind and, for a file, the file.
struct Space {
    SpaceKind kind = SpaceKind::Auto;
    std::string file;  ///< SpaceKind::File: the graph file
};

/// --space's word: "auto", "all", "pc", "iterative", or any other word the graph file it
/// names (the front ends, and a resume that takes a checkpoint's space, parse it once).
Space parse_space(const std::string& word);
/// The word parse_space reads (a file's name for a file).
std::string to_string(const Space& s);

/// --checkpoint-every: a checkpoint every `iterations` iterations, or every `seconds`.
struct CheckpointInterval {
    std::int64_t iterations = 0;
    double seconds = 0.0;
};
/// --checkpoint-every's word: "N" iterations or "N" followed by s, m or h; anything else is
/// an InputError naming the option.
CheckpointInterval parse_checkpoint_every(const std::string& text);

/// Every setting of an MCMC job, named as `cudag mcmc`'s options; the command line binds
/// its options to these members.
struct McmcJob {
    std::string data, dataset, prior, out, formats;
    Space space;  ///< --space, parsed by the front end (parse_space)
    /// --order-score, --moves, --backend: parsed by the front end (bn::parse_order_score,
    /// bn::parse_moves, parse_backend).
    bn::OrderScoreMode order_score = bn::OrderScoreMode::Max;
    bn::MoveSet moves = bn::MoveSet::Swap;
    BackendKind backend = BackendKind::Auto;
    std::vector<std::string> na_values;  ///< --na-values
    std::vector<std::string> tunes;      ///< hidden --tune key=value items (table-prune=on|off)
    std::string checkpoint;
    /// --checkpoint-every, parsed by the front end (parse_checkpoint_every); unset: 5 minutes.
    std::optional<CheckpointInterval> checkpoint_every;
    ScoreJob score;
    double edge_penalty = 1.0, alpha = 0.05;
    int max_parents = 4, chains = 4, threads = 0, hard_limit = 14;
    std::int64_t iterations = 10000, thin = 1;
    std::optional<std::int64_t> stop_after;  ///< testing: stop after the checkpoint at this iteration
    std::optional<std::int64_t> burn_in;  ///< unset: a fifth of iterations
    std::optional<double> sum_prune;      ///< --tune sum-prune=DELTA: sum mode's pruning (experimental)
    std::optional<double> sum_rows_gib;   ///< --tune sum-rows=GiB: sum mode's subset-row budget
    std::uint64_t seed = 1;
    bool resume = false, keep_checkpoint = false, quiet = false, verbose = false, force = false;
    bool overwrite_checkpoint = false;                   ///< replace an existing checkpoint
    bool alpha_given = false, hard_limit_given = false;  ///< refused without space "pc"
    /// --space given (else a --resume takes the checkpoint's recorded space, "all" when it
    /// records none: the default before "auto")
    bool space_given = false;
    KnowledgeJob knowledge;                              ///< --forbid, --require, --tiers
    // Edge confidence (bootstrap/): the best DAG of B resamples, keyed by --seed.
    std::int64_t bootstrap = 0;          ///< --bootstrap B (0: one run on the data)
    bootstrap::Resample resample = bootstrap::Resample::Bootstrap;  ///< --resample, parsed by the front end
    double consensus = 0.5;              ///< --consensus: the consensus graph's adjacency threshold
};

/// What an in-process caller adds; every member may be empty (the command line's run).
struct McmcHooks {
    DataReader read;  ///< the data instead of reading McmcJob::data
    /// The chains' progress as it comes (as often as the command's own lines could be
    /// printed); may throw to stop.
    std::function<void(const bn::McmcProgress&)> progress;
    /// The score table's and its sorting's progress (bn::ScoreTable::Progress), on the
    /// calling thread about four times a second; may throw to stop (an interrupt).
    bn::ScoreTable::Progress table_progress;
    /// Inputs besides the data given as read, over the data's variables in their order,
    /// instead of reading --prior, --space FILE and the background knowledge by name (a
    /// bootstrap replicate: the whole data's, restricted to the columns it keeps).
    std::optional<std::vector<double>> prior;  ///< read_prior's beliefs
    std::optional<Pdag> space;                 ///< --space FILE's graph
    std::optional<Knowledge> knowledge;
    /// The GPU to run on (a bootstrap replicate's, from its worker); unset: the rank's.
    std::optional<int> device;
    /// A one-line warning for the caller (the score table's estimate above a minute); empty:
    /// the command line's, on stderr unless --quiet.
    std::function<void(const std::string&)> warning;
};

/// A finished (or stopped) MCMC job: on rank 0 the result and the summary line.
struct McmcRun {
    std::optional<bn::McmcOutput> output;
    std::string summary;
    std::string stopped;  ///< a simulated stop (stop_after): its message; the run has no output
    /// --bootstrap: the consensus graph, the frequency table and the provenance (`output`
    /// then empty); its result file has a PC bootstrap's layout (pc::as_pc_result).
    std::optional<cudag::bootstrap::Result> bootstrap;
};

/// Runs the job (chains split over the ranks of `comm`); rank 0 writes `out` and the
/// formats beside it when asked. `command_line` is recorded in the result's provenance.
McmcRun run_mcmc(const McmcJob& job, const std::string& command_line, const mpi::Environment& env,
                 std::unique_ptr<mpi::Communicator>& comm, const McmcHooks& hooks = {});

}  // namespace cudag::run
