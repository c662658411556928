// SPDX-License-Identifier: Apache-2.0
// One PC run from a loaded data set to a PcResult: engine, skeleton, orientation.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <optional>
#include <string>

#include "core/backend.hpp"
#include "core/dataset.hpp"
#include "core/knowledge.hpp"
#include "io/checkpoint_file.hpp"
#include "pc/orient.hpp"
#include "pc/result.hpp"
#include "skeleton/skeleton_engine.hpp"
#include "skeleton/skeleton.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::pc {

struct PcConfig {
    /// The CI test and its parameters as the options give them (defaults filled in by
    /// resolve_test from the data and the semantics).
    skeleton::TestOptions test;
    double alpha = 0.01;
    int max_level = -1;  ///< -1: no cap
    skeleton::Compat compat = skeleton::Compat::Pcalg;
    /// bnlearn's pc.stable search (its pc.heuristic; skeleton::SkeletonOptions::bnlearn_pairs):
    /// the R face's pc.stable sets it; a test whose x and y are not interchangeable (mi-cg)
    /// implies it.
    bool bnlearn_search = false;
    /// causal-learn's uc_rule (0 sepset, 1 maxP, 2 definiteMaxP). Unset: pcalg's
    /// orientation (udag2pdagRelaxed), or 0 under --compat causal-learn.
    std::optional<int> uc_rule;
    /// causal-learn's uc_priority (-1 rule default, 0..4). Unset: 2 (causal-learn's pc() default).
    std::optional<int> uc_priority;
    /// Background knowledge (core/knowledge.hpp) over the data's variables; empty for none.
    /// Forbidden pairs are never adjacent, required pairs always, and orientation follows
    /// the directions (see pc::OrientOptions::knowledge).
    Knowledge knowledge;
    /// Backend kind, device, threads (0: all hardware threads), tunables; built once by the
    /// command's run context and given to the engine factory (skeleton/engines.hpp).
    BackendContext backend;
    skeleton::LevelCallback on_level;  ///< progress hook, may be empty
    /// Called on rank 0 before each level l >= 1 with its planned tests; may be empty.
    std::function<void(const skeleton::LevelPlan&)> on_level_start;
    std::function<void(const std::string&)> on_note;  ///< phase timings (verbose), may be empty
    /// HDF5 checkpoint written by rank 0 after every level ("" for none).
    std::string checkpoint;
    /// Called on rank 0 after a checkpoint was written, with the last level it holds.
    std::function<void(int)> on_checkpoint;
    /// Called on rank 0 when a run resumes, with the first level it runs.
    std::function<void(int)> on_resume;
    /// Continue from `checkpoint`, which must exist and match the data and the options
    /// that change results (see config_hash).
    bool resume = false;
    /// --keep-checkpoint with --bootstrap: the finished run's totals are saved in `checkpoint`
    /// too (a PC run's last level is checkpointed anyway).
    bool keep_checkpoint = false;
    /// Testing: stop after this level (and its checkpoint), as a kill would; -1: never.
    int stop_after_level = -1;
    /// Several ranks: keep the separating sets and pMax distributed (each rank its
    /// PcResult::record_rows, for a collective result write) and write checkpoints
    /// collectively (skeleton::write_checkpoint's collective form, every rank calling
    /// on_checkpoint). Rank 0 orients from the separating sets of unshielded triples, sent
    /// to it by their rows' owners. The file contents are the same either way.
    bool distributed_records = false;
    /// False: no CPDAG (PcResult::cpdag left without edges): a learner that orients the
    /// skeleton its own way (FCI) takes the skeleton and separating sets.
    bool orient = true;
    /// False: the result has no pMax (PcResult::pmax empty), which then is not collected
    /// (a bootstrap replicate's run: only its graph counts). One process only.
    bool keep_pmax = true;
    /// Fisher-z on this n_vars x n_vars correlation matrix (row-major) as given, instead of
    /// the one of the data's values (pcalg's gaussCItest suffStat list(C, n): the Dataset
    /// then carries only n_samples, n_vars and the names). CPU, one process; null: none.
    std::shared_ptr<const std::vector<double>> correlation;
    /// The caller found `correlation` bitwise symmetric (C[a, b] and C[b, a] the same bits
    /// for every pair: the R package, while it transposes pcalg's C): the engine's own pass
    /// over C is skipped. False: the engine looks.
    bool correlation_symmetric = false;
    /// pcalg's pc(conservative = TRUE) / pc(maj.rule = TRUE): before the orientation every
    /// unshielded triple is checked (pc.cons.intern, version.unf = c(2, 1); fci/triples.hpp),
    /// the separating sets revised, and the ambiguous triples left alone by the collider
    /// step and Meek's rules 1 and 3. pcalg orientation only (not with --compat
    /// causal-learn, uc_rule or directed knowledge); one process.
    bool conservative = false, majority = false;
    /// The triple checks of `conservative` / `majority` (run::triple_check: they live with
    /// FCI's, which pc/ does not include): given the skeleton, its separating sets (revised
    /// in place) and the engine's tests, the ambiguous triples.
    std::function<TripleFn(const Graph&, SepSets&, skeleton::SkeletonEngine&)> triple_check;
};

/// Validate a configuration against a data set; throws InputError on the first problem.
void validate(const PcConfig& cfg, const Dataset& data);

/// Continuous data for a scale-free test (scale_free): cudag::rescale_extreme_columns
/// (core/magnitude.hpp), every column whose largest magnitude lies beyond 2^±500 multiplied
/// by a power of two, exactly. Returns the columns rescaled; nothing for discrete data.
std::int64_t rescale_extreme_columns(Dataset& data, const PcConfig& cfg);

/// Whether `test` gives the same answer on a column multiplied by a power of two (Fisher-z;
/// CMIknn, whose tie-break noise scales with each column's spread), so that extreme columns
/// are rescaled for it (core/magnitude.hpp).
bool scale_free(const skeleton::TestSpec& test);

/// The test a run of `cfg` on `data` uses (pc::resolve_test with cfg's alpha and compat).
skeleton::TestSpec resolve_test(const PcConfig& cfg, const Dataset& data);

/// Run PC-stable on `data` (continuous data with Fisher-z, discrete data with χ²/G²). Fills every PcResult field except
/// `config` provenance entries the caller adds (input path, command line).
PcResult run_pc(const Dataset& data, const PcConfig& cfg);

/// The distributed form: every rank of `comm` calls it with the same data and options.
/// The skeleton search is split over the ranks (skeleton::learn_skeleton); separating sets,
/// pMax and the orientation are complete on rank 0 only (other ranks get the skeleton,
/// the level statistics and the names) or, with cfg.distributed_records, every rank
/// holds the separating sets and pMax of its PcResult::record_rows and rank 0 the
/// orientation. Errors on any rank are agreed on at level
/// boundaries: the failing rank throws its error (mpi::AgreedFailure when there are
/// several ranks), the others mpi::PeerFailed.
PcResult run_pc(const Dataset& data, const PcConfig& cfg, mpi::Communicator& comm);

/// Hex digest (64-bit FNV-1a) of what decides a run's results: the data (shape, names,
/// values), the resolved test (skeleton::TestSpec::digest_entries: its name with its resolved
/// degrees-of-freedom rule or CMIknn parameters, k resolved from --knn), alpha and
/// compat semantics, and the background knowledge when there is some. Not threads, backend, ranks or
/// --max-level. A checkpoint is resumed only by a run with the same digest.
std::string config_hash(const Dataset& data, const PcConfig& cfg);
/// A PC run's level checkpoints (skeleton/checkpoint.hpp: the skeleton search's state,
/// under PC's format name; root attribute "format").
inline constexpr io::CheckpointFormat checkpoint_format{"cudag-pc-checkpoint-1", "PC"};

/// What config_hash covers, by option, stored in a checkpoint so that a refused --resume
/// names the option that differs (e.g. "--alpha was 0.01 in the checkpoint, 0.05 now").
io::CheckpointSettings config_settings(const Dataset& data, const PcConfig& cfg);

/// What each rank holds on the host beyond the data set it read, by structure (bytes),
/// before level 0: known sizes, and the bytes per pair that level 0 keeps (the adjacency
/// lists of the sparse graph form and its snapshots, the pMax entry, the kept-pair lists),
/// which only level 0 tells.
struct HostMemoryPlan {
    /// The data as the engine holds it (standardised columns; the CPU Fisher-z engine's
    /// computation of C: with each worker's packed rows, ci::correlation_work_bytes).
    double data = 0.0;
    double correlation = 0.0;    ///< the CPU engine's n x n correlation matrix
    double graphs = 0.0;         ///< the bit graphs (n <= Graph::dense_limit()) or the rows' lists
    double pmax = 0.0;           ///< the dense pMax table (n <= PcResult::dense_pmax_limit)
    double per_kept_pair = 0.0;  ///< bytes per pair level 0 keeps (above the dense forms)

    double known() const { return data + correlation + graphs + pmax; }
    /// "data 3.7 GiB, graphs 72 MiB, ... + 96 B per pair kept by level 0".
    std::string describe() const;
};
HostMemoryPlan host_memory_plan(const Dataset& data, const PcConfig& cfg, bool gpu);

/// Host memory a run of `cfg` on `data` needs beyond the data set, in bytes: the known
/// part of host_memory_plan (the CPU engine's n x n correlation matrix, the graphs, the
/// dense pMax table). `gpu`: the engine runs on a GPU (C lives there).
double estimate_host_bytes(const Dataset& data, const PcConfig& cfg, bool gpu);

}  // namespace cudag::pc
