// SPDX-License-Identifier: Apache-2.0
// Running the cudag binary from a test, with its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/paths.hpp"

namespace cudag::test {

/// What one run of the cudag binary gave.
struct CliRun {
    int code = -1;    ///< exit status; -1 when killed by a signal
    std::string out;  ///< everything written to stdout
    std::string err;  ///< everything written to stderr
};

/// The bytes of file `p` ("" when unreadable).
inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Runs `cudag <args>` through the shell (so `args` is shell syntax), capturing stdout and
/// stderr in two files of folder `scratch` that are removed afterwards.
inline CliRun run_cudag(const std::string& args, const std::filesystem::path& scratch) {
    const std::filesystem::path o = scratch / "stdout.txt";
    const std::filesystem::path e = scratch / "stderr.txt";
    const std::string cmd = cudag_binary() + " " + args + " >" + o.string() + " 2>" + e.string();
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(o);
    r.err = slurp(e);
    std::filesystem::remove(o);
    std::filesystem::remove(e);
    return r;
}

}  // namespace cudag::test
