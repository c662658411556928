// SPDX-License-Identifier: Apache-2.0
// `cudag pc`: PC-stable on a data file, on one process or on MPI ranks.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/cmi_options.hpp"
#include "cli/data_reader.hpp"
#include "cli/knowledge_options.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "pc/run.hpp"

namespace cudag::cli {

struct PcArgs {
    std::string data, dataset, out, formats, compat = "pcalg", backend = "auto", comm = "auto";
    std::vector<std::string> na_values;  ///< --na-values
    std::string test, dof;               ///< --test and --dof as given (parsed into cfg.test)
    pc::PcConfig cfg;
    CmiKnnOptions cmi;
    int uc_rule = -2, uc_priority = -2;
    bool quiet = false, verbose = false, discrete = false, keep_checkpoint = false, force = false;
    bool overwrite_checkpoint = false;  ///< --overwrite-checkpoint: replace an existing --checkpoint
    double comm_timeout = 600.0;
    std::vector<std::string> tunes;  ///< --tune key=value items
    KnowledgeFiles knowledge;        ///< --forbid, --require, --tiers
};

/// Registers the `pc` subcommand on `app`, filling `a` when parsed.
CLI::App* add_pc_command(CLI::App& app, PcArgs& a);

/// What an in-process caller (the Python module) puts in place of the files; every member
/// may be empty (the command line's behaviour).
struct PcHooks {
    DataReader read;  ///< the data instead of reading --data
    /// Rank 0's result, instead of the edge list on stdout (--out and --format files are
    /// still written when given).
    std::function<void(pc::PcResult&)> result;
    /// Each level's statistics as it ends (after the progress line); may throw to stop.
    std::function<void(const pc::LevelStats&)> level;
};

/// Runs PC-stable on every rank of `comm` (replaced by the communicator the run uses);
/// rank 0 writes the outputs. `command_line` is recorded in the result's provenance.
int run_pc_command(const PcArgs& args, const std::string& command_line, const mpi::Environment& env,
                   std::unique_ptr<mpi::Communicator>& comm, const PcHooks& hooks = {});

}  // namespace cudag::cli
