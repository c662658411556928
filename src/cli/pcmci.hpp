// SPDX-License-Identifier: Apache-2.0
// `cudag pcmci`: tigramite's PCMCI on time series (run::run_pcmci); this command binds its
// options.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/cmi_options.hpp"
#include "mpi/communicator.hpp"
#include "run/pcmci.hpp"

namespace cudag::cli {

struct PcmciArgs {
    run::PcmciJob job;
    CmiOptions cmi_options;
    const CLI::Option* pc_alpha = nullptr;  ///< --pc-alpha, to know whether it was given
    std::string pc_alpha_text;              ///< --pc-alpha as given (run::set_pc_alpha reads it)
    /// --method, --test, --fdr, --backend, --contemp-collider-rule as given (parsed into the
    /// job's by run_pcmci_command).
    std::string method = "pcmci", test = "parcorr", fdr = "none", backend = "auto", collider_rule = "majority";
};

/// Registers the `pcmci` subcommand on `app`, filling `a` when parsed.
CLI::App* add_pcmci_command(CLI::App& app, PcmciArgs& a);

/// Runs the job (the links table on stdout without --out) on every rank of `comm`.
int run_pcmci_command(const PcmciArgs& a, const std::string& command_line, mpi::Communicator& comm, int local_rank);

}  // namespace cudag::cli
