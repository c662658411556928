// SPDX-License-Identifier: Apache-2.0
// The cudag executable: the command line of cli/app.hpp.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/app.hpp"
#include "core/trace.hpp"

int main(int argc, char** argv) {
    const int rc = cudag::cli::run(argc, argv);
    if (rc != 0) return rc;
    // Done, with every output written, closed and renamed into place (and MPI finalised):
    // the process ends here, without the teardown the operating system does anyway (the
    // device memory freed block by block, then the CUDA runtime destroying each GPU's
    // context in turn: 0.1 to 0.2 s a GPU).
    std::cout.flush();
    std::cerr.flush();
    cudag::trace_moment("exit");
    std::fflush(nullptr);
    ::_exit(0);
}
