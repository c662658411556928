// SPDX-License-Identifier: Apache-2.0
// The cudag command line: builds the CLI11 app from the commands (pc, simulate, compare,
// citest, score, info; one file each), installs the interrupt handler and dispatches. The only
// place that catches.
#pragma once

#include <functional>
#include <memory>

#include "mpi/communicator.hpp"

namespace cudag::cli {

/// Wraps the world communicator before a command gets it (a test executable's fault
/// injector, for example); empty: the world communicator as it is.
using CommunicatorDecorator = std::function<std::unique_ptr<mpi::Communicator>(std::unique_ptr<mpi::Communicator>)>;

/// Runs `cudag argv...` and returns the process exit code.
int run(int argc, char** argv, const CommunicatorDecorator& decorate = {});

}  // namespace cudag::cli
