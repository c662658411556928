// SPDX-License-Identifier: Apache-2.0
// `cudag fci`: FCI or RFCI (PAGs with hidden common causes) on a data file or the
// d-separation oracle, on one process or on MPI ranks (the run itself is run::run_fci).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "cli/pc.hpp"
#include "run/fci.hpp"

namespace cudag::cli {

struct FciArgs : ResamplingOptions {
    run::FciJob job;
    SkeletonText text;                             ///< --compat, --missing, --comm, ... as given
    std::string variant = "fci", type = "normal";  ///< --variant, --type as given
    CmiOptions cmi_options;
};

CLI::App* add_fci_command(CLI::App& app, FciArgs& a);

int run_fci_command(const FciArgs& args, const std::string& command_line, const mpi::Environment& env,
                    std::unique_ptr<mpi::Communicator>& comm);

}  // namespace cudag::cli
