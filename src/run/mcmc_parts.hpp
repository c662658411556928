// SPDX-License-Identifier: Apache-2.0
// The pieces of `cudag mcmc` around the library call bn::run_order_mcmc (bn/pipeline.hpp):
// its options checked into a bn::McmcConfig, the inputs besides the data (--prior,
// --space), and the outputs (the result HDF5, the formats beside it, the summary line).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bn/mcmc_result.hpp"
#include "bn/pipeline.hpp"
#include "core/backend.hpp"
#include "core/memory.hpp"
#include "io/output_set.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "run/mcmc.hpp"
#include "skeleton/progress.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::run {

/// The checked options: the run's config (chains, checkpoints; the space and the scored
/// digest are filled once the data are read) and its outputs. `a` is normalised (--out
/// "-", the default --burn-in, --threads).
struct McmcPlan {
    bn::McmcConfig cfg;
    std::vector<std::string> formats;  ///< --format, each once
    bool space_pc = false;             ///< --space pc
    bool space_all = true;             ///< --space all
    bool space_auto = false;           ///< --space auto, until resolve_space
    BackendKind backend = BackendKind::Auto;
};
McmcPlan plan_mcmc(McmcJob& a, const mpi::Environment& env);

/// --space auto's rule: the whole space when its table holds at most this many parent sets
/// (n x the sets of at most --max-parents of n - 1 others: 19 variables at --max-parents 4,
/// 58 at 2), else pc. A count, never a timing: the same data and options pick the same space
/// on every machine.
inline constexpr double kAutoAllEntries = 100000.0;
/// The entries of the whole space's table: n x sum over k <= max_parents of C(n - 1, k).
double full_table_entries(std::int64_t n, int max_parents);
/// plan's space flags (space_pc, space_all, space_auto, cfg.iterative) from a.space.
void set_space_flags(const McmcJob& a, McmcPlan& plan);
/// --space auto for `n` variables: a.space becomes all or pc (kAutoAllEntries) and the
/// plan's flags follow; any other space is left as it is.
void resolve_space(McmcJob& a, McmcPlan& plan, std::int64_t n);
/// The --space an mcmc checkpoint (or mcmc --bootstrap checkpoint) at `path` was written
/// for: its recorded "--space" setting, or "all" (the default before auto) when it records
/// none; nullopt when `path` is not a readable mcmc checkpoint (the resume then says why).
std::optional<std::string> recorded_space(const std::string& path);

/// --space pc and iterative: the skeleton search's host memory on this rank (the data read
/// again, the engine's standardised data and, on the CPU engine, its n x n correlation
/// matrix, the graphs and the pMax table), for `n` variables and `samples` samples.
MemoryPlan skeleton_memory_plan(const McmcJob& a, bn::ScoreKind kind, std::int64_t n, std::int64_t samples);
/// --space pc's test for a score: fisher-z (bge), cg-lrt (cg-bic) or chi-square (bdeu, k2).
skeleton::TestKind space_test(bn::ScoreKind kind);

/// The sampling's host memory on this rank of `ranks` (`rank` 0 combines the chains): the
/// prior's beliefs, the local-score table over `space` (null: not known yet, its least for
/// --space pc and iterative, where every other node is an extra parent of each; nothing for
/// a space file), and this rank's chains' edge sums and kept traces.
MemoryPlan sampling_memory_plan(const McmcJob& a, const McmcPlan& plan, std::int64_t n, const bn::ParentSpace* space,
                                int rank, int ranks);

/// The --prior table by data index, belief[p * n + v] (header = the variable names in any
/// order, one row per variable in header order).
std::vector<double> read_prior(const std::string& path, const std::vector<std::string>& names);

/// --space FILE: a --> b lets a be a parent of b, a --- b (or <->) either way.
bn::ParentSpace read_space_file(const std::string& path, const std::vector<std::string>& names);
/// The graph of a --space FILE over the data's variables (read_space_file's graph).
Pdag read_space_graph(const std::string& path, const std::vector<std::string>& names);

/// --space pc: the PC skeleton (space_test(kind): chi-square, Fisher-z or cg-lrt) of the data
/// `reader` gives; each node's neighbours (at most --hard-limit, the smallest pMax first)
/// its candidates, every other node an extra (plus1). `phase` (may be empty) hears each
/// level's start and end as ("pc skeleton", levels done, levels begun).
bn::ParentSpace pc_space(const McmcJob& a, bn::ScoreKind kind, const std::vector<std::string>& names,
                         mpi::Communicator& comm, skeleton::Progress& progress, const DataReader& reader,
                         const bn::ScoreTable::Progress& phase = {});

/// What a checkpoint must have been written for, as far as the scores go: the data as
/// scored and the score's parameters (bn::McmcConfig::scored and scored_settings).
void set_scored(bn::McmcConfig& cfg, const McmcJob& a, const ScoreInputs& in);

/// The progress lines of a run on stderr (iterations, acceptance, rate, time left), the
/// hooks' progress calls, and the interrupt note naming the last checkpoint. `progress`
/// and `hooks` must outlive the observer.
bn::McmcObserver mcmc_observer(const McmcJob& a, skeleton::Progress& progress, const McmcHooks& hooks, bool root);

/// Rank 0: the result of a finished run as the writers take it.
bn::McmcOutput mcmc_output(const McmcJob& a, const std::string& command_line, const ScoreInputs& in,
                           const bn::McmcConfig& cfg, bn::McmcOutcome& run, int ranks);

/// Rank 0: the result HDF5 (a temporary `tmp_h5` of `outputs`), the formats beside it, then
/// every output committed; without --out the best DAG's edges on standard output.
void write_mcmc_outputs(const McmcJob& a, const std::vector<std::string>& formats, const bn::McmcOutput& o,
                        const std::vector<double>& best_local, io::OutputSet& outputs, const std::string& tmp_h5);

/// The summary line on stderr.
std::string mcmc_summary(const McmcJob& a, const bn::McmcConfig& cfg, const bn::McmcOutput& o,
                         const bn::McmcOutcome& run, std::int64_t n_samples, const io::OutputSet& outputs);

}  // namespace cudag::run
