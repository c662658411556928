// SPDX-License-Identifier: Apache-2.0
// The layer rules of docs/architecture.md, checked on the source tree: a forbidden include
// fails the test naming the file, the line and the rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Rule {
    std::string folder;                  ///< under the source root
    std::vector<std::string> forbidden;  ///< include prefixes, e.g. "pc/"
    std::string why;
    std::vector<std::string> allowed = {};  ///< includes exempt from `forbidden` (exact targets)
};

/// Every `#include "prefix..."` of a forbidden prefix under `rule.folder`, as "file:line: text"
/// (none when the folder does not exist yet, as src/fci/ on a branch without it).
std::vector<std::string> violations(const fs::path& root, const Rule& rule) {
    std::vector<std::string> out;
    if (!fs::is_directory(root / rule.folder)) return out;
    for (const auto& entry : fs::recursive_directory_iterator(root / rule.folder)) {
        if (!entry.is_regular_file()) continue;
        const std::string ext = entry.path().extension().string();
        if (ext != ".hpp" && ext != ".cpp" && ext != ".cuh" && ext != ".cu") continue;
        std::ifstream in(entry.path());
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) {
            if (line.rfind("#include \"", 0) != 0) continue;
            const std::string target = line.substr(10);
            if (std::any_of(rule.allowed.begin(), rule.allowed.end(),
                            [&target](const std::string& a) { return target.rfind(a + "\"", 0) == 0; }))
                continue;
            for (const std::string& prefix : rule.forbidden)
                if (target.rfind(prefix, 0) == 0)
                    out.push_back(fs::relative(entry.path(), root).string() + ":" + std::to_string(n) + ": " + line);
        }
    }
    return out;
}

/// The rules of docs/architecture.md's table.
std::vector<Rule> layer_rules() {
    std::vector<Rule> rules = {
        {"src/ci",
         {"pc/", "bn/", "fci/", "pcmci/", "skeleton/", "bootstrap/", "io/", "cli/", "sim/", "run/"},
         "ci/ is the math floor"},
        {"src/io",
         {"pc/", "bn/", "fci/", "pcmci/", "skeleton/", "bootstrap/", "cli/", "run/"},
         "io/ is generic: no learner's types"},
        {"src/skeleton",
         {"pc/", "bn/", "fci/", "pcmci/", "bootstrap/", "cli/", "sim/", "run/"},
         "skeleton/ is beneath every learner: it includes none (nor the jobs or the command line)"},
        // The bootstrap (resampling, the replicate scheduler, the frequency tables, consensus
        // and the checkpoint) is beneath the learners too: it takes core/, mpi/, io/ and
        // skeleton/ (the stop a resume test asks for), and a learner's replicates as a function.
        {"src/bootstrap",
         {"pc/", "bn/", "fci/", "pcmci/", "ci/", "cli/", "sim/", "run/"},
         "bootstrap/ is beneath every learner: it includes none (nor the jobs or the command line)"},
        {"src/core",
         {"ci/", "io/", "skeleton/", "bootstrap/", "pc/", "bn/", "fci/", "pcmci/", "cli/", "sim/", "run/", "kernels/"},
         "core/ is below everything"},
        {"src/run", {"cli/", "sim/"}, "run/ (the jobs) sits below the command line and the Python module"},
        {"python",
         {"cli/"},
         "the Python module binds the library (run/), never the command line (but its option table)",
         {"cli/option_table.hpp"}},
        {"src", {"kernels/"}, "kernels/ is reached through registries declared on the src/ side"},
        {"mpi",
         {"ci/", "io/", "skeleton/", "bootstrap/", "pc/", "bn/", "fci/", "pcmci/", "cli/", "run/", "kernels/"},
         "mpi/ sits below the library"},
    };
    // The learners, each a folder of src/ (fci/ may not exist yet: its rule holds once it
    // does). None includes another, the jobs or the command line; the constraint-based ones
    // share what they have in common through skeleton/. A new learner is added here.
    const std::vector<std::string> learners = {"pc", "bn", "fci", "pcmci"};
    for (const std::string& learner : learners) {
        Rule rule{"src/" + learner, {"cli/", "run/"}, "a learner includes neither another nor the command line"};
        for (const std::string& other : learners)
            if (other != learner) rule.forbidden.push_back(other + "/");
        rules.push_back(rule);
    }
    return rules;
}

TEST(Layering, NoIncludeRunsAgainstTheLayers) {
    const fs::path root = CUDAG_SOURCE_DIR;
    ASSERT_TRUE(fs::is_directory(root / "src")) << root;
    for (const Rule& rule : layer_rules())
        for (const std::string& v : violations(root, rule)) ADD_FAILURE() << v << "  (" << rule.why << ")";
}

TEST(Layering, TheRulesCoverALearnerFolderThatAppearsLater) {
    // A tree with src/fci/ including skeleton/ (allowed) and pc/ (not), src/skeleton/
    // including pc/ (not), and src/bootstrap/ including skeleton/ (allowed) and fci/ (not).
    const fs::path root = fs::temp_directory_path() / ("cudag_layering_" + std::to_string(std::random_device{}()));
    fs::remove_all(root);
    fs::create_directories(root / "src/fci");
    fs::create_directories(root / "src/skeleton");
    std::ofstream(root / "src/fci/fci.cpp") << "#include \"skeleton/skeleton.hpp\"\n#include \"pc/orient.hpp\"\n";
    std::ofstream(root / "src/skeleton/skeleton.cpp") << "#include \"pc/result.hpp\"\n";
    fs::create_directories(root / "src/bootstrap");
    std::ofstream(root / "src/bootstrap/scheduler.cpp")
        << "#include \"skeleton/skeleton.hpp\"\n#include \"fci/fci.hpp\"\n";
    std::vector<std::string> found;
    for (const Rule& rule : layer_rules())
        for (const std::string& v : violations(root, rule)) found.push_back(v);
    fs::remove_all(root);
    std::sort(found.begin(), found.end());
    const std::vector<std::string> want = {"src/bootstrap/scheduler.cpp:2: #include \"fci/fci.hpp\"",
                                           "src/fci/fci.cpp:2: #include \"pc/orient.hpp\"",
                                           "src/skeleton/skeleton.cpp:1: #include \"pc/result.hpp\""};
    EXPECT_EQ(found, want);
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
