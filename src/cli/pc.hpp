// SPDX-License-Identifier: Apache-2.0
// `cudag pc`: PC-stable on a data file, on one process or on MPI ranks (the run itself is
// run::run_pc; this command binds its options and prints).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "cli/bootstrap_options.hpp"
#include "cli/cmi_options.hpp"
#include "cli/data_reader.hpp"
#include "cli/knowledge_options.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "run/pc.hpp"

namespace cudag::cli {

/// The options of `cudag pc`: the job they fill, and the CMIknn options (to tell which
/// were given).
/// The bootstrap's options of a command (add_resampling_options), to tell which were given.
struct ResamplingOptions {
    BootstrapOptionRefs bootstrap;                       ///< --bootstrap, --resample, --consensus
    const CLI::Option* write_resample_option = nullptr;  ///< --write-resample
    const CLI::Option* replicate_option = nullptr;       ///< --replicate
    std::string resample = "bootstrap";                  ///< --resample as given (parsed into the job's)
};

/// The skeleton search's options as given, where the job holds the parsed value
/// (parse_skeleton_text sets them).
struct SkeletonText {
    std::string compat = "pcalg";   ///< --compat
    std::string missing = "error";  ///< --missing
    std::string comm = "auto";      ///< --comm
    std::string test, dof;          ///< --test, --dof ("": the default)
    std::string backend = "auto";   ///< --backend
};

/// `text` parsed into `job` (an unknown value is the InputError naming the option).
void parse_skeleton_text(const SkeletonText& text, run::PcJob& job);

struct PcArgs : ResamplingOptions {
    run::PcJob job;
    SkeletonText text;
    CmiOptions cmi_options;
};

/// The options of the skeleton search every constraint-based command shares (`cudag pc`,
/// `cudag fci`): data, test, alpha, levels, threads, outputs, knowledge, backend,
/// checkpoints, communicator, CMIknn's, progress. `formats_help` is --format's help.
void add_skeleton_options(CLI::App* cmd, run::PcJob& a, SkeletonText& text, CmiOptions& cmi_options,
                          const std::string& formats_help);

/// Registers the `pc` subcommand on `app`, filling `a` when parsed.
/// The bootstrap's options (--bootstrap, --resample, --consensus, --write-resample,
/// --replicate, --overwrite) on `cmd` into `args`; `what` names the learner ("PC", "FCI")
/// and `command` the subcommand ("pc", "fci").
void add_resampling_options(CLI::App* cmd, run::PcJob& a, ResamplingOptions& args, const std::string& what,
                            const std::string& command);

/// Checks the uses of add_resampling_options' options that the run would ignore.
void check_resampling_use(const ResamplingOptions& args, const run::PcJob& a);

CLI::App* add_pc_command(CLI::App& app, PcArgs& a);

/// Runs PC-stable on every rank of `comm` (replaced by the communicator the run uses);
/// rank 0 writes the outputs, or prints the edge list on stdout without --out.
/// `command_line` is recorded in the result's provenance.
int run_pc_command(const PcArgs& args, const std::string& command_line, const mpi::Environment& env,
                   std::unique_ptr<mpi::Communicator>& comm);

}  // namespace cudag::cli
