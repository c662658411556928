// SPDX-License-Identifier: Apache-2.0
// causal-learn parity: cudag pc --compat causal-learn on causal-learn's own test
// data equals every matching benchmark_returned_results file cell for cell.
// The reference files stay in ../shared/data (never copied into the project).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "io/dataset_io.hpp"
#include "pc/run.hpp"
#include "support/cl_matrix.hpp"
#include "support/paths.hpp"

using namespace cudag;

namespace {

struct Case {
    std::string file;
    int uc_rule;
    int uc_priority;
};

std::vector<Case> linear_cases(const std::string& dir) {
    std::vector<Case> out;
    const std::regex re(R"(linear_10_pc_fisherz_0\.05_stable_(\d)_(-?\d)\.txt)");
    for (const auto& e : std::filesystem::directory_iterator(dir + "/benchmark_returned_results")) {
        std::smatch m;
        const std::string name = e.path().filename().string();
        if (std::regex_match(name, m, re)) out.push_back({e.path().string(), std::stoi(m[1]), std::stoi(m[2])});
    }
    std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.file < b.file; });
    return out;
}

}  // namespace

TEST(CausalLearnParity, LinearTenFisherZEveryOrientationOption) {
    const std::string shared = test::shared_data_dir();
    if (shared.empty()) GTEST_SKIP() << "../shared/data/causal-learn not found: parity test skipped";
    const std::string dir = shared + "/causal-learn";
    const Dataset data = io::read_dataset(dir + "/data_linear_10.txt");
    const auto cases = linear_cases(dir);
    ASSERT_GE(cases.size(), 7u) << "expected the 7 linear_10 fisherz reference files";
    for (const Case& c : cases) {
        pc::PcConfig cfg;
        cfg.alpha = 0.05;
        cfg.compat = skeleton::Compat::CausalLearn;
        cfg.uc_rule = c.uc_rule;
        cfg.uc_priority = c.uc_priority;
        cfg.backend.threads = 2;
        const pc::PcResult r = pc::run_pc(data, cfg);
        EXPECT_TRUE(test::cl_matrices_equal(test::to_cl_matrix(r.cpdag), test::read_cl_matrix(c.file), r.names))
            << "uc_rule " << c.uc_rule << " uc_priority " << c.uc_priority << " (" << c.file << ")";
    }
}

TEST(CausalLearnParity, DefaultModeSkeletonMatchesCausalLearnSkeleton) {
    // pcalg semantics (first separating set, p >= alpha) remove the same edges
    // as causal-learn's exhaustive search unless a p-value equals alpha exactly.
    const std::string shared = test::shared_data_dir();
    if (shared.empty()) GTEST_SKIP() << "../shared/data/causal-learn not found: parity test skipped";
    const std::string dir = shared + "/causal-learn";
    const Dataset data = io::read_dataset(dir + "/data_linear_10.txt");
    pc::PcConfig cfg;
    cfg.alpha = 0.05;
    const pc::PcResult r = pc::run_pc(data, cfg);
    const auto ref = test::read_cl_matrix(dir +
                                          "/benchmark_returned_results/"
                                          "linear_10_pc_fisherz_0.05_stable_0_0.txt");
    for (std::int32_t i = 0; i < data.n_vars; ++i)
        for (std::int32_t j = 0; j < data.n_vars; ++j)
            EXPECT_EQ(r.skeleton.has(i, j), ref[i][j] != 0) << r.names[i] << "-" << r.names[j];
}
