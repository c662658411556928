// SPDX-License-Identifier: Apache-2.0
// Paths for tests: the peer reference data in ../shared/data (never copied into
// the project) and the cudag binary built beside the tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace cudag::test {

/// Folder holding causal-learn/ reference outputs, or "" when absent.
/// CUDAG_SHARED_DATA in the environment overrides the configured path.
inline std::string shared_data_dir() {
    namespace fs = std::filesystem;
    if (const char* env = std::getenv("CUDAG_SHARED_DATA"); env && fs::is_directory(env)) return env;
    for (const char* p : {CUDAG_SHARED_DATA, "/work/shared/data"})
        if (fs::is_directory(std::string(p) + "/causal-learn")) return p;
    return "";
}

/// Path of the cudag executable.
inline std::string cudag_binary() { return CUDAG_BINARY; }

}  // namespace cudag::test
