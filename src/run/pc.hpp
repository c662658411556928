// SPDX-License-Identifier: Apache-2.0
// A PC-stable job as the command line and the Python module give it: its settings (one
// struct, the defaults written once), the data read and checked, the run on one process or
// on MPI ranks, and the result with its optional files.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/dsep.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "bootstrap/resample.hpp"
#include "pc/bootstrap.hpp"
#include "pc/run.hpp"
#include "run/cmi_knn.hpp"
#include "run/common.hpp"
#include "run/context.hpp"

namespace cudag::run {

/// The learner of a skeleton search's job: `cudag pc` or `cudag fci`.
enum class Learner { Pc, Fci };
/// The command that runs it, as messages name it: "cudag pc" or "cudag fci".
std::string command_name(Learner l);

/// Every setting of a PC job, named as `cudag pc`'s options (--max-level is
/// cfg.max_level); the command line binds its options to these members.
struct PcJob {
    std::string data;     ///< --data: the file read (or the name messages give the caller's data)
    std::string dataset;  ///< --dataset: HDF5 dataset path
    std::string out;      ///< --out: result HDF5 ("" or "-": none)
    std::string formats;  ///< --format: comma-separated files beside `out`
    BackendKind backend = BackendKind::Auto;  ///< --backend, parsed by the front end (parse_backend)
    CommChoice comm = CommChoice::Auto;  ///< --comm, parsed by the front end (parse_comm)
    /// --compat, parsed by the front end (skeleton::parse_compat): pcalg's or causal-learn's semantics.
    skeleton::Compat compat = skeleton::Compat::Pcalg;
    std::vector<std::string> na_values;  ///< --na-values
    MissingPolicy missing = MissingPolicy::Error;  ///< --missing, parsed by the front end (parse_missing)
    std::vector<std::string> discrete_columns, continuous_columns;  ///< --discrete-columns, --continuous-columns
    /// --test and --dof, parsed by the front end (skeleton::parse_test, skeleton::parse_dof);
    /// unset: the default.
    std::optional<skeleton::TestKind> test;
    std::optional<ci::DofRule> dof;
    pc::PcConfig cfg;                    ///< alpha, max_level, threads, checkpoint, resume, ...
    CmiKnnJob cmi;
    /// --uc-rule / --uc-priority: causal-learn's collider rule and priority (unset: the compat's own).
    std::optional<int> uc_rule, uc_priority;
    bool quiet = false, verbose = false, discrete = false, keep_checkpoint = false, force = false;
    bool overwrite_checkpoint = false;  ///< replace an existing checkpoint
    bool overwrite = false;             ///< --overwrite: replace an existing --write-resample FILE
    double comm_timeout = 600.0;        ///< seconds an NCCL collective may wait
    std::vector<std::string> tunes;     ///< --tune key=value items
    KnowledgeJob knowledge;             ///< --forbid, --require, --tiers (files or values)
    // Edge confidence (pc/bootstrap.hpp); the resamples are keyed by --seed (cmi.spec.seed).
    std::int64_t bootstrap = 0;          ///< --bootstrap B: replicates (0: one run on the data)
    bootstrap::Resample resample = bootstrap::Resample::Bootstrap;  ///< --resample, parsed by the front end
    double consensus = 0.5;              ///< --consensus: the consensus graph's adjacency threshold
    std::string write_resample;          ///< --write-resample FILE: write replicate --replicate's rows, run nothing
    std::int64_t replicate = 0;          ///< --replicate r (with --write-resample)
    /// --oracle DAG: no data; each test is d-separation in the DAG (pcalg's dsepTest) over
    /// its nodes not in `latent`, in the DAG file's order (CPU only).
    std::string oracle;
    std::string latent;  ///< --latent: comma-separated node names of `oracle` that are hidden
    /// The learner that runs on the skeleton: PC (orientation to a CPDAG) or FCI (set by
    /// run::run_fci: no CPDAG; the PAG's formats, `amat` as `<stem>.pag.amat.csv`).
    Learner learner = Learner::Pc;
};

/// A DAG handed over in memory for the d-separation oracle: node v is named names[v].
struct OracleDag {
    Dag dag;
    std::vector<std::string> names;
};

/// What an in-process caller adds; every member may be empty (the command line's run).
struct PcHooks {
    DataReader read;  ///< the data instead of reading PcJob::data
    /// With PcJob::oracle naming it in messages and provenance: the oracle's DAG instead of
    /// reading the file PcJob::oracle (every rank takes it).
    std::shared_ptr<const OracleDag> oracle_dag;
    /// Each level's statistics as it ends (after the progress line); may throw to stop.
    std::function<void(const skeleton::LevelStats&)> level;
    /// Rank 0: a note the user should see about the data (integer codes that look
    /// discrete run as Fisher-z), given here instead of printed (and whatever --quiet says).
    std::function<void(const std::string&)> warn;
    /// Every record of the result on rank 0 (the caller takes the whole result), even where
    /// the ranks would write their parts of the result file collectively.
    bool whole_result = false;
    /// The job runs inside a longer-lived program (the Python module): the process's age is
    /// not the job's start-up, so no "start-up before the data" line.
    bool in_process = false;
    /// Called on every rank after the skeleton search (and orientation), before the result
    /// is written: a learner that continues from the skeleton (FCI) completes the result
    /// here. Agrees on its own errors over the communicator.
    std::function<void(const Dataset&, const pc::PcConfig&, pc::PcResult&, mpi::Communicator&)> after_skeleton;
    /// --bootstrap: each replicate's whole result learned on one process from its resample
    /// (FCI's PAG in PcResult::pag), with the command and the settings its checkpoints name;
    /// the PAGs counted (pc::bootstrap_pag). Empty: PC's replicates.
    pc::ReplicateLearner replicate;
};

/// A finished PC job: on rank 0, the result and the summary line (empty on other ranks).
struct PcRun {
    std::optional<pc::PcResult> result;
    std::string summary;
};

/// pc::PcConfig::triple_check for `cfg`'s conservative / majority rule: pcalg's
/// pc.cons.intern (version.unf = c(2, 1)) with fci/triples.hpp's checks, on the skeleton
/// engine's own tests (a given correlation matrix included).
void set_triple_check(pc::PcConfig& cfg);

/// Runs the job on every rank of `comm` (replaced by the communicator the run uses);
/// rank 0 writes `out` and the formats beside it when asked. `command_line` is recorded in
/// the result file's provenance.
PcRun run_pc(const PcJob& job, const std::string& command_line, const mpi::Environment& env,
             std::unique_ptr<mpi::Communicator>& comm, const PcHooks& hooks = {});

}  // namespace cudag::run
