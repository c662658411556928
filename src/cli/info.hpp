// SPDX-License-Identifier: Apache-2.0
// `cudag info`: version, build options, devices, threads.
#pragma once

#include <CLI/CLI.hpp>

namespace cudag::cli {

/// Registers the `info` subcommand on `app`.
CLI::App* add_info_command(CLI::App& app);

/// Prints the version, the build options, the GPUs and the hardware threads.
int run_info();

}  // namespace cudag::cli
