// SPDX-License-Identifier: Apache-2.0
#include "cli/info.hpp"

#include <iostream>

#include "core/backend.hpp"
#include "core/parallel.hpp"
#include "cudag/config.hpp"
#include "io/hdf5_plan.hpp"

namespace cudag::cli {

CLI::App* add_info_command(CLI::App& app) {
    return app.add_subcommand("info", "version, build options, devices, threads");
}

int run_info() {
    std::cout << "cudag " << CUDAG_VERSION << '\n'
              << "build: CUDA " << (CUDAG_HAVE_CUDA ? "on" : "off") << ", MPI " << (CUDAG_HAVE_MPI ? "on" : "off")
              << ", NCCL " << (CUDAG_HAVE_NCCL ? "on" : "off") << ", parallel HDF5 "
              << (CUDAG_HAVE_PARALLEL_HDF5 ? "on" : "off") << '\n'
              << "backends: cpu" << (cuda_compiled() ? ", cuda" : "") << '\n'
              << "GPUs: " << gpu_report() << '\n'
              << "HDF5 I/O: " << io::hdf5_io_summary() << '\n'
              << "threads: " << resolve_threads(0) << " hardware threads\n"
              << "tests: fisher-z, chi-square, g-square, cmiknn\n";
    return 0;
}

}  // namespace cudag::cli
