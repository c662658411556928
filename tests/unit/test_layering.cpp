// SPDX-License-Identifier: Apache-2.0
// The layer rules of docs/architecture.md, checked on the source tree: a forbidden include
// fails the test naming the file, the line and the rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Rule {
    std::string folder;                  ///< under the source root
    std::vector<std::string> forbidden;  ///< include prefixes, e.g. "pc/"
    std::string why;
};

/// Every `#include "prefix..."` of a forbidden prefix under `rule.folder`, as "file:line: text".
std::vector<std::string> violations(const fs::path& root, const Rule& rule) {
    std::vector<std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(root / rule.folder)) {
        if (!entry.is_regular_file()) continue;
        const std::string ext = entry.path().extension().string();
        if (ext != ".hpp" && ext != ".cpp" && ext != ".cuh" && ext != ".cu") continue;
        std::ifstream in(entry.path());
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) {
            if (line.rfind("#include \"", 0) != 0) continue;
            const std::string target = line.substr(10);
            for (const std::string& prefix : rule.forbidden)
                if (target.rfind(prefix, 0) == 0)
                    out.push_back(fs::relative(entry.path(), root).string() + ":" + std::to_string(n) + ": " + line);
        }
    }
    return out;
}

TEST(Layering, NoIncludeRunsAgainstTheLayers) {
    const fs::path root = CUDAG_SOURCE_DIR;
    ASSERT_TRUE(fs::is_directory(root / "src")) << root;
    const std::vector<Rule> rules = {
        {"src/ci", {"pc/", "bn/", "io/", "cli/", "sim/", "run/"}, "ci/ is the math floor"},
        {"src/io", {"pc/", "bn/", "cli/", "run/"}, "io/ is generic: no learner's types"},
        {"src/pc", {"bn/", "cli/", "run/"}, "a learner includes neither another nor the command line"},
        {"src/bn", {"pc/", "cli/", "run/"}, "a learner includes neither another nor the command line"},
        {"src/core", {"ci/", "io/", "pc/", "bn/", "cli/", "sim/", "run/", "kernels/"}, "core/ is below everything"},
        {"src/run", {"cli/", "sim/"}, "run/ (the jobs) sits below the command line and the Python module"},
        {"python", {"cli/"}, "the Python module binds the library (run/), never the command line"},
        {"src", {"kernels/"}, "kernels/ is reached through registries declared on the src/ side"},
        {"mpi", {"ci/", "io/", "pc/", "bn/", "cli/", "run/", "kernels/"}, "mpi/ sits below the library"},
    };
    for (const Rule& rule : rules)
        for (const std::string& v : violations(root, rule)) ADD_FAILURE() << v << "  (" << rule.why << ")";
}

/// Lines of the files of `folder` whose name holds `part` (and ends in .cu) matching `re`.
std::vector<std::string> matches(const fs::path& root, const std::string& folder, const std::string& part,
                                 const std::regex& re) {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(root / folder)) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".cu" || name.find(part) == std::string::npos) continue;
        std::ifstream in(entry.path());
        std::string line;
        for (int n = 1; std::getline(in, line); ++n)
            if (std::regex_search(line, re)) out.push_back(folder + "/" + name + ":" + std::to_string(n) + ": " + line);
    }
    return out;
}

TEST(Layering, CudaEnginesLaunchNothingAndShareTheDeviceContext) {
    const fs::path root = CUDAG_SOURCE_DIR;
    if (!fs::is_directory(root / "kernels")) GTEST_SKIP() << "no kernels/ folder";
    for (const std::string& v : matches(root, "kernels", "engine", std::regex("<<<")))
        ADD_FAILURE() << v << "  (engine files launch through a kernel family's launch_* functions)";
    for (const std::string& v : matches(root, "kernels", "", std::regex("Stream>|Stream [a-z_]*;")))
        ADD_FAILURE() << v << "  (streams come from the device's DeviceContext)";
}

}  // namespace
