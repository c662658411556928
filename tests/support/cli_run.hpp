// SPDX-License-Identifier: Apache-2.0
// Running the cudag binary from a test: exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/paths.hpp"

namespace cudag::test {

/// One finished run of the cudag binary.
struct CliRun {
    int code = -1;
    std::string out, err;
};

/// The whole content of a file ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Run `cudag args` through the shell, capturing stdout and stderr in files under `dir`
/// (removed afterwards); `input`, when not empty, becomes its standard input.
inline CliRun run_cudag(const std::string& args, const std::filesystem::path& dir,
                        const std::filesystem::path& input = {}) {
    const std::filesystem::path o = dir / "stdout.txt", e = dir / "stderr.txt";
    std::string cmd = cudag_binary() + " " + args + " >" + o.string() + " 2>" + e.string();
    if (!input.empty()) cmd += " <" + input.string();
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(o);
    r.err = slurp(e);
    std::filesystem::remove(o);
    std::filesystem::remove(e);
    return r;
}

/// Start `cudag args` in the background, its stdout and stderr to `out` and `err`, with
/// `path_prefix` (when given) ahead of PATH; returns its pid (the caller waits for it).
inline pid_t spawn_cudag(const std::string& args, const std::filesystem::path& out, const std::filesystem::path& err,
                         const std::string& path_prefix = "") {
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (!path_prefix.empty()) {
            const std::string path_env = path_prefix + ":" + std::getenv("PATH");
            ::setenv("PATH", path_env.c_str(), 1);
        }
        const std::string cmd = "exec " + cudag_binary() + " " + args + " >" + out.string() + " 2>" + err.string();
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    return pid;
}

}  // namespace cudag::test
